package rates

import (
	"context"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/uldplab/uldp/core/internal/gof"
)

func bound(t *testing.T, id string) Bound {
	t.Helper()
	for _, b := range bounds {
		if b.ID == id {
			return b
		}
	}
	t.Fatalf("no bound %s", id)
	return Bound{}
}

// Where one term dominates, a bound's local slope is that term's exponent:
// what a student reads off the log–log plot.
func TestSlopesWhereOneTermDominates(t *testing.T) {
	privacy := Point{N: 100, M: 1, D: 1e6, Eps: 0.01, Delta: 1e-5, K: 10}   // √d/(nε) ≫ 1/√(nm)
	statistical := Point{N: 1e6, M: 100, D: 1, Eps: 10, Delta: 1e-5, K: 10} // 1/√(nm) ≫ the privacy terms
	for _, c := range []struct {
		id   string
		axis Axis
		at   Point
		want float64
	}{
		{"optimal", AxisN, privacy, -1}, {"optimal", AxisM, privacy, -0.5}, {"optimal", AxisD, privacy, 0.5}, {"optimal", AxisEps, privacy, -1},
		{"optimal", AxisN, statistical, -0.5}, {"optimal", AxisM, statistical, -0.5},
		{"group", AxisM, privacy, 0}, {"group", AxisN, privacy, -1},
		{"item", AxisM, privacy, -1}, {"levy", AxisD, privacy, 1}, {"ghazi23", AxisEps, privacy, -2.5},
		{"linear", AxisN, privacy, -0.5}, {"linear", AxisEps, privacy, -0.5},
		{"label", AxisK, Point{N: 1e6, M: 1, D: 1, Eps: 1, Delta: 1e-5, K: 100}, 0.5},
		{"full", AxisD, Point{N: 1e8, M: 1, D: 100, Eps: 1, Delta: 1e-5, K: 10}, 0.5},
		{"semi-base", AxisN, privacy, -0.5},
	} {
		if got := bound(t, c.id).Slope(c.axis, c.at, c.axis.Of(c.at)); !(math.Abs(got-c.want) <= 0.02) {
			t.Errorf("%s along %s: slope %.4f, want %v", c.id, c.axis, got, c.want)
		}
	}
	// PVMW's dependence on k is (ln k)^¼: far flatter than label DP's √k.
	p := Point{N: 1e6, M: 1, D: 1, Eps: 1, Delta: 1e-5, K: 1e4}
	if s := bound(t, "pvmw").Slope(AxisK, p, p.K); !(s > 0 && s < 0.05) {
		t.Errorf("PVMW along k: slope %.4f, want in (0, 0.05)", s)
	}
}

// Lower bounds lie below the upper bounds they bound, over a grid within
// the bounds' conditions (ε ≤ 1 for the user-level ones, k ≤ 1/δ for the
// semi-sensitive ones).
func TestLowerBelowUpper(t *testing.T) {
	for _, n := range []float64{10, 1e3, 1e5, 1e7} {
		for _, m := range []float64{1, 30, 1e4} {
			for _, d := range []float64{1, 100, 1e6} {
				for _, eps := range []float64{0.01, 0.3, 1} {
					for _, k := range []float64{2, 100, 1e4} {
						p := Point{N: n, M: m, D: d, Eps: eps, Delta: 1e-5, K: k}
						for _, pair := range [][2]string{{"lower", "optimal"}, {"lower", "levy"}, {"lower", "ghazi23"}, {"lower", "group"},
							{"semi-lower", "pvmw"}, {"semi-base", "pvmw"}} {
							lo, hi := bound(t, pair[0]).At(p), bound(t, pair[1]).At(p)
							if lo > hi*(1+1e-12) {
								t.Errorf("%+v: %s %.4g above %s %.4g", p, pair[0], lo, pair[1], hi)
							}
						}
					}
				}
			}
		}
	}
}

func TestBoundsAreData(t *testing.T) {
	ids := map[string]bool{}
	for _, f := range Families() {
		bs := Bounds(f)
		if len(bs) < 5 {
			t.Errorf("%s: %d bounds", f, len(bs))
		}
		kinds := map[Kind]bool{}
		for _, b := range bs {
			if ids[b.ID] || b.Label == "" || b.Formula == "" || b.Note == "" {
				t.Errorf("bound %+v: duplicate id or missing text", b)
			}
			ids[b.ID], kinds[b.Kind] = true, true
			if strings.Contains(b.Label+b.Note, "spec") {
				t.Errorf("%s cites the spec", b.ID)
			}
		}
		if !kinds[Lower] || !kinds[Upper] {
			t.Errorf("%s: no lower or no upper bound", f)
		}
	}
	for _, c := range []struct {
		p    Point
		want string
	}{
		{Point{N: 0, M: 1, D: 1, Eps: 1, Delta: 0.1, K: 2}, "n must be positive"},
		{Point{N: 1, M: 1, D: 1, Eps: math.Inf(1), Delta: 0.1, K: 2}, "ε must be positive and finite"},
		{Point{N: 1, M: 1, D: 1, Eps: 1, Delta: 0.5, K: 2}, "δ < 1/2"},
		{Point{N: 1, M: 1, D: 1, Eps: 1, Delta: 0.1, K: 1}, "at least 2"},
	} {
		if err := c.p.Check(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.p, err, c.want)
		}
	}
}

