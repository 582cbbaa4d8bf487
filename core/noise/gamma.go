package noise

import (
	"math"
	"math/rand/v2"
)

// Gamma is the gamma distribution with shape Shape and rate Rate (mean
// Shape/Rate).
type Gamma struct {
	Shape, Rate float64
	Src         rand.Source
}

// Rand draws one value: an exponential for shape 1; Marsaglia and Tsang's
// squeeze (2000) from shape 0.2 on, boosted by U^{1/shape} below 1; and for
// smaller shapes Liu, Martin and Syring's log-space rejection (2017), which
// stays accurate where the boost underflows. The branches and the order of
// draws are those of gonum's distuv.Gamma, so seeded data is unchanged
// (tested).
func (g Gamma) Rand() float64 {
	r := randOf(g.Src)
	a, b := g.Shape, g.Rate
	switch {
	case a == 1:
		return r.ExpFloat64() / b
	case a < 0.2:
		lambda := 1/a - 1
		lr := -math.Log1p(1 / lambda / math.E)
		for {
			e := r.ExpFloat64()
			z := e + lr
			if e < -lr {
				z = -r.ExpFloat64() / lambda
			}
			eza := math.Exp(-z / a)
			lEta := -z
			if z < 0 {
				lEta = -1 + lambda*z
			}
			if -z-eza-lEta > -r.ExpFloat64() {
				return eza / b
			}
		}
	}
	d, boost := a-1.0/3, 1.0
	if a < 1 {
		d++
		boost = math.Pow(r.Float64(), 1/a)
	}
	c := 1 / (3 * math.Sqrt(d))
	for {
		x := r.NormFloat64()
		v := 1 + x*c
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := r.Float64()
		if u < 1-0.0331*(x*x)*(x*x) || math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return boost * d * v / b
		}
	}
}

// StudentT is Student's t with Nu degrees of freedom, scaled by Sigma.
type StudentT struct {
	Nu, Sigma float64
	Src       rand.Source
}

// Rand draws N(0, 1)/√(χ²_ν/ν)·Sigma, the χ² as Gamma(ν/2, rate 1/2).
func (s StudentT) Rand() float64 {
	n := randOf(s.Src).NormFloat64()
	c := Gamma{Shape: s.Nu / 2, Rate: 0.5, Src: s.Src}.Rand()
	return n / math.Sqrt(c/s.Nu) * s.Sigma
}
