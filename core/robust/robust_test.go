package robust

import (
	"reflect"
	"testing"
)

func TestCoordMedian(t *testing.T) {
	pts := [][]float64{{1, 10}, {5, 0}, {3, 7}, {100, -4}}
	if got := CoordMedian(pts, nil, nil); !reflect.DeepEqual(got, []float64{4, 3.5}) {
		t.Errorf("even count: %v", got)
	}
	if got := CoordMedian(pts[:3], nil, nil); !reflect.DeepEqual(got, []float64{3, 7}) {
		t.Errorf("odd count: %v", got)
	}
	if pts[0][0] != 1 || pts[3][0] != 100 {
		t.Error("CoordMedian reordered its input")
	}
}

func TestTrimmedMean(t *testing.T) {
	pts := [][]float64{{0}, {1}, {2}, {3}, {1000}}
	got, err := TrimmedMean(pts, 0.2, nil, nil) // drop 1 each side: mean of 1, 2, 3
	if err != nil || got[0] != 2 {
		t.Errorf("trimmed mean %v, %v", got, err)
	}
	got, _ = TrimmedMean(pts, 0, nil, nil)
	if got[0] != 201.2 {
		t.Errorf("untrimmed mean %v", got)
	}
	for _, bad := range []float64{-0.1, 0.5, 2} {
		if _, err := TrimmedMean(pts, bad, nil, nil); err == nil {
			t.Errorf("fraction %v accepted", bad)
		}
	}
	scratch := make([]float64, 5)
	dst := make([]float64, 1)
	if allocs := testing.AllocsPerRun(10, func() { TrimmedMean(pts, 0.2, dst, scratch) }); allocs != 0 {
		t.Errorf("with buffers given, TrimmedMean allocated %v times", allocs)
	}
}

func TestReplaceKeepsTheColumnSorted(t *testing.T) {
	col := []float64{1, 2, 2, 5, 9}
	if !Replace(col, 2, 7) || !reflect.DeepEqual(col, []float64{1, 2, 5, 7, 9}) {
		t.Errorf("replace 2 → 7: %v", col)
	}
	if !Replace(col, 9, -3) || !reflect.DeepEqual(col, []float64{-3, 1, 2, 5, 7}) {
		t.Errorf("replace 9 → −3: %v", col)
	}
	if Replace(col, 4, 0) {
		t.Error("replaced a value that is not there")
	}
	if MedianSorted(col) != 2 || TrimmedMeanSorted(col, 0.2) != 8.0/3 {
		t.Errorf("median %v, trimmed %v", MedianSorted(col), TrimmedMeanSorted(col, 0.2))
	}
}
