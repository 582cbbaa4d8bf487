package mech

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/uldplab/uldp/core/internal/gof"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/core/trace"
)

// Spec 000-002 §9.4, must-halt cases: users pairwise farther than τ give
// s = 1 against the gate 4n/5, with AboveThreshold at ε/2 (ORME's split).
func TestATPassProbabilityGolden(t *testing.T) {
	for _, c := range []struct {
		n    int
		eps  float64
		want float64
	}{{20, 8, 2.0393e-7}, {30, 8, 6.8413e-11}, {100, 1, 3.4296e-5}} {
		p := ATParams{Eps: c.eps / 2, Threshold: 4 * float64(c.n) / 5}
		got := ATPassProbability(p, 1)
		if !(math.Abs(got-c.want) <= 0.5e-4*c.want) { // 5 significant digits printed
			t.Errorf("n=%d ε=%v: P(⊤) = %.5g, spec %.5g", c.n, c.eps, got, c.want)
		}
	}
}

// The closed form against the independent quadrature of ATHaltDistribution.
func TestATPassProbabilityMatchesQuadrature(t *testing.T) {
	for _, p := range []ATParams{{Eps: 1, Threshold: 10}, {Eps: 0.3, Threshold: -2, Sens: 2}, {Eps: 4, Threshold: 24}} {
		for _, q := range []float64{p.Threshold - 30, p.Threshold - 3, p.Threshold, p.Threshold + 0.5, p.Threshold + 12} {
			closed := ATPassProbability(p, q)
			dist := ATHaltDistribution(p, []float64{q})
			if !(math.Abs(dist[1]-closed) <= 1e-10) || !(math.Abs(dist[0]+dist[1]-1) <= 1e-10) {
				t.Errorf("ε=%v Δ=%v q=%v: closed %.15g, quadrature pass %.15g halt %.15g", p.Eps, p.Threshold, q, closed, dist[1], dist[0])
			}
		}
	}
}

// Sampler against the exact law. Hoeffding at alpha 1e-6 for one query;
// χ² at alpha 1e-4 for the halting time of a five-query stream.
func TestATSamplerMatchesExactLaw(t *testing.T) {
	p := ATParams{Eps: 1, Threshold: 10}
	const runs = 100_000
	streams := rng.New(21)
	passes := 0
	for range runs {
		a, err := NewAboveThreshold(p, streams, nil)
		if err != nil {
			t.Fatal(err)
		}
		if ok, _ := a.Query(8.5); ok {
			passes++
		}
	}
	want := ATPassProbability(p, 8.5)
	if tol := gof.Hoeffding(runs, 1, 1e-6); !(math.Abs(float64(passes)/runs-want) <= tol) {
		t.Errorf("single query: pass rate %v, exact %v ± %v", float64(passes)/runs, want, tol)
	}

	queries := []float64{14, 12, 9, 11, 7}
	counts := make([]int, len(queries)+1)
	for range runs {
		res, _, err := RunAboveThreshold(context.Background(), p, queries, streams)
		if err != nil {
			t.Fatal(err)
		}
		if res.HaltedAt == 0 {
			counts[len(queries)]++
		} else {
			counts[res.HaltedAt-1]++
		}
	}
	if err := gof.ChiSquare(counts, ATHaltDistribution(p, queries), 1e-4); err != nil {
		t.Errorf("halting time: %v (counts %v)", err, counts)
	}
}

// Exact privacy check: for query vectors differing by at most s per query,
// every transcript's probability changes by at most a factor e^ε.
func TestATTranscriptRatiosWithinEps(t *testing.T) {
	r := rng.New(5).Get(rng.Data)
	for trial := 0; trial < 40; trial++ {
		p := ATParams{Eps: 0.5 + 2*r.Float64(), Threshold: 5, Sens: 1 + r.Float64()}
		T := 1 + r.IntN(5)
		q, q2 := make([]float64, T), make([]float64, T)
		for i := range q {
			q[i] = 5 + 6*(r.Float64()-0.5)
			q2[i] = q[i] + p.Sens*(2*r.Float64()-1)
		}
		a, b := ATHaltDistribution(p, q), ATHaltDistribution(p, q2)
		for k := range a {
			if a[k] > math.Exp(p.Eps)*b[k]+1e-12 || b[k] > math.Exp(p.Eps)*a[k]+1e-12 {
				t.Fatalf("ε=%v: transcript %d has probabilities %g vs %g (ratio above e^ε)", p.Eps, k, a[k], b[k])
			}
		}
	}
}

