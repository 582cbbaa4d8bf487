package privacy

import (
	"fmt"
	"math"
	"strings"
)

// Budget is an (ε, δ) pair.
type Budget struct {
	Eps   float64 `json:"eps"`
	Delta float64 `json:"delta"`
}

// Rule is a sequential composition theorem.
type Rule string

// The composition rules the ledger and the CLI offer. Parallel composition
// (disjoint user groups) is not a rule but a structure: see Spend.Group.
const (
	// Basic adds the ε's and the δ's.
	Basic Rule = "basic"
	// Advanced is Dwork, Rothblum & Vadhan (2010, Thm III.3) in its
	// heterogeneous form: ε' = √(2 ln(1/δ')·Σε_i²) + Σε_i(e^{ε_i} − 1),
	// δ = Σδ_i + δ'.
	Advanced Rule = "advanced"
	// ZCDP adds zero-concentrated DP parameters ρ (Bun & Steinke 2016) and
	// converts once at the end: ε = ρ + 2√(ρ ln(1/δ')), δ = δ'. Each step must
	// have a ρ: pure ε-DP steps have ρ = ε²/2 (Prop. 1.4), Gaussian steps
	// ρ = Δ²/(2σ²) (Prop. 1.6).
	ZCDP Rule = "zcdp"
)

// Rules lists the sequential composition rules.
var Rules = []Rule{Basic, Advanced, ZCDP}

// ParseRule reads a rule name.
func ParseRule(s string) (Rule, error) {
	for _, r := range Rules {
		if string(r) == s {
			return r, nil
		}
	}
	names := make([]string, len(Rules))
	for i, r := range Rules {
		names[i] = string(r)
	}
	return "", fmt.Errorf("rule %q: use one of %s", s, strings.Join(names, ", "))
}

// NeedsSlack reports whether the rule spends an extra δ' of its own.
func (r Rule) NeedsSlack() bool { return r == Advanced || r == ZCDP }

// ZCDPToDP converts ρ-zCDP to (ε, δ)-DP: ε = ρ + 2√(ρ ln(1/δ))
// (Bun & Steinke 2016, Prop. 1.3).
func ZCDPToDP(rho, delta float64) float64 {
	return rho + 2*math.Sqrt(rho*math.Log(1/delta))
}

// RhoFor returns the largest ρ whose conversion at δ gives at most ε: the
// inverse of ZCDPToDP, ρ = (√(ln(1/δ) + ε) − √(ln(1/δ)))².
func RhoFor(eps, delta float64) float64 {
	l := math.Log(1 / delta)
	r := math.Sqrt(l+eps) - math.Sqrt(l)
	return r * r
}

// GaussianRho returns ρ = Δ²/(2σ²), the zCDP parameter of the Gaussian
// mechanism (Bun & Steinke 2016, Prop. 1.6).
func GaussianRho(sens, sigma float64) float64 { return sens * sens / (2 * sigma * sigma) }

// Parallel composes mechanisms run on disjoint sets of users: each user is
// affected by one of them only, so the total is the worst part.
func Parallel(parts ...Budget) Budget {
	var b Budget
	for _, p := range parts {
		b.Eps = math.Max(b.Eps, p.Eps)
		b.Delta = math.Max(b.Delta, p.Delta)
	}
	return b
}

// Composition is the result of composing k identical steps.
type Composition struct {
	Rule    Rule    `json:"rule"`
	K       int     `json:"k"`
	Per     Budget  `json:"per_step"`
	Slack   float64 `json:"delta_slack,omitempty"`
	Rho     float64 `json:"rho,omitempty"`
	Total   Budget  `json:"total"`
	Formula string  `json:"formula"`
	// Basic is the basic-composition total, for comparison.
	Basic Budget `json:"basic"`
	Steps []Step `json:"steps"`
}

// Compose composes k steps, each (per.Eps, per.Delta)-DP, under rule, with
// extra failure probability slack for the rules that need one. Under ZCDP a
// step with δ = 0 is pure ε-DP (ρ = ε²/2); a step with δ > 0 is read as a
// Gaussian mechanism calibrated exactly to (ε, δ) (analytic Gaussian), whose
// ρ is Δ²/(2σ²).
func Compose(rule Rule, per Budget, k int, slack float64) (Composition, error) {
	if err := CheckEps(per.Eps); err != nil {
		return Composition{}, err
	}
	if !(per.Delta >= 0 && per.Delta < 1) {
		return Composition{}, fmt.Errorf("delta = %v: a step's δ must be in [0, 1)", per.Delta)
	}
	if k < 1 || k > 1e9 {
		return Composition{}, fmt.Errorf("k = %d: the number of steps must be between 1 and 10⁹", k)
	}
	l := NewLedger(rule, slack)
	if err := l.checkSlack(); err != nil {
		return Composition{}, err
	}
	s := Spend{Label: "step", Eps: per.Eps, Delta: per.Delta}
	var steps []Step
	if rule == ZCDP && per.Delta > 0 {
		cal, err := AnalyticGaussianSigma(per.Eps, per.Delta, 1)
		if err != nil {
			return Composition{}, err
		}
		s.Rho = GaussianRho(1, cal.Scale)
		steps = append(steps, Step{"σ/Δ", "analytic Gaussian σ for one (ε, δ) step", cal.Scale},
			Step{"ρ", "Δ²/(2σ²) per step", s.Rho})
	}
	sum, err := l.sum([]Spend{s})
	if err != nil {
		return Composition{}, err
	}
	sum.scale(float64(k))
	total, formula, more := l.totalOf(sum)
	c := Composition{
		Rule: rule, K: k, Per: per, Total: total, Formula: formula,
		Basic: Budget{sum.eps, sum.delta}, Steps: append(steps, more...),
	}
	if rule.NeedsSlack() {
		c.Slack = slack
	}
	if rule == ZCDP {
		c.Rho = sum.rho
	}
	return c, nil
}
