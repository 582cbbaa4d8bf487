package privacy

import (
	"math"
	"sort"

	"github.com/uldplab/uldp/core/format"
)

// The optimal composition of k (ε, δ)-DP steps (Kairouz, Oh & Viswanath
// 2015, Thm 3.3): no composition theorem can say more about k arbitrary
// (ε, δ)-DP steps, because k-fold randomized response with a δ atom
// attains it. At ε' the k steps are (ε', 1 − (1−δ)^k·(1 − δ_RR(ε')))-DP,
// where δ_RR is the hockey-stick divergence of k-fold randomized response:
//
//	δ_RR(ε') = Σ_{ℓ=0}^{k} P(ℓ)·max(0, 1 − e^{ε' − (k−2ℓ)ε}),  P = Binomial(k, 1/(1+e^ε)),
//
// ℓ counting the flipped answers, whose privacy loss is (k − 2ℓ)ε. At the
// corners ε' = (k − 2i)ε it is KOV's δ_i.

// optimalDeltaRR returns δ_RR(epsTotal) for k steps of ε. Its cost grows
// with the binomial's spread, √k: it sums the terms from the one nearest
// the mode outwards (binomSum).
func optimalDeltaRR(k int, eps, epsTotal float64) float64 {
	// ℓ* is the largest ℓ whose loss (k − 2ℓ)ε exceeds ε' (searched, not
	// solved for, so rounding cannot put it one off); the loss falls with ℓ.
	last := sort.Search(k+1, func(l int) bool { return float64(k-2*l)*eps <= epsTotal }) - 1
	if last < 0 {
		return 0
	}
	// p = 1/(1+e^ε) is the chance an answer is flipped, in logs that do
	// not overflow for large ε.
	logP := -softplus(eps)
	logQ := eps - softplus(eps) // log(1 − p)
	mode := int(float64(k+1) * math.Exp(logP))
	if last <= mode {
		// The lower tail of P, each term weighted by its 1 − e^{ε'−loss}.
		return binomSum(k, last, logP, logQ, -1, func(l int) float64 {
			return -math.Expm1(epsTotal - float64(k-2*l)*eps)
		})
	}
	// ℓ* is past P's mode: δ_RR = P[L ≤ ℓ*] − e^{ε'}·Q[L ≤ ℓ*], Q the
	// binomial with the roles swapped, from the two distributions' small
	// tails: P above ℓ*, Q below it (Q's mode, k(1−p) ≥ k/2, lies above).
	upperP := binomSum(k, last+1, logP, logQ, +1, nil)
	lowerQ := binomSum(k, last, logQ, logP, -1, nil)
	return math.Max(0, 1-upperP-math.Exp(epsTotal)*lowerQ)
}

// binomSum sums the Binomial(k, e^logP) pmf, each term times weight(ℓ) ∈
// [0, 1] (nil: 1), from ℓ = from ∈ [0, k] outwards (dir +1: up to k; −1:
// down to 0); from must lie on the tail side of the mode, so the terms
// shrink, and the sum stops when a geometric bound on the rest falls below
// 10⁻¹⁷ of it.
func binomSum(k, from int, logP, logQ float64, dir int, weight func(int) float64) float64 {
	var sum float64
	pl := math.Exp(logBinomPMF(k, from, logP, logQ))
	for l := from; ; l += dir {
		if weight == nil {
			sum += pl
		} else {
			sum += pl * weight(l)
		}
		var r float64 // pmf(ℓ+dir)/pmf(ℓ)
		if dir == +1 {
			if l == k {
				break
			}
			r = float64(k-l) / float64(l+1) * math.Exp(logP-logQ)
		} else {
			if l == 0 {
				break
			}
			r = float64(l) / float64(k-l+1) * math.Exp(logQ-logP)
		}
		next := pl * r
		if r < 1 && next/(1-r) <= 1e-17*sum { // (0 ≤ 0 once the pmf underflows)
			break
		}
		pl = next
	}
	return sum
}

func softplus(x float64) float64 {
	if x > 30 {
		return x + math.Exp(-x)
	}
	return math.Log1p(math.Exp(x))
}

