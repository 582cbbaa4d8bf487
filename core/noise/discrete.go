package noise

import (
	"math"
	"math/rand/v2"

	"github.com/uldplab/uldp/core/format"
)

// Rational is a positive rational Num/Den. The discrete samplers take their
// parameter as a rational so that sampling needs only uniform integers and
// comparisons: no floating-point logarithm whose rounding an attacker could
// read off the output (Mironov 2012; Canonne, Kamath & Steinke 2020).
type Rational struct {
	Num, Den uint64
}

// maxRationalPart bounds numerator and denominator so products in the
// samplers stay far from uint64 overflow.
const maxRationalPart = 1 << 32

// RationalOf returns the closest rational to x with numerator and denominator
// at most 2³², by continued fractions (so 2.5 becomes 5/2 and 1/3 stays 1/3).
// Only the parameter is rounded, by less than 1e-9 relative; sampling is then
// exact for the rational returned.
func RationalOf(x float64) (Rational, error) {
	if !(x > 0) || math.IsInf(x, 1) || x >= maxRationalPart || x < 1.0/maxRationalPart {
		return Rational{}, format.Errorf("%v: need a finite number in [2⁻³², 2³²)", x)
	}
	// Convergents h/k of the continued fraction of x.
	h0, h1 := uint64(0), uint64(1)
	k0, k1 := uint64(1), uint64(0)
	f := x
	for i := 0; i < 64; i++ {
		a := math.Floor(f)
		ai := uint64(a)
		h2, k2 := ai*h1+h0, ai*k1+k0
		if h2 > maxRationalPart || k2 > maxRationalPart {
			break
		}
		h0, h1, k0, k1 = h1, h2, k1, k2
		frac := f - a
		if frac < 1e-15 || math.Abs(float64(h1)/float64(k1)-x) <= 1e-15*x {
			break
		}
		f = 1 / frac
	}
	return Rational{Num: h1, Den: k1}, nil
}

// Float returns Num/Den as a float64.
func (r Rational) Float() float64 { return float64(r.Num) / float64(r.Den) }

// String prints r as "Num/Den".
func (r Rational) String() string { return format.Sprintf("%d/%d", r.Num, r.Den) }

func (r Rational) check(what string) error {
	if r.Num == 0 || r.Den == 0 || r.Num > maxRationalPart || r.Den > maxRationalPart {
		return format.Errorf("%s = %d/%d: numerator and denominator must be in [1, 2³²]", what, r.Num, r.Den)
	}
	return nil
}

// Geometric is the geometric distribution on {0, 1, 2, …} with
// Pr[X = k] = (1 − e^{−γ})·e^{−γk}, γ = Rate. Rand uses integer arithmetic
// only (Canonne, Kamath & Steinke 2020, Alg. 2).
type Geometric struct {
	Rate Rational
	Src  rand.Source
}

// Validate reports whether the rate is usable.
func (g Geometric) Validate() error { return g.Rate.check("rate γ") }

func (g Geometric) q() float64 { return math.Exp(-g.Rate.Float()) }

// Rand draws one value.
func (g Geometric) Rand() int64 {
	r := randOf(g.Src)
	return int64(geometricExp(r, g.Rate.Num, g.Rate.Den))
}

// PMF returns Pr[X = k].
func (g Geometric) PMF(k int64) float64 {
	if k < 0 {
		return 0
	}
	return -math.Expm1(-g.Rate.Float()) * math.Exp(-g.Rate.Float()*float64(k))
}

// CDF returns Pr[X ≤ k].
func (g Geometric) CDF(k int64) float64 {
	if k < 0 {
		return 0
	}
	return -math.Expm1(-g.Rate.Float() * float64(k+1))
}

// Mean returns e^{−γ}/(1 − e^{−γ}).
func (g Geometric) Mean() float64 { q := g.q(); return q / (1 - q) }

// Variance returns e^{−γ}/(1 − e^{−γ})².
func (g Geometric) Variance() float64 { q := g.q(); return q / ((1 - q) * (1 - q)) }

// DiscreteLaplace is the discrete Laplace distribution on the integers with
// scale t = Scale: Pr[X = k] = (1 − q)/(1 + q)·q^{|k|}, q = e^{−1/t}. Rand is
// float-attack-safe: integer arithmetic only (Canonne, Kamath & Steinke 2020,
// Alg. 2), so the output's low bits reveal nothing beyond the integer drawn.
type DiscreteLaplace struct {
	Scale Rational
	Src   rand.Source
}

// Validate reports whether the scale is usable.
func (l DiscreteLaplace) Validate() error { return l.Scale.check("scale") }

func (l DiscreteLaplace) q() float64 { return math.Exp(-1 / l.Scale.Float()) }

// Rand draws one value: a fair sign and a Geometric(1/t) magnitude, rejecting
// "−0" so that 0 is not counted twice.
func (l DiscreteLaplace) Rand() int64 {
	r := randOf(l.Src)
	for {
		negative := r.Uint64()>>63 == 1
		// Rate 1/t = Den/Num.
		m := int64(geometricExp(r, l.Scale.Den, l.Scale.Num))
		if negative && m == 0 {
			continue
		}
		if negative {
			return -m
		}
		return m
	}
}

// PMF returns Pr[X = k].
func (l DiscreteLaplace) PMF(k int64) float64 {
	q := l.q()
	return (1 - q) / (1 + q) * math.Pow(q, math.Abs(float64(k)))
}

// CDF returns Pr[X ≤ k].
func (l DiscreteLaplace) CDF(k int64) float64 {
	q := l.q()
	if k < 0 {
		return math.Pow(q, float64(-k)) / (1 + q)
	}
	return 1 - math.Pow(q, float64(k+1))/(1+q)
}

// Mean returns 0.
func (l DiscreteLaplace) Mean() float64 { return 0 }

// Variance returns 2q/(1 − q)².
func (l DiscreteLaplace) Variance() float64 { q := l.q(); return 2 * q / ((1 - q) * (1 - q)) }

// bernoulli returns true with probability num/den.
func bernoulli(r *rand.Rand, num, den uint64) bool { return r.Uint64N(den) < num }

// bernoulliExp1 returns true with probability e^{−num/den} for num ≤ den:
// the parity of the first k with a failed Bernoulli(γ/k) trial.
func bernoulliExp1(r *rand.Rand, num, den uint64) bool {
	k := uint64(1)
	for bernoulli(r, num, den*k) {
		k++
	}
	return k%2 == 1
}

// bernoulliExp returns true with probability e^{−num/den}, splitting γ into
// whole units e^{−1} and a remainder.
func bernoulliExp(r *rand.Rand, num, den uint64) bool {
	for num > den {
		if !bernoulliExp1(r, 1, 1) {
			return false
		}
		num -= den
	}
	return bernoulliExp1(r, num, den)
}

// geometricExp draws Pr[k] ∝ e^{−γk} for γ = num/den > 0: a uniform
// remainder u ∈ [0, den) accepted with probability e^{−u/den}, plus den times
// a Geometric(1) count, divided by num.
func geometricExp(r *rand.Rand, num, den uint64) uint64 {
	var u uint64
	for {
		u = r.Uint64N(den)
		if bernoulliExp(r, u, den) {
			break
		}
	}
	var v uint64
	for bernoulliExp1(r, 1, 1) {
		v++
	}
	return (v*den + u) / num
}
