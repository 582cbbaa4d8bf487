package robust

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// The index equals the plain loop exactly, on data built to stress it:
// tight clusters (bulk counting), spread points (pruning), exact ties and
// duplicates, points on a lattice at exactly the radius (the boundary), and
// 1-D to 3-D.
func TestIndexMatchesNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var reused Index
	for trial := 0; trial < 60; trial++ {
		d := 1 + trial%3
		n := 1 + r.IntN(700)
		pts := make([][]float64, n)
		for i := range pts {
			pts[i] = make([]float64, d)
			for k := range pts[i] {
				switch trial % 4 {
				case 0: // a tight blob
					pts[i][k] = 0.01 * r.NormFloat64()
				case 1: // spread
					pts[i][k] = 3 * r.NormFloat64()
				case 2: // a lattice: many distances exactly 0.5 or 1
					pts[i][k] = 0.5 * float64(r.IntN(6))
				default: // clusters and duplicates
					pts[i][k] = float64(r.IntN(3)) + 0.05*math.Round(4*r.NormFloat64())
				}
			}
		}
		ix := NewIndex(pts)
		radii := []float64{0, 0.05, 0.5, 1, 2.5}
		for _, rad := range radii {
			if got, want := ix.Counts(rad), NaiveCounts(pts, rad); !slices.Equal(got, want) {
				t.Fatalf("trial %d (n = %d, d = %d), r = %v: index and loop disagree", trial, n, d, rad)
			}
		}
		for k, got := range ix.CountsAt(radii...) { // one walk for all the radii
			if !slices.Equal(got, NaiveCounts(pts, radii[k])) {
				t.Fatalf("trial %d, r = %v: the joint walk disagrees", trial, radii[k])
			}
		}
		// One index rebuilt over every trial's points in turn, of every
		// size and dimension, in the memory of the builds before.
		reused.Reset(pts)
		for k, got := range reused.CountsAt(radii...) {
			if !slices.Equal(got, NaiveCounts(pts, radii[k])) {
				t.Fatalf("trial %d, r = %v: the index reset over these points disagrees", trial, radii[k])
			}
		}
	}
}

// Reset over points of a size built before allocates nothing: ORME builds
// an index every step of a run.
func TestIndexResetReusesItsMemory(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	pts := make([][]float64, 3000)
	for i := range pts {
		pts[i] = []float64{r.NormFloat64(), r.NormFloat64(), r.NormFloat64()}
	}
	ix := NewIndex(pts)
	if a := testing.AllocsPerRun(5, func() { ix.Reset(pts) }); a != 0 {
		t.Errorf("Reset over 3,000 points allocated %v times; NewIndex allocates a box per node", a)
	}
}

// Spec §9.4: n = 12 users all equal → s = 12; one moved far → s = 10.1667,
// a change of 2(n−1)/n, the score's sensitivity.
func TestScoreSensitivityTight(t *testing.T) {
	pts := make([][]float64, 12)
	for i := range pts {
		pts[i] = []float64{0.5, 0.5}
	}
	s := Score(NewIndex(pts).Counts(1))
	pts[0] = []float64{100, 100}
	s2 := Score(NewIndex(pts).Counts(1))
	if s != 12 || !(math.Abs(s2-122.0/12) <= 1e-12) || !(math.Abs(s-s2-2*11.0/12) <= 1e-12) {
		t.Errorf("s = %v → %v, want 12 → 10.1667 (Δ = 2(n−1)/n)", s, s2)
	}
}