// The simulated points land in the optimal bound's band: within a factor
// of 2 of its shape, with the two hidden constants the algorithm's own
// calibration gives at the sweep's middle.
//
// Every point's exact RMS (the closed form, valid when every user is kept
// and no gate fails) is checked against the band deterministically; the
// measured mean square against the exact one inside the χ² band with
// d·seeds degrees of freedom at x = 16.5 (2e^{−16.5} ≈ 1.4·10⁻⁷ per point);
// and so the measured RMS inside the band widened by that factor.
// False-failure probability: 21 points' χ² bands (< 3·10⁻⁶), plus the
// halting and dropping bounds, summed below and required under 10⁻⁵:
// below 1.5·10⁻⁵ in all.
func TestSimulatedPointsInTheOptimalBand(t *testing.T) {
	if testing.Short() {
		t.Skip("Monte Carlo over 21 × 24 runs of DP-SGD")
	}
	const seeds, x = 24, 16.5
	base := Point{N: 1600, M: 4, D: 2, Eps: 1, Delta: 1e-5, K: 10}
	sweeps := []struct {
		axis Axis
		xs   []float64
	}{
		{AxisN, []float64{800, 1131, 1600, 2263, 3200, 4525, 6400}},
		{AxisM, []float64{1, 4, 16, 64, 256}},
		{AxisEps, []float64{0.5, 1, 2, 4, 8}},
		{AxisD, []float64{1, 4, 16, 64}},
	}
	var risk float64
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, sw := range sweeps {
		stat, priv, err := Constants(sw.axis.With(base, sw.xs[len(sw.xs)/2]))
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range sw.xs {
			p := sw.axis.With(base, v)
			want, _, err := Expected(p)
			if err != nil {
				t.Fatal(err)
			}
			fit := Fitted(p, stat, priv)
			if r := want / fit; r < 0.5 || r > 2 {
				t.Errorf("%s = %v: exact RMS %.4g is %.3f × the fitted optimal shape, outside [1/2, 2]", sw.axis, v, want, r)
			}
			halt, err := HaltBound(p, seeds)
			if err != nil {
				t.Fatal(err)
			}
			risk += halt + DropBound(p, seeds)
			wg.Add(1)
			go func() {
				defer wg.Done()
				got, err := Measure(context.Background(), p, seeds, uint64(1000*i+1), nil)
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					t.Error(err)
					return
				}
				lo, hi := gof.ChiSquareBand(int(p.D)*seeds, x)
				ratio := got.MSE / (want * want)
				if got.Halted > 0 || ratio < lo || ratio > hi {
					t.Errorf("%s = %v: measured MSE %.4g is %.3f × the exact %.4g, outside the χ² band [%.3f, %.3f] (%d runs halted)",
						sw.axis, v, got.MSE, ratio, want*want, lo, hi, got.Halted)
				}
				if r := got.RMS / fit; r < 0.5*math.Sqrt(lo) || r > 2*math.Sqrt(hi) {
					t.Errorf("%s = %v: measured RMS %.4g is %.3f × the fitted shape, outside the band", sw.axis, v, got.RMS, r)
				}
				if !(got.Lo <= got.RMS && got.RMS <= got.Hi) {
					t.Errorf("%s = %v: error bar [%.4g, %.4g] misses the point %.4g", sw.axis, v, got.Lo, got.Hi, got.RMS)
				}
			}()
		}
	}
	wg.Wait()
	t.Logf("halting and dropping bound over every run: %.2g", risk)
	if risk > 1e-5 {
		t.Fatalf("halting and dropping bound %.2g spoils the stated false-failure probability", risk)
	}
}

