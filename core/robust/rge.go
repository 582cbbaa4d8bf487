package robust

import (
	"math"

	"github.com/uldplab/uldp/core/format"
)

// Stat is a coordinate-wise robust statistic: the median, or the trimmed
// mean TM_k when Trim > 0.
type Stat struct {
	// Trim is k: TM_k drops the k smallest and k largest values of each
	// coordinate. 0 means the median.
	Trim int
}

// MinTrim returns ⌈B/3⌉, the least k for which TM_k stays inside an ℓ∞ box
// that holds 2B/3 of B points (Ghazi et al.'s Assumption 3.3(i) in the form its
// proofs use).
func MinTrim(b int) int { return (b + 2) / 3 }

// Check reports why the statistic cannot summarise b points: TM_k needs
// 2k < b.
func (s Stat) Check(b int) error {
	if s.Trim < 0 || 2*s.Trim >= b {
		return format.Errorf("trim = %d with %d users per batch: the trimmed mean drops k users at each end and needs 0 ≤ k < B/2 (k ≥ ⌈B/3⌉ = %d for the privacy proof)", s.Trim, b, MinTrim(b))
	}
	return nil
}

// Contains reports whether the statistic satisfies Assumption 3.3(i) for b
// points: it lies in any ℓ∞ box holding at least 2b/3 of them. The median
// always does; TM_k when k ≥ ⌈b/3⌉.
func (s Stat) Contains(b int) bool { return s.Trim == 0 || s.Trim >= MinTrim(b) }

// String names the statistic.
func (s Stat) String() string {
	if s.Trim == 0 {
		return "median"
	}
	return format.Sprintf("trimmed mean TM_%d", s.Trim)
}

// Of returns the statistic of the values in col, reordering col.
func (s Stat) Of(col []float64) float64 {
	if s.Trim == 0 {
		return Median(col)
	}
	return Trimmed(col, s.Trim)
}

// Estimate is Ghazi et al.'s robust gradient estimate (Alg. 2) of B points with
// everything a lesson shows: per coordinate the mean, the robust
// statistic, and the mean clipped into [stat − ς, stat + ς].
type Estimate struct {
	Mean, Stat, Est []float64
	// Clipped marks the coordinates where clipping moved the estimate off
	// the mean, which lay more than ς from the statistic (Alg. 2's line 4
	// tests ≥, but clipping at exactly ς changes nothing).
	Clipped []bool
}

// RGE computes the estimate of points (B × d, flat in Vectors order: point
// i is flat[i·d:(i+1)·d]) with band half-width ς into e, reusing its
// slices; scratch needs B values. The result is clip(mean, stat ± ς)
// coordinate-wise: within ς of the statistic always, and the plain mean
// whenever the two are closer than ς (spec OR-A-01).
func RGE(flat []float64, d int, band float64, s Stat, e *Estimate, scratch []float64) {
	b := len(flat) / d
	e.Mean = resize(e.Mean, d)
	e.Stat = resize(e.Stat, d)
	e.Est = resize(e.Est, d)
	if cap(e.Clipped) < d {
		e.Clipped = make([]bool, d)
	}
	e.Clipped = e.Clipped[:d]
	col := scratch[:b]
	for k := range d {
		var sum float64
		for i := range b {
			v := flat[i*d+k]
			col[i] = v
			sum += v
		}
		mean := sum / float64(b)
		rs := s.Of(col)
		e.Mean[k], e.Stat[k] = mean, rs
		e.Est[k] = Clip(mean, rs-band, rs+band)
		e.Clipped[k] = e.Est[k] != mean
	}
}

// Clip returns min(max(v, lo), hi).
func Clip(v, lo, hi float64) float64 { return math.Min(math.Max(v, lo), hi) }

func resize(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}
