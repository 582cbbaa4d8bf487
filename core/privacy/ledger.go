package privacy

import (
	"encoding/json"
	"math"
	"sort"

	"github.com/uldplab/uldp/core/format"
)

// Spend is one entry in the ledger: a labelled (ε, δ) release, optionally
// with its zCDP parameter ρ, on all users (Group "") or on one of several
// disjoint user groups (parallel composition).
type Spend struct {
	Label string  `json:"label"`
	Eps   float64 `json:"eps"`
	Delta float64 `json:"delta"`
	// Rho is the step's ρ-zCDP parameter when known (a Gaussian mechanism
	// with its real σ: ρ = Δ²/(2σ²)). 0 means unknown: a zCDP total then
	// takes a pure step (δ = 0) as ρ = ε²/2 and any other step as
	// δ-approximately ε²/2-zCDP, adding its δ.
	Rho   float64 `json:"rho,omitempty"`
	Group string  `json:"group,omitempty"`
}

// Ledger records spends and totals them under one rule. Spends on all users
// compose sequentially; spends on disjoint groups compose in parallel: a user
// in group g is affected by the all-users spends and by g's, so the total is
// the worst group.
type Ledger struct {
	rule   Rule
	slack  float64
	spends []Spend
}

// NewLedger returns an empty ledger. slack is the δ' of the Advanced and ZCDP
// rules (ignored by Basic).
func NewLedger(rule Rule, slack float64) *Ledger {
	return &Ledger{rule: rule, slack: slack}
}

// Rule returns the composition rule in force.
func (l *Ledger) Rule() Rule { return l.rule }

// Add records a spend after checking it.
func (l *Ledger) Add(s Spend) error {
	if err := s.check(); err != nil {
		return format.Errorf("spend %q: %w", s.Label, err)
	}
	l.spends = append(l.spends, s)
	return nil
}

// Spends returns the recorded spends in order.
func (l *Ledger) Spends() []Spend { return append([]Spend(nil), l.spends...) }

// Total returns the guarantee of everything spent so far under the rule.
func (l *Ledger) Total() (Budget, error) {
	if err := l.checkSlack(); err != nil {
		return Budget{}, err
	}
	if len(l.spends) == 0 {
		return Budget{}, nil
	}
	var shared []Spend
	groups := map[string][]Spend{}
	for _, s := range l.spends {
		if s.Group == "" {
			shared = append(shared, s)
		} else {
			groups[s.Group] = append(groups[s.Group], s)
		}
	}
	// A user outside every group still sees the shared spends.
	parts := [][]Spend{shared}
	names := make([]string, 0, len(groups))
	for g := range groups {
		names = append(names, g)
	}
	sort.Strings(names)
	for _, g := range names {
		parts = append(parts, append(append([]Spend(nil), shared...), groups[g]...))
	}
	var worst []Budget
	for _, p := range parts {
		if len(p) == 0 {
			continue
		}
		b, _, _, err := l.totalOf(l.sum(p))
		if err != nil {
			return Budget{}, err
		}
		worst = append(worst, b)
	}
	return Parallel(worst...), nil
}

func (l *Ledger) checkSlack() error {
	if _, err := ParseRule(string(l.rule)); err != nil {
		return err
	}
	if l.rule.NeedsSlack() && !(l.slack > 0 && l.slack < 1) {
		return format.Errorf("delta-slack = %v: %s composition needs an extra failure probability 0 < δ' < 1 (e.g. 1e-6)", l.slack, l.rule)
	}
	return nil
}

// sums holds the sufficient statistics of a list of spends.
type sums struct {
	eps, eps2, lossMean, delta float64
	// rho is Σρ_i (ε_i²/2 for a step with no known ρ) and rhoDelta the δ's
	// of the steps that are only approximately zCDP.
	rho, rhoDelta float64
	// n spends, all equal to first if same (what optimal composition
	// needs).
	n     int
	first Spend
	same  bool
}

