// Package robust holds the robust statistics the lessons and mechanisms use:
// coordinate-wise median and trimmed mean of a set of points, and the same
// statistics on columns kept sorted, so an interactive drag can update them in
// O(n) instead of re-sorting.
package robust

import (
	"slices"

	"github.com/uldplab/uldp/core/format"
)

// CoordMedian writes the coordinate-wise median of points into dst (length
// d; allocated if nil). scratch (length ≥ len(points)) avoids allocation.
func CoordMedian(points [][]float64, dst, scratch []float64) []float64 {
	return coordwise(points, dst, scratch, MedianSorted)
}

// TrimmedMean writes the coordinate-wise trimmed mean into dst: in each
// coordinate the ⌊frac·n⌋ smallest and ⌊frac·n⌋ largest values are dropped
// and the rest averaged. frac must lie in [0, 0.5).
func TrimmedMean(points [][]float64, frac float64, dst, scratch []float64) ([]float64, error) {
	if err := checkFrac(frac); err != nil {
		return nil, err
	}
	return coordwise(points, dst, scratch, func(col []float64) float64 { return TrimmedMeanSorted(col, frac) }), nil
}

func checkFrac(frac float64) error {
	if !(frac >= 0 && frac < 0.5) {
		return format.Errorf("trim fraction %v: must be in [0, 0.5)", frac)
	}
	return nil
}

// MedianSorted returns the median of an increasing column (the mean of the
// two middle values for an even count).
func MedianSorted(col []float64) float64 {
	n := len(col)
	if n%2 == 1 {
		return col[n/2]
	}
	return (col[n/2-1] + col[n/2]) / 2
}

// TrimmedMeanSorted returns the mean of an increasing column without its
// ⌊frac·n⌋ smallest and ⌊frac·n⌋ largest values (frac in [0, 0.5)).
func TrimmedMeanSorted(col []float64, frac float64) float64 {
	k := int(frac * float64(len(col)))
	var s float64
	for _, v := range col[k : len(col)-k] {
		s += v
	}
	return s / float64(len(col)-2*k)
}

// Replace removes one occurrence of old from the increasing column and
// inserts v, keeping it increasing, in O(n). It reports false if old is not
// in the column.
func Replace(col []float64, old, v float64) bool {
	i, found := slices.BinarySearch(col, old)
	if !found {
		return false
	}
	copy(col[i:], col[i+1:])
	col = col[:len(col)-1]
	j, _ := slices.BinarySearch(col, v)
	col = col[:len(col)+1]
	copy(col[j+1:], col[j:])
	col[j] = v
	return true
}

// coordwise sorts each coordinate's values and reduces them with f.
func coordwise(points [][]float64, dst, scratch []float64, f func(sorted []float64) float64) []float64 {
	if len(points) == 0 {
		return dst
	}
	d := len(points[0])
	if dst == nil {
		dst = make([]float64, d)
	}
	if len(scratch) < len(points) {
		scratch = make([]float64, len(points))
	}
	col := scratch[:len(points)]
	for k := range d {
		for i, p := range points {
			col[i] = p[k]
		}
		slices.Sort(col)
		dst[k] = f(col)
	}
	return dst
}
