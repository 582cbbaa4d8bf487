package privacy

import (
	"encoding/json"
	"math"
	"strings"

	"github.com/uldplab/uldp/core/format"
)

// Op is a comparison in a precondition.
type Op string

// The comparisons preconditions use.
const (
	Below   Op = "<"
	AtMost  Op = "≤"
	AtLeast Op = "≥"
	Above   Op = ">"
	// Holds marks a yes-or-no requirement with no numbers (see Fact).
	Holds Op = "holds"
)

// Precondition is one requirement of a proof, with the numbers on both sides:
// "n ≥ 4κ+2: 14 ≥ 14, met".
type Precondition struct {
	What string  `json:"what"`
	Have float64 `json:"have"`
	Op   Op      `json:"op"`
	Need float64 `json:"need"`
	Met  bool    `json:"met"`
}

// Require evaluates have Op need and records the outcome.
func Require(what string, have float64, op Op, need float64) Precondition {
	var met bool
	switch op {
	case Below:
		met = have < need
	case AtMost:
		met = have <= need
	case AtLeast:
		met = have >= need
	case Above:
		met = have > need
	default: // Holds has no numbers to compare: use Fact
		panic("privacy: unknown Op " + string(op))
	}
	return Precondition{What: what, Have: have, Op: op, Need: need, Met: met}
}

// Fact is a yes-or-no precondition, such as "the code is the mechanism the
// proof is about".
func Fact(what string, holds bool) Precondition {
	return Precondition{What: what, Op: Holds, Met: holds}
}

// String prints the precondition with its numbers.
func (p Precondition) String() string {
	if p.Op == Holds {
		if p.Met {
			return p.What + ": holds"
		}
		return p.What + ": does NOT hold"
	}
	state := "met"
	if !p.Met {
		state = "NOT met"
	}
	return format.Sprintf("%s: %.6g %s %.6g, %s", p.What, p.Have, p.Op, p.Need, state)
}

// Guarantee is what a run may claim: (Eps, Delta)-DP at user level (or
// under another Relation) in Mode, provided every precondition holds. Non-private runs have Eps = +Inf.
type Guarantee struct {
	Eps           float64
	Delta         float64
	Mode          Mode
	Preconditions []Precondition
	// Note says in one sentence where the claim comes from ("Theorem 3.3
	// with the spec's errata A1, A2").
	Note string
	// Relation is whose change the claim covers: "" for a whole user (user
	// level), SemiSensitive for one example's sensitive value.
	Relation string
}

// SemiSensitive is the Relation of semi-sensitive DP: neighbours share
// every public feature and differ in one example's sensitive value.
const SemiSensitive = "semi-sensitive"

// Certified reports whether the claim is backed: a private mode and every
// precondition met. Teaching runs can be certified when their computed
// guarantee's preconditions hold.
func (g Guarantee) Certified() bool {
	if g.Mode == NonPrivate || math.IsInf(g.Eps, 1) {
		return false
	}
	for _, p := range g.Preconditions {
		if !p.Met {
			return false
		}
	}
	return true
}

// Unmet returns the preconditions that fail.
func (g Guarantee) Unmet() []Precondition {
	var out []Precondition
	for _, p := range g.Preconditions {
		if !p.Met {
			out = append(out, p)
		}
	}
	return out
}

// Level says whose change the claim covers, as the claim's line words
// it: "at user level", or "for the sensitive feature (semi-sensitive)".
func (g Guarantee) Level() string {
	if g.Relation == SemiSensitive {
		return "for the sensitive feature (semi-sensitive)"
	}
	return "at user level"
}

// String summarises the guarantee in one line.
func (g Guarantee) String() string {
	if g.Mode == NonPrivate || math.IsInf(g.Eps, 1) {
		return "no privacy guarantee (" + g.Mode.String() + " mode)"
	}
	var b strings.Builder
	b.WriteString(format.Sprintf("(ε = %.4g, δ = %.4g)-DP %s, %s mode", g.Eps, g.Delta, g.Level(), g.Mode))
	if u := g.Unmet(); len(u) > 0 {
		if len(u) == 1 {
			b.WriteString(": NOT certified, 1 precondition unmet")
		} else {
			b.WriteString(format.Sprintf(": NOT certified, %d preconditions unmet", len(u)))
		}
	} else {
		b.WriteString(": certified")
	}
	return b.String()
}

type guaranteeJSON struct {
	Eps           *float64       `json:"eps"` // null when no guarantee
	Delta         *float64       `json:"delta"`
	Mode          Mode           `json:"mode"`
	Certified     bool           `json:"certified"`
	Preconditions []Precondition `json:"preconditions"`
	Note          string         `json:"note,omitempty"`
	Relation      string         `json:"relation,omitempty"`
}

// MarshalJSON writes eps and delta as null for non-private runs (JSON has no
// infinity) and adds the certified flag.
func (g Guarantee) MarshalJSON() ([]byte, error) {
	j := guaranteeJSON{Mode: g.Mode, Certified: g.Certified(), Preconditions: g.Preconditions, Note: g.Note, Relation: g.Relation}
	if j.Preconditions == nil {
		j.Preconditions = []Precondition{}
	}
	if g.Mode != NonPrivate && !math.IsInf(g.Eps, 1) {
		j.Eps, j.Delta = &g.Eps, &g.Delta
	}
	return json.Marshal(j)
}
