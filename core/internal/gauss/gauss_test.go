package gauss

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/integrate/quad"
)

// The rule equals gonum's Gauss–Legendre nodes and weights, and integrates
// x^k exactly up to degree 2n − 1.
func TestLegendre(t *testing.T) {
	for _, n := range []int{1, 2, 5, 8, 20} {
		r := Legendre(n)
		xs, ws := make([]float64, n), make([]float64, n)
		gx, gw := make([]float64, n), make([]float64, n)
		r.Fixed(xs, ws, -0.3, 2.1)
		quad.Legendre{}.FixedLocations(gx, gw, -0.3, 2.1)
		for i := range n {
			if !(math.Abs(xs[i]-gx[i]) <= 1e-14) || !(math.Abs(ws[i]-gw[i]) <= 1e-14) {
				t.Fatalf("n = %d, node %d: (%v, %v), gonum (%v, %v)", n, i, xs[i], ws[i], gx[i], gw[i])
			}
		}
		for k := 0; k < 2*n; k++ {
			var got float64
			for i := range n {
				got += ws[i] * math.Pow(xs[i], float64(k))
			}
			want := (math.Pow(2.1, float64(k+1)) - math.Pow(-0.3, float64(k+1))) / float64(k+1)
			if !(math.Abs(got-want) <= 1e-12*math.Max(1, math.Abs(want))) {
				t.Errorf("n = %d, ∫x^%d: %v vs %v", n, k, got, want)
			}
		}
	}
}