// Spec §9.5, the Lemma 3.3 counterexample: 12 users on a circle, each with
// three neighbours within 2τ on each side (f = 7, p = 0.5, s = 3); moving
// user 0 far gives f′ = (1, 6, 6, 6, 7, 7, 7, 7, 7, 6, 6, 6) and
// ‖p − p′‖₁ = 3.5 — above the paper's 2, below the corrected
// 1 + 6(n−1)/n = 6.5. Asserted so nobody "fixes" the ramp to the lemma.
func TestLemma33Counterexample(t *testing.T) {
	const n, tau = 12, 0.5
	rho := 1 / (2 * math.Sin(3.5*math.Pi/12))
	pts := make([][]float64, n)
	for j := range pts {
		a := 2 * math.Pi * float64(j) / n
		pts[j] = []float64{rho * math.Cos(a), rho * math.Sin(a)}
	}
	f := NewIndex(pts).Counts(2 * tau)
	s := Score(NewIndex(pts).Counts(tau))
	moved := slices.Clone(pts)
	moved[0] = []float64{100, 100}
	f2 := NewIndex(moved).Counts(2 * tau)
	s2 := Score(NewIndex(moved).Counts(tau))
	if want := []int{1, 6, 6, 6, 7, 7, 7, 7, 7, 6, 6, 6}; !slices.Equal(f2, want) {
		t.Fatalf("f′ = %v, want %v", f2, want)
	}
	var l1 float64
	for j := range n {
		if f[j] != 7 || Keep(f[j], n) != 0.5 {
			t.Fatalf("user %d: f = %d, p = %v; want 7, 0.5", j, f[j], Keep(f[j], n))
		}
		l1 += math.Abs(Keep(f[j], n) - Keep(f2[j], n))
	}
	if !(math.Abs(s-3) <= 1e-12) || !(math.Abs(s2-32.0/12) <= 1e-12) {
		t.Errorf("s = %v → %v, want 3 → 2.6667", s, s2)
	}
	if l1 != 3.5 || !(l1 > 2) || !(l1 <= 1+6*11.0/12) {
		t.Errorf("‖p − p′‖₁ = %v, want 3.5 (> 2, ≤ 6.5)", l1)
	}
}

// Spec §B-2 ramp oracles: p(n/2) = 0, p(7n/12) = 0.5, p(2n/3) = 1,
// monotone, and the integer thresholds exact when n is not divisible.
func TestKeepRamp(t *testing.T) {
	if Keep(6, 12) != 0 || Keep(7, 12) != 0.5 || Keep(8, 12) != 1 || Keep(5, 12) != 0 {
		t.Errorf("ramp at n = 12: %v %v %v %v", Keep(5, 12), Keep(6, 12), Keep(7, 12), Keep(8, 12))
	}
	for n := 1; n < 60; n++ {
		prev := -1.0
		for f := 0; f <= n; f++ {
			p := Keep(f, n)
			if p < prev || p < 0 || p > 1 {
				t.Fatalf("n = %d, f = %d: p = %v after %v", n, f, p, prev)
			}
			prev = p
		}
	}
	// n = 7: n/2 = 3.5, 2n/3 = 4.67: f = 3 → 0, f = 4 → (24 − 21)/7, f = 5 → 1.
	if Keep(3, 7) != 0 || Keep(4, 7) != 3.0/7 || Keep(5, 7) != 1 {
		t.Errorf("n = 7: %v %v %v", Keep(3, 7), Keep(4, 7), Keep(5, 7))
	}
}

// concentrated draws n users' 2-D values: a Gaussian blob of the given
// spread (τ = 1) with 1% far outliers. Paper B's averaged gradients have
// spread G/√m against τ = G·log(…)/√m, so τ/20 is typical; τ/4 puts a
// thick band of pairs right at the radius, the index's hardest case.
func concentrated(n int, spread float64) [][]float64 {
	r := rand.New(rand.NewPCG(7, 8))
	pts := make([][]float64, n)
	for i := range pts {
		s := spread
		if i%100 == 0 {
			s = 20
		}
		pts[i] = []float64{s * r.NormFloat64(), s * r.NormFloat64()}
	}
	return pts
}

