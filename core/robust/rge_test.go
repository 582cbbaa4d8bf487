package robust

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestSelectAgreesWithSort(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 2000 {
		n := 1 + r.IntN(200)
		a := make([]float64, n)
		for i := range a {
			a[i] = float64(r.IntN(1 + trial%40)) // many ties on some trials
		}
		sorted := slices.Sorted(slices.Values(a))
		k := r.IntN(n)
		if got := Select(a, k); got != sorted[k] {
			t.Fatalf("trial %d: Select(%d) = %v, sort says %v", trial, k, got, sorted[k])
		}
		for i := range a {
			if (i < k && a[i] > a[k]) || (i > k && a[i] < a[k]) {
				t.Fatalf("trial %d: not partitioned around %d", trial, k)
			}
		}
		if got, want := Median(slices.Clone(sorted)), MedianSorted(sorted); got != want {
			t.Fatalf("trial %d: Median %v, MedianSorted %v", trial, got, want)
		}
		if n >= 3 {
			k := r.IntN((n-1)/2 + 1)
			var want float64
			for _, v := range sorted[k : n-k] {
				want += v
			}
			want /= float64(n - 2*k)
			if got := Trimmed(slices.Clone(a), k); !(math.Abs(got-want) <= 1e-12*(1+math.Abs(want))) {
				t.Fatalf("trial %d: TM_%d = %v, want %v", trial, k, got, want)
			}
		}
	}
}

// OR-A-01: the clip form and its golden value.
func TestRGEGolden(t *testing.T) {
	flat := []float64{0, 5, 0, 5.2, 1, 4.8, 10, 5.0}
	var e Estimate
	RGE(flat, 2, 1, Stat{}, &e, make([]float64, 4))
	if e.Mean[0] != 2.75 || e.Stat[0] != 0.5 || e.Est[0] != 1.5 || !e.Clipped[0] {
		t.Errorf("coordinate 1: mean %v, median %v, estimate %v, clipped %v; want 2.75, 0.5, 1.5, true", e.Mean[0], e.Stat[0], e.Est[0], e.Clipped[0])
	}
	if !(math.Abs(e.Est[1]-5) <= 1e-15) || e.Clipped[1] {
		t.Errorf("coordinate 2: estimate %v, clipped %v; want 5, false", e.Est[1], e.Clipped[1])
	}
}

func randomPoints(r *rand.Rand, b, d int, spread float64) []float64 {
	flat := make([]float64, b*d)
	for i := range flat {
		flat[i] = spread * (2*r.Float64() - 1)
	}
	return flat
}

// The estimate stays within ς of the statistic, equals the mean when they
// are closer than ς, and moves at most Δ when every point moves at most Δ
// (OR-A-01, OR-A-04).
func TestRGEInvariants(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := range 3000 {
		b, d := 1+r.IntN(30), 1+r.IntN(4)
		stat := Stat{}
		if b >= 3 && trial%2 == 1 {
			stat.Trim = MinTrim(b)
			if 2*stat.Trim >= b {
				stat.Trim = (b - 1) / 2
			}
		}
		band := 3 * r.Float64()
		flat := randomPoints(r, b, d, 5)
		var e, f Estimate
		RGE(flat, d, band, stat, &e, make([]float64, b))
		for k := range d {
			if !(math.Abs(e.Est[k]-e.Stat[k]) <= band+1e-12*(1+math.Abs(e.Stat[k]))) { // stat ± ς rounds
				t.Fatalf("trial %d: |est − stat| = %v > ς = %v", trial, math.Abs(e.Est[k]-e.Stat[k]), band)
			}
			if math.Abs(e.Mean[k]-e.Stat[k]) < band && e.Est[k] != e.Mean[k] {
				t.Fatalf("trial %d: mean within ς of the statistic but estimate %v ≠ mean %v", trial, e.Est[k], e.Mean[k])
			}
		}
		delta := r.Float64()
		moved := slices.Clone(flat)
		for i := range moved {
			moved[i] += delta * (2*r.Float64() - 1)
		}
		RGE(moved, d, band, stat, &f, make([]float64, b))
		for k := range d {
			if !(math.Abs(f.Est[k]-e.Est[k]) <= delta*(1+1e-12)+1e-12) {
				t.Fatalf("trial %d: points moved ≤ %v, estimate moved %v", trial, delta, math.Abs(f.Est[k]-e.Est[k]))
			}
		}
	}
}

// OR-A-03: Lemma 3.5, |clip(c, a ± r) − clip(d, b ± r)| ≤ s when |a − b|
// and |c − d| are at most s.
func TestClipStability(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 100000 {
		s := 2 * r.Float64()
		a := 10 * (2*r.Float64() - 1)
		b := a + s*(2*r.Float64()-1)
		c := 10 * (2*r.Float64() - 1)
		d := c + s*(2*r.Float64()-1)
		rad := 5 * r.Float64()
		if got := math.Abs(Clip(c, a-rad, a+rad) - Clip(d, b-rad, b+rad)); got > s*(1+1e-12) {
			t.Fatalf("a %v b %v c %v d %v r %v: moved %v > s = %v", a, b, c, d, rad, got, s)
		}
	}
}

