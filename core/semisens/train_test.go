package semisens

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/uldplab/uldp/core/rng"
)

// demoTrain is the lesson's scenario: n = 5000, k = 8, d_pub = 4, a strong
// category effect, ε = 4, δ = 10⁻⁶ (tight ρ*), L_max = 20, c = 1, η = 1,
// τ = 0.04, q = 100, R = 5.
func demoTrain(t *testing.T, mus []float64, c, eta float64, lmax int) (*Dataset, TrainResult) {
	t.Helper()
	s := rng.New(1)
	d, err := Generate(Spec{N: 5000, K: 8, DimPub: 4, Effect: 4}, s.Get(rng.Data))
	if err != nil {
		t.Fatal(err)
	}
	rho, _ := Rho(4, 1e-6, CalTight)
	res, _, err := Train(context.Background(), d, TrainParams{PVMW: Params{Rho: rho, Delta: 1e-6, LMax: lmax, Eta: eta, C: c, Tau: 0.04},
		Steps: 100, Radius: 5, Mus: mus}, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	return d, res
}

// trainOn generates spec's data from seed and trains on it with the same
// seed's streams, at ε = 4, δ = 10⁻⁶ (tight ρ*) and the PVMW settings
// given.
func trainOn(t *testing.T, spec Spec, seed uint64, pv Params, p TrainParams) TrainResult {
	t.Helper()
	s := rng.New(seed)
	d, err := Generate(spec, s.Get(rng.Data))
	if err != nil {
		t.Fatal(err)
	}
	pv.Rho, _ = Rho(4, 1e-6, CalTight)
	pv.Delta = 1e-6
	p.PVMW = pv
	res, _, err := Train(context.Background(), d, p, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// The lesson's scenario answers all 100 queries with a few updates, the
// beliefs move toward the truth, every iterate stays in the domain, and
// the guarantee is the budget's: ε = 4 at δ = 10⁻⁶.
func TestTrainDemo(t *testing.T) {
	_, res := demoTrain(t, nil, 1, 1, 20)
	pr := res.Problems[0]
	if res.Failed || res.Queries != 100 || res.Updates < 1 || res.Updates >= 20 {
		t.Fatalf("%d queries, %d updates, failed %v: want 100 answered with 1–19 updates", res.Queries, res.Updates, res.Failed)
	}
	if first, last := res.Psi[0], res.Psi[len(res.Psi)-1]; !(last < first-0.05) {
		t.Errorf("Ψ went %.4g → %.4g: the beliefs did not learn", first, last)
	}
	for _, w := range pr.Private.Iterates {
		if norm(w) > 5+1e-12 {
			t.Fatalf("an iterate of norm %v left B(0, 5)", norm(w))
		}
	}
	if pr.Excess < -1e-9 || pr.ExcessNonPrivate < -1e-9 || pr.ExcessGaussian < -1e-9 || pr.ExcessRR < -1e-9 {
		t.Errorf("negative excess risk: %+v (the optimum is not one)", pr)
	}
	// The private model is close to the non-private one trained the same
	// way: its oracle errs by at most MaxError ≈ τ per call.
	if pr.Excess > pr.ExcessNonPrivate+0.1 {
		t.Errorf("excess %.4g against %.4g non-private: PVMW's gradients cost more than the run's errors allow", pr.Excess, pr.ExcessNonPrivate)
	}
	near(t, "ε", res.Guarantee.Eps, 4, 1e-9)
	if !res.Guarantee.Certified() || res.Guarantee.Relation != "semi-sensitive" {
		t.Errorf("guarantee %v", res.Guarantee)
	}
	// Each update's instance made three releases; the one open at the end
	// ran its test only (it never fired: no norm, no Gaussian).
	if want := 3*res.Updates + 1; res.Updates >= res.Calibration.LMax || len(res.Ledger) != want ||
		!strings.HasSuffix(res.Ledger[want-1].Label, "the test (AboveThreshold)") {
		t.Errorf("ledger of %d spends for %d updates (want %d, the last the open instance's test)", len(res.Ledger), res.Updates, want)
	}
}

// With the paper's c = 3 the learning rate must be η ≤ 1/3: each update
// moves Ψ a third as far, and the same scenario spends all 20 paid
// updates before its 100 queries: FAIL.
func TestTrainPaperTruncationFails(t *testing.T) {
	_, res := demoTrain(t, nil, 3, 1.0/3, 20)
	if !res.Failed || res.Updates != 20 || res.Queries >= 100 {
		t.Errorf("c = 3: %d queries, %d updates, failed %v; want FAIL after 20 updates", res.Queries, res.Updates, res.Failed)
	}
}

// Two problems share one PVMW run: the second starts from the first's
// beliefs, and privacy is the same as for one. (Twice the queries need
// more updates: L_max = 40.)
func TestTrainSharedProblems(t *testing.T) {
	_, one := demoTrain(t, nil, 1, 1, 40)
	_, two := demoTrain(t, []float64{0, 0.05}, 1, 1, 40)
	if len(two.Problems) != 2 || two.Queries != 200 || two.Failed {
		t.Fatalf("%d problems, %d queries, failed %v", len(two.Problems), two.Queries, two.Failed)
	}
	if two.Guarantee.Eps != one.Guarantee.Eps {
		t.Errorf("ε %v for two problems, %v for one", two.Guarantee.Eps, one.Guarantee.Eps)
	}
	// The first problem is the same run as alone, draw for draw.
	if dist(two.Problems[0].Private.W, one.Problems[0].Private.W) != 0 {
		t.Error("the first of two problems differs from the same problem alone")
	}
	if two.Problems[1].Method == two.Problems[0].Method || two.Problems[1].Excess < -1e-9 {
		t.Errorf("the strongly convex problem: %+v", two.Problems[1])
	}
}

// The recorded run replays on a neighbour's public data, answer for
// answer, from the released values alone.
func TestReplay(t *testing.T) {
	s := rng.New(3)
	d, _ := Generate(Spec{N: 2000, K: 4, DimPub: 3, Effect: 4}, s.Get(rng.Data))
	rho, _ := Rho(4, 1e-6, CalTight)
	p := TrainParams{PVMW: Params{Rho: rho, Delta: 1e-6, LMax: 20, Eta: 1, C: 1, Tau: 0.04}, Steps: 60, Radius: 5}
	res, tr, err := Train(context.Background(), d, p, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	nb, _ := d.Neighbour(0, (d.Reveal()[0]+1)%4)
	before := nb.Reads()
	updates, answers, err := Replay(&nb.Public, tr, MWUParams{Eta: 1, C: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if answers != res.Queries || updates != res.Updates || nb.Reads() != before {
		t.Errorf("replayed %d answers and %d updates of %d and %d, reading %d sensitive values", answers, updates, res.Queries, res.Updates, nb.Reads()-before)
	}
}

// An inspected update's Condition, read from what the update computed,
// is CheckCondition's, which makes the step again on a copy.
func TestInspectionCondition(t *testing.T) {
	s := rng.New(3)
	d, err := Generate(Spec{N: 800, K: 6, DimPub: 3, Effect: 4}, s.Get(rng.Data))
	if err != nil {
		t.Fatal(err)
	}
	truth := d.Reveal()
	rho, _ := Rho(4, 1e-6, CalTight)
	mp := MWUParams{Eta: 1, C: 1}
	seen := 0
	_, _, err = Train(context.Background(), d, TrainParams{PVMW: Params{Rho: rho, Delta: 1e-6, LMax: 10, Eta: mp.Eta, C: mp.C, Tau: 0.05},
		Steps: 30, Radius: 5, Inspect: func(in Inspection) {
			got, err := in.Condition(truth, mp)
			if err != nil {
				t.Fatal(err)
			}
			want, err := CheckCondition(in.Public, truth, in.Before, in.Query, in.Step.V, in.Step.IotaUsed, mp)
			if err != nil {
				t.Fatal(err)
			}
			if !(math.Abs(got.Drop-want.Drop) <= 1e-12) || !(math.Abs(got.Exact-want.Exact) <= 1e-12) || got.Holds != want.Holds || got.Clipped != want.Clipped {
				t.Fatalf("update %d: inspected %+v, checked %+v", in.Update, got, want)
			}
			for j := range got.Parts {
				if !(math.Abs(got.Parts[j].Value-want.Parts[j].Value) <= 1e-12) {
					t.Fatalf("update %d, part %s: %v against %v", in.Update, got.Parts[j].Name, got.Parts[j].Value, want.Parts[j].Value)
				}
			}
			seen++
		}}, s, nil)
	if err != nil || seen == 0 {
		t.Fatalf("%v, %d updates inspected", err, seen)
	}
}

// Asked for, each method's excess risk comes step by step, and for the
// averaged method the last point is the model returned.
func TestTrainCurves(t *testing.T) {
	spec := Spec{N: 2000, K: 8, DimPub: 4, Effect: 4}
	res := trainOn(t, spec, 1, Params{LMax: 20, Eta: 1, C: 1, Tau: 0.06}, TrainParams{Steps: 40, Radius: 5, CurveEvery: 3})
	pr := res.Problems[0]
	c := pr.Curves
	// Steps 3, 6, …, 39 and the last, 40.
	if c == nil || len(c.NonPrivate.Steps) != 14 || c.NonPrivate.Steps[13] != 40 || c.Private.Steps[len(c.Private.Steps)-1] != res.Queries {
		t.Fatalf("curves %+v for %d queries", c, res.Queries)
	}
	last := func(c Curve) float64 { return c.Excess[len(c.Excess)-1] }
	for _, x := range [][2]float64{{last(c.Private), pr.Excess}, {last(c.NonPrivate), pr.ExcessNonPrivate}, {last(c.Gaussian), pr.ExcessGaussian}, {last(c.RR), pr.ExcessRR}} {
		near(t, "the curve's last point", x[0], x[1], 1e-12)
	}
	for _, curve := range []Curve{c.Private, c.NonPrivate, c.Gaussian, c.RR} {
		if len(curve.Steps) != len(curve.Excess) {
			t.Fatalf("%d steps, %d points", len(curve.Steps), len(curve.Excess))
		}
		for _, x := range curve.Excess {
			if x < -1e-9 {
				t.Fatalf("excess %v below 0", x)
			}
		}
	}
	if e := c.NonPrivate.Excess; e[13] >= e[0] {
		t.Errorf("the non-private excess went %.4g → %.4g", e[0], e[13])
	}
	// A run that fails ends its curve on the last call answered.
	res = trainOn(t, spec, 1, Params{LMax: 6, Eta: 1, C: 1, Tau: 0.02}, TrainParams{Steps: 40, Radius: 5, CurveEvery: 7})
	if !res.Failed || res.Queries == 0 || res.Queries%7 == 0 {
		t.Fatalf("τ = 0.02, L_max = 6: failed %v after %d queries (want a FAIL between points)", res.Failed, res.Queries)
	}
	pc := res.Problems[0].Curves.Private
	if pc.Steps[len(pc.Steps)-1] != res.Queries {
		t.Fatalf("failed after %d queries, the curve ends at %v", res.Queries, pc.Steps)
	}
	near(t, "a failed run's last point", pc.Excess[len(pc.Excess)-1], res.Problems[0].Excess, 1e-12)
}

// Recording the curves changes nothing the run computes, for either
// method (a curve once wrote its running average into the last-iterate
// method's own iterate).
func TestCurvesChangeNothing(t *testing.T) {
	run := func(every int) TrainResult {
		return trainOn(t, Spec{N: 1500, K: 6, DimPub: 3, Effect: 4}, 5, Params{LMax: 20, Eta: 1, C: 1, Tau: 0.06},
			TrainParams{Steps: 30, Radius: 5, Mus: []float64{0, 0.1}, CurveEvery: every})
	}
	plain, curved := run(0), run(4)
	for j := range plain.Problems {
		a, b := plain.Problems[j], curved.Problems[j]
		for _, w := range [][2][]float64{{a.Private.W, b.Private.W}, {a.NonPrivate, b.NonPrivate}, {a.Gaussian, b.Gaussian}, {a.RR, b.RR}} {
			if dist(w[0], w[1]) != 0 {
				t.Fatalf("problem %d (μ = %g): a model moved by %v when its curves were recorded", j+1, a.Mu, dist(w[0], w[1]))
			}
		}
	}
}
