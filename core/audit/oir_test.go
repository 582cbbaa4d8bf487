package audit

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/loss"
	"github.com/uldplab/uldp/core/optim"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
)

// The mixture integrator agrees with the closed form wherever there is
// one: an atom and one Gaussian on each side.
func TestHockeyStick1DMatchesTheGaussian(t *testing.T) {
	for _, c := range []struct{ shift, eps, atomA, atomB float64 }{
		{0.5, 0.1, 0, 0}, {1, 1, 0, 0}, {3, 0.5, 0.2, 0.1}, {0.01, 0, 0.3, 0.3}, {8, 2, 0.05, 0.5}, {0, 1, 0.4, 0.1},
	} {
		a := Mixture1D{Atom: c.atomA, Weights: []float64{1 - c.atomA}, Means: []float64{c.shift}, Sigma: 1}
		b := Mixture1D{Atom: c.atomB, Weights: []float64{1 - c.atomB}, Means: []float64{0}, Sigma: 1}
		ee := math.Exp(c.eps)
		want := math.Max(0, c.atomA-ee*c.atomB) + privacy.GaussianHockeyStick(1-c.atomA, ee*(1-c.atomB), c.shift)
		if got := HockeyStick1D(a, b, c.eps); !(math.Abs(got-want) <= 1e-13) {
			t.Errorf("%+v: δ = %.17g, want %.17g", c, got, want)
		}
	}
	// Two components on each side: against a fine midpoint rule.
	a := Mixture1D{Weights: []float64{0.3, 0.6}, Means: []float64{-1, 2}, Sigma: 0.7}
	b := Mixture1D{Weights: []float64{0.5, 0.4}, Means: []float64{-0.5, 2.5}, Sigma: 0.7}
	var want float64
	const h = 1e-4
	for x := -12.0; x < 15; x += h {
		want += math.Max(0, a.density(x+h/2)-math.Exp(0.2)*b.density(x+h/2)) * h
	}
	if got := HockeyStick1D(a, b, 0.2); !(math.Abs(got-want) <= 1e-8) {
		t.Errorf("mixtures: δ = %.12g, want %.12g by quadrature", got, want)
	}
	// Without noise the components are atoms; far from the origin with a
	// tiny σ the grid still ends.
	a = Mixture1D{Atom: 0.1, Weights: []float64{0.5, 0.4}, Means: []float64{1, 2}}
	b = Mixture1D{Atom: 0.1, Weights: []float64{0.9}, Means: []float64{1}}
	if got, want := HockeyStick1D(a, b, 0), 0.4; !(math.Abs(got-want) <= 1e-15) {
		t.Errorf("atoms: δ = %v, want %v", got, want)
	}
	// (Near 10⁶ floats are 1.2·10⁻¹⁰ apart, an eighth of σ: the crossing
	// is found only that closely.)
	a = Mixture1D{Weights: []float64{1}, Means: []float64{1e6}, Sigma: 1e-9}
	b = Mixture1D{Weights: []float64{1}, Means: []float64{1e6 + 2e-9}, Sigma: 1e-9}
	shift := (b.Means[0] - a.Means[0]) / a.Sigma
	if got, want := HockeyStick1D(a, b, 0), privacy.GaussianHockeyStick(1, 1, shift); !(math.Abs(got-want) <= 0.1) {
		t.Errorf("far and narrow: δ = %v, want about %v", got, want)
	}
}

// oirPair is 80 users of one item each in ℝ²: in phase 1 (users 1–20, one
// per group in file order, steps landing exactly on the item) the first
// inCluster users sit within 0.01 of the origin and the rest far apart;
// B moves user 1 to (moveTo, moveTo).
func oirPair(inCluster int, moveTo float64) (a, b *dataset.Dataset) {
	r := rand.New(rand.NewPCG(4, 5))
	a = &dataset.Dataset{Dim: 2}
	for i := range 80 {
		x, y := 0.01*r.NormFloat64(), 0.01*r.NormFloat64()
		if i >= inCluster && i < 20 {
			x, y = 10*float64(i), -10*float64(i)
		}
		a.Users = append(a.Users, dataset.User{ID: strconv.Itoa(i + 1), Points: []float64{x, y}})
	}
	b = a.Clone()
	b.Users[0].Points = []float64{moveTo, moveTo}
	return a, b
}

// oirAuditParams run one phase of C = 20 single-user groups whose one SGD
// step lands on the item (η₁μ = 1), τ ≈ 0.5, in sound mode.
func oirAuditParams() optim.OIRParams {
	return optim.OIRParams{Eps: 1, Delta: 1e-5, Loss: loss.Squared{Mu: 1}, Lipschitz: 1, Radius: 1000, Eta: 2, PExp: 1, QExp: 1,
		Groups: 20, Phases: 1, TauScale: 0.1, Order: optim.Given, Mode: privacy.Sound}
}

func oirAudit(t *testing.T, p optim.OIRParams, a, b *dataset.Dataset) OIRLaw {
	t.Helper()
	m, _ := a.M()
	law, err := OIRPhaseLaw(p, a, b, 1, p.Guarantee(a.N(), m, a.Dim), []float64{p.Eps})
	if err != nil {
		t.Fatal(err)
	}
	if law.Phase != 1 || law.Group != 1 || law.C != 20 {
		t.Fatalf("phase %d, group %d, C = %d; want user 1 in phase 1's group 1 of 20", law.Phase, law.Group, law.C)
	}
	return law
}