// lowerMedian is the median some libraries return for an even count: the
// lower middle value. It is not affinely equivariant.
func lowerMedian(a []float64) float64 { return Select(a, (len(a)-1)/2) }

// OR-A-02: Assumption 3.3 for the median and TM_{⌈B/3⌉}: (i) majority
// containment, (ii) 1-Lipschitz, (iii) affine equivariance — and the lower
// median failing (iii) for a negative scale.
func TestRobustStatProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for trial := range 3000 {
		b := 3 + r.IntN(40)
		stat := Stat{}
		need := b/2 + 1 // more than B/2 in the ball
		if trial%2 == 1 {
			stat.Trim = MinTrim(b)
			if 2*stat.Trim >= b {
				continue
			}
			need = (2*b + 2) / 3 // at least 2B/3
		}
		col := make([]float64, b)
		centre, rho := 10*r.Float64(), r.Float64()
		for i := range col {
			if i < need {
				col[i] = centre + rho*(2*r.Float64()-1)
			} else {
				col[i] = 100 * (2*r.Float64() - 1)
			}
		}
		r.Shuffle(b, func(i, j int) { col[i], col[j] = col[j], col[i] })
		v := stat.Of(slices.Clone(col))
		if !(math.Abs(v-centre) <= rho*(1+1e-12)) {
			t.Fatalf("trial %d: %v of %d points with %d in [%v ± %v] is %v, outside", trial, stat, b, need, centre, rho, v)
		}
		delta := r.Float64()
		moved := slices.Clone(col)
		for i := range moved {
			moved[i] += delta * (2*r.Float64() - 1)
		}
		if w := stat.Of(slices.Clone(moved)); !(math.Abs(w-v) <= delta*(1+1e-12)+1e-12) {
			t.Fatalf("trial %d: points moved ≤ %v, %v moved %v", trial, delta, stat, math.Abs(w-v))
		}
		a, c := 4*r.Float64()-2, 10*r.Float64()
		affine := make([]float64, b)
		for i, x := range col {
			affine[i] = a*x + c
		}
		if w := stat.Of(affine); !(math.Abs(w-(a*v+c)) <= 1e-9*(1+math.Abs(w))) {
			t.Fatalf("trial %d: %v(%v·X + %v) = %v, want %v", trial, stat, a, c, w, a*v+c)
		}
	}
	col := []float64{0, 1, 2, 3}
	neg := []float64{0, -1, -2, -3}
	if lowerMedian(slices.Clone(neg)) == -lowerMedian(slices.Clone(col)) {
		t.Error("the lower median should break RS(−X) = −RS(X) for an even count")
	}
	if Median(slices.Clone(neg)) != -Median(slices.Clone(col)) {
		t.Error("the symmetric median must satisfy RS(−X) = −RS(X)")
	}
}

// OR-A-07: score goldens and facts.
func TestKernelScore(t *testing.T) {
	for _, c := range []struct {
		pts  []float64
		want float64
	}{
		{[]float64{0, 0, 0, 0, 1, 0}, (5 + 4/math.E) / 3}, // 2.1571725882
		{[]float64{0, 0, 0.1, 0, 0, 0.1, 3, 3}, 2.4319367296},
	} {
		if got := KernelScore(c.pts, 2, 1, ExpKernel, nil); !(math.Abs(got-c.want) <= 1e-9) {
			t.Errorf("score of %v = %.10f, want %.10f", c.pts, got, c.want)
		}
	}
	r := rand.New(rand.NewPCG(9, 10))
	for trial := range 500 {
		b, d := 2+r.IntN(30), 1+r.IntN(3)
		flat := randomPoints(r, b, d, 3)
		s := KernelScore(flat, d, 1, ExpKernel, nil)
		if s < 1 || s >= float64(b) {
			t.Fatalf("trial %d: distinct points score %v, outside [1, B)", trial, s)
		}
		same := slices.Repeat(flat[:d], b)
		if got := KernelScore(same, d, 1, ExpKernel, nil); got != float64(b) {
			t.Fatalf("trial %d: equal points score %v, want B = %d", trial, got, b)
		}
		i := r.IntN(b)
		other := slices.Clone(flat)
		for k := range d {
			other[i*d+k] = 100 * (2*r.Float64() - 1)
		}
		if diff := math.Abs(KernelScore(other, d, 1, ExpKernel, nil) - s); diff > 2*float64(b-1)/float64(b)+1e-12 {
			t.Fatalf("trial %d: replacing one point moved the score by %v > 2(B−1)/B", trial, diff)
		}
	}
}

