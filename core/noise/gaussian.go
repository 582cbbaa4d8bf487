package noise

import (
	"math"
	"math/rand/v2"
)

// Gaussian is the normal distribution N(Mu, Sigma²).
type Gaussian struct {
	Mu, Sigma float64
	Src       rand.Source
}

// Rand draws one value with math/rand/v2's ziggurat sampler.
func (g Gaussian) Rand() float64 {
	return g.Mu + g.Sigma*randOf(g.Src).NormFloat64()
}

// RandVec fills dst with independent draws (isotropic noise N(Mu, Sigma²·I))
// and returns it.
func (g Gaussian) RandVec(dst []float64) []float64 {
	r := randOf(g.Src)
	for i := range dst {
		dst[i] = g.Mu + g.Sigma*r.NormFloat64()
	}
	return dst
}

// Prob returns the density at x.
func (g Gaussian) Prob(x float64) float64 {
	z := (x - g.Mu) / g.Sigma
	return math.Exp(-z*z/2) / (g.Sigma * math.Sqrt(2*math.Pi))
}

// CDF returns Pr[X ≤ x].
func (g Gaussian) CDF(x float64) float64 { return Phi((x - g.Mu) / g.Sigma) }

// Mean returns Mu.
func (g Gaussian) Mean() float64 { return g.Mu }

// Variance returns Sigma².
func (g Gaussian) Variance() float64 { return g.Sigma * g.Sigma }

// Phi is the standard normal CDF, accurate in both tails (it uses Erfc, not
// 1 − Erf).
func Phi(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }

// LogPhi returns ln Φ(z), finite even where Φ(z) underflows (z < −38), via the
// asymptotic series of the Mills ratio there.
func LogPhi(z float64) float64 {
	if z > -30 {
		return math.Log(Phi(z))
	}
	// Φ(z) = φ(z)/|z| · (1 − 1/z² + 3/z⁴ − 15/z⁶ + …); four terms give
	// relative error below 1e-9 for z ≤ −30.
	z2 := z * z
	series := 1 - 1/z2 + 3/(z2*z2) - 15/(z2*z2*z2)
	return -z2/2 - math.Log(-z) - 0.5*math.Log(2*math.Pi) + math.Log(series)
}
