package optim

import (
	"math"
	"testing"

	"github.com/uldplab/uldp/core/loss"
)

// quadratic is Φ(x) = ½Σ a_k x_k² − Σ b_k x_k: μ = min a, L = max a,
// x* = b/a.
type quadratic struct{ a, b []float64 }

func (q quadratic) grad(x []float64) []float64 {
	g := make([]float64, len(x))
	for k := range x {
		g[k] = q.a[k]*x[k] - q.b[k]
	}
	return g
}

func (q quadratic) gap(x []float64) float64 {
	var v float64
	for k := range x {
		v += 0.5 * q.a[k] * (x[k] - q.b[k]/q.a[k]) * (x[k] - q.b[k]/q.a[k])
	}
	return v
}

var wide = loss.Ball{Centre: []float64{0, 0}, Radius: 1e9}

// OR-B-07, the first iterates by hand: Φ = ½(x₁² + 4x₂²) − x₁, μ = 1,
// L = 4, from x₀ = (1, 1). Step 1 (α = 1, γ = 2L = 8): x_md = x₀,
// G₁ = (0, 4), x₁ = x₀ − G₁/(μ + γ) = (1, 5/9) = x_ag. Step 2 (α = 2/3,
// γ = 8/3, γ + (1−α²)μ = 29/9): x_md = (11/29)x_ag + (18/29)x_prev = x₁,
// G₂ = (0, 20/9), x₂ = (αμ·x_md + 3·x₁ − αG₂)/(11/3) = x₁ − (2/11)G₂ =
// (1, 5/9 − 40/99) = (1, 15/99), x_ag = (2/3)x₂ + (1/3)x₁ = (1, 85/297).
func TestACSAFirstIterates(t *testing.T) {
	q := quadratic{a: []float64{1, 4}, b: []float64{1, 0}}
	a := NewACSA(1, 4, wide, 0, []float64{1, 1})
	for step, want := range []struct{ md, prev, ag []float64 }{
		{[]float64{1, 1}, []float64{1, 5.0 / 9}, []float64{1, 5.0 / 9}},
		{[]float64{1, 5.0 / 9}, []float64{1, 15.0 / 99}, []float64{1, 85.0 / 297}},
	} {
		md := a.Query()
		for k := range md {
			if math.Abs(md[k]-want.md[k]) > 1e-15 {
				t.Fatalf("step %d: x_md = %v, want %v", step+1, md, want.md)
			}
		}
		a.Update(q.grad(md))
		for k := range a.Prev {
			if math.Abs(a.Prev[k]-want.prev[k]) > 1e-15 || math.Abs(a.Ag[k]-want.ag[k]) > 1e-15 {
				t.Fatalf("step %d: x = %v, x_ag = %v; want %v and %v", step+1, a.Prev, a.Ag, want.prev, want.ag)
			}
		}
	}
}

// OR-B-07, the rate: with exact gradients on an ill-conditioned
// quadratic (μ = 10⁻³, L = 1) x_ag's gap after every N ≤ 400 steps is at
// most 2L‖x₀ − x*‖²/(N(N+1)); restarted every N₀ = ⌈4√(2L/μ)⌉ steps it
// shrinks at least eightfold per stage, as Ghadimi & Lan's multi-stage
// bound says; and a step that leaves the domain is projected back.
func TestACSARates(t *testing.T) {
	q := quadratic{a: []float64{1e-3, 1}, b: []float64{1e-3, -0.5}}
	x0 := []float64{-3, 2}
	d0 := (x0[0]-1)*(x0[0]-1) + (x0[1]+0.5)*(x0[1]+0.5)
	a := NewACSA(1e-3, 1, wide, 0, x0)
	for n := 1; n <= 400; n++ {
		a.Update(q.grad(a.Query()))
		if bound := 2 * d0 / float64(n*(n+1)); q.gap(a.Ag) > bound*(1+1e-12) {
			t.Fatalf("N = %d: gap %v > 2L‖x₀ − x*‖²/(N(N+1)) = %v", n, q.gap(a.Ag), bound)
		}
	}
	n0 := ACSAStage(1, 1e-3)
	if n0 != 179 {
		t.Fatalf("N₀ = %d, want ⌈4√2000⌉ = 179", n0)
	}
	r := NewACSA(1e-3, 1, wide, n0, x0)
	before := q.gap(x0)
	for stage := 1; stage <= 4; stage++ {
		for range n0 {
			r.Update(q.grad(r.Query()))
		}
		if r.Stage != stage {
			t.Fatalf("after %d stages the counter says stage %d", stage, r.Stage)
		}
		if g := q.gap(r.Ag); g > before/8 {
			t.Errorf("stage %d: gap %v, more than an eighth of %v", stage, g, before)
		} else {
			before = g
		}
	}
	small := NewACSA(1, 4, loss.Ball{Centre: []float64{0, 0}, Radius: 0.5}, 0, []float64{0, 0})
	small.Query()
	small.Update([]float64{-100, 0})
	if math.Abs(small.Prev[0]-0.5) > 1e-15 || small.Prev[1] != 0 {
		t.Errorf("a step to (100/9, 0) lands at %v, want the projection (0.5, 0)", small.Prev)
	}
}
