package loss

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// The exact minimiser against a brute-force search of the objective on a
// fine grid refined around its best point, on random data with ties, and
// with the interval cutting the free minimiser off.
func TestAbsoluteMinimiseMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 400; trial++ {
		n := 1 + r.IntN(12)
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = math.Round(r.NormFloat64()*4) / 2 // halves: many ties
		}
		slices.Sort(xs)
		a := Absolute{Lambda: math.Exp(r.NormFloat64() * 2), C: r.NormFloat64() * 2, Lo: -3, Hi: 3}
		if trial%4 == 0 {
			a.Lo, a.Hi = -10, 10
		}
		obj := func(th float64) float64 {
			var s float64
			for _, x := range xs {
				s += math.Abs(th - x)
			}
			return s/float64(n) + a.Lambda/2*(th-a.C)*(th-a.C)
		}
		best, bestV := a.Lo, obj(a.Lo)
		for lo, hi, step := a.Lo, a.Hi, (a.Hi-a.Lo)/2000; step > 1e-12; step /= 20 {
			for th := lo; th <= hi; th += step {
				if v := obj(th); v < bestV {
					best, bestV = th, v
				}
			}
			lo, hi = math.Max(a.Lo, best-step), math.Min(a.Hi, best+step)
		}
		got := a.Minimise(xs)
		if got < a.Lo || got > a.Hi || obj(got) > bestV+1e-12 || !(math.Abs(got-best) <= 1e-6) {
			t.Fatalf("trial %d: xs %v, %+v: exact %v (F = %v), brute force %v (F = %v)", trial, xs, a, got, obj(got), best, bestV)
		}
	}
}

func TestAbsSubsetsWithout(t *testing.T) {
	a := Absolute{Lambda: 0.01, C: 0, Lo: -100, Hi: 100}
	s := a.Subsets([][]float64{{1, 2}, {3}, {10, 11, 12}})
	dst := make([]float64, 1)
	for mask, want := range map[uint32][]float64{
		0:     {1, 2, 3, 10, 11, 12},
		1:     {3, 10, 11, 12},
		0b100: {1, 2, 3},
		0b110: {1, 2},
	} {
		if got := s.Without(mask, dst)[0]; got != a.Minimise(want) {
			t.Errorf("mask %b: %v, want the minimiser of %v = %v", mask, got, want, a.Minimise(want))
		}
	}
}