func TestSimulableSaysWhy(t *testing.T) {
	for _, c := range []struct {
		p    Point
		want string
	}{
		{Point{N: 10, M: 1, D: 1, Eps: 1, Delta: 1e-5, K: 2}, "simulates 50 to 6400 users"},
		{Point{N: 100, M: 1000, D: 1, Eps: 1, Delta: 1e-5, K: 2}, "1 to 256 items"},
		{Point{N: 100, M: 1, D: 1, Eps: 100, Delta: 1e-5, K: 2}, "ε from 0.05 to 8"},
	} {
		if _, err := Measure(context.Background(), c.p, 1, 1, nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.p, err, c.want)
		}
	}
}

// The semi-sensitive lower bounds are proved on hard instances of a large
// dimension: at a small d full DP's bound lies below them (it is no
// contradiction), so they say where they apply, and wherever they do,
// full DP's algorithms — semi-sensitive DP too — are no better.
func TestSemiLowerBoundsApplyWhereProved(t *testing.T) {
	lesson := Point{N: 1600, M: 1, D: 8, Eps: 0.5, Delta: 1e-5, K: 100}
	full := bound(t, "full")
	for _, id := range []string{"semi-lower", "semi-base"} {
		b := bound(t, id)
		if !(full.At(lesson) < b.At(lesson)) {
			t.Errorf("%s: at d = 8 full DP's %.3g is not below %.3g (the case this guards)", id, full.At(lesson), b.At(lesson))
		}
		if err := b.Holds(lesson); err == nil || !strings.Contains(err.Error(), "needs d ≥") {
			t.Errorf("%s at d = 8: %v, want it not to apply for want of dimension", id, err)
		}
		applied := 0
		for _, n := range []float64{10, 1e3, 1e5} {
			for _, d := range []float64{1, 100, 1e4, 1e6, 1e9} {
				for _, eps := range []float64{0.01, 0.3, 1, 3} {
					for _, k := range []float64{2, 100, 1e4} {
						p := Point{N: n, M: 1, D: d, Eps: eps, Delta: 1e-5, K: k}
						if b.Holds(p) != nil {
							continue
						}
						applied++
						if lo, hi := b.At(p), full.At(p); lo > hi*(1+1e-12) {
							t.Errorf("%+v: %s %.4g above full DP's %.4g where it applies", p, id, lo, hi)
						}
					}
				}
			}
		}
		if applied < 20 {
			t.Errorf("%s applies at only %d grid points", id, applied)
		}
	}
	// Each condition on its own.
	for _, c := range []struct {
		id   string
		p    Point
		want string
	}{
		{"semi-lower", Point{N: 10, M: 1, D: 1e9, Eps: 5, Delta: 1e-5, K: 100}, "ε ≤ ln k"},
		{"semi-lower", Point{N: 10, M: 1, D: 1e9, Eps: 1, Delta: 0.01, K: 100}, "δ ≤ 0.4ε/k"},
		{"semi-lower", Point{N: 8, M: 1, D: 199, Eps: 1, Delta: 1e-5, K: 100}, "= 200,"}, // r = ⌊ln 100⌋ = 4, n′ = 2
		{"semi-base", Point{N: 10, M: 1, D: 1e9, Eps: 5, Delta: 1e-5, K: 2}, "< 0.99"},
		{"semi-base", Point{N: 10, M: 1, D: 999, Eps: 1, Delta: 1e-5, K: 100}, "= 1000,"},
	} {
		if err := bound(t, c.id).Holds(c.p); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s at %+v: %v, want %q", c.id, c.p, err, c.want)
		}
	}
	if err := bound(t, "semi-lower").Holds(Point{N: 8, M: 1, D: 200, Eps: 1, Delta: 1e-5, K: 100}); err != nil {
		t.Errorf("semi-lower at its instance's dimension: %v", err)
	}
}

// At the balance point the optimal bound's privacy term equals its
// statistical one, along each axis that moves their ratio.
func TestBalance(t *testing.T) {
	p := Point{N: 1600, M: 4, D: 16, Eps: 0.5, Delta: 1e-5, K: 100}
	for _, a := range []Axis{AxisN, AxisD, AxisEps} {
		x, ok := Balance(a, p)
		if !ok {
			t.Fatalf("no balance along %s", a)
		}
		q := a.With(p, x)
		stat, priv := 1/math.Sqrt(q.N*q.M), math.Sqrt(q.D)/(q.N*q.Eps*math.Sqrt(q.M))
		if math.Abs(stat/priv-1) > 1e-12 {
			t.Errorf("along %s at %v: statistical %.6g, privacy %.6g", a, x, stat, priv)
		}
	}
	if x, _ := Balance(AxisN, p); x != 64 {
		t.Errorf("along n: %v, want d/ε² = 64", x)
	}
	for _, a := range []Axis{AxisM, AxisK} {
		if _, ok := Balance(a, p); ok {
			t.Errorf("a balance along %s, which does not move the ratio", a)
		}
	}
}