// Power check for the ratio test above: without threshold noise (the
// "threshold noise omitted" mutant) a neighbouring pair breaks e^ε.
func TestATWithoutThresholdNoiseBreaksPrivacy(t *testing.T) {
	p := ATParams{Eps: 1, Threshold: 0}
	q, q2 := []float64{0, 0, 0, 0, 0, 0, 0, 0}, []float64{1, 1, 1, 1, 1, 1, 1, 1}
	// With Λ = 0 the queries pass independently: Pr[all pass] = Pr[ν ≥ Δ − q]^T.
	noThreshold := func(qs []float64) float64 {
		v := 1.0
		for _, x := range qs {
			v *= 1 - 0.5*math.Exp(-(x-p.Threshold)/p.QueryScale()) // Pr[ν ≥ −x] for x ≥ 0
		}
		return v
	}
	ratio := noThreshold(q2) / noThreshold(q)
	if ratio <= math.Exp(p.Eps) {
		t.Fatalf("mutant ratio %v should exceed e^ε = %v", ratio, math.Exp(p.Eps))
	}
	real := ATHaltDistribution(p, q2)[8] / ATHaltDistribution(p, q)[8]
	if real > math.Exp(p.Eps) {
		t.Fatalf("the real mechanism's ratio %v exceeds e^ε", real)
	}
}

func TestATHaltDistributionSumsToOne(t *testing.T) {
	for _, qs := range [][]float64{{10}, {1, 2, 3}, {20, 20, 20, 20, 20, 20, 20, 20, 20, 20}} {
		var s float64
		for _, v := range ATHaltDistribution(ATParams{Eps: 1, Threshold: 10}, qs) {
			if v < 0 {
				t.Fatalf("negative probability %v", v)
			}
			s += v
		}
		if !(math.Abs(s-1) <= 1e-10) {
			t.Errorf("queries %v: total probability %.15g", qs, s)
		}
	}
}

func TestATHaltingAndTrace(t *testing.T) {
	p := ATParams{Eps: 2, Threshold: 10}
	res, tr, err := RunAboveThreshold(context.Background(), p, []float64{30, 25, -40, 30}, rng.New(3))
	if err != nil {
		t.Fatal(err)
	}
	// q = −40 is 50 below the threshold: it passes with probability < 1e-9.
	if res.HaltedAt != 3 || len(res.Answers) != 3 || !res.Answers[0] || res.Answers[2] {
		t.Fatalf("result %+v", res)
	}
	kinds := []trace.Kind{KindATThreshold, KindATCompare, KindATCompare, KindATCompare, KindATHalt}
	if len(tr.Steps) != len(kinds) {
		t.Fatalf("%d steps", len(tr.Steps))
	}
	for i, k := range kinds {
		if tr.Steps[i].Kind != k {
			t.Errorf("step %d is %s, want %s", i, tr.Steps[i].Kind, k)
		}
	}
	th := tr.Steps[0].Data.(ATThresholdStep)
	cmp := tr.Steps[3].Data.(ATCompareStep)
	if cmp.NoisyThreshold != th.NoisyThreshold || cmp.Pass || !strings.Contains(tr.Steps[3].Text, "⊥") {
		t.Errorf("compare step %+v / %q", cmp, tr.Steps[3].Text)
	}
	if !res.Guarantee.Certified() || res.Guarantee.Eps != 2 {
		t.Errorf("guarantee %v", res.Guarantee)
	}

	a, _ := NewAboveThreshold(p, rng.New(1), nil)
	a.Query(-1000)
	if _, err := a.Query(5); !errors.Is(err, ErrHalted) || !a.Halted() {
		t.Errorf("query after halt: %v", err)
	}
}

