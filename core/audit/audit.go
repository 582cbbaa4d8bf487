// Package audit checks whether a mechanism keeps its promise on a concrete
// pair of neighbouring datasets: exact privacy profiles δ(ε) wherever the
// output law is closed form, compared with the guarantee the mechanism
// claims.
package audit

import (
	"math"

	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/mech"
	"github.com/uldplab/uldp/core/privacy"
)

// DelOutputPertDelta returns the hockey-stick divergence
// δ_{A‖B}(ε) = sup_E Pr[A ∈ E] − e^ε Pr[B ∈ E] between two DelOutputPert
// output laws with the same σ (spec 000-002 §A-1 oracles): the ⊥ atom and the
// Gaussian part are disjoint, so
// δ = max(0, P⊥_A − e^ε P⊥_B) + HS(1 − P⊥_A, e^ε(1 − P⊥_B), ‖c_A − c_B‖/σ).
func DelOutputPertDelta(a, b mech.DelLaw, eps float64) float64 {
	ee := math.Exp(eps)
	atom := math.Max(0, a.PBottom-ee*b.PBottom)
	wa, wb := 1-a.PBottom, ee*(1-b.PBottom)
	var shift float64
	if a.Centre != nil && b.Centre != nil {
		var s float64
		for k := range a.Centre {
			d := a.Centre[k] - b.Centre[k]
			s += d * d
		}
		shift = math.Sqrt(s) / a.Sigma
	}
	return atom + privacy.GaussianHockeyStick(wa, wb, shift)
}

// Point is the exact profile of one ordered pair at one ε, both orders.
type Point struct {
	Eps     float64 `json:"eps"`
	DeltaAB float64 `json:"delta_ab"`
	DeltaBA float64 `json:"delta_ba"`
	// Verdict: "within" (ε ≥ the claimed ε and both δ ≤ the claimed δ),
	// "VIOLATION", or "no claim" (ε below the claimed ε, where the
	// guarantee says nothing).
	Verdict string `json:"verdict"`
}

// Verdicts a Point can carry.
const (
	Within    = "within"
	Violation = "VIOLATION"
	NoClaim   = "no claim"
)

// Curve evaluates both orders at each ε and judges them against g: a
// guarantee at (ε₀, δ₀) covers every ε ≥ ε₀ with the same δ₀, since δ(ε)
// decreases in ε.
func Curve(a, b mech.DelLaw, g privacy.Guarantee, eps []float64) []Point {
	out := make([]Point, len(eps))
	for i, e := range eps {
		out[i] = judge(Point{Eps: e, DeltaAB: DelOutputPertDelta(a, b, e), DeltaBA: DelOutputPertDelta(b, a, e)}, g)
	}
	return out
}

// judge sets a point's verdict against the guarantee. Floating-point
// rounding in the exact profiles is a few ulps; 1e-12 absorbs it without
// hiding any loss an audit should report.
func judge(p Point, g privacy.Guarantee) Point {
	switch {
	case p.Eps < g.Eps:
		p.Verdict = NoClaim
	case p.DeltaAB <= g.Delta+1e-12 && p.DeltaBA <= g.Delta+1e-12:
		p.Verdict = Within
	default:
		p.Verdict = Violation
	}
	return p
}

// CheckNeighbours reports whether a and b are user-level neighbours: the
// same users (ids, in order) with at most one user's items changed. It
// returns the index of the changed user, or −1 if the datasets are equal.
func CheckNeighbours(a, b *dataset.Dataset) (int, error) {
	if a.N() != b.N() || a.Dim != b.Dim {
		return 0, format.Errorf("not neighbours: %d users in ℝ^%d against %d users in ℝ^%d (replace one user's items, keep the rest)", a.N(), a.Dim, b.N(), b.Dim)
	}
	changed := -1
	for i := range a.Users {
		if a.Users[i].ID != b.Users[i].ID {
			return 0, format.Errorf("not neighbours: user %d is %q in one dataset and %q in the other (keep users in the same order)", i+1, a.Users[i].ID, b.Users[i].ID)
		}
		if !equal(a.Users[i].Points, b.Users[i].Points) {
			if changed >= 0 {
				return 0, format.Errorf("not neighbours: users %q and %q both differ; user-level neighbours differ in one user", a.Users[changed].ID, a.Users[i].ID)
			}
			changed = i
		}
	}
	return changed, nil
}

func equal(x, y []float64) bool {
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if x[i] != y[i] {
			return false
		}
	}
	return true
}
