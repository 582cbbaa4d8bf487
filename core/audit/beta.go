package audit

import "math"

// regIncBeta is the regularized incomplete beta function I_x(a, b), by
// the continued fraction (modified Lentz) on whichever side of the mode
// converges fast.
func regIncBeta(a, b, x float64) float64 {
	switch {
	case x <= 0:
		return 0
	case x >= 1:
		return 1
	}
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	lab, _ := math.Lgamma(a + b)
	front := math.Exp(lab - la - lb + a*math.Log(x) + b*math.Log1p(-x))
	if x < (a+1)/(a+b+2) {
		return front * betaCF(a, b, x) / a
	}
	return 1 - front*betaCF(b, a, 1-x)/b
}

// betaCF evaluates the incomplete beta's continued fraction.
func betaCF(a, b, x float64) float64 {
	const tiny = 1e-300
	c, d := 1.0, 1-(a+b)*x/(a+1)
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	h := d
	for m := 1; m <= 100_000; m++ {
		mf := float64(m)
		for _, num := range []float64{
			mf * (b - mf) * x / ((a + 2*mf - 1) * (a + 2*mf)),
			-(a + mf) * (a + b + mf) * x / ((a + 2*mf) * (a + 2*mf + 1)),
		} {
			d = 1 + num*d
			if math.Abs(d) < tiny {
				d = tiny
			}
			c = 1 + num/c
			if math.Abs(c) < tiny {
				c = tiny
			}
			d = 1 / d
			h *= d * c
		}
		if math.Abs(d*c-1) < 1e-16 {
			break
		}
	}
	return h
}

// invRegIncBeta returns the x with I_x(a, b) = p (the Beta(a, b) quantile),
// by bisection: I_x is increasing in x, and 200 halvings of [0, 1] reach
// the last bit of a float64.
func invRegIncBeta(a, b, p float64) float64 {
	lo, hi := 0.0, 1.0
	for range 200 {
		mid := lo + (hi-lo)/2
		if mid == lo || mid == hi {
			break
		}
		if regIncBeta(a, b, mid) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo + (hi-lo)/2
}
