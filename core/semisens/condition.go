package semisens

import (
	"math"

	"github.com/uldplab/uldp/core/format"
)

// A ConditionPart is one inequality of Condition 14, measured: it holds
// when Value stands to Bound as Asks says.
type ConditionPart struct {
	Name  string  `json:"name"`
	Text  string  `json:"text"`
	Value float64 `json:"value"`
	Bound float64 `json:"bound"`
	// Asks is the relation the part asks for: "≤", "≥" or ">".
	Asks  string `json:"asks"`
	Holds bool   `json:"holds"`
}

// negation is each relation's opposite.
var negation = map[string]string{"≤": ">", "≥": "<", ">": "≤"}

// Relation is how Value stands to Bound: the relation asked for when the
// part holds, its negation when not.
func (pt ConditionPart) Relation() string {
	if pt.Holds {
		return pt.Asks
	}
	return negation[pt.Asks]
}

// Condition is Condition 14 of the MWU analysis checked on one step, with
// the drop in the potential it promises and the one the step made. Only a
// simulation can compute it: it reads the true values.
type Condition struct {
	// Parts are η ≤ 1/c and (i)–(vi), in the paper's order.
	Parts []ConditionPart `json:"parts"`
	// Holds is true when every part does; Lemma 16 then promises
	// Drop ≥ η².
	Holds bool `json:"holds"`
	// Error is E = ‖f(D) − f(p)‖ before the step.
	Error float64 `json:"error"`
	// Noise is ‖z‖ for the released v = f(D) + z, and NoiseAlong its part
	// along the error, ⟨z, f(D) − f(p)⟩/E (signed; 0 when E = 0): the
	// only part Lemma 16's progress depends on, which does not grow with
	// the dimension as ‖z‖ does.
	Noise      float64 `json:"noise"`
	NoiseAlong float64 `json:"noise_along"`
	// Drop is Ψ before the step minus Ψ after it.
	Drop float64 `json:"drop"`
	// Lemma is Lemma 16's η²; Exact is the bound η(A_true − A_syn) − η²·Q,
	// which holds for any step, Condition 14 or not.
	Lemma float64 `json:"lemma"`
	Exact float64 `json:"exact"`
	// Scores are the raw scores ⟨φ, f(xᵢ^pub, y)⟩ before truncation (row i
	// at i·k) and Clipped the fraction beyond ±c.
	Scores  []float64 `json:"-"`
	Clipped float64   `json:"clipped"`
}

// NoiseAcross is the part of the noise z across the error: what grows
// with the dimension.
func (c Condition) NoiseAcross() float64 {
	return math.Sqrt(math.Max(0, c.Noise*c.Noise-c.NoiseAlong*c.NoiseAlong))
}

// CheckCondition evaluates Condition 14 for the MWU step from the beliefs
// before on query q with the released v and ι (the ι the step used), and
// makes the step on a copy to measure the potential's drop. truth holds
// the sensitive values, 0-based. Condition 14's (ii) is checked two-sided,
// as the proof needs.
func CheckCondition(pub *Public, truth []int, before *Beliefs, q Query, v []float64, iota float64, p MWUParams) (Condition, error) {
	if len(truth) != pub.N() || before.n != pub.N() || before.k != pub.K {
		return Condition{}, format.Errorf("%d values and %d × %d beliefs for %d examples of k = %d: give one of each per example", len(truth), before.n, before.k, pub.N(), pub.K)
	}
	after := before.Clone()
	st, err := MWU(pub, after, q, v, iota, p)
	if err != nil {
		return Condition{}, err
	}
	return condition(pub, truth, before, after, q, v, iota, st.Phi, st.Before, p), nil
}

// Condition evaluates Condition 14 on the inspected update (see
// CheckCondition) from what the update computed, without making it again:
// what a lesson checks on every update of a run. truth holds the
// sensitive values, 0-based; p is the step's η and c.
func (in Inspection) Condition(truth []int, p MWUParams) (Condition, error) {
	pub := in.Public
	if len(truth) != pub.N() {
		return Condition{}, format.Errorf("%d values for %d examples: give one per example", len(truth), pub.N())
	}
	if err := p.Validate(); err != nil {
		return Condition{}, err
	}
	return condition(pub, truth, in.Before, in.After, in.Query, in.Step.V, in.Step.IotaUsed, in.Step.Phi, in.Step.Before, p), nil
}

