package loss

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Each smooth loss's gradient is its value's derivative (central
// differences), and its β bounds the gradient's change in ℓ∞.
func TestSmoothLosses(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, l := range []Smooth{Squared{Mu: 0.7}, Huber{H: 0.5}, Coupled(3)} {
		for range 500 {
			theta, z := make([]float64, 3), make([]float64, 3)
			for k := range theta {
				theta[k], z[k] = 4*r.Float64()-2, 4*r.Float64()-2
			}
			g := l.Grad(theta, z, make([]float64, 3))
			for k := range theta {
				const h = 1e-6
				up, down := append([]float64(nil), theta...), append([]float64(nil), theta...)
				up[k] += h
				down[k] -= h
				if num := (l.At(up, z) - l.At(down, z)) / (2 * h); !(math.Abs(num-g[k]) <= 1e-5) {
					t.Fatalf("%T: ∂/∂θ_%d = %v numerically, Grad says %v", l, k+1, num, g[k])
				}
			}
			other := make([]float64, 3)
			var dx, dg float64
			for k := range other {
				other[k] = theta[k] + 0.3*(2*r.Float64()-1)
				dx = math.Max(dx, math.Abs(other[k]-theta[k]))
			}
			g2 := l.Grad(other, z, make([]float64, 3))
			for k := range g {
				dg = math.Max(dg, math.Abs(g2[k]-g[k]))
			}
			if dg > l.Beta(3)*dx*(1+1e-12) {
				t.Fatalf("%T: ‖Δ∇f‖∞ = %v > β‖Δθ‖∞ = %v", l, dg, l.Beta(3)*dx)
			}
		}
	}
	if Coupled(3).DiagonallyDominant(3) == nil || (Squared{Mu: 1}).DiagonallyDominant(3) != nil || (Huber{H: 1}).DiagonallyDominant(3) != nil {
		t.Error("diagonal dominance: the coupled quadratic must fail it, squared and Huber pass")
	}
	if b := Coupled(2).Beta(2); b != 7 {
		t.Errorf("β of [[1,2],[2,5]] = %v, want its largest row sum 7", b)
	}
}
