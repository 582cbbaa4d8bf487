package audit

import (
	"context"
	"math"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mathext"

	"github.com/uldplab/uldp/core/mech"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
)

func TestClopperPearson(t *testing.T) {
	// Textbook values (two-sided 95 %).
	lo, hi := ClopperPearson(5, 10, 0.05)
	if !(math.Abs(lo-0.187086) <= 1e-6) || !(math.Abs(hi-0.812914) <= 1e-6) {
		t.Errorf("5/10: [%v, %v]", lo, hi)
	}
	lo, hi = ClopperPearson(0, 10, 0.05)
	if lo != 0 || !(math.Abs(hi-(1-math.Pow(0.025, 0.1))) <= 1e-9) {
		t.Errorf("0/10: [%v, %v]", lo, hi)
	}
	lo, hi = ClopperPearson(10, 10, 0.05)
	if hi != 1 || !(math.Abs(lo-math.Pow(0.025, 0.1)) <= 1e-9) {
		t.Errorf("10/10: [%v, %v]", lo, hi)
	}
}

func delSampler(l mech.DelLaw) Sampler { return LawSampler(l, p1.Eps/2, 1) }

// The audits below use 10⁵ runs per side and alpha = 10⁻³: a correct
// mechanism is flagged with probability at most 10⁻³ (fixed seeds).
var mcCfg = MCConfig{Runs: 100_000, Alpha: 1e-3, Seed: 1}