// condition measures Condition 14 on the step from before to after, which
// used direction φ from the beliefs' answer fP.
func condition(pub *Public, truth []int, before, after *Beliefs, q Query, v []float64, iota float64, phi, fP []float64, p MWUParams) Condition {
	n, k := pub.N(), pub.K
	eta, c := p.Eta, p.C
	fD := answerAt(pub, truth, q, nil)
	e := dist(fD, fP)
	// (ii): the noise along the error. (iii), (iv): v − f(p) = ι·φ, and
	// clipping rescales f(x, y) so that ⟨φ, f^clip⟩ = trunc_c(⟨φ, f⟩),
	// hence ⟨v − f(p), f^clip − f⟩ = ι·(trunc_c(s) − s) for a score s.
	var along, zz float64
	for j := range v {
		along += (v[j] - fD[j]) * (fD[j] - fP[j])
		zz += (v[j] - fD[j]) * (v[j] - fD[j])
	}
	raw := Scores(pub, q, phi, nil)
	var cutD, cutP, aTrue, aSyn, sq float64
	clipped := 0
	for i := range n {
		for y := range k {
			s := raw[i*k+y]
			t := Trunc(s, c)
			if t != s {
				clipped++
			}
			w := before.P(i, y)
			cutP += w * (t - s)
			aSyn += w * t
			sq += w * t * t
			if y == truth[i] {
				cutD += t - s
				aTrue += t
			}
		}
	}
	fn := float64(n)
	cutD, cutP, aTrue, aSyn, sq = cutD/fn, cutP/fn, aTrue/fn, aSyn/fn, sq/fn
	cond := Condition{Error: e, Noise: math.Sqrt(zz), Lemma: eta * eta, Exact: eta*(aTrue-aSyn) - eta*eta*sq,
		Drop: Potential(before, truth) - Potential(after, truth), Scores: raw, Clipped: float64(clipped) / float64(n*k)}
	if e > 0 {
		cond.NoiseAlong = along / e
	}
	cond.Parts = []ConditionPart{
		{Name: "η ≤ 1/c", Text: "every factor within [e⁻¹, e]", Value: eta, Bound: 1 / c, Asks: "≤"},
		{Name: "(i)", Text: "the error is large, E against (2c² + 7)η", Value: e, Bound: (2*c*c + 7) * eta, Asks: "≥"},
		{Name: "(ii)", Text: "the Gaussian's noise is small along the error, |⟨v − f(D), f(D) − f(p)⟩| against ηE", Value: math.Abs(along), Bound: eta * e, Asks: "≤"},
		{Name: "(iii)", Text: "truncation barely moves the true answer along v − f(p), against η²", Value: math.Abs(iota * cutD), Bound: eta * eta, Asks: "≤"},
		{Name: "(iv)", Text: "truncation barely moves the beliefs' answer along v − f(p), against η²", Value: math.Abs(iota * cutP), Bound: eta * eta, Asks: "≤"},
		{Name: "(v)", Text: "the released norm is not too small, ι against η", Value: iota, Bound: eta, Asks: ">"},
		{Name: "(vi)", Text: "nor too large, ι against 2E", Value: iota, Bound: 2 * e, Asks: "≤"},
	}
	cond.Holds = true
	for j := range cond.Parts {
		pt := &cond.Parts[j]
		switch pt.Asks {
		case "≤":
			pt.Holds = pt.Value <= pt.Bound*(1+1e-12) // η = 1/c exactly, as the sliders give it
		case "≥":
			pt.Holds = pt.Value >= pt.Bound
		default:
			pt.Holds = pt.Value > pt.Bound
		}
		cond.Holds = cond.Holds && pt.Holds
	}
	return cond
}
