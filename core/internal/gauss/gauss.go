// Package gauss holds Gauss–Legendre quadrature rules: the n nodes and
// weights that integrate polynomials of degree 2n − 1 exactly, which the
// exact privacy audits integrate densities with, panel by panel.
package gauss

import "math"

// Rule is an n-point Gauss–Legendre rule on [−1, 1].
type Rule struct{ x, w []float64 }

// Legendre computes the n-point rule: the roots of the Legendre polynomial
// P_n by Newton's method from Chebyshev guesses, and the weights
// 2/((1 − x²)P_n′(x)²).
func Legendre(n int) Rule {
	r := Rule{x: make([]float64, n), w: make([]float64, n)}
	for i := range (n + 1) / 2 {
		x := math.Cos(math.Pi * (float64(i) + 0.75) / (float64(n) + 0.5))
		var dp float64
		for range 100 {
			p0, p1 := 1.0, x // P_0, P_1, then the three-term recurrence
			for k := 2; k <= n; k++ {
				p0, p1 = p1, ((2*float64(k)-1)*x*p1-(float64(k)-1)*p0)/float64(k)
			}
			dp = float64(n) * (x*p1 - p0) / (x*x - 1)
			dx := p1 / dp
			x -= dx
			if math.Abs(dx) < 1e-16 {
				break
			}
		}
		w := 2 / ((1 - x*x) * dp * dp)
		r.x[i], r.w[i] = x, w // descending, as gonum orders them
		r.x[n-1-i], r.w[n-1-i] = -x, w
	}
	return r
}

// Fixed writes the rule's nodes and weights mapped onto [a, b] into xs and
// ws (each of the rule's length).
func (r Rule) Fixed(xs, ws []float64, a, b float64) {
	h, m := (b-a)/2, (a+b)/2
	for i := range r.x {
		xs[i], ws[i] = m+h*r.x[i], h*r.w[i]
	}
}

// Len is the number of nodes.
func (r Rule) Len() int { return len(r.x) }
