package semisens

import (
	"math"
	"math/rand/v2"

	"github.com/uldplab/uldp/core/format"
)

// LowerBound is the paper's hard instance (Theorems 35 and 36): example i
// has the public index i and a sensitive value yᵢ among k; the parameter
// lives in ℝ^{n·k}, one block of k coordinates per example, and the loss
// rewards pointing example i's block at its value, coordinate
// j(i, y) = k·i + y (0-based). Convex: ℓ(w, (i, y)) = −G·w_j on the ball
// B(0, R). Strongly convex (Mu > 0): ℓ(w, (i, y)) = (μ/2)‖w − R·e_j‖² with
// R = G/(2μ).
type LowerBound struct {
	N, K int
	R, G float64
	Mu   float64
}

// Validate checks the instance.
func (lb LowerBound) Validate() error {
	switch {
	case lb.N < 1 || lb.K < 2:
		return format.Errorf("n = %d, k = %d: need n ≥ 1 and k ≥ 2", lb.N, lb.K)
	case float64(lb.N)*float64(lb.K) > MaxCells:
		return format.Errorf("d = n·k = %d × %d: at most %d coordinates", lb.N, lb.K, MaxCells)
	case !(lb.G > 0) || math.IsInf(lb.G, 1) || lb.Mu < 0 || math.IsInf(lb.Mu, 1):
		return format.Errorf("G = %v, μ = %v: need a finite G > 0 and μ ≥ 0", lb.G, lb.Mu)
	case lb.Mu == 0 && (!(lb.R > 0) || math.IsInf(lb.R, 1)):
		return format.Errorf("R = %v: the convex instance needs a finite R > 0", lb.R)
	}
	return nil
}

// radius is R: given, or G/(2μ) for the strongly convex instance.
func (lb LowerBound) radius() float64 {
	if lb.Mu > 0 {
		return lb.G / (2 * lb.Mu)
	}
	return lb.R
}

// Risk is 𝓛(w) on the values y (0-based).
func (lb LowerBound) Risk(w []float64, y []int) float64 {
	s := 0.0
	if lb.Mu == 0 {
		for i, v := range y {
			s -= lb.G * w[lb.K*i+v]
		}
		return s / float64(lb.N)
	}
	r := lb.radius()
	ww := dot(w, w)
	for i, v := range y {
		x := w[lb.K*i+v]
		s += lb.Mu / 2 * (ww - 2*r*x + r*r)
	}
	return s / float64(lb.N)
}

// Optimum is w*: (R/√n)·Σᵢ e_{j(i,yᵢ)} for the convex instance (𝓛 = −RG/√n),
// (R/n)·Σᵢ e_{j(i,yᵢ)} for the strongly convex one.
func (lb LowerBound) Optimum(y []int) []float64 {
	w := make([]float64, lb.N*lb.K)
	a := lb.radius() / math.Sqrt(float64(lb.N))
	if lb.Mu > 0 {
		a = lb.radius() / float64(lb.N)
	}
	for i, v := range y {
		w[lb.K*i+v] = a
	}
	return w
}

// Pointed is |I|: the examples whose block points at their value,
// w(i)_{yᵢ} > ‖w(i)‖/√2 (at most one coordinate of a block can).
func (lb LowerBound) Pointed(w []float64, y []int) int {
	n := 0
	for i, v := range y {
		block := w[lb.K*i : lb.K*(i+1)]
		if block[v] > norm(block)/math.Sqrt2 {
			n++
		}
	}
	return n
}

// ConvexExcessBound is the convex instance's lower bound on the excess
// risk of any w in W that points |I| = pointed examples right:
// (RG/n)·(√n − √(n/2 + |I|/2)).
func (lb LowerBound) ConvexExcessBound(pointed int) float64 {
	n := float64(lb.N)
	return lb.R * lb.G / n * (math.Sqrt(n) - math.Sqrt(n/2+float64(pointed)/2))
}

// RRKeep is k-ary randomized response's chance of reporting the true
// value, e^ε/(e^ε + k − 1): exactly the bound no ε-DP algorithm can beat on
// Pr[i ∈ I].
func RRKeep(eps float64, k int) float64 { return 1 / (1 + float64(k-1)*math.Exp(-eps)) }

// RR reports y (0-based, among k) by k-ary randomized response at ε: the
// truth with probability RRKeep, else one of the other k − 1 values,
// uniformly.
func RR(r *rand.Rand, y, k int, eps float64) int {
	if r.Float64() < RRKeep(eps, k) {
		return y
	}
	o := r.IntN(k - 1)
	if o >= y {
		o++
	}
	return o
}
