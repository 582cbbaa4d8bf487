package mech

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/core/robust"
	"github.com/uldplab/uldp/core/trace"
)

func near(t *testing.T, what string, got, want, rel float64) {
	t.Helper()
	if !(math.Abs(got-want) <= rel*math.Abs(want)) {
		t.Errorf("%s = %.7g, want %.7g (±%g relative)", what, got, want, rel)
	}
}

// Spec §9.4's golden noise scales, τ = 1: paper and sound constants.
func TestORMECalibrationGolden(t *testing.T) {
	cal := func(n int, eps, delta float64, mode privacy.Mode) ORMECalibration {
		t.Helper()
		c, err := ORMEParams{Eps: eps, Delta: delta, Tau: 1, Queries: 1, Mode: mode}.Calibrate(n)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	near(t, "paper σ (n = 100, ε = 1, δ = 1e-5)", cal(100, 1, 1e-5, privacy.Paper).Sigma, 0.3467758, 1e-6)
	near(t, "paper σ (n = 30, ε = 8, δ = 0.1)", cal(30, 8, 0.1, privacy.Paper).Sigma, 0.0949656, 1e-6)

	s := cal(100, 1, 1e-5, privacy.Sound)
	near(t, "ζ′", s.ZetaPrime, 1.06e-6, 5e-3)
	near(t, "Δ_g", s.MeanSens, 6.9, 1e-12)
	near(t, "ρ*", s.RhoStar, 0.004824, 1e-3)
	near(t, "sound σ (n = 100)", s.Sigma, 70.24, 1e-3)
	near(t, "n > (n = 100)", s.NeedUsers, 2575, 1e-3)
	if s.KZeta != 21 || s.ScoreSens != 2*99.0/100 {
		t.Errorf("k_ζ = %d, Δ_s = %v; want 21, 1.98", s.KZeta, s.ScoreSens)
	}
	s = cal(1000, 1, 1e-5, privacy.Sound)
	if s.KZeta != 22 {
		t.Errorf("k_ζ(n = 1000) = %d, want 22", s.KZeta)
	}
	near(t, "Δ_g (n = 1000)", s.MeanSens, 0.72, 1e-12)
	near(t, "sound σ (n = 1000)", s.Sigma, 7.33, 1e-3)
	s = cal(30, 8, 0.1, privacy.Sound)
	near(t, "Δ_g (n = 30, capped)", s.MeanSens, 10, 1e-12)
	near(t, "sound σ (n = 30)", s.Sigma, 10.54, 1e-3)
	near(t, "n > (n = 30)", s.NeedUsers, 254, 3e-3)
	// Sound noise ≈ 200× the paper's at n = 100 (spec §B-2).
	if r := cal(100, 1, 1e-5, privacy.Sound).Sigma / cal(100, 1, 1e-5, privacy.Paper).Sigma; r < 150 || r > 250 {
		t.Errorf("σ_sound/σ_paper = %v, expected ≈ 200", r)
	}
}

// Sound mode with T > 1 queries: σ composes T Gaussian steps, so it grows
// like √T, ζ′ shrinks with T and so k_ζ grows, and the user requirement
// grows with ln((T+1)/ζ′). The golden values are spec §B-2's formulas
// evaluated in mpmath at 50 digits, independently of this code (the binomial
// tail summed exactly); the first row reproduces §9.4's T = 1 values.
func TestORMESoundWithManyQueries(t *testing.T) {
	for _, c := range []struct {
		n              int
		eps, delta     float64
		tau            float64
		queries, kZeta int
		meanSens       float64
		sigma, need    float64
	}{
		{100, 1, 1e-5, 1, 1, 21, 6.9, 70.244213753721964, 2575.1084210319507},
		{1000, 1, 1e-5, 1, 50, 23, 0.75, 53.989304222145814, 3618.2754025017982},
		{1000, 1, 1e-5, 0.5, 200, 24, 0.39, 56.148876391031646, 4104.5921110733273},
		{300, 8, 1e-5, 2, 100, 26, 5.6, 84.351549162126735, 557.36246627890533},
	} {
		s, err := ORMEParams{Eps: c.eps, Delta: c.delta, Tau: c.tau, Queries: c.queries, Mode: privacy.Sound}.Calibrate(c.n)
		if err != nil {
			t.Fatal(err)
		}
		at := fmt.Sprintf("(n = %d, T = %d)", c.n, c.queries)
		if s.KZeta != c.kZeta {
			t.Errorf("k_ζ %s = %d, want %d", at, s.KZeta, c.kZeta)
		}
		near(t, "Δ_g "+at, s.MeanSens, c.meanSens, 1e-12)
		near(t, "sound σ "+at, s.Sigma, c.sigma, 1e-12)
		near(t, "n > "+at, s.NeedUsers, c.need, 1e-12)
	}
}

// binomialQuantile against the tail summed directly.
func TestBinomialQuantile(t *testing.T) {
	for _, c := range []struct {
		n    int
		q, z float64
	}{{99, 0.06, 1.06e-6}, {999, 0.006, 1e-6}, {29, 0.2, 0.01}, {10, 0.5, 0.5}, {5, 1, 0.1}} {
		k := binomialQuantile(c.n, c.q, c.z)
		tail := func(k int) float64 {
			var s float64
			for j := k; j <= c.n; j++ {
				lc := func(x int) float64 { v, _ := math.Lgamma(float64(x)); return v }
				s += math.Exp(lc(c.n+1) - lc(j+1) - lc(c.n-j+1) + float64(j)*math.Log(c.q) + float64(c.n-j)*math.Log1p(-c.q))
			}
			return s
		}
		if c.q == 1 {
			if k != c.n+1 {
				t.Errorf("q = 1: k = %d, want n + 1", k)
			}
			continue
		}
		if tail(k) > c.z || (k > 0 && tail(k-1) <= c.z) {
			t.Errorf("%+v: k = %d, tails %v at k and %v at k − 1", c, k, tail(k), tail(k-1))
		}
	}
}

func circle(n int, rho float64) [][]float64 {
	pts := make([][]float64, n)
	for j := range pts {
		a := 2 * math.Pi * float64(j) / float64(n)
		pts[j] = []float64{rho * math.Cos(a), rho * math.Sin(a)}
	}
	return pts
}

// Spec §9.4 must-halt cases: users pairwise farther than τ (s = 1), so the
// gate passes with probability 2.0393e−7 (n = 20, ε = 8), 6.8413e−11
// (n = 30, ε = 8), 3.4296e−5 (n = 100, ε = 1); the output is ⊥ and every
// later query is refused.
func TestORMEMustHalt(t *testing.T) {
	for _, c := range []struct {
		n     int
		eps   float64
		pPass float64
	}{{20, 8, 2.0393e-7}, {30, 8, 6.8413e-11}, {100, 1, 3.4296e-5}} {
		o, err := NewORME(ORMEParams{Eps: c.eps, Delta: 0.1, Tau: 0.5, Queries: 3}, c.n, rng.New(1), nil)
		if err != nil {
			t.Fatal(err)
		}
		st, err := o.Query(circle(c.n, float64(c.n))) // neighbours ≥ 2πn/n·… > τ apart
		if err != nil {
			t.Fatal(err)
		}
		if st.Score != 1 {
			t.Fatalf("n = %d: s = %v, want 1", c.n, st.Score)
		}
		near(t, "P(⊤)", st.PPass, c.pPass, 1e-4)
		if st.Passed || st.Output != nil {
			t.Errorf("n = %d: passed %v, output %v", c.n, st.Passed, st.Output)
		}
		if _, err := o.Query(circle(c.n, 1)); !errors.Is(err, ErrORMEHalted) {
			t.Errorf("after ⊥: %v", err)
		}
	}
}

// A tight cluster (all pairs within τ): s = n, everyone has p = 1 and is
// kept, the released centre is the exact mean, and the gate passes with
// 1 − Pr[Lap(4/ε) + Lap(8/ε) ≥ n/5]. Conditional on passing, ĝ has mean
// the exact mean and covariance σ²I: 4,000 runs, each coordinate's mean
// within 5σ/√runs (false failure < 10⁻⁵) and the variance ratio within
// 1 ± 0.15 (a χ² with 4,000 degrees of freedom strays that far with
// probability < 10⁻⁹).
func TestORMETightCluster(t *testing.T) {
	const n, runs = 40, 4000
	p := ORMEParams{Eps: 4, Delta: 1e-3, Tau: 1, Queries: 1}
	vals := make([][]float64, n)
	for j := range vals {
		vals[j] = []float64{0.3 + 0.01*float64(j%5), -0.2 + 0.01*float64(j%3)}
	}
	mean := meanOf(vals, nil)
	var sum, sq [2]float64
	passed := 0
	for seed := range runs {
		o, err := NewORME(p, n, rng.New(uint64(seed)), nil)
		if err != nil {
			t.Fatal(err)
		}
		st, err := o.Query(vals)
		if err != nil {
			t.Fatal(err)
		}
		if st.Score != n {
			t.Fatalf("s = %v, want n", st.Score)
		}
		w := 1 - LaplaceSumSurvival(4/p.Eps, 8/p.Eps, n/5.0)
		near(t, "P(⊤)", st.PPass, w, 1e-12)
		if !st.Passed {
			continue
		}
		passed++
		if len(st.Kept) != n || !slices.Equal(st.Mean, mean) {
			t.Fatalf("kept %d, mean %v; want all, %v", len(st.Kept), st.Mean, mean)
		}
		for k := range 2 {
			e := st.Output[k] - mean[k]
			sum[k] += e
			sq[k] += e * e
		}
	}
	sigma := o1(t, p, n).Sigma
	for k := range 2 {
		if m := sum[k] / float64(passed); !(math.Abs(m) <= 5*sigma/math.Sqrt(float64(passed))) {
			t.Errorf("coordinate %d: mean error %v", k, m)
		}
		if r := sq[k] / float64(passed) / (sigma * sigma); !(math.Abs(r-1) <= 0.15) {
			t.Errorf("coordinate %d: variance ratio %v", k, r)
		}
	}
}

func o1(t *testing.T, p ORMEParams, n int) ORMECalibration {
	t.Helper()
	c, err := p.Calibrate(n)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// After a pass with s > 2n/3 every kept user lies within 3τ of the core
// Z* = argmax_j #{k : ‖v_j − v_k‖ ≤ τ} (spec §B-2's privacy argument);
// checked over random clouds with outliers, in non-private mode so every
// gate passes.
func TestORMEKeptUsersNearTheCore(t *testing.T) {
	r := rng.New(21).Get(rng.Data)
	checked := 0
	for trial := range 200 {
		n := 20 + r.IntN(40)
		vals := make([][]float64, n)
		for j := range vals {
			s := 0.3
			if r.Float64() < 0.25 {
				s = 3
			}
			vals[j] = []float64{s * r.NormFloat64(), s * r.NormFloat64()}
		}
		o, err := NewORME(ORMEParams{Eps: 1, Delta: 1e-5, Tau: 1, Queries: 1, Mode: privacy.NonPrivate}, n, rng.New(uint64(trial)), nil)
		if err != nil {
			t.Fatal(err)
		}
		st, err := o.Query(vals)
		if err != nil {
			t.Fatal(err)
		}
		if !(3*st.Score > 2*float64(n)) {
			continue
		}
		checked++
		counts := robust.NaiveCounts(vals, 1)
		core := 0
		for j, c := range counts {
			if c > counts[core] {
				core = j
			}
		}
		for _, j := range st.Kept {
			if d := math.Hypot(vals[j][0]-vals[core][0], vals[j][1]-vals[core][1]); d > 3 {
				t.Fatalf("trial %d: kept user %d lies %v from the core", trial, j, d)
			}
		}
	}
	if checked < 20 {
		t.Errorf("only %d trials had s > 2n/3", checked)
	}
}

func TestORMERejects(t *testing.T) {
	for _, p := range []ORMEParams{
		{Eps: 0, Delta: 0.1, Tau: 1, Queries: 1},
		{Eps: 1, Delta: 0.1, Tau: 0, Queries: 1},
		{Eps: 1, Delta: 0.1, Tau: 1, Queries: 0},
		{Eps: 1, Delta: 0.1, Tau: 1, Queries: 1, Sigma: 2},
	} {
		if _, err := p.Calibrate(10); err == nil {
			t.Errorf("%+v accepted", p)
		}
	}
	o, _ := NewORME(ORMEParams{Eps: 1, Delta: 0.1, Tau: 1, Queries: 1}, 3, rng.New(1), nil)
	if _, err := o.Query([][]float64{{0}, {1}}); err == nil {
		t.Error("2 values for 3 users accepted")
	}
	if _, err := o.Query([][]float64{{0}, {1}, {math.NaN()}}); err == nil {
		t.Error("NaN accepted")
	}
	if _, err := o.Query([][]float64{{0}, {0}, {0}}); err != nil {
		t.Fatal(err)
	}
	if _, err := o.Query([][]float64{{0}, {0}, {0}}); err == nil {
		t.Error("a second query on a T = 1 budget accepted")
	}
}

// Spec §B-3: ORME flips one coin per user in order, so the same seed on
// neighbouring datasets is Lemma 3.4's coupling — user j kept in one run
// and not the other exactly when its coin falls between p_j and p′_j — and
// E|S Δ S′| = ‖p − p′‖₁. On §9.5's circle that is 3.5, over 4,000 seeds
// within a Hoeffding margin at 10⁻⁶ (|S Δ S′| ≤ 8: only 8 users' p move).
func TestORMECoupledCoins(t *testing.T) {
	a := circle(12, 1/(2*math.Sin(3.5*math.Pi/12)))
	b := slices.Clone(a)
	b[0] = []float64{100, 100}
	p := ORMEParams{Eps: 8, Delta: 0.1, Tau: 0.5, Queries: 1, Mode: privacy.NonPrivate}
	const runs = 4000
	var sum float64
	for seed := range runs {
		oa, _ := NewORME(p, 12, rng.New(uint64(seed)), nil)
		ob, _ := NewORME(p, 12, rng.New(uint64(seed)), nil)
		sa, _ := oa.Query(a)
		sb, _ := ob.Query(b)
		in := map[int]int{}
		for _, j := range sa.Kept {
			in[j]++
		}
		for _, j := range sb.Kept {
			in[j]++
		}
		for j, c := range in {
			if c == 1 {
				sum++
				lo, hi := min(sa.Keep[j], sb.Keep[j]), max(sa.Keep[j], sb.Keep[j])
				if lo == hi {
					t.Fatalf("seed %d: user %d differs though p = p′ = %v", seed, j+1, lo)
				}
			}
		}
	}
	if tol := 8 * math.Sqrt(math.Log(2/1e-6)/(2*runs)); !(math.Abs(sum/runs-3.5) <= tol) {
		t.Errorf("E|S Δ S′| ≈ %v, want ‖p − p′‖₁ = 3.5 (± %.3g)", sum/runs, tol)
	}
}

// The halt says which failed: users pairwise farther than τ are not
// concentrated (s = 1 < 4n/5 = 16 at n = 20); a tight cluster of 5 users
// meets 4n/5 yet, at ε = 0.5, passes with probability under 0.6 (checked),
// failing through the gate's noise, and the halt blames the noise (the
// first failing seed of 200 is used: 200 passes in a row would have
// probability below 0.6²⁰⁰ < 10⁻⁴⁴).
func TestORMEHaltSaysWhy(t *testing.T) {
	halt := func(n int, eps float64, vals [][]float64, seed uint64) (ORMEStep, string) {
		rec := trace.NewRecorder("orme", seed)
		o, err := NewORME(ORMEParams{Eps: eps, Delta: 0.1, Tau: 0.5, Queries: 1}, n, rng.New(seed), rec)
		if err != nil {
			t.Fatal(err)
		}
		st, err := o.Query(vals)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range rec.Trace().Steps {
			if s.Kind == KindORMEHalt {
				return st, s.Text
			}
		}
		return st, ""
	}
	if _, text := halt(20, 8, circle(20, 20), 1); !strings.Contains(text, "not concentrated enough (s = 1 < 4n/5 = 16)") {
		t.Errorf("spread users: %q", text)
	}
	tight := make([][]float64, 5)
	for j := range tight {
		tight[j] = []float64{0.01 * float64(j), 0}
	}
	for seed := uint64(1); seed <= 200; seed++ {
		st, text := halt(5, 0.5, tight, seed)
		if !(st.PPass < 0.6) {
			t.Fatalf("Pr[pass] = %v: the bound below assumes it under 0.6", st.PPass)
		}
		if st.Passed {
			continue
		}
		if st.Score != 5 || !strings.Contains(text, "s = 5 meets 4n/5 = 4, but the gate's noise fell against it") {
			t.Errorf("seed %d: score %v, halt %q", seed, st.Score, text)
		}
		return
	}
	t.Error("a tight cluster of 5 passed the gate 200 times at ε = 0.5")
}
