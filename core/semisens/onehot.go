package semisens

import "math"

// OneHot is a query of the generalised-linear form the lesson's models
// take: f(xᵢ^pub, y) = sᵢ(y)·φᵢ(y) with the feature map
// φᵢ(y) = [aᵢ; e_y; 1]/√3 (aᵢ the public features, e_y the one-hot
// sensitive block). Its Dim must be d_pub + k + 1. The k candidates of an
// example then differ in one scalar and one coordinate, so the beliefs'
// answer and the MWU scores cost O(n·(d_pub + k)) instead of O(n·k·d).
type OneHot interface {
	Query
	// Scales writes sᵢ(y) for every candidate y into dst (length k).
	Scales(pub *Public, i int, dst []float64)
}

// feature writes φᵢ(y) = [aᵢ; e_y; 1]/√3 into dst (length d_pub + k + 1).
func feature(pub *Public, i, y int, dst []float64) {
	clear(dst)
	a := pub.Features[i]
	for j, x := range a {
		dst[j] = x * invSqrt3
	}
	dst[len(a)+y] = invSqrt3
	dst[len(dst)-1] = invSqrt3
}

var invSqrt3 = 1 / math.Sqrt(3)

// oneHot evaluates a OneHot query on the fast path.
type oneHot struct {
	pub *Public
	q   OneHot
}

// fast returns the fast path for q when q is OneHot and its dimension fits
// the feature map.
func fast(pub *Public, q Query) (oneHot, bool) {
	oh, ok := q.(OneHot)
	if !ok || q.Dim() != pub.DimPub()+pub.K+1 {
		return oneHot{}, false
	}
	return oneHot{pub, oh}, true
}

// answer adds f(p) into dst (zeroed, length Dim).
func (o oneHot) answer(b *Beliefs, dst []float64) {
	dp := o.pub.DimPub()
	s := make([]float64, b.k)
	for i := range b.n {
		o.q.Scales(o.pub, i, s)
		tot := 0.0
		for y, sy := range s {
			w := b.P(i, y) * sy
			dst[dp+y] += w
			tot += w
		}
		for j, x := range o.pub.Features[i] {
			dst[j] += tot * x
		}
		dst[len(dst)-1] += tot
	}
	scale(dst, invSqrt3/float64(b.n))
}

// dots writes ⟨φ, f(xᵢ^pub, y)⟩ for every (i, y) into out (row-major).
func (o oneHot) dots(phi []float64, out []float64) {
	dp, k := o.pub.DimPub(), o.pub.K
	s := make([]float64, k)
	last := phi[len(phi)-1]
	for i := range o.pub.N() {
		o.q.Scales(o.pub, i, s)
		base := dot(phi[:dp], o.pub.Features[i]) + last
		for y, sy := range s {
			out[i*k+y] = sy * (base + phi[dp+y]) * invSqrt3
		}
	}
}