// logBinomPMF is log P[Binomial(n, p) = x] with log p = logP, log(1−p) =
// logQ, by Loader's saddle-point form (2000), accurate to a few ulps where
// log-factorials would lose digits to cancellation at large n.
func logBinomPMF(n, x int, logP, logQ float64) float64 {
	switch x {
	case 0:
		return float64(n) * logQ
	case n:
		return float64(n) * logP
	}
	fn, fx, fy := float64(n), float64(x), float64(n-x)
	np, nq := fn*math.Exp(logP), fn*math.Exp(logQ)
	lc := stirlerr(fn) - stirlerr(fx) - stirlerr(fy) - bd0(fx, np) - bd0(fy, nq)
	lf := math.Log(2*math.Pi) + math.Log(fx) + math.Log1p(-fx/fn)
	return lc - 0.5*lf
}

// stirlerrSmall is stirlerr(n) for n = 1…15, to 20 digits (mpmath,
// mp.dps = 40): from log-gamma they would lose a few ulps to cancellation
// (6·10⁻¹⁶ at n = 15), and the series below needs n > 15.
var stirlerrSmall = [...]float64{
	0.08106146679532725822,
	0.041340695955409294094,
	0.027677925684998339149,
	0.020790672103765093112,
	0.016644691189821192163,
	0.013876128823070747999,
	0.011896709945891770095,
	0.010411265261972096497,
	0.0092554621827127329177,
	0.0083305634333628712565,
	0.007573675487951840795,
	0.0069428401072095298657,
	0.0064089941880042070684,
	0.0059513701127588477356,
	0.005554733551962801371,
}

// stirlerr is log(n!) − log(√(2π n)·(n/e)^n), the error of Stirling's
// formula, for whole n ≥ 1.
func stirlerr(n float64) float64 {
	const (
		s0 = 1.0 / 12
		s1 = 1.0 / 360
		s2 = 1.0 / 1260
		s3 = 1.0 / 1680
		s4 = 1.0 / 1188
	)
	if n <= float64(len(stirlerrSmall)) {
		return stirlerrSmall[int(n)-1]
	}
	nn := n * n
	switch {
	case n > 500:
		return (s0 - s1/nn) / n
	case n > 80:
		return (s0 - (s1-s2/nn)/nn) / n
	case n > 35:
		return (s0 - (s1-(s2-s3/nn)/nn)/nn) / n
	}
	return (s0 - (s1-(s2-(s3-s4/nn)/nn)/nn)/nn) / n
}

// bd0 is x·log(x/np) + np − x, summed as a series where the two sides
// nearly cancel.
func bd0(x, np float64) float64 {
	if math.Abs(x-np) < 0.1*(x+np) {
		v := (x - np) / (x + np)
		s := (x - np) * v
		ej := 2 * x * v
		v *= v
		for j := 1; j < 1000; j++ {
			ej *= v
			s1 := s + ej/float64(2*j+1)
			if s1 == s {
				return s1
			}
			s = s1
		}
	}
	return x*math.Log(x/np) + np - x
}

// optimalEps returns the smallest ε' at which k steps of ε have δ_RR(ε')
// ≤ slack, by bisection on the decreasing δ_RR (to 10⁻¹² relative).
func optimalEps(k int, eps, slack float64) float64 {
	lo, hi := 0.0, float64(k)*eps
	if optimalDeltaRR(k, eps, 0) <= slack {
		return 0
	}
	for range 200 {
		mid := (lo + hi) / 2
		if optimalDeltaRR(k, eps, mid) <= slack {
			hi = mid
		} else {
			lo = mid
		}
		if hi-lo <= 1e-12*hi {
			break
		}
	}
	return hi
}

// optimalTotal is the optimal composition of k steps of (ε, δ) at the
// extra failure probability slack, with its explanation.
func optimalTotal(k int, eps, delta, slack float64) (Budget, []Step) {
	e := optimalEps(k, eps, slack)
	// 1 − (1−δ)^k(1−δ'), without losing a small δ to rounding.
	d := -math.Expm1(float64(k)*math.Log1p(-delta) + math.Log1p(-slack))
	return Budget{e, d}, []Step{
		{"ε'", format.Sprintf("smallest ε' with δ_RR(ε') ≤ δ' over the binomial of %d flips", k), e},
		{"δ", "1 − (1−δ)^k·(1 − δ')", d},
	}
}