// OR-A-08: a batch with no ℓ∞ box of radius r holding 2B/3 of it scores
// below BadScore; three far clusters score about B/3.
func TestBadBatchScore(t *testing.T) {
	const b = 30
	var flat []float64
	for i := range b {
		flat = append(flat, float64(100*(i%3)), 0)
	}
	if n, _ := MaxBox(flat, 2, 1); n != 10 {
		t.Fatalf("the best box holds %d points, want 10", n)
	}
	s := KernelScore(flat, 2, 1, ExpKernel, nil)
	if s >= BadScore(b) || !(math.Abs(s-b/3.0) <= 1e-12) {
		t.Errorf("three far clusters score %v, want ≈ B/3 = 10 < %v", s, BadScore(b))
	}
	r := rand.New(rand.NewPCG(11, 12))
	for trial := range 300 {
		b := 3 + r.IntN(12)
		flat := randomPoints(r, b, 2, 4)
		if n, _ := MaxBox(flat, 2, 1); 3*n >= 2*b {
			continue
		}
		if s := KernelScore(flat, 2, 1, ExpKernel, nil); s >= BadScore(b) {
			t.Fatalf("trial %d: a bad batch of %d scores %v ≥ %v", trial, b, s, BadScore(b))
		}
	}
}

func TestMaxBox(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for range 200 {
		b := 1 + r.IntN(15)
		flat := randomPoints(r, b, 2, 3)
		n, c := MaxBox(flat, 2, 0.7)
		in := 0
		for i := range b {
			if math.Abs(flat[2*i]-c[0]) <= 0.7+1e-12 && math.Abs(flat[2*i+1]-c[1]) <= 0.7+1e-12 {
				in++
			}
		}
		if in != n {
			t.Fatalf("MaxBox says %d, its box holds %d", n, in)
		}
		// No box centred on a grid of candidates does better.
		for x := -4.0; x <= 4; x += 0.05 {
			for y := -4.0; y <= 4; y += 0.05 {
				k := 0
				for i := range b {
					if math.Abs(flat[2*i]-x) <= 0.7 && math.Abs(flat[2*i+1]-y) <= 0.7 {
						k++
					}
				}
				if k > n {
					t.Fatalf("a box at (%v, %v) holds %d > %d", x, y, k, n)
				}
			}
		}
	}
}

// OR-A-11: the geometric median jumps by 1 when each point moves by α,
// while the coordinate-wise median moves by at most α.
func TestGeometricMedianIsNotStable(t *testing.T) {
	const alpha = 0.01
	p := [][]float64{{0, 0}, {0, 0}, {1, 0}, {1, alpha}}
	q := [][]float64{{0, 0}, {0, alpha}, {1, 0}, {1, 0}}
	gp, gq := GeometricMedian(p, 1e-12), GeometricMedian(q, 1e-12)
	if math.Hypot(gp[0], gp[1]) > 1e-9 || math.Hypot(gq[0]-1, gq[1]) > 1e-9 {
		t.Fatalf("geometric medians %v and %v, want (0,0) and (1,0)", gp, gq)
	}
	mp, mq := CoordMedian(p, nil, nil), CoordMedian(q, nil, nil)
	if !(math.Abs(mp[0]-mq[0]) <= alpha) || !(math.Abs(mp[1]-mq[1]) <= alpha) {
		t.Errorf("coordinate medians %v and %v moved more than α", mp, mq)
	}
}

// The O(B log B) sum equals the B² loop up to rounding, with ties in
// either rotated coordinate, in 1 and 2 dimensions, and falls back to the
// loop when the spread is too wide for its exponentials.
func TestPlaneScoreMatchesThePairs(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	for trial := range 3000 {
		b, d := 1+r.IntN(60), 1+r.IntN(2)
		flat := randomPoints(r, b, d, 3)
		if trial%3 == 0 { // a grid: many equal u, v, x and y
			for i := range flat {
				flat[i] = float64(r.IntN(4)) / 2
			}
		}
		rad := 0.02 + 3*r.Float64() // down to 300 radii of spread
		want := KernelScore(flat, d, rad, ExpKernel, make([]float64, b))
		got, ok := planeScore(flat, d, rad)
		if !ok || !(math.Abs(got-want) <= 1e-12*want) {
			t.Fatalf("trial %d (B = %d, d = %d): fast %v, pairs %v", trial, b, d, got, want)
		}
	}
	wide := []float64{0, 0, 1000, 0, 0.5, 0.5}
	if _, ok := planeScore(wide, 2, 1); ok {
		t.Error("a spread of 1000 radii took the fast path")
	}
	if got, want := KernelScore(wide, 2, 1, ExpKernel, nil), KernelScore(wide, 2, 1, ExpKernel, make([]float64, 3)); got != want {
		t.Errorf("wide spread: %v, the loop %v", got, want)
	}
}
