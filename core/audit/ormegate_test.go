package audit

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/uldplab/uldp/core/internal/gof"
	"github.com/uldplab/uldp/core/mech"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
)

// flipping is FlippingScores' pair over 300 users with a crowd of 268:
// the scores move up by 2·268/300 and then down, the non-monotone pattern
// that makes AboveThreshold pay twice for its halting query.
func flipping(t *testing.T, queries int) (a, b []float64) {
	t.Helper()
	a, b, err := FlippingScores(300, 268, queries, 1)
	if err != nil {
		t.Fatal(err)
	}
	// By hand: (269² + 31)/300 with the changed user in the crowd,
	// (268² + 32)/300 without.
	if in, out := (269.0*269+31)/300, (268.0*268+32)/300; !(math.Abs(a[0]-in) <= 1e-9) || !(math.Abs(b[0]-out) <= 1e-9) {
		t.Fatalf("scores %v, %v; want %v, %v", a[0], b[0], in, out)
	}
	return a, b
}

func gateDelta(t *testing.T, p mech.ORMEParams, a, b []float64, mutant string, eps float64) float64 {
	t.Helper()
	la, lb, err := ORMEGatePair(p, 300, a, b, mutant)
	if err != nil {
		t.Fatal(err)
	}
	return math.Max(ATDelta(la, lb, eps), ATDelta(lb, la, eps))
}

// The gate's share of the budget is pure ε/2 over any number of queries.
// Sound ORME keeps it on the flipping pair; half the score noise spends
// 3ε/4 there and is caught at T = 8 with δ(ε/2) ≈ 0.077 — though the gate's
// transcript stays within the whole mechanism's ε, which is why the share
// is audited on its own. Paper mode's scales assume the score moves by 1,
// not 2(n−1)/n (erratum A13), and its gate is caught the same way.
func TestORMEGateAudit(t *testing.T) {
	p := soundORME
	p.Queries = 8
	a, b := flipping(t, 8)
	if d := gateDelta(t, p, a, b, "", p.Eps/2); d > 1e-9 {
		t.Errorf("sound gate: δ(ε/2) = %.3g, want 0", d)
	}
	if d := gateDelta(t, p, a, b, ORMEHalfScoreNoise, p.Eps/2); d < 0.07 {
		t.Errorf("half-score-noise: δ(ε/2) = %.3g, want it caught (≈ 0.077)", d)
	}
	if d := gateDelta(t, p, a, b, ORMEHalfScoreNoise, p.Eps); d > 1e-9 {
		t.Errorf("half-score-noise: δ(ε) = %.3g on the gate alone; its loss is at most 3ε/4", d)
	}
	for _, m := range []string{ORMENoGate, ORMEKeepAll} {
		if d := gateDelta(t, p, a, b, m, p.Eps/2); d > 1e-9 {
			t.Errorf("%s: the gate's δ(ε/2) = %.3g; this variant's bug is elsewhere", m, d)
		}
	}
	paper := p
	paper.Mode = privacy.Paper
	if d := gateDelta(t, paper, a, b, "", p.Eps/2); d < 0.05 {
		t.Errorf("paper gate: δ(ε/2) = %.3g, want erratum A13 visible", d)
	}
	// One query cannot show it: a single comparison loses at most
	// Δ_s/(the larger scale).
	if d := gateDelta(t, soundORME, a[:1], b[:1], ORMEHalfScoreNoise, p.Eps/2); d > 1e-9 {
		t.Errorf("T = 1: δ(ε/2) = %.3g", d)
	}
}

// The sound gate keeps (ε/2, 0) on random score pairs a sensitivity apart.
func TestORMEGateSoundOnRandomPairs(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	p := soundORME
	p.Queries = 8
	sens := 2 * 299.0 / 300
	for range 200 {
		T := 1 + r.IntN(8)
		a, b := make([]float64, T), make([]float64, T)
		for q := range T {
			a[q] = 236 + 8*r.Float64()
			b[q] = a[q] + sens*(2*r.Float64()-1)
		}
		if d := gateDelta(t, p, a, b, "", p.Eps/2); d > 1e-9 {
			t.Fatalf("scores %v vs %v: δ(ε/2) = %.3g", a, b, d)
		}
	}
}

func TestORMEGateRefuses(t *testing.T) {
	p := soundORME
	p.Queries = 2
	for _, c := range []struct {
		a, b   []float64
		mutant string
		want   string
	}{
		{[]float64{240}, []float64{243}, "", "differ by more than"},
		{[]float64{240, 240, 240}, []float64{240, 240, 240}, "", "covers T = 2"},
		{[]float64{0.5}, []float64{1}, "", "outside [1, n"},
		{[]float64{240}, []float64{240, 241}, "", "same number"},
		{nil, nil, "", "no scores"},
		{[]float64{240}, []float64{240}, "louder", "use one of"},
	} {
		_, _, err := ORMEGatePair(p, 300, c.a, c.b, c.mutant)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v vs %v: %v, want %q", c.a, c.b, err, c.want)
		}
	}
}

// The gate sampler's halting times follow the exact law: a χ² test on 10⁵
// runs of the half-score-noise gate (false failure 10⁻⁴), and the Monte
// Carlo audit flags that variant on the flipping pair while passing the
// sound gate (each verdict wrong with probability ≤ α = 10⁻³).
func TestORMEGateSampler(t *testing.T) {
	p := soundORME
	p.Queries = 8
	a, b := flipping(t, 8)
	law, _, err := ORMEGatePair(p, 300, a, b, ORMEHalfScoreNoise)
	if err != nil {
		t.Fatal(err)
	}
	sa, err := ORMEGateSampler(p, 300, a, ORMEHalfScoreNoise)
	if err != nil {
		t.Fatal(err)
	}
	counts := make([]int, len(law))
	for s := range 100_000 {
		out, err := sa(rng.New(uint64(s)))
		if err != nil {
			t.Fatal(err)
		}
		counts[int(out[0])-1]++
	}
	if err := gof.ChiSquare(counts, law, 1e-4); err != nil {
		t.Error(err)
	}
	for _, c := range []struct {
		mutant, want string
	}{{"", "pass"}, {ORMEHalfScoreNoise, "violation"}} {
		sa, _ := ORMEGateSampler(p, 300, a, c.mutant)
		sb, _ := ORMEGateSampler(p, 300, b, c.mutant)
		r, err := MonteCarlo(context.Background(), sa, sb, GateGuarantee(p), MCConfig{Runs: 100_000, Alpha: 1e-3, Seed: 3}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if r.Verdict != c.want {
			t.Errorf("%q: Monte Carlo says %s (ε ≥ %.3g), want %s", c.mutant, r.Verdict, r.EpsLower, c.want)
		}
	}
}
