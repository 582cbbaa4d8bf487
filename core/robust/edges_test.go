package robust

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// pairsScore is KernelScore by its B²/2 pairs: asking for the rows turns the
// O(B log B) sweep off, so it is an independent computation of the same sum.
func pairsScore(flat []float64, d int, r float64, k Kernel) float64 {
	return KernelScore(flat, d, r, k, make([]float64, len(flat)/d))
}

// The plane sweep equals the pairs' sum: in 1 and 2 dimensions, with ties
// in both rotated coordinates (points on a grid), far from the origin
// (where e^{x/r} alone would overflow: the sweep must measure from the
// minima), and at spreads up to its limit; past it the pairs answer.
func TestPlaneSweepEqualsPairs(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for trial := range 300 {
		b, d := 2+r.IntN(40), 1+r.IntN(2)
		spread := []float64{0.5, 3, 250}[trial%3]
		offset := []float64{0, 400, -1e4}[trial/3%3]
		flat := randomPoints(r, b, d, spread)
		for i := range flat {
			if trial%5 == 0 {
				flat[i] = math.Round(flat[i]) // ties on a grid
			}
			flat[i] += offset
		}
		fast, ok := planeScore(flat, d, 1)
		if !ok {
			t.Fatalf("trial %d: spread %v refused by the sweep", trial, spread)
		}
		want := pairsScore(flat, d, 1, ExpKernel)
		if !(math.Abs(fast-want) <= 1e-12*want) {
			t.Fatalf("trial %d (B = %d, d = %d, spread %v, offset %v): sweep %.17g, pairs %.17g", trial, b, d, spread, offset, fast, want)
		}
		if got := KernelScore(flat, d, 1, ExpKernel, nil); got != fast {
			t.Fatalf("trial %d: KernelScore %v does not take the sweep's %v", trial, got, fast)
		}
	}
	// The spread the sweep takes, in either coordinate, at radius r = 2.
	for _, c := range []struct {
		flat []float64
		ok   bool
	}{
		{[]float64{0, 0, 2 * fastRange, 0}, true},
		{[]float64{0, 0, 2*fastRange + 0.01, 0}, false},
		{[]float64{0, -7, 0, 2*fastRange - 7}, true},
		{[]float64{0, -7, 0, 2*fastRange - 6.99}, false},
		{[]float64{0, 0, 0, math.NaN()}, false},
	} {
		if _, ok := planeScore(c.flat, 2, 2); ok != c.ok {
			t.Errorf("%v at r = 2: sweep %v, want %v", c.flat, ok, c.ok)
		}
	}
	far := []float64{0, 0, 0.5, 0, 5000, 0}
	if got, want := KernelScore(far, 2, 1, ExpKernel, nil), (3+2*math.Exp(-0.5))/3; !(math.Abs(got-want) <= 1e-15) {
		t.Errorf("points 5,000 radii apart score %v, want %v", got, want)
	}
}

// The sweep is for the exp kernel in at most 2 dimensions with no rows
// asked for: the indicator kernel, a third coordinate and asked-for rows
// take the pairs.
func TestSweepOnlyWhereItApplies(t *testing.T) {
	// ℓ∞ distances 1 (1–2), 0.5 (1–3), 0.5 (2–3): the third coordinate
	// separates them, the first two do not.
	flat := []float64{0, 0, 0, 0, 0, 1, 0, 0, 0.5}
	want := (3 + 2*(math.Exp(-1)+2*math.Exp(-0.5))) / 3
	if got := KernelScore(flat, 3, 1, ExpKernel, nil); !(math.Abs(got-want) <= 1e-15) {
		t.Errorf("3-D score %v, want %v", got, want)
	}
	// The indicator's box is closed: a point at distance exactly r counts.
	box := []float64{0, 0, 1, 0, 3, 3}
	if got := KernelScore(box, 2, 1, BoxKernel, nil); got != 5.0/3 {
		t.Errorf("indicator score %v, want 5/3", got)
	}
	// Three points at ℓ∞ distance 1 from each other: every row is 1 + 2/e.
	rows := make([]float64, 3)
	KernelScore([]float64{0, 0, 1, 0, 0, 1}, 2, 1, ExpKernel, rows)
	for i, v := range rows {
		if !(math.Abs(v-(1+2/math.E)) <= 1e-15) {
			t.Errorf("row %d = %v, want 1 + 2/e", i, v)
		}
	}
	// An empty batch must not reach the sweep, whose spread needs a point.
	KernelScore(nil, 2, 1, ExpKernel, nil)
}

