package gof

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The checks must reject a slightly wrong law at the sample sizes the tests
// use; otherwise a passing fit test proves nothing.
func TestDKWHasPower(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	xs := make([]float64, 100_000)
	for i := range xs {
		xs[i] = r.NormFloat64() * 1.03 // 3 % too wide
	}
	phi := func(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }
	if err := DKW(append([]float64(nil), xs...), phi, 1e-6); err == nil {
		t.Error("DKW accepted N(0, 1.03²) as N(0, 1)")
	}
	for i := range xs {
		xs[i] /= 1.03
	}
	if err := DKW(xs, phi, 1e-6); err != nil {
		t.Errorf("DKW rejected the right law: %v", err)
	}
}

func TestChiSquareHasPower(t *testing.T) {
	probs := []float64{0.1, 0.2, 0.4, 0.2, 0.1}
	skewed := []int{10_500, 20_000, 40_000, 20_000, 9_500} // 0.5 % moved from one tail to the other
	if err := ChiSquare(skewed, probs, 1e-4); err == nil {
		t.Error("chi-square accepted skewed counts")
	}
	if err := ChiSquare([]int{10_020, 19_950, 40_060, 19_990, 9_980}, probs, 1e-4); err != nil {
		t.Errorf("chi-square rejected near-exact counts: %v", err)
	}
	if err := ChiSquare([]int{1, 2}, []float64{0.5, 0.5}, 1e-4); err == nil {
		t.Error("chi-square ran with fewer than two usable cells")
	}
}

func TestHoeffding(t *testing.T) {
	// 2·exp(−2·n·t²/w²) = alpha.
	n, w, alpha := 1000, 2.0, 1e-3
	h := Hoeffding(n, w, alpha)
	if got := 2 * math.Exp(-2*float64(n)*h*h/(w*w)); !(math.Abs(got-alpha) <= 1e-12) {
		t.Errorf("Hoeffding bound gives tail %v, want %v", got, alpha)
	}
}
