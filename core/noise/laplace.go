package noise

import (
	"math"
	"math/rand/v2"
)

// Laplace is the Laplace distribution with location Mu and scale Scale:
// density exp(−|x−Mu|/Scale)/(2·Scale).
type Laplace struct {
	Mu, Scale float64
	Src       rand.Source
}

// Rand draws one value. One 64-bit draw gives the sign (top bit) and a
// 53-bit uniform w; the magnitude −ln(1−w) is Exp(1), computed with Log1p,
// which is bit-identical natively and under js/wasm.
func (l Laplace) Rand() float64 {
	x := mustSrc(l.Src).Uint64()
	w := float64((x<<1)>>11) * 0x1p-53
	e := -math.Log1p(-w)
	if x>>63 == 1 {
		e = -e
	}
	return l.Mu + l.Scale*e
}

// Prob returns the density at x.
func (l Laplace) Prob(x float64) float64 {
	return math.Exp(-math.Abs(x-l.Mu)/l.Scale) / (2 * l.Scale)
}

// CDF returns Pr[X ≤ x].
func (l Laplace) CDF(x float64) float64 {
	z := (x - l.Mu) / l.Scale
	if z < 0 {
		return 0.5 * math.Exp(z)
	}
	return 1 - 0.5*math.Exp(-z)
}

// Survival returns Pr[X > x]; accurate in the upper tail where 1 − CDF is not.
func (l Laplace) Survival(x float64) float64 { return l.CDF(2*l.Mu - x) }

// Quantile returns the x with CDF(x) = p, for p in (0, 1).
func (l Laplace) Quantile(p float64) float64 {
	if p < 0.5 {
		return l.Mu + l.Scale*math.Log(2*p)
	}
	return l.Mu - l.Scale*math.Log(2*(1-p))
}

// Mean returns Mu.
func (l Laplace) Mean() float64 { return l.Mu }

// Variance returns 2·Scale².
func (l Laplace) Variance() float64 { return 2 * l.Scale * l.Scale }