func TestATRerollKeepsTheOtherStream(t *testing.T) {
	p := ATParams{Eps: 1, Threshold: 0}
	s := rng.New(8)
	_, a, _ := RunAboveThreshold(context.Background(), p, []float64{5, 5}, s.Fresh())
	s.Reroll(rng.ATQuery)
	_, b, _ := RunAboveThreshold(context.Background(), p, []float64{5, 5}, s.Fresh())
	if a.Steps[0].Data.(ATThresholdStep) != b.Steps[0].Data.(ATThresholdStep) {
		t.Error("re-rolling the query noise moved the threshold")
	}
	if a.Steps[1].Data.(ATCompareStep).Noise == b.Steps[1].Data.(ATCompareStep).Noise {
		t.Error("re-rolling the query noise did not change it")
	}
}

func TestATNonPrivate(t *testing.T) {
	p := ATParams{Eps: 1, Threshold: 3, Mode: privacy.NonPrivate}
	res, _, _ := RunAboveThreshold(context.Background(), p, []float64{3, 4, 2.999, 9}, rng.New(1))
	if res.HaltedAt != 3 || res.NoisyThreshold != 3 || res.Guarantee.Certified() {
		t.Errorf("non-private run %+v", res)
	}
	if d := ATHaltDistribution(p, []float64{3, 4, 2.999}); d[2] != 1 {
		t.Errorf("non-private halt distribution %v", d)
	}
}

func TestATValidation(t *testing.T) {
	for _, p := range []ATParams{{Eps: 0}, {Eps: 1, Threshold: math.NaN()}, {Eps: 1, Sens: -1}, {Eps: 1, Mode: 9}} {
		if _, err := NewAboveThreshold(p, rng.New(1), nil); err == nil {
			t.Errorf("%+v accepted", p)
		}
	}
	if _, _, err := RunAboveThreshold(context.Background(), ATParams{Eps: 1}, nil, rng.New(1)); err == nil {
		t.Error("empty query list accepted")
	}
	a, _ := NewAboveThreshold(ATParams{Eps: 1}, rng.New(1), nil)
	if _, err := a.Query(math.Inf(1)); err == nil {
		t.Error("infinite query accepted")
	}
}

// The AboveThreshold lesson recomputes the halting law on every drag move.
func BenchmarkATHaltDistribution(b *testing.B) {
	p := ATParams{Eps: 1, Threshold: 10}
	qs := []float64{15, 13, 12, 11.5, 10.5, 12, 9, 13}
	for b.Loop() {
		ATHaltDistribution(p, qs)
	}
}

// The Laplace sum's tail at equal scales (the limit formula) against the
// general one at nearly equal scales, and against numerical integration of
// the convolution.
func TestLaplaceSumSurvivalEqualScales(t *testing.T) {
	for _, w := range []float64{-3, -0.5, 0, 0.7, 4} {
		eq := LaplaceSumSurvival(1, 1, w)
		near := LaplaceSumSurvival(1, 1+1e-3, w)
		if !(math.Abs(eq-near) <= 2e-3) {
			t.Errorf("w = %v: equal scales %v, nearly equal %v", w, eq, near)
		}
		// Pr[X + Y ≥ w] = ∫ f(x) Pr[Y ≥ w − x] dx, on a fine midpoint grid.
		var sum float64
		const h = 1e-3
		for x := -40.0; x < 40; x += h {
			m := x + h/2
			surv := 0.5 * math.Exp(-(w - m))
			if w-m < 0 {
				surv = 1 - 0.5*math.Exp(w-m)
			}
			sum += 0.5 * math.Exp(-math.Abs(m)) * surv * h
		}
		if !(math.Abs(eq-sum) <= 1e-6) {
			t.Errorf("w = %v: formula %v, integral %v", w, eq, sum)
		}
	}
}
