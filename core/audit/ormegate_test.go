package audit

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/uldplab/uldp/core/mech"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/robust"
)

// flipping is a run of T queries over 300 users in 1-D whose one changed
// user sits in a crowd of 268 in one world and alone in the other, except
// at the last query, where the worlds swap: the scores move up by
// 2·268/300 and then down — the non-monotone pattern that makes
// AboveThreshold pay twice for its halting query. Scores come from the
// users' values, as ORME computes them.
func flipping(t *testing.T, queries int) (a, b []float64) {
	t.Helper()
	score := func(in bool) float64 {
		pts := [][]float64{{1e6}}
		if in {
			pts[0][0] = 0
		}
		for range 268 {
			pts = append(pts, []float64{0})
		}
		for i := range 31 {
			pts = append(pts, []float64{10 + 5*float64(i)})
		}
		return robust.Score(robust.NewIndex(pts).CountsAt(1)[0])
	}
	in, out := score(true), score(false)
	for q := range queries {
		if q < queries-1 {
			a, b = append(a, in), append(b, out)
		} else {
			a, b = append(a, out), append(b, in)
		}
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
	if math.Abs(a[0]-b[0]-2*268.0/300) > 1e-9 {
		t.Fatalf("scores %v and %v", a, b)
	}
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
		{[]float64{240}, []float64{240}, "louder", "use one of"},
	} {
		_, _, err := ORMEGatePair(p, 300, c.a, c.b, c.mutant)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v vs %v: %v, want %q", c.a, c.b, err, c.want)
		}
	}
}
