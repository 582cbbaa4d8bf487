package loss

import (
	"math"

	"github.com/uldplab/uldp/core/format"
)

// Smooth is a per-item loss whose Hessians share one bound: what Ghazi et al.'s
// robust SGD needs. Its privacy proof runs two trajectories side by side
// and needs every gradient step to be non-expansive in ℓ∞, which holds when
// η ≤ 2/β and every Hessian is diagonally dominant (its Lemma 3.2).
type Smooth interface {
	Item
	// Beta is β, a bound on ‖∇²f(θ; z)‖∞ — the largest absolute row sum —
	// for every θ and z in ℝ^d.
	Beta(d int) float64
	// DiagonallyDominant returns nil if every Hessian in ℝ^d is
	// diagonally dominant (|H_jj| ≥ Σ_{k≠j}|H_jk|), else why not.
	DiagonallyDominant(d int) error
}

// Beta is μ: the Hessian of (μ/2)‖θ − z‖² is μI.
func (l Squared) Beta(int) float64 { return l.Mu }

// DiagonallyDominant is nil: μI is diagonal.
func (Squared) DiagonallyDominant(int) error { return nil }

// Huber is the separable Huber loss Σⱼ h(θⱼ − zⱼ) with h(u) = u²/2 for
// |u| ≤ H and H|u| − H²/2 beyond: squared near the data, linear (so an
// outlier pulls with force at most H per coordinate) far from it.
type Huber struct{ H float64 }

// At is Σⱼ h(θⱼ − zⱼ).
func (l Huber) At(theta, z []float64) float64 {
	var s float64
	for k := range theta {
		u := math.Abs(theta[k] - z[k])
		if u <= l.H {
			s += u * u / 2
		} else {
			s += l.H*u - l.H*l.H/2
		}
	}
	return s
}

// Grad is clip(θⱼ − zⱼ, −H, H) in every coordinate.
func (l Huber) Grad(theta, z, dst []float64) []float64 {
	for k := range dst {
		dst[k] = math.Min(math.Max(theta[k]-z[k], -l.H), l.H)
	}
	return dst
}

// Beta is 1: the Hessian is diagonal with entries 1 (near the data) or 0.
func (Huber) Beta(int) float64 { return 1 }

// DiagonallyDominant is nil: the Hessian is diagonal.
func (Huber) DiagonallyDominant(int) error { return nil }

// Quadratic is ½(θ − z)ᵀA(θ − z) for a symmetric positive semidefinite A:
// with off-diagonal terms it couples the coordinates, and when they
// outweigh the diagonal a gradient step can stretch an ℓ∞ gap.
type Quadratic struct{ A [][]float64 }

// Coupled returns the Quadratic in ℝ^d whose first two coordinates have
// the Hessian [[1, 2], [2, 5]] (positive definite, not diagonally
// dominant: row 1 has 2 > 1 off the diagonal), the rest the identity — the
// spec's counterexample to ℓ∞ contractivity.
func Coupled(d int) Quadratic {
	a := make([][]float64, d)
	for j := range a {
		a[j] = make([]float64, d)
		a[j][j] = 1
	}
	if d >= 2 {
		a[0][1], a[1][0], a[1][1] = 2, 2, 5
	}
	return Quadratic{A: a}
}

// At is ½(θ − z)ᵀA(θ − z).
func (l Quadratic) At(theta, z []float64) float64 {
	var s float64
	for j, row := range l.A {
		for k, a := range row {
			s += a * (theta[j] - z[j]) * (theta[k] - z[k])
		}
	}
	return s / 2
}

// Grad is A(θ − z).
func (l Quadratic) Grad(theta, z, dst []float64) []float64 {
	for j, row := range l.A {
		var s float64
		for k, a := range row {
			s += a * (theta[k] - z[k])
		}
		dst[j] = s
	}
	return dst
}

// Beta is A's largest absolute row sum.
func (l Quadratic) Beta(int) float64 {
	var b float64
	for _, row := range l.A {
		var s float64
		for _, a := range row {
			s += math.Abs(a)
		}
		b = math.Max(b, s)
	}
	return b
}

// DiagonallyDominant checks A row by row.
func (l Quadratic) DiagonallyDominant(d int) error {
	if len(l.A) != d {
		return format.Errorf("the quadratic loss's matrix is %d×%d, the data %d-dimensional", len(l.A), len(l.A), d)
	}
	for j, row := range l.A {
		var off float64
		for k, a := range row {
			if k != j {
				off += math.Abs(a)
			}
		}
		if off > math.Abs(row[j]) {
			return format.Errorf("its Hessian is not diagonally dominant: row %d has Σ|off-diagonal| = %g > |diagonal| = %g, so a gradient step can stretch the ℓ∞ gap between two runs (robust SGD's privacy proof needs dominance: Ghazi et al. 2025, Lemma 3.2)", j+1, off, math.Abs(row[j]))
		}
	}
	return nil
}