func (s *sums) scale(k int) {
	f := float64(k)
	s.eps *= f
	s.eps2 *= f
	s.lossMean *= f
	s.delta *= f
	s.rho *= f
	s.rhoDelta *= f
	s.n *= k
}

func (l *Ledger) sum(spends []Spend) sums {
	s := sums{same: true}
	for i, sp := range spends {
		s.eps += sp.Eps
		s.eps2 += sp.Eps * sp.Eps
		s.lossMean += sp.Eps * math.Expm1(sp.Eps)
		s.delta += sp.Delta
		if sp.Rho > 0 {
			s.rho += sp.Rho
		} else {
			s.rho += sp.Eps * sp.Eps / 2
			s.rhoDelta += sp.Delta
		}
		if i == 0 {
			s.first = sp
		} else if sp.Eps != s.first.Eps || sp.Delta != s.first.Delta {
			s.same = false
		}
		s.n++
	}
	return s
}

// totalOf applies the rule to the sums and explains the result.
func (l *Ledger) totalOf(s sums) (Budget, string, []Step, error) {
	switch l.rule {
	case Advanced:
		root := math.Sqrt(2 * math.Log(1/l.slack) * s.eps2)
		eps := root + s.lossMean
		return Budget{eps, s.delta + l.slack},
			"ε' = √(2 ln(1/δ')·Σε²) + Σε(e^ε − 1), δ = Σδ + δ'",
			[]Step{{"√(2 ln(1/δ')·Σε²)", "concentration of the privacy loss (Azuma)", root},
				{"Σε(e^ε − 1)", "expected privacy loss", s.lossMean}, {"ε'", "sum", eps}}, nil
	case ZCDP:
		eps := ZCDPToDP(s.rho, l.slack)
		return Budget{eps, s.rhoDelta + l.slack},
			"ρ = Σρ_i, ε = ρ + 2√(ρ ln(1/δ')), δ = Σδ_i + δ' (δ_i of the steps that are only approximately zCDP)",
			[]Step{{"ρ", "Σρ_i (ε_i²/2 where no ρ is known)", s.rho}, {"ε", "ρ + 2√(ρ ln(1/δ'))", eps},
				{"δ", "Σδ_i of (ε, δ) steps + δ'", s.rhoDelta + l.slack}}, nil
	case Optimal:
		if !s.same {
			return Budget{}, "", nil, format.Errorf("optimal composition is exact for identical steps only, and these differ (%q is (ε = %g, δ = %g)); use basic, advanced or zcdp", s.first.Label, s.first.Eps, s.first.Delta)
		}
		b, steps := optimalTotal(s.n, s.first.Eps, s.first.Delta, l.slack)
		return b, "smallest ε' with Σ_ℓ Bin(k, 1/(1+e^ε))(ℓ)·max(0, 1 − e^{ε'−(k−2ℓ)ε}) ≤ δ', δ = 1 − (1−δ)^k(1−δ')", steps, nil
	}
	return Budget{s.eps, s.delta}, "ε = Σε, δ = Σδ",
		[]Step{{"ε", "Σε_i", s.eps}, {"δ", "Σδ_i", s.delta}}, nil
}

// MarshalJSON writes the rule, the spends and the total (or the reason no
// total exists), so a trace can carry the ledger as it stood.
func (l *Ledger) MarshalJSON() ([]byte, error) {
	j := struct {
		Rule   Rule    `json:"rule"`
		Slack  float64 `json:"delta_slack,omitempty"`
		Spends []Spend `json:"spends"`
		Total  *Budget `json:"total,omitempty"`
		Error  string  `json:"error,omitempty"`
	}{Rule: l.rule, Spends: l.Spends()}
	if j.Spends == nil {
		j.Spends = []Spend{}
	}
	if l.rule.NeedsSlack() {
		j.Slack = l.slack
	}
	if t, err := l.Total(); err != nil {
		j.Error = err.Error()
	} else {
		j.Total = &t
	}
	return json.Marshal(j)
}