func TestMonteCarloDelOutputPert(t *testing.T) {
	g := privacy.Guarantee{Eps: p1.Eps, Delta: p1.Delta}
	x := append(append([]float64(nil), inliers...), 0)
	a, b := law(t, p1, with(x, 13, 1000)...), law(t, p1, x...)
	res, err := MonteCarlo(context.Background(), delSampler(a), delSampler(b), g, mcCfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != "pass" || res.EpsLower > p1.Eps {
		t.Errorf("real mechanism flagged: ε ≥ %v on %s", res.EpsLower, res.Worst.Name)
	}
	skip, _ := DelMutantByName("no-stability")
	res, err = MonteCarlo(context.Background(), delSampler(skip.Apply(a)), delSampler(skip.Apply(b)), g, mcCfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != "violation" {
		t.Errorf("stability skipped, not caught by sampling: ε ≥ %v", res.EpsLower)
	}
}

func TestMonteCarloAboveThreshold(t *testing.T) {
	p := mech.ATParams{Eps: 1, Threshold: 0}
	g := privacy.Guarantee{Eps: 1}
	zero, one := make([]float64, 8), []float64{1, 1, 1, 1, 1, 1, 1, 1}
	sampler := func(q []float64, mutant string) Sampler {
		s, err := ATSampler(p, q, mutant)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	res, err := MonteCarlo(context.Background(), sampler(one, NoMutant), sampler(zero, NoMutant), g, mcCfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != "pass" {
		t.Errorf("AboveThreshold flagged: ε ≥ %v on %s", res.EpsLower, res.Worst.Name)
	}
	res, err = MonteCarlo(context.Background(), sampler(one, ATNoThreshold), sampler(zero, ATNoThreshold), g, mcCfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != "violation" {
		t.Errorf("threshold noise omitted, not caught by sampling: ε ≥ %v", res.EpsLower)
	}
}

func TestMonteCarloRejectsAndCancels(t *testing.T) {
	g := privacy.Guarantee{Eps: 1}
	s := func(*rng.Streams) ([]float64, error) { return []float64{0}, nil }
	if _, err := MonteCarlo(context.Background(), s, s, g, MCConfig{Runs: 10, Alpha: 1e-3}, nil); err == nil {
		t.Error("10 runs accepted")
	}
	if _, err := MonteCarlo(context.Background(), s, s, g, MCConfig{Runs: 1000, Alpha: 0}, nil); err == nil {
		t.Error("alpha 0 accepted")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := MonteCarlo(ctx, s, s, g, MCConfig{Runs: 1000, Alpha: 1e-3}, nil); err == nil {
		t.Error("cancelled audit ran")
	}
}

// Stepping in odd slices gives exactly the one-shot result (same streams,
// same order), and the progress counter ends at the total.
func TestMCRunIncremental(t *testing.T) {
	x := append(append([]float64(nil), inliers...), 0)
	a, b := law(t, p1, with(x, 13, 1000)...), law(t, p1, x...)
	g := privacy.Guarantee{Eps: p1.Eps, Delta: p1.Delta}
	cfg := MCConfig{Runs: 5000, Alpha: 1e-3, Seed: 4}
	want, err := MonteCarlo(context.Background(), delSampler(a), delSampler(b), g, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	run, err := NewMCRun(delSampler(a), delSampler(b), g, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for !run.Done() {
		if err := run.Step(777); err != nil {
			t.Fatal(err)
		}
	}
	if got := run.Result(); got.EpsLower != want.EpsLower || got.Worst != want.Worst || len(got.Events) != len(want.Events) {
		t.Errorf("incremental %+v, one-shot %+v", got.Worst, want.Worst)
	}
	if done, total := run.Progress(); done != total || total != 2*(5000+500) {
		t.Errorf("progress %d/%d", done, total)
	}
}

// Runs that share an MCMemory give exactly the results of runs that do not,
// whichever audit came before, and a reserved memory leaves a run nothing
// large to allocate: at 2×10⁴ runs per side the arrays are 0.5 MB, a run on
// the reserved memory allocates under 0.1 MB.
func TestMCMemoryReuse(t *testing.T) {
	x := append(append([]float64(nil), inliers...), 0)
	a, b := law(t, p1, with(x, 13, 1000)...), law(t, p1, x...)
	g := privacy.Guarantee{Eps: p1.Eps, Delta: p1.Delta}
	out := make([]float64, 2)
	two := func(st *rng.Streams) ([]float64, error) { // a 2-d output, ⊥ one time in ten
		if u := st.Get(rng.Gauss).Float64(); u < 0.1 {
			return nil, nil
		}
		out[0], out[1] = st.Get(rng.Gauss).NormFloat64(), 1
		return out, nil
	}
	audits := []struct {
		a, b Sampler
		cfg  MCConfig
	}{
		{delSampler(a), delSampler(b), MCConfig{Runs: 20000, Alpha: 1e-3, Seed: 4}},
		{two, two, MCConfig{Runs: 3000, Alpha: 1e-3, Seed: 5}},
		{delSampler(b), delSampler(a), MCConfig{Runs: 20000, Alpha: 1e-3, Seed: 6}},
	}
	var mem MCMemory
	mem.Reserve(20000, 2)
	for i, au := range audits {
		want, err := MonteCarlo(context.Background(), au.a, au.b, g, au.cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		cfg := au.cfg
		cfg.Memory = &mem
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		got, err := MonteCarlo(context.Background(), au.a, au.b, g, cfg, nil)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("audit %d: with a shared memory %+v, without %+v", i, got.Worst, want.Worst)
		}
		if bytes := after.TotalAlloc - before.TotalAlloc; bytes > 100_000 {
			t.Errorf("audit %d allocated %d bytes on reserved memory", i, bytes)
		}
	}
}

// EpsReach has the closed form of Clopper–Pearson at k = n and k = 0,
// where both are powers of the per-tail level a: ln((a^{1/n} − δ)/(1 −
// a^{1/n})). A mechanism whose sides never overlap (the skipped stability
// test on a far outlier) proves exactly that much and no more.
func TestMCEpsReach(t *testing.T) {
	x := append(append([]float64(nil), inliers...), 0)
	a, b := law(t, p1, with(x, 13, 1000)...), law(t, p1, x...)
	skip, _ := DelMutantByName("no-stability")
	g := privacy.Guarantee{Eps: p1.Eps, Delta: p1.Delta}
	prev := 0.0
	for _, n := range []int{2000, 20_000} {
		cfg := MCConfig{Runs: n, Alpha: 1e-3, Seed: 8}
		res, err := MonteCarlo(context.Background(), delSampler(skip.Apply(a)), delSampler(skip.Apply(b)), g, cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		tail := cfg.Alpha / float64(2*(1+2*31)) / 2 // default 31 thresholds
		root := math.Pow(tail, 1/float64(n))
		want := math.Log((root - g.Delta) / (1 - root))
		if !(math.Abs(res.EpsReach-want) <= 1e-6) {
			t.Errorf("%d runs: reach %v, closed form %v", n, res.EpsReach, want)
		}
		if !(math.Abs(res.EpsLower-res.EpsReach) <= 1e-9) {
			t.Errorf("%d runs: disjoint sides prove ε ≥ %v, want the reach %v; %+v", n, res.EpsLower, res.EpsReach, res.Worst)
		}
		if res.EpsReach <= prev {
			t.Errorf("reach %v at %d runs does not grow from %v", res.EpsReach, n, prev)
		}
		prev = res.EpsReach
	}
}

// The Beta quantile behind Clopper–Pearson against gonum's, over the
// shapes the audits use (k successes of n up to 10⁵, tails down to 10⁻⁶).
func TestInvRegIncBeta(t *testing.T) {
	for _, c := range [][3]float64{{1, 1, 0.3}, {3, 8, 0.01}, {0.5, 2.5, 0.9}, {1, 100000, 4e-6}, {100000, 1, 1 - 4e-6},
		{50000, 50001, 4e-6}, {12, 99989, 1 - 4e-6}, {99990, 11, 4e-6}} {
		got := invRegIncBeta(c[0], c[1], c[2])
		want := mathext.InvRegIncBeta(c[0], c[1], c[2])
		if !(math.Abs(got-want) <= 1e-9*math.Max(want, 1e-300)) && !(math.Abs(got-want) <= 1e-15) {
			t.Errorf("Beta(%v, %v) quantile at %v: %v, gonum %v", c[0], c[1], c[2], got, want)
		}
	}
}

// The events' counts, kept as the samples arrive, equal a count over all
// the projections afterwards (x > t, x ≤ t among the released, x = atom,
// ⊥), on a continuous law and on a discrete one with atoms.
func TestMCRunCountsMatchRecount(t *testing.T) {
	x := append(append([]float64(nil), inliers...), 0)
	a, b := law(t, p1, with(x, 13, 1000)...), law(t, p1, x...)
	g := privacy.Guarantee{Eps: p1.Eps, Delta: p1.Delta}
	coin := func(p float64) Sampler {
		return func(st *rng.Streams) ([]float64, error) {
			switch u := st.Get(rng.Gauss).Float64(); {
			case u < 0.1:
				return nil, nil
			case u < p:
				return []float64{1}, nil
			}
			return []float64{2}, nil
		}
	}
	for name, pair := range map[string][2]Sampler{"DelOutputPert": {delSampler(a), delSampler(b)}, "discrete": {coin(0.5), coin(0.6)}} {
		run, err := NewMCRun(pair[0], pair[1], g, MCConfig{Runs: 4000, Alpha: 1e-3, Seed: 9})
		if err != nil {
			t.Fatal(err)
		}
		for !run.Done() {
			if err := run.Step(333); err != nil {
				t.Fatal(err)
			}
		}
		pa, pb, ha, hb := run.Projections()
		count := func(xs []float64, f func(float64) bool) float64 {
			k := 0
			for _, v := range xs {
				if f(v) {
					k++
				}
			}
			return float64(k) / 4000
		}
		want := []MCEvent{{Name: "⊥", PA: float64(ha) / 4000, PB: float64(hb) / 4000}}
		for _, c := range run.cuts {
			want = append(want,
				MCEvent{PA: count(pa, func(v float64) bool { return v > c }), PB: count(pb, func(v float64) bool { return v > c })},
				MCEvent{PA: count(pa, func(v float64) bool { return v <= c }), PB: count(pb, func(v float64) bool { return v <= c })})
		}
		for _, at := range run.atoms {
			want = append(want, MCEvent{PA: count(pa, func(v float64) bool { return v == at }), PB: count(pb, func(v float64) bool { return v == at })})
		}
		got := run.Result().Events
		if len(got) != len(want) {
			t.Fatalf("%s: %d events, recount %d", name, len(got), len(want))
		}
		for i := range got {
			if got[i].PA != want[i].PA || got[i].PB != want[i].PB {
				t.Errorf("%s: event %s: (%v, %v), recount (%v, %v)", name, got[i].Name, got[i].PA, got[i].PB, want[i].PA, want[i].PB)
			}
		}
		if name == "discrete" && len(run.atoms) != 2 {
			t.Errorf("discrete outputs gave atoms %v", run.atoms)
		}
	}
}

// The resumable sort orders exactly as slices.Sort (NaN first, duplicates,
// signed zeros) whatever budget each step gets.
func TestStepSort(t *testing.T) {
	r := rng.New(3).Get(rng.Data)
	for _, n := range []int{0, 1, 63, 64, 65, 1000, 20000} {
		a := make([]float64, n)
		for i := range a {
			switch r.IntN(20) {
			case 0:
				a[i] = math.NaN()
			case 1:
				a[i] = math.Copysign(0, -1)
			case 2:
				a[i] = float64(r.IntN(3))
			default:
				a[i] = r.NormFloat64()
			}
		}
		want := slices.Clone(a)
		slices.Sort(want)
		s := &stepSort{a: slices.Clone(a), buf: make([]float64, len(a))}
		budget := 1 + r.IntN(5000)
		for steps := 0; !s.step(budget); steps++ {
			if steps > 2*n {
				t.Fatalf("n = %d: not sorted after %d steps", n, steps)
			}
		}
		for i := range want {
			if !(s.a[i] == want[i] || math.IsNaN(s.a[i]) && math.IsNaN(want[i])) {
				t.Fatalf("n = %d, budget %d: [%d] = %v, slices.Sort has %v", n, budget, i, s.a[i], want[i])
			}
		}
	}
}

// The gloss names u's direction as the audit takes it: A's mean less B's,
// from B's mean output to A's; ⊥ needs no gloss.
func TestMCEventGloss(t *testing.T) {
	if u := meanDifference([]float64{1, 3}, []float64{0, 0}, 1); len(u) != 1 || !(u[0] > 0) {
		t.Fatalf("u = %v for A's mean 2 and B's 0: want it to point from B to A", u)
	}
	if g := (MCEvent{Name: "⟨o,u⟩ > 0.5"}).Gloss(); !strings.Contains(g, "from B's mean output to A's") {
		t.Errorf("gloss %q", g)
	}
	if g := (MCEvent{Name: "⊥"}).Gloss(); g != "" {
		t.Errorf("⊥ glossed %q", g)
	}
}
