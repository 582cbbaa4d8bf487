package semisens

import (
	"math"
	"math/rand/v2"

	"github.com/uldplab/uldp/core/format"
)

// Spec describes a generated dataset for logistic regression with a
// sensitive category: public features aᵢ uniform in the unit ball of
// ℝ^DimPub, a category yᵢ uniform on 1…K, and a public label drawn from
// a hidden model whose weight on category y is Effect·(2y/(K−1) − 1).
// With Effect = 0 the category does not matter and uniform beliefs
// already answer every gradient well: nothing for PVMW to learn.
type Spec struct {
	N, K, DimPub int
	Effect       float64
}

// Validate checks the spec.
func (s Spec) Validate() error {
	switch {
	case s.N < 1 || s.K < 2 || s.DimPub < 1:
		return format.Errorf("n = %d, k = %d, d_pub = %d: need n ≥ 1, k ≥ 2, d_pub ≥ 1 (a model needs a public feature)", s.N, s.K, s.DimPub)
	case float64(s.N)*float64(s.K) > MaxCells:
		return format.Errorf("n·k = %d × %d: at most %d beliefs; use fewer examples or values", s.N, s.K, MaxCells)
	case float64(s.N)*float64(s.DimPub) > 1e7:
		return format.Errorf("n·d_pub = %d × %d: at most 10⁷ features", s.N, s.DimPub)
	case !(s.Effect >= 0) || math.IsInf(s.Effect, 1):
		return format.Errorf("effect = %v: give a finite number ≥ 0 (0: the sensitive value does not set the label)", s.Effect)
	}
	return nil
}

// Generate draws the dataset from src.
func Generate(s Spec, src rand.Source) (*Dataset, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	r := rand.New(src)
	wa := make([]float64, s.DimPub)
	for j := range wa {
		wa[j] = r.NormFloat64()
	}
	if n := norm(wa); n > 0 {
		scale(wa, 2/n)
	}
	feats := make([][]float64, s.N)
	labels := make([]float64, s.N)
	ys := make([]int, s.N)
	for i := range feats {
		a := make([]float64, s.DimPub)
		for j := range a {
			a[j] = r.NormFloat64()
		}
		if n := norm(a); n > 0 {
			// Uniform in the ball: a uniform direction, radius U^{1/d}.
			scale(a, math.Pow(r.Float64(), 1/float64(s.DimPub))/n)
		}
		ys[i] = r.IntN(s.K)
		z := (dot(wa, a) + s.Effect*(2*float64(ys[i])/float64(s.K-1)-1)) * invSqrt3
		labels[i] = -1
		if r.Float64() < sigmoid(z) {
			labels[i] = 1
		}
		feats[i] = a
	}
	return New(s.K, feats, labels, ys)
}
