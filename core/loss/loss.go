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

// Intersection is the convex set ∩ B(c_j, r_j) of a few balls: 𝒦, a
// phase's 𝒦 ∩ B(θ̂, R_i), or Strongly-Convex-ERM's 𝒦 ∩ B(θ₀, R′) ∩ B(θ̂, R_i).
type Intersection []Ball

// Contains reports whether y lies in every ball (with Ball.Contains' slack).
func (k Intersection) Contains(y []float64) bool {
	for _, b := range k {
		if !b.Contains(y) {
			return false
		}
	}
	return true
}

// Project writes the point of k closest to y into dst (may alias y) and
// reports false if the balls have no common point.
//
// It is exact, by the KKT conditions: the projection θ satisfies
// y − θ = Σ_{j∈A} μ_j(θ − c_j), μ_j ≥ 0, for the balls A whose spheres it
// lies on, so ‖θ − y‖² equals the strictly convex ‖·−y‖² + Σ μ_j(‖·−c_j‖² −
// r_j²) on the spheres' common part S_A, which θ therefore minimises: θ is
// the point of S_A nearest y. Every subset A of at most d+1 balls gives one
// candidate (S_A is a sphere within an affine subspace, in closed form);
// the feasible candidate nearest y is the projection.
func (k Intersection) Project(y, dst []float64) ([]float64, bool) {
	if k.Contains(y) {
		copy(dst, y)
		return dst, true
	}
	d := len(y)
	y = append([]float64(nil), y...) // dst may alias y
	// The common case: the nearest point of one ball is in all of them,
	// hence nearest in their intersection.
	for _, b := range k {
		if !b.Contains(y) {
			if b.Project(y, dst); k.Contains(dst) {
				return dst, true
			}
		}
	}
	var best []float64
	bestDist := math.Inf(1)
	for mask := 1; mask < 1<<len(k); mask++ {
		var set []Ball
		for j, b := range k {
			if mask&(1<<j) != 0 {
				set = append(set, b)
			}
		}
		if len(set) > d+1 {
			continue
		}
		z, ok := nearestOnSpheres(set, y)
		if !ok || !k.near(z, y) {
			continue
		}
		if dz := Dist(z, y); dz < bestDist {
			best, bestDist = z, dz
		}
	}
	if best == nil {
		return dst, false
	}
	copy(dst, best)
	return dst, true
}

// near reports whether a candidate lies in every ball up to rounding: a
// point computed on one sphere may sit a few ulps of ‖y − c‖ outside it.
func (k Intersection) near(z, y []float64) bool {
	for _, b := range k {
		if Dist(z, b.Centre) > b.Radius+1e-9*(b.Radius+Dist(y, b.Centre)) {
			return false
		}
	}
	return true
}

// nearestOnSpheres returns the point nearest y on the common part of the
// balls' boundary spheres, if they meet. With x = θ − c₁ the spheres say
// ‖x‖ = r₁ and ⟨x, c_j − c₁⟩ = (r₁² − r_j² + ‖c_j − c₁‖²)/2: a sphere of
// radius ρ about p within the affine subspace those planes cut out.
func nearestOnSpheres(set []Ball, y []float64) ([]float64, bool) {
	d := len(y)
	c1, r1 := set[0].Centre, set[0].Radius
	scale := r1 + Dist(y, c1)
	// Orthonormal basis e of span{c_j − c₁} and the coordinates a of p in it.
	var e [][]float64
	var a []float64
	for _, b := range set[1:] {
		v := make([]float64, d)
		for i := range v {
			v[i] = b.Centre[i] - c1[i]
		}
		rhs := (r1*r1 - b.Radius*b.Radius + dot(v, v)) / 2
		w := append([]float64(nil), v...)
		for l, el := range e {
			c := dot(w, el)
			rhs -= c * a[l]
			for i := range w {
				w[i] -= c * el[i]
			}
		}
		n := math.Sqrt(dot(w, w))
		if n <= 1e-12*(math.Sqrt(dot(v, v))+scale) {
			continue // dependent centres: checked against the result below
		}
		for i := range w {
			w[i] /= n
		}
		e, a = append(e, w), append(a, rhs/n)
	}
	rho2 := r1 * r1
	for _, al := range a {
		rho2 -= al * al
	}
	if rho2 < -1e-12*scale*scale {
		return nil, false
	}
	rho := math.Sqrt(math.Max(rho2, 0))
	// x = p + ρ·(the part of y − c₁ orthogonal to the basis, normalised).
	x := make([]float64, d)
	for i := range x {
		x[i] = y[i] - c1[i]
	}
	for _, el := range e {
		c := dot(x, el)
		for i := range x {
			x[i] -= c * el[i]
		}
	}
	n := math.Sqrt(dot(x, x))
	if n <= 1e-300 {
		// y on the axis: every point of the sphere is as close; take one.
		x = orthogonalTo(e, d)
		n = math.Sqrt(dot(x, x))
		if n == 0 {
			rho = 0 // the subspace is a point
			n = 1
		}
	}
	for i := range x {
		x[i] *= rho / n
	}
	for l, el := range e {
		for i := range x {
			x[i] += a[l] * el[i]
		}
	}
	for i := range x {
		x[i] += c1[i]
	}
	for _, b := range set { // dependent centres and rounding
		if math.Abs(Dist(x, b.Centre)-b.Radius) > 1e-9*scale {
			return nil, false
		}
	}
	return x, true
}

// orthogonalTo returns a vector orthogonal to the orthonormal e (zero if e
// spans ℝ^d).
func orthogonalTo(e [][]float64, d int) []float64 {
	for k := 0; k < d; k++ {
		w := make([]float64, d)
		w[k] = 1
		for _, el := range e {
			c := dot(w, el)
			for i := range w {
				w[i] -= c * el[i]
			}
		}
		if dot(w, w) > 1e-6 {
			return w
		}
	}
	return make([]float64, d)
}

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
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

// Item is a per-item loss ℓ(θ; z) with a subgradient: what DP-SGD needs.
type Item interface {
	// At is ℓ(θ; z).
	At(theta, z []float64) float64
	// Grad writes a subgradient ∂ℓ(θ; z)/∂θ into dst and returns it.
	Grad(theta, z, dst []float64) []float64
}

// Distance is ℓ(θ; z) = ‖θ − z‖: convex, 1-Lipschitz everywhere, not smooth
// at z — the loss whose minimiser over a sample is its geometric median,
// and where randomized smoothing earns its keep.
type Distance struct{}

// At is ‖θ − z‖.
func (Distance) At(theta, z []float64) float64 { return Dist(theta, z) }

// Grad is (θ − z)/‖θ − z‖, and 0 at θ = z (a valid subgradient there).
func (Distance) Grad(theta, z, dst []float64) []float64 {
	d := Dist(theta, z)
	for k := range dst {
		dst[k] = 0
		if d > 0 {
			dst[k] = (theta[k] - z[k]) / d
		}
	}
	return dst
}

// At is (Mu/2)‖θ − z‖².
func (l Squared) At(theta, z []float64) float64 {
	d := Dist(theta, z)
	return l.Mu / 2 * d * d
}

// Grad is Mu(θ − z).
func (l Squared) Grad(theta, z, dst []float64) []float64 {
	for k := range dst {
		dst[k] = l.Mu * (theta[k] - z[k])
	}
	return dst
}
