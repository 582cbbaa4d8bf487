package mech

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/uldplab/uldp/core/noise"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/core/trace"
)

// Each recorded comparison is the one made: the noisy query is q + ν
// (noise drawn, not zero, on a seed), and the answer is ⊤ exactly when it
// is not below the noisy threshold. A query that is not finite is refused
// with its 1-based number.
func TestATComparisonIsTheOneRecorded(t *testing.T) {
	p := ATParams{Eps: 1, Threshold: 3}
	a, err := NewAboveThreshold(p, rng.New(5), trace.NewRecorder("at", 5))
	if err != nil {
		t.Fatal(err)
	}
	sawNoise := false
	for _, q := range []float64{2, 9, 4, 1, 3.5, 6, 0, 8} {
		st, err := a.Compare(q)
		if err == ErrHalted {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		sawNoise = sawNoise || st.Noise != 0
		if st.Query != q || st.NoisyQuery != q+st.Noise || st.NoisyThreshold != a.NoisyThreshold() || st.Pass != (st.NoisyQuery >= st.NoisyThreshold) {
			t.Fatalf("query %v: recorded %+v", q, st)
		}
		if !st.Pass {
			break
		}
	}
	if !sawNoise {
		t.Fatal("no query noise drawn on seed 5: the test shows nothing")
	}
	b, _ := NewAboveThreshold(p, rng.New(5), nil)
	if _, err := b.Compare(math.NaN()); err == nil || !strings.Contains(err.Error(), "query 1 = NaN") {
		t.Errorf("a NaN first query: error %v, want it named as query 1", err)
	}
}

// Without noise a query passes exactly when q ≥ Δ.
func TestATNonPrivateAtTheThreshold(t *testing.T) {
	p := ATParams{Eps: 1, Threshold: 3, Mode: privacy.NonPrivate}
	for q, want := range map[float64]float64{2.999: 0, 3: 1, 3.001: 1} {
		if got := ATPassProbability(p, q); got != want {
			t.Errorf("q = %v: Pr[pass] = %v, want %v", q, got, want)
		}
	}
}

// Pr[Lap(1) + Lap(1) ≥ w] = e^{−w}(2 + w)/4 (the sum's density is
// (1 + |x|)e^{−|x|}/4), at values worked by hand; the general formula
// agrees with it where it is still well conditioned (scales 1 and 1.001).
func TestLaplaceSumSurvivalAtEqualScales(t *testing.T) {
	for _, c := range []struct{ w, want float64 }{
		{0, 0.5},
		{1, 0.27590958087858175}, // 3/(4e)
		{2, 0.1353352832366127},  // e⁻²
		{-1, 0.7240904191214182}, // 1 − 3/(4e)
	} {
		for _, b2 := range []float64{1, 1 + 1e-9} {
			if got := LaplaceSumSurvival(1, b2, c.w); !(math.Abs(got-c.want) <= 1e-8) {
				t.Errorf("Pr[Lap(1) + Lap(%v) ≥ %v] = %.17g, want %.17g", b2, c.w, got, c.want)
			}
		}
		if got := LaplaceSumSurvival(1, 1.001, c.w); !(math.Abs(got-c.want) <= 1e-3) {
			t.Errorf("Pr[Lap(1) + Lap(1.001) ≥ %v] = %v, want about %v", c.w, got, c.want)
		}
		// Lap(2) + Lap(2) is twice Lap(1) + Lap(1): the same law at 2w
		// (where a scale of 1 would hide w/b written as w·b).
		if got := LaplaceSumSurvival(2, 2, 2*c.w); !(math.Abs(got-c.want) <= 1e-15) {
			t.Errorf("Pr[Lap(2) + Lap(2) ≥ %v] = %.17g, want %.17g", 2*c.w, got, c.want)
		}
	}
}

// DelOutputPert's parameters at their edges: κ by hand in teaching mode
// only, from 1 to the largest TDLap supports; an unknown mode; σ scaling
// with the sensitivity; n = 4κ+2 users the least it runs on.
func TestDelParamsAtTheirEdges(t *testing.T) {
	base := DelParams{Eps: 1, Delta: 1e-6, Sens: 1, Mode: privacy.Teaching}
	for _, c := range []struct {
		name string
		p    func(DelParams) DelParams
		ok   bool
	}{
		{"κ = 0 (computed)", func(p DelParams) DelParams { p.Kappa = 0; return p }, true},
		{"κ = −1", func(p DelParams) DelParams { p.Kappa = -1; return p }, false},
		{"κ = MaxKappa", func(p DelParams) DelParams { p.Kappa = noise.MaxKappa; return p }, true},
		{"κ = MaxKappa+1", func(p DelParams) DelParams { p.Kappa = noise.MaxKappa + 1; return p }, false},
		{"κ by hand in sound mode", func(p DelParams) DelParams { p.Kappa = 2; p.Mode = privacy.Sound; return p }, false},
		{"mode 9", func(p DelParams) DelParams { p.Mode = 9; return p }, false},
		{"ε = 0", func(p DelParams) DelParams { p.Eps = 0; return p }, false},
	} {
		if err := c.p(base).Validate(); (err == nil) != c.ok {
			t.Errorf("%s: error %v, want accepted = %v", c.name, err, c.ok)
		}
	}
	// σ = 16κΔ√(ln(2/δ̄))/ε̄ with ε̄ = 0.5, δ̄ = 10⁻⁶/(e^0.5 + 2), κ = 2,
	// Δ = 2 (evaluated in Python).
	p := base
	p.Kappa, p.Sens = 2, 2
	cal, err := p.DelCalibration()
	if err != nil {
		t.Fatal(err)
	}
	if want := 2 * 254.41939655720014; !(math.Abs(cal.Scale-want) <= 1e-12*want) {
		t.Errorf("σ at κ = 2, Δ = 2: %.17g, want %.17g", cal.Scale, want)
	}
	// n = 4κ+1 users is refused with the numbers, n = 4κ+2 runs.
	p.Sens = 1
	if _, err := DelOutputPertLaw(context.Background(), p, oneD(make([]float64, 9)...), nil); err == nil || !strings.Contains(err.Error(), "4κ = 8 users and needs n ≥ 4κ+2 = 10") {
		t.Errorf("n = 9 at κ = 2: error %v", err)
	}
	if _, err := DelOutputPertLaw(context.Background(), p, oneD(make([]float64, 10)...), nil); err != nil {
		t.Errorf("n = 10 at κ = 2: %v", err)
	}
}

// ORME's printed calibration (paper mode) against the formulas evaluated
// in Python: σ = √(8τ²T·ln(e^ε T/δ)·ln(e^{ε/2}/δ))/(nε) and the
// requirement n ≥ 40 ln(4T/δ)/ε; its parameters at their edges.
func TestORMEPaperCalibrationAndEdges(t *testing.T) {
	p := ORMEParams{Eps: 1, Delta: 1e-5, Tau: 0.5, Queries: 10, Mode: privacy.Paper}
	c, err := p.Calibrate(100)
	if err != nil {
		t.Fatal(err)
	}
	if want := 0.5966198522649147; !(math.Abs(c.Sigma-want) <= 1e-12*want) {
		t.Errorf("paper σ = %.17g, want %.17g", c.Sigma, want)
	}
	if want := 608.0721967633666; !(math.Abs(c.NeedUsers-want) <= 1e-12*want) {
		t.Errorf("paper n ≥ %.17g, want %.17g", c.NeedUsers, want)
	}
	for _, c := range []struct {
		name string
		p    func(ORMEParams) ORMEParams
		n    int
		ok   bool
	}{
		{"T = 1", func(p ORMEParams) ORMEParams { p.Queries = 1; return p }, 100, true},
		{"T = 0", func(p ORMEParams) ORMEParams { p.Queries = 0; return p }, 100, false},
		{"T = 10⁶", func(p ORMEParams) ORMEParams { p.Queries = 1_000_000; return p }, 100, true},
		{"T = 10⁶+1", func(p ORMEParams) ORMEParams { p.Queries = 1_000_001; return p }, 100, false},
		{"teaching σ = 0", func(p ORMEParams) ORMEParams { p.Mode = privacy.Teaching; return p }, 100, true},
		{"teaching σ = −1", func(p ORMEParams) ORMEParams { p.Mode, p.Sigma = privacy.Teaching, -1; return p }, 100, false},
		{"teaching σ = NaN", func(p ORMEParams) ORMEParams { p.Mode, p.Sigma = privacy.Teaching, math.NaN(); return p }, 100, false},
		{"n = 2", func(p ORMEParams) ORMEParams { return p }, 2, true},
		{"n = 1", func(p ORMEParams) ORMEParams { return p }, 1, false},
	} {
		if _, err := c.p(p).Calibrate(c.n); (err == nil) != c.ok {
			t.Errorf("%s: error %v, want accepted = %v", c.name, err, c.ok)
		}
	}
}

// k_ζ = min{j : Pr[Bin(k−1, min(1, 6/k)) ≥ j] ≤ ζ} by exact rational
// arithmetic in Python, and the survivors' mean sensitivity
// min(10τ, 30τ(2 + k_ζ)/k) at τ = 0.5, ζ = 10⁻⁶.
func TestSurvivorMeanSensitivityByHand(t *testing.T) {
	for _, c := range []struct {
		k, kZeta int
		sens     float64
	}{{100, 21, 3.45}, {1000, 22, 0.36}, {7, 7, 5}} {
		kz, s := SurvivorMeanSensitivity(c.k, 0.5, 1e-6)
		if kz != c.kZeta || !(math.Abs(s-c.sens) <= 1e-12) {
			t.Errorf("k = %d: k_ζ = %d, Δ_g = %v; want %d, %v", c.k, kz, s, c.kZeta, c.sens)
		}
	}
}

// The exact search's work, Σ_{u ≤ depth} C(n, u)(n − u), by hand: it
// decides which runs are refused as infeasible and scales the progress bar.
func TestExactWorkByHand(t *testing.T) {
	for _, c := range []struct {
		n, depth int
		want     int64
	}{
		{10, 3, 10 + 10*9 + 45*8 + 120*7}, // 1300
		{3, 5, 3 + 3*2 + 3*1 + 1*0},       // depth past n stops at n
		{4, 0, 4},
	} {
		if got := exactWork(c.n, c.depth); got != c.want {
			t.Errorf("exactWork(%d, %d) = %d, want %d", c.n, c.depth, got, c.want)
		}
	}
}

// ORME's refusals name the query by its 1-based number, the user too, and
// count only the queries answered: after one answered query the next
// refusal is query 2's, and the budget of T = 2 refuses the third.
func TestORMERefusalsCountQueries(t *testing.T) {
	o, err := NewORME(ORMEParams{Eps: 8, Delta: 0.1, Tau: 0.5, Queries: 2, Mode: privacy.NonPrivate}, 4, rng.New(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	crowd := [][]float64{{0}, {0}, {0.1}, {0}}
	expect := func(values [][]float64, want string) {
		t.Helper()
		if _, err := o.Query(values); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want %q", err, want)
		}
	}
	expect(crowd[:3], "query 1: 3 user values, the instance was calibrated for n = 4")
	expect([][]float64{{0}, {math.NaN()}, {0}, {0}}, "query 1: user 2's value [NaN] is not finite")
	if _, err := o.Query(crowd); err != nil {
		t.Fatal(err)
	}
	expect([][]float64{{0}, {0}, {0, 1}, {0}}, "query 2: user 3's value has dimension 2")
	if _, err := o.Query(crowd); err != nil {
		t.Fatal(err)
	}
	expect(crowd, "query 3: the budget covers T = 2 queries")
}

// SCOutputPert's β lies strictly between 0 and 1/e, and the corollary's Δ
// needs n > 4κ+1.
func TestSCParamsAtTheirEdges(t *testing.T) {
	for beta, ok := range map[float64]bool{0: false, 1e-300: true, math.Nextafter(1/math.E, 0): true, 1 / math.E: false} {
		p := scP
		p.Beta = beta
		if err := p.Validate(); (err == nil) != ok {
			t.Errorf("β = %v: error %v, want accepted = %v", beta, err, ok)
		}
	}
	if _, err := SCTargetSens(DeltaCorollary, 1, 1, 0.01, 9, 1, 2); err == nil || !strings.Contains(err.Error(), "n = 9: the corollary Δ needs n > 4κ+1 = 9") {
		t.Errorf("n = 4κ+1: error %v", err)
	}
	if _, err := SCTargetSens(DeltaCorollary, 1, 1, 0.01, 10, 1, 2); err != nil {
		t.Errorf("n = 4κ+2: %v", err)
	}
}
