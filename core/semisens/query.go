package semisens

import (
	"math"

	"github.com/uldplab/uldp/core/format"
)

// Query is a linear vector query: f(xᵢ^pub, y) ∈ B₂^d(1) for every example
// i and every candidate value y. It sees the public part only, so it can be
// evaluated on candidates the example does not hold — which is what the
// beliefs' answer f(p) and the MWU step need.
type Query interface {
	// Dim is d, the length of every value.
	Dim() int
	// Eval writes f(xᵢ^pub, y) into dst (length Dim).
	Eval(pub *Public, i, y int, dst []float64)
}

// Table is a query given by its values: Table[i][y] = f(xᵢ^pub, y).
type Table [][][]float64

// Dim is the length of the values.
func (t Table) Dim() int { return len(t[0][0]) }

// Eval copies the value of example i at candidate y.
func (t Table) Eval(_ *Public, i, y int, dst []float64) { copy(dst, t[i][y]) }

// Check reports a table that is not n × k values of one length in the
// unit ball.
func (t Table) Check(n, k int) error {
	if len(t) != n {
		return format.Errorf("values: %d examples, the data has %d", len(t), n)
	}
	d := -1
	for i, row := range t {
		if len(row) != k {
			return format.Errorf("values[%d]: %d candidates, the sensitive feature takes k = %d", i, len(row), k)
		}
		for y, v := range row {
			if d < 0 {
				d = len(v)
			}
			if len(v) != d || d == 0 {
				return format.Errorf("values[%d][%d]: %d coordinates, values[0][0] has %d: every value needs the same d ≥ 1", i, y, len(v), d)
			}
			s := 0.0
			for _, x := range v {
				if math.IsNaN(x) || math.IsInf(x, 0) {
					return format.Errorf("values[%d][%d] holds %v: values must be finite", i, y, x)
				}
				s += x * x
			}
			if s > 1+1e-9 {
				return format.Errorf("values[%d][%d] has norm %.6g > 1: a query's values lie in the unit ball", i, y, math.Sqrt(s))
			}
		}
	}
	return nil
}

// Trunc is trunc_c(b) = b·min{1, c/|b|}: b clamped into [−c, c].
func Trunc(b, c float64) float64 { return max(-c, min(c, b)) }

// Clip is clip_{φ,c}(u) = u·min{1, c/|⟨φ, u⟩|): u rescaled, direction kept,
// so that |⟨φ, u⟩| ≤ c. It writes into dst (allocated if nil).
func Clip(phi, u []float64, c float64, dst []float64) []float64 {
	if dst == nil {
		dst = make([]float64, len(u))
	}
	s := 1.0
	if b := dot(phi, u); math.Abs(b) > c {
		s = c / math.Abs(b)
	}
	for i, x := range u {
		dst[i] = s * x
	}
	return dst
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i, x := range a {
		s += x * b[i]
	}
	return s
}

func norm(a []float64) float64 { return math.Sqrt(dot(a, a)) }

func dist(a, b []float64) float64 {
	s := 0.0
	for i, x := range a {
		d := x - b[i]
		s += d * d
	}
	return math.Sqrt(s)
}
