package privacy

import (
	"math"
	"strings"

	"github.com/uldplab/uldp/core/format"
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
	// converts once at the end: ε = ρ + 2√(ρ ln(1/δ')), δ = Σδ_i + δ'. A
	// Gaussian step with a known σ is exactly ρ-zCDP with ρ = Δ²/(2σ²)
	// (Prop. 1.6) and adds no δ; a pure ε-DP step has ρ = ε²/2 (Prop. 1.4);
	// any other (ε, δ)-DP step is only δ-approximately ε²/2-zCDP (their
	// approximate zCDP), so its δ is added.
	ZCDP Rule = "zcdp"
	// Optimal is the exact optimal composition of k identical (ε, δ)-DP
	// steps (Kairouz, Oh & Viswanath 2015, Thm 3.3): the smallest ε' that
	// holds for every choice of such steps, at δ = 1 − (1−δ)^k·(1 − δ').
	// It is defined for identical steps only.
	Optimal Rule = "optimal"
)

// Rules lists the sequential composition rules.
var Rules = []Rule{Basic, Advanced, ZCDP, Optimal}

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
	return "", format.Errorf("rule %q: use one of %s", s, strings.Join(names, ", "))
}

// NeedsSlack reports whether the rule spends an extra δ' of its own.
func (r Rule) NeedsSlack() bool { return r != Basic }

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

// GaussianStep is a Gaussian mechanism with noise σ = sigmaOverSens·Δ
// spent as (ε, δ): what composition may know about it, its exact ρ
// included. δ must be at least the mechanism's true δ at ε
// (GaussianDelta), which the caller has from its calibration.
func GaussianStep(label string, eps, delta, sigmaOverSens float64) Spend {
	return Spend{Label: label, Eps: eps, Delta: delta, Rho: GaussianRho(1, sigmaOverSens)}
}

// Kind says what composition knows about a step, in words.
func (s Spend) Kind() string {
	switch {
	case s.Rho > 0:
		return format.Sprintf("Gaussian mechanism, ρ = %.4g", s.Rho)
	case s.Delta == 0:
		return "pure ε-DP"
	}
	return "(ε, δ)-DP, nothing more known"
}

// Composition is the result of composing k identical steps under one rule.
type Composition struct {
	Rule    Rule    `json:"rule"`
	K       int     `json:"k"`
	Per     Budget  `json:"per_step"`
	Kind    string  `json:"step_kind"`
	Slack   float64 `json:"delta_slack,omitempty"`
	Rho     float64 `json:"rho,omitempty"`
	Total   Budget  `json:"total"`
	Formula string  `json:"formula"`
	// Basic is the basic-composition total, for comparison.
	Basic Budget `json:"basic"`
	Steps []Step `json:"steps"`
}

// Compose composes k copies of step under rule, with extra failure
// probability slack for the rules that need one. What the step is matters
// under ZCDP only (see Spend.Rho): build a Gaussian step with GaussianStep.
func Compose(rule Rule, step Spend, k int, slack float64) (Composition, error) {
	if err := checkStep(step, k); err != nil {
		return Composition{}, err
	}
	l := NewLedger(rule, slack)
	if err := l.checkSlack(); err != nil {
		return Composition{}, err
	}
	sum := l.sum([]Spend{step})
	sum.scale(k)
	total, formula, steps, err := l.totalOf(sum)
	if err != nil {
		return Composition{}, err
	}
	c := Composition{
		Rule: rule, K: k, Per: Budget{step.Eps, step.Delta}, Kind: step.Kind(), Total: total, Formula: formula,
		Basic: Budget{sum.eps, sum.delta}, Steps: steps,
	}
	if rule.NeedsSlack() {
		c.Slack = slack
	}
	if rule == ZCDP {
		c.Rho = sum.rho
	}
	return c, nil
}

// better reports whether a beats b: a smaller ε by more than 0.1 %, or
// about the same ε with a smaller δ.
func better(a, b Budget) bool {
	const tie = 1e-3
	switch {
	case a.Eps < b.Eps*(1-tie):
		return true
	case a.Eps > b.Eps*(1+tie):
		return false
	}
	return a.Delta < b.Delta || (a.Delta == b.Delta && a.Eps < b.Eps)
}

// check refuses a step whose ε, δ or ρ is out of range.
func (s Spend) check() error {
	if err := CheckEps(s.Eps); err != nil {
		return err
	}
	if !(s.Delta >= 0 && s.Delta < 1) {
		return format.Errorf("delta = %v: a step's δ must be in [0, 1)", s.Delta)
	}
	if !(s.Rho >= 0) || math.IsInf(s.Rho, 1) {
		return format.Errorf("rho = %v: a step's ρ must be a finite number ≥ 0", s.Rho)
	}
	return nil
}

func checkStep(step Spend, k int) error {
	if err := step.check(); err != nil {
		return err
	}
	if k < 1 || k > 1e9 {
		return format.Errorf("k = %d: the number of steps must be between 1 and 10⁹", k)
	}
	return nil
}

// Comparison is k identical steps composed under every rule. Every rule's
// total is sound, and each spends at most kδ + δ' of δ, so the best figure
// is the smallest ε among them; within 0.1 % of it, the smaller δ wins
// (3 steps of ε = 1: basic's (3, 3δ) over optimal's (2.99997, 3δ + δ')).
type Comparison struct {
	K     int           `json:"k"`
	Per   Budget        `json:"per_step"`
	Kind  string        `json:"step_kind"`
	Slack float64       `json:"delta_slack"`
	Rules []Composition `json:"rules"`
	// Best is the rule with the smallest ε (see above) and Total its
	// figure.
	Best  Rule   `json:"best"`
	Total Budget `json:"total"`
}

// CompareRules composes k copies of step under every rule, with extra
// failure probability slack for the rules that spend one.
func CompareRules(step Spend, k int, slack float64) (Comparison, error) {
	if !(slack > 0 && slack < 1) {
		return Comparison{}, format.Errorf("delta-slack = %v: advanced, zCDP and optimal composition need an extra failure probability 0 < δ' < 1 (e.g. 1e-6)", slack)
	}
	c := Comparison{K: k, Per: Budget{step.Eps, step.Delta}, Kind: step.Kind(), Slack: slack}
	for _, r := range Rules {
		comp, err := Compose(r, step, k, slack)
		if err != nil {
			return Comparison{}, err
		}
		c.Rules = append(c.Rules, comp)
		if c.Best == "" || better(comp.Total, c.Total) {
			c.Best, c.Total = r, comp.Total
		}
	}
	return c, nil
}
