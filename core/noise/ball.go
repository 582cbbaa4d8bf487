package noise

import (
	"math"
	"math/rand/v2"
)

// Ball is the uniform distribution on the closed d-ball of radius Radius
// centred at 0, the perturbation of randomized smoothing (Asi & Liu 2023, §2.2).
type Ball struct {
	Dim    int
	Radius float64
	Src    rand.Source
}

// Rand fills dst (length Dim; allocated if nil) with one point. Up to three
// dimensions it rejects points of the cube outside the ball (accepted with
// probability π/4 in 2-D, π/6 in 3-D: fewer and cheaper draws than the
// general method); above, Radius·U^{1/d}·g/‖g‖ for a standard Gaussian g and
// U uniform on [0, 1). DP-SGD draws one per item per step.
func (b Ball) Rand(dst []float64) []float64 {
	if dst == nil {
		dst = make([]float64, b.Dim)
	}
	r := randOf(b.Src)
	if len(dst) <= 3 {
		for {
			var norm2 float64
			for i := range dst {
				dst[i] = 2*r.Float64() - 1
				norm2 += dst[i] * dst[i]
			}
			if norm2 <= 1 {
				for i := range dst {
					dst[i] *= b.Radius
				}
				return dst
			}
		}
	}
	for {
		var norm2 float64
		for i := range dst {
			dst[i] = r.NormFloat64()
			norm2 += dst[i] * dst[i]
		}
		if norm2 == 0 { // probability 0, but a zero vector has no direction
			continue
		}
		scale := b.Radius * math.Pow(uniform53(r), 1/float64(len(dst))) / math.Sqrt(norm2)
		for i := range dst {
			dst[i] *= scale
		}
		return dst
	}
}

// RadiusCDF returns Pr[‖Y‖ ≤ s] = (s/Radius)^Dim.
func (b Ball) RadiusCDF(s float64) float64 {
	switch {
	case s <= 0:
		return 0
	case s >= b.Radius:
		return 1
	}
	return math.Pow(s/b.Radius, float64(b.Dim))
}

// CoordVariance returns E[Y_i²] = Radius²/(Dim+2), the per-coordinate variance.
func (b Ball) CoordVariance() float64 { return b.Radius * b.Radius / float64(b.Dim+2) }
