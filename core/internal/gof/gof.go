// Package gof holds the goodness-of-fit checks the statistical tests share.
// Each check takes the false-failure probability alpha it is allowed and says
// what it compared, so a failing test explains itself.
package gof

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/uldplab/uldp/core/format"
)

// DKW checks samples against a continuous CDF with the
// Dvoretzky–Kiefer–Wolfowitz–Massart bound: if the samples come from F, then
// Pr[sup_x |F_n(x) − F(x)| > t] ≤ 2·exp(−2nt²) for every n, so with
// t = √(ln(2/alpha)/(2n)) the check fails with probability at most alpha.
// The bound is exact, not asymptotic. samples is sorted in place.
func DKW(samples []float64, cdf func(float64) float64, alpha float64) error {
	n := float64(len(samples))
	sort.Float64s(samples)
	t := math.Sqrt(math.Log(2/alpha) / (2 * n))
	var worst, at float64
	for i, x := range samples {
		// For continuous F the supremum is attained next to a sample:
		// F_n jumps from i/n to (i+1)/n at x.
		f := cdf(x)
		d := math.Max(float64(i+1)/n-f, f-float64(i)/n)
		if d > worst {
			worst, at = d, x
		}
	}
	if worst > t {
		return format.Errorf("DKW: sup|F_n − F| = %.5f at x = %.5g exceeds %.5f (n = %.0f, alpha = %g)", worst, at, t, n, alpha)
	}
	return nil
}

// ChiSquare checks observed counts of a discrete law against cell
// probabilities probs (which must sum to 1 over the cells given; put the tail
// mass in the end cells). Cells with expected count below 20 are merged with
// their neighbour so the χ² approximation holds; the check then fails with
// probability about alpha when the counts do follow probs.
func ChiSquare(counts []int, probs []float64, alpha float64) error {
	if len(counts) != len(probs) {
		return format.Errorf("chi-square: %d counts but %d probabilities", len(counts), len(probs))
	}
	var n float64
	for _, c := range counts {
		n += float64(c)
	}
	// Merge left to right until each cell expects ≥ 20, then fold a short
	// last cell into its neighbour.
	var obs, exp []float64
	var o, e float64
	for i := range counts {
		o += float64(counts[i])
		e += probs[i] * n
		if e >= 20 {
			obs, exp = append(obs, o), append(exp, e)
			o, e = 0, 0
		}
	}
	if len(exp) > 0 {
		obs[len(obs)-1] += o
		exp[len(exp)-1] += e
	}
	cells := len(exp)
	if cells < 2 {
		return format.Errorf("chi-square: only %d cell(s) with expected count ≥ 20; draw more samples", cells)
	}
	var stat float64
	for i := range exp {
		stat += (obs[i] - exp[i]) * (obs[i] - exp[i]) / exp[i]
	}
	crit := distuv.ChiSquared{K: float64(cells - 1)}.Quantile(1 - alpha)
	if stat > crit {
		return format.Errorf("chi-square: statistic %.2f exceeds %.2f (%d cells, n = %.0f, alpha = %g)", stat, crit, cells, n, alpha)
	}
	return nil
}

// Hoeffding returns the half-width t such that the mean of n independent
// values in an interval of length width lies within t of its expectation
// except with probability alpha: 2·exp(−2nt²/width²) = alpha.
func Hoeffding(n int, width, alpha float64) float64 {
	return width * math.Sqrt(math.Log(2/alpha)/(2*float64(n)))
}

// ChiSquareBand returns lo, hi with Pr[χ²_k/k ∉ [lo, hi]] ≤ 2e^{−x}
// (Laurent & Massart 2000, Lemma 1: the upper tail beyond k + 2√(kx) + 2x
// and the lower below k − 2√(kx) each have probability ≤ e^{−x}); lo is
// floored at a hundredth, where the lemma says nothing useful.
func ChiSquareBand(k int, x float64) (lo, hi float64) {
	kf := float64(k)
	return math.Max(0.01, 1-2*math.Sqrt(x/kf)), 1 + 2*math.Sqrt(x/kf) + 2*x/kf
}

// LogSlope is the least-squares slope of ln y against ln x: a set of
// points' exponent.
func LogSlope(xs, ys []float64) float64 {
	var mx, my float64
	for i := range xs {
		mx += math.Log(xs[i]) / float64(len(xs))
		my += math.Log(ys[i]) / float64(len(xs))
	}
	var sxy, sxx float64
	for i := range xs {
		dx := math.Log(xs[i]) - mx
		sxy += dx * (math.Log(ys[i]) - my)
		sxx += dx * dx
	}
	return sxy / sxx
}