// Both radii ORME needs (τ = 1 and 2τ), tree built once, n = 100,000.
func BenchmarkScores100k(b *testing.B) {
	for _, spread := range []float64{0.05, 0.25} {
		pts := concentrated(100_000, spread)
		b.Run(fmt.Sprintf("spread=τ/%g", 1/spread), func(b *testing.B) {
			for b.Loop() {
				NewIndex(pts).CountsAt(1, 2)
			}
		})
	}
}

// Index against the plain loop at n = 5,000, where both run.
func BenchmarkScores5kIndex(b *testing.B) {
	pts := concentrated(5_000, 0.25)
	for b.Loop() {
		NewIndex(pts).CountsAt(1, 2)
	}
}

func BenchmarkScores5kNaive(b *testing.B) {
	pts := concentrated(5_000, 0.25)
	for b.Loop() {
		NaiveCounts(pts, 1)
		NaiveCounts(pts, 2)
	}
}

// The tree's shape, which the counts cannot show (any tree gives exact
// counts; a bad one only slows them): each node's box is the tight box of
// its points, its children split it at the median along its widest axis,
// and only a node of at most leafSize points, or of equal points, is a leaf.
func TestIndexTreeShape(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{0, 1, leafSize, leafSize + 1, 500} {
		pts := make([][]float64, n)
		for i := range pts {
			pts[i] = []float64{r.NormFloat64(), 5 * r.NormFloat64(), math.Round(r.NormFloat64())}
		}
		ix := NewIndex(pts)
		if got := ix.Counts(1); len(got) != n {
			t.Fatalf("n = %d: %d counts", n, len(got))
		}
		seen := make([]bool, n)
		for _, i := range ix.perm {
			seen[i] = true
		}
		if !slices.Equal(seen, slices.Repeat([]bool{true}, n)) {
			t.Fatalf("n = %d: the tree order is not a permutation", n)
		}
		for id, nd := range ix.nodes {
			for k := range ix.d {
				lo, hi := math.Inf(1), math.Inf(-1)
				for x := nd.lo; x < nd.hi; x++ {
					if v := ix.flat[x*ix.d+k]; v != pts[ix.perm[x]][k] {
						t.Fatalf("n = %d: row %d holds %v, its point %v", n, x, v, pts[ix.perm[x]][k])
					} else {
						lo, hi = min(lo, v), max(hi, v)
					}
				}
				if nd.min[k] != lo || nd.max[k] != hi {
					t.Fatalf("n = %d, node %d, axis %d: box [%v, %v], its points span [%v, %v]", n, id, k, nd.min[k], nd.max[k], lo, hi)
				}
			}
			size := nd.hi - nd.lo
			if leaf := nd.left < 0; leaf != (size <= leafSize) {
				t.Fatalf("n = %d: a node of %d points is a leaf: %v (leaves hold at most %d, unless all equal)", n, size, leaf, leafSize)
			}
			if nd.left < 0 {
				continue
			}
			axis := 0
			for k := range ix.d {
				if nd.max[k]-nd.min[k] > nd.max[axis]-nd.min[axis] {
					axis = k
				}
			}
			l, rt := ix.nodes[nd.left], ix.nodes[nd.right]
			if l.lo != nd.lo || l.hi != nd.lo+size/2 || rt.lo != l.hi || rt.hi != nd.hi {
				t.Fatalf("n = %d, node %d [%d, %d): children [%d, %d) and [%d, %d), want a split at the middle", n, id, nd.lo, nd.hi, l.lo, l.hi, rt.lo, rt.hi)
			}
			if l.max[axis] > rt.min[axis] {
				t.Fatalf("n = %d, node %d: left child reaches %v on axis %d, past the right's %v", n, id, l.max[axis], axis, rt.min[axis])
			}
		}
	}
	same := slices.Repeat([][]float64{{1, 2}}, 3*leafSize)
	if ix := NewIndex(same); len(ix.nodes) != 1 {
		t.Errorf("%d equal points make %d nodes, want one leaf", len(same), len(ix.nodes))
	}
}