// The correct phase keeps its promise on the pairs each mutant is caught
// on, and each mutant but counts-at-tau is caught exactly.
func TestOIRAuditCatchesTheMutants(t *testing.T) {
	// One cluster member thrown far away: the score drops by 2(C−1)/C and
	// the far group, kept by nobody's ramp, moves the mean only if kept.
	a, b := oirPair(20, 500)
	law := oirAudit(t, oirAuditParams(), a, b)
	if !(math.Abs(law.A.Score-20) <= 1e-12) || !(math.Abs(law.A.Score-law.B.Score-2*19.0/20) <= 1e-12) {
		t.Fatalf("scores %v and %v, want 20 and 20 − 2·19/20", law.A.Score, law.B.Score)
	}
	if law.Violated() {
		t.Errorf("correct: gate loss %.4g (budget %.4g), δ %+v: flagged", law.GateLoss, law.GateBudget, law.Points)
	}
	// Both scores above the gate, the full 2(C−1)/C apart: the worst case
	// for the gate, which spends exactly its budget.
	if !(math.Abs(law.GateLoss-law.GateBudget) <= 1e-12) {
		t.Errorf("gate loss %.17g, want the budget %.17g exactly", law.GateLoss, law.GateBudget)
	}
	for _, m := range []string{"keep-all", "weak-gate"} {
		p, err := OIRMutant(oirAuditParams(), m)
		if err != nil {
			t.Fatal(err)
		}
		if l := oirAudit(t, p, a, b); !l.Violated() {
			t.Errorf("%s: gate loss %.4g (budget %.4g), δ %+v: not caught", m, l.GateLoss, l.GateBudget, l.Points)
		}
	}
	// Eighteen in the cluster pass the noiseless gate (score (18² + 2)/20 =
	// 16.3 ≥ 16); seventeen do not (14.6).
	a, b = oirPair(18, 500)
	law = oirAudit(t, oirAuditParams(), a, b)
	if law.Violated() {
		t.Errorf("correct, gate pair: gate loss %.4g (budget %.4g), δ %+v: flagged", law.GateLoss, law.GateBudget, law.Points)
	}
	p, _ := OIRMutant(oirAuditParams(), "no-score-noise")
	if l := oirAudit(t, p, a, b); !l.Violated() || l.A.PPass != 1 || l.B.PPass != 0 {
		t.Errorf("no-score-noise: pass %v and %v, δ %+v: not caught", l.A.PPass, l.B.PPass, l.Points)
	}
	// Counting at τ is not a violation, only a loss of accuracy. The
	// survivors' bound rests on two facts, and neither gets worse when
	// the ramp counts within ρ ≤ 2τ. (1) Diameter: a kept iterate has at
	// least C/2 others within ρ, and a core iterate (one that exists once
	// the score is at least 2C/3) has at least 2C/3 within τ; since
	// C/2 + 2C/3 > C the two sets meet, so every kept iterate lies within
	// τ + ρ of the core — 2τ here against the correct ramp's 3τ. (2)
	// Coupling: moving one iterate changes every count by at most 1 and so
	// every keep probability by at most the ramp's slope 6/C, whatever ρ
	// is. So the kept mean's sensitivity, and the σ sound mode calibrates
	// to it, still cover the phase; it only drops good groups. The exact
	// audit agrees on the pair built to stress it.
	p, _ = OIRMutant(oirAuditParams(), "counts-at-tau")
	a, b = oirPair(20, 0.5) // user 1 moved beyond τ ≈ 0.51 of the cluster, within 2τ
	if l := oirAudit(t, p, a, b); l.Violated() {
		t.Errorf("counts-at-tau: gate loss %.4g, δ %+v: flagged", l.GateLoss, l.Points)
	}
}

// The sampler is the real phase: the same streams give the same output,
// bit for bit, on both sides (a halt, output 0, is the sampler's ⊥).
func TestOIRSamplerIsTheRealPhase(t *testing.T) {
	a, b := oirPair(19, 500)
	p := oirAuditParams()
	p.Mode = privacy.Teaching
	law := oirAudit(t, p, a, b)
	var halts int
	for side, data := range map[*OIRSide]*dataset.Dataset{&law.A: a, &law.B: b} {
		sample := law.Sampler(p, *side)
		for seed := range uint64(50) {
			res, _, err := optim.OutlierIterateRemoval(context.Background(), p, data, rng.New(seed), nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := sample(rng.New(seed))
			if err != nil {
				t.Fatal(err)
			}
			want := res.Phases[0].Output
			if res.Halted {
				want = nil
			}
			if !slices.Equal(got, want) || (got == nil) != res.Halted {
				t.Fatalf("seed %d: sampler %v, run %v", seed, got, res.Phases[0].Output)
			}
			if res.Halted {
				halts++
			}
		}
	}
	if halts == 0 || halts == 100 {
		t.Errorf("%d of 100 runs halted: the comparison should see both outcomes", halts)
	}
}
