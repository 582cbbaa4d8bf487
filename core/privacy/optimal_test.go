package privacy

import (
	"fmt"
	"math"
	"testing"
)

// δ_RR against direct summation of the binomial sum in 40-digit arithmetic
// (mpmath, mp.dps = 40: Σ_ℓ C(k,ℓ)p^ℓ(1−p)^{k−ℓ}(1 − e^{ε'−(k−2ℓ)ε}) over
// the ℓ whose loss exceeds ε'). The cases cover both of the code's paths
// (ℓ* below and past the binomial's mode), large ε and tails down to 10⁻¹³.
func TestOptimalDeltaRR(t *testing.T) {
	for _, c := range []struct {
		k          int
		eps, total float64
		want       float64
	}{
		{3, 1, 1.687, 0.28560571541386712193}, // the example: 3 steps of (1, 10⁻⁸)
		{100, 0.1, 2.0, 0.020140178428191540507},
		{100, 0.1, 0.5, 0.23925423695664892661},
		{10000, 0.01, 1.0, 0.1269242683818760017},
		{10000, 0.01, 0.3, 0.29327394981169874543},
		{20000, 0.005, 0.2, 0.20785819410342844825},
		{50, 2, 60, 0.93048849969137264744},
		{50, 2, 95, 0.0092397307590358969207},
		{1000, 0.1, 8, 0.11186636861589642217},
		{1000, 0.1, 12, 0.0070469316824537788911},
		{1000, 0.1, 25, 2.8576436936163573101e-11},
		{200, 0.5, 40, 0.0074505467359237488895},
		{200, 0.5, 70, 2.3291502099923073205e-13},
		{10, 3, 25, 0.61101469755181083855},
		// k = 10⁶, ε = 10⁻³, at the ε' where δ_RR reaches 10⁻⁶, summed
		// from ℓ* down until the terms fell below 10⁻²⁵ of the sum.
		{1_000_000, 0.001, 4.8865437437584092, 9.9999999999639215248e-7},
	} {
		got := optimalDeltaRR(c.k, c.eps, c.total)
		if !(math.Abs(got-c.want) <= 1e-11*c.want) {
			t.Errorf("δ_RR(k=%d, ε=%g, ε'=%g) = %.17g, want %.17g (rel. error %.2g)", c.k, c.eps, c.total, got, c.want, math.Abs(got-c.want)/c.want)
		}
	}
	if d := optimalDeltaRR(10, 1, 10); d != 0 {
		t.Errorf("at ε' = kε, δ_RR = %v, want 0", d)
	}
}

// The optimal rule is never worse than basic or advanced composition and
// its ε' is exactly where δ_RR reaches δ'; at k = 1 it gives the step back.
func TestOptimalComposition(t *testing.T) {
	for _, c := range []struct {
		k          int
		eps, slack float64
	}{{1, 1, 1e-6}, {3, 1, 1e-5}, {100, 0.1, 1e-6}, {10000, 0.01, 1e-8}, {1_000_000, 0.001, 1e-9}} {
		e := optimalEps(c.k, c.eps, c.slack)
		if e > float64(c.k)*c.eps*(1+1e-12) {
			t.Errorf("k=%d ε=%g: optimal ε' %v above basic %v", c.k, c.eps, e, float64(c.k)*c.eps)
		}
		adv := math.Sqrt(2*math.Log(1/c.slack)*float64(c.k)*c.eps*c.eps) + float64(c.k)*c.eps*math.Expm1(c.eps)
		if e > adv {
			t.Errorf("k=%d ε=%g: optimal ε' %v above advanced %v", c.k, c.eps, e, adv)
		}
		if e > 0 {
			if d := optimalDeltaRR(c.k, c.eps, e); d > c.slack {
				t.Errorf("k=%d: δ_RR(ε') = %v > δ' = %v", c.k, d, c.slack)
			}
			if d := optimalDeltaRR(c.k, c.eps, e*(1-1e-9)); d <= c.slack {
				t.Errorf("k=%d: ε' = %v is not the smallest (δ_RR just below is %v)", c.k, e, d)
			}
		}
	}
	// One step of ε = 1 at δ' = 10⁻⁶: δ_RR(ε') = (e/(1+e))(1 − e^{ε'−1}),
	// so ε' = 1 + ln(1 − 10⁻⁶(1+e)/e).
	if e, want := optimalEps(1, 1, 1e-6), 1+math.Log1p(-1e-6*(1+math.E)/math.E); !(math.Abs(e-want) <= 1e-11) {
		t.Errorf("one step of ε = 1 composes to %v, want %v", e, want)
	}
}

// 1 − (1−δ)^k(1−δ') keeps a small δ: 10 steps of 10⁻¹² with δ' = 10⁻¹²
// give 1.1·10⁻¹¹ (to 10⁻⁹ relative), not 0 or a rounded 1.1102·10⁻¹¹.
func TestOptimalTotalDelta(t *testing.T) {
	b, _ := optimalTotal(10, 1, 1e-12, 1e-12)
	if !(math.Abs(b.Delta-1.1e-11) <= 1e-20) {
		t.Errorf("δ = %v, want 1.1e-11", b.Delta)
	}
}

// naiveDeltaRR is δ_RR summed term by term over every ℓ with a loss above
// ε', each pmf from log-factorials: the baseline for BenchmarkDeltaRR.
func naiveDeltaRR(k int, eps, total float64) float64 {
	lp, lq := -softplus(eps), eps-softplus(eps)
	lk, _ := math.Lgamma(float64(k + 1))
	var sum float64
	for l := 0; l <= k && float64(k-2*l)*eps > total; l++ {
		a, _ := math.Lgamma(float64(l + 1))
		b, _ := math.Lgamma(float64(k - l + 1))
		sum += math.Exp(lk-a-b+float64(l)*lp+float64(k-l)*lq) * -math.Expm1(total-float64(k-2*l)*eps)
	}
	return sum
}

// One evaluation of δ_RR at the ε' where it is about 10⁻⁶, against the
// term-by-term sum; they agree to 10⁻⁸ (relative) before timing. The
// baseline is the less exact one: at k = 10⁶ its log-factorials lose
// 1.2·10⁻⁹ where the tails are within 2·10⁻¹² of 40-digit arithmetic.
func BenchmarkDeltaRR(b *testing.B) {
	for _, k := range []int{100, 10_000, 1_000_000} {
		eps := 1 / math.Sqrt(float64(k))
		total := optimalEps(k, eps, 1e-6)
		if got, want := optimalDeltaRR(k, eps, total), naiveDeltaRR(k, eps, total); !(math.Abs(got-want) <= 1e-8*want) {
			b.Fatalf("k = %d: %v, term by term %v", k, got, want)
		}
		b.Run(fmt.Sprintf("k=%d/tails", k), func(b *testing.B) {
			for b.Loop() {
				optimalDeltaRR(k, eps, total)
			}
		})
		b.Run(fmt.Sprintf("k=%d/naive", k), func(b *testing.B) {
			for b.Loop() {
				naiveDeltaRR(k, eps, total)
			}
		})
	}
}

// The whole search for ε', up to the largest k Compose accepts.
func BenchmarkOptimalEps(b *testing.B) {
	for _, k := range []int{100, 10_000, 1_000_000, 1_000_000_000} {
		b.Run(fmt.Sprint(k), func(b *testing.B) {
			for b.Loop() {
				optimalEps(k, 1/math.Sqrt(float64(k)), 1e-6)
			}
		})
	}
}