// BadScore's constant, the box's closed edges, ⌈B/3⌉.
func TestBoundsAndBoxAtTheirEdges(t *testing.T) {
	if got, want := BadScore(30), 23.678794411714423; !(math.Abs(got-want) <= 1e-13) { // 20 + 10/e
		t.Errorf("BadScore(30) = %.17g, want %.17g", got, want)
	}
	if n, c := MaxBox([]float64{0, 0, 2, 2, 5, 5}, 2, 1); n != 2 || c[0] != 1 || c[1] != 1 {
		t.Errorf("points on the box's edges: %d in the box centred at %v, want 2 at [1 1]", n, c)
	}
	for b, want := range map[int]int{1: 1, 3: 1, 4: 2, 6: 2, 7: 3, 30: 10} {
		if got := MinTrim(b); got != want {
			t.Errorf("MinTrim(%d) = %d, want ⌈%d/3⌉ = %d", b, got, b, want)
		}
	}
}

// The geometric median where it is known: a data point when the others'
// unit pulls sum to at most its copies, the Fermat point of an equilateral
// triangle (its centre), the centre of a square's corners.
func TestGeometricMedianWhereKnown(t *testing.T) {
	h := math.Sqrt(3) / 2
	for _, c := range []struct {
		name   string
		points [][]float64
		want   []float64
	}{
		{"collinear", [][]float64{{0, 0}, {1, 0}, {2, 0}, {3, 0}, {10, 0}}, []float64{2, 0}},
		{"obtuse triangle", [][]float64{{0, 0}, {-1, 0.1}, {1, 0.1}}, []float64{0, 0}},
		{"equilateral triangle", [][]float64{{0, 0}, {1, 0}, {0.5, h}}, []float64{0.5, h / 3}},
		{"square", [][]float64{{0, 0}, {2, 0}, {0, 2}, {2, 2}}, []float64{1, 1}},
		{"shifted square", [][]float64{{5, 5}, {7, 5}, {5, 7}, {7, 7}}, []float64{6, 6}},
	} {
		got := GeometricMedian(c.points, 1e-13)
		for k := range got {
			if !(math.Abs(got[k]-c.want[k]) <= 1e-9) {
				t.Errorf("%s: %v, want %v", c.name, got, c.want)
				break
			}
		}
	}
	// Away from the origin, so a pull computed as q + p instead of q − p
	// shows: one copy at (5, 5) against two points pulling the same way
	// (norm 2), then two copies (2 ≤ 2: optimal, at the edge).
	p := []float64{5, 5}
	if atPointOptimal([][]float64{p, {6, 5}, {7, 5}}, p) {
		t.Error("one copy cannot hold against pulls summing to 2")
	}
	if !atPointOptimal([][]float64{p, p, {6, 5}, {7, 5}}, p) {
		t.Error("two copies hold against pulls summing to exactly 2")
	}
	if atPointOptimal([][]float64{p, {6, 5}, {5, 6}}, p) {
		t.Error("a right angle's corner is not the Fermat point of its triangle (pulls sum to √2 > 1)")
	}
	// Anywhere else the median is where the unit pulls cancel (the gradient
	// of the sum of distances vanishes); random points in general position.
	r := rand.New(rand.NewPCG(31, 32))
	for trial := range 50 {
		pts := make([][]float64, 3+r.IntN(8))
		for i := range pts {
			pts[i] = []float64{10 + 3*r.NormFloat64(), -4 + r.NormFloat64()}
		}
		x := GeometricMedian(pts, 1e-14)
		var gx, gy float64
		atPoint := false
		for _, q := range pts {
			dist := euclid(x, q)
			if dist == 0 {
				atPoint = true
				break
			}
			gx += (q[0] - x[0]) / dist
			gy += (q[1] - x[1]) / dist
		}
		if !atPoint && !(math.Hypot(gx, gy) <= 1e-6) {
			t.Fatalf("trial %d: the pulls at the median %v sum to (%v, %v), want (0, 0)", trial, x, gx, gy)
		}
	}
}

// The pivot is the median of the first, middle and last values.
func TestPivotIsTheMedianOfThree(t *testing.T) {
	for _, c := range [][3]float64{{1, 2, 3}, {1, 3, 2}, {2, 1, 3}, {2, 3, 1}, {3, 1, 2}, {3, 2, 1}, {1, 1, 2}, {2, 1, 1}, {1, 2, 1}} {
		a := []float64{c[0], 9, c[1], 9, c[2]} // lo = 0, mid = 2, hi = 4
		want := slices.Sorted(slices.Values(c[:]))[1]
		if got := pivot(a, 0, 4); got != want {
			t.Errorf("pivot of %v = %v, want %v", c, got, want)
		}
	}
}
