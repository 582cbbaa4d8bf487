package semisens

import (
	"math"
	"testing"
)

// The spec's table of the paper's constants (T = n², β = 1/n, δ = 10⁻⁶,
// ρ = 0.1ε²/ln(1/δ)): η to three digits, τ = 16η, L_max = 1 + ⌊ln k/η²⌋,
// and η solves its defining inequality with equality.
func TestTheory(t *testing.T) {
	for _, c := range []struct {
		eps, n float64
		k      int
		eta    float64
		lmax   int
	}{
		{1, 1e4, 2, 188, 1},
		{1, 1e6, 1024, 42.5, 1},
		{1, 1e10, 2, 0.309, 8},
		{1, 1e12, 1024, 0.061, 1860},
		{8, 1e8, 1024, 1.71, 3},
		{8, 1e10, 1024, 0.193, 186},
		{8, 1e12, 2, 0.0119, 4910},
	} {
		rho := RhoPaper(c.eps, 1e-6)
		tp, err := Theory(int(c.n), c.k, rho, c.n*c.n, 1/c.n)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(tp.Eta-c.eta)/c.eta > 0.01 {
			t.Errorf("ε = %v, n = %.0g, k = %d: η = %.4g, want %.3g", c.eps, c.n, c.k, tp.Eta, c.eta)
		}
		lk := math.Log(float64(c.k))
		rhs := 1000 * math.Pow(lk/rho, 0.25) * math.Sqrt(math.Log(c.n*c.n*c.n*lk/(rho*(1/c.n)*tp.Eta))) / math.Sqrt(c.n)
		if !(math.Abs(tp.Eta-rhs) <= 1e-9*tp.Eta) {
			t.Errorf("η = %.12g but the inequality's right side is %.12g", tp.Eta, rhs)
		}
		if tp.LMax != 1+int(math.Floor(lk/(tp.Eta*tp.Eta))) || tp.Tau != 16*tp.Eta || tp.Trivial != (18*tp.Eta >= 1) {
			t.Errorf("ε = %v, n = %.0g, k = %d: %+v", c.eps, c.n, c.k, tp)
		}
		if !(math.Abs(float64(tp.LMax-c.lmax)) <= 0.01*float64(c.lmax)+0.5) {
			t.Errorf("ε = %v, n = %.0g, k = %d: L_max = %d, the spec's table says %d", c.eps, c.n, c.k, tp.LMax, c.lmax)
		}
	}
	if _, err := Theory(100, 8, 2, 100, 0.01); err == nil {
		t.Error("ρ = 2 accepted: Theorem 13 takes ρ < 1")
	}
}
