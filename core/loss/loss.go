// Package loss holds the losses with exact minimisers the stability checks
// need (spec 000-002 §8.1) and the projections onto balls and their
// intersections that constrained minimisers use.
package loss

import "math"

// Ball is B(Centre, Radius).
type Ball struct {
	Centre []float64
	Radius float64
}

// Contains reports whether y lies in the ball (with a 1e-12 relative slack
// for points just projected onto its surface).
func (b Ball) Contains(y []float64) bool {
	return Dist(y, b.Centre) <= b.Radius*(1+1e-12)+1e-15
}

// Project writes the point of the ball closest to y into dst (may alias y).
func (b Ball) Project(y, dst []float64) []float64 {
	d := Dist(y, b.Centre)
	for k := range y {
		if d <= b.Radius {
			dst[k] = y[k]
		} else {
			dst[k] = b.Centre[k] + (y[k]-b.Centre[k])*b.Radius/d
		}
	}
	return dst
}

// ProjectIntersection writes the point of a ∩ b closest to y into dst, in
// closed form: y itself, else its projection onto one ball if that lies in
// the other, else its projection onto the sphere where the two boundaries
// meet. It reports false if the balls do not intersect.
func ProjectIntersection(a, b Ball, y, dst []float64) ([]float64, bool) {
	c := Dist(a.Centre, b.Centre)
	if c > a.Radius+b.Radius {
		return dst, false
	}
	if a.Contains(y) && b.Contains(y) {
		copy(dst, y)
		return dst, true
	}
	pa := a.Project(y, make([]float64, len(y)))
	if b.Contains(pa) {
		copy(dst, pa)
		return dst, true
	}
	pb := b.Project(y, make([]float64, len(y)))
	if a.Contains(pb) {
		copy(dst, pb)
		return dst, true
	}
	// The boundaries meet in a (d−2)-sphere: centre a.Centre + t·u on the
	// axis u, radius ρ. Project y's offset from it, orthogonal to u.
	u := make([]float64, len(y))
	for k := range u {
		u[k] = (b.Centre[k] - a.Centre[k]) / c
	}
	t := (c*c + a.Radius*a.Radius - b.Radius*b.Radius) / (2 * c)
	rho := math.Sqrt(math.Max(a.Radius*a.Radius-t*t, 0))
	var along float64
	for k := range y {
		along += (y[k] - a.Centre[k]) * u[k]
	}
	w := make([]float64, len(y))
	var wn float64
	for k := range y {
		w[k] = y[k] - a.Centre[k] - along*u[k]
		wn += w[k] * w[k]
	}
	wn = math.Sqrt(wn)
	if wn == 0 {
		// y on the axis: every point of the sphere is as close; take one.
		w = orthogonal(u)
		wn = 1
	}
	for k := range dst {
		dst[k] = a.Centre[k] + t*u[k] + rho*w[k]/wn
	}
	return dst, true
}

// orthogonal returns a unit vector orthogonal to the unit vector u (d ≥ 2).
func orthogonal(u []float64) []float64 {
	w := make([]float64, len(u))
	if len(u) < 2 {
		return w
	}
	i := 0
	if math.Abs(u[1]) < math.Abs(u[0]) {
		i = 1
	}
	w[i] = 1
	var dot float64
	for k := range u {
		dot += w[k] * u[k]
	}
	var n float64
	for k := range w {
		w[k] -= dot * u[k]
		n += w[k] * w[k]
	}
	for k := range w {
		w[k] /= math.Sqrt(n)
	}
	return w
}

// Dist is the Euclidean distance ‖a − b‖.
func Dist(a, b []float64) float64 {
	var s float64
	for k := range a {
		d := a[k] - b[k]
		s += d * d
	}
	return math.Sqrt(s)
}

// Squared is ℓ(θ; x) = (Mu/2)‖θ − x‖².
type Squared struct{ Mu float64 }

// Value is the empirical loss (1/N)Σ ℓ(θ; x_j) over the points.
func (l Squared) Value(theta []float64, points [][]float64) float64 {
	var s float64
	for _, x := range points {
		d := Dist(theta, x)
		s += l.Mu / 2 * d * d
	}
	return s / float64(len(points))
}
