package audit

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/loss"
	"github.com/uldplab/uldp/core/optim"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
)

// tightUsers are n users of 3 items each near (0.5, −0.3); users listed in
// far get all their items at far's value instead.
func tightUsers(n int, far map[int]float64) *dataset.Dataset {
	r := rand.New(rand.NewPCG(2, 3))
	d := &dataset.Dataset{Dim: 2}
	for i := range n {
		pts := make([]float64, 6)
		for j := range 3 {
			pts[2*j], pts[2*j+1] = 0.5+0.02*r.NormFloat64(), -0.3+0.02*r.NormFloat64()
			if v, ok := far[i]; ok {
				pts[2*j], pts[2*j+1] = v, v
			}
		}
		d.Users = append(d.Users, dataset.User{ID: strconv.Itoa(i + 1), Points: pts})
	}
	return d
}

func rsgdParams(b int, threshold float64) optim.RobustSGDParams {
	return optim.RobustSGDParams{Eps: 1, Delta: 1e-5, Loss: loss.Squared{Mu: 1}, Domain: 1000, Batch: b, Radius: 1, Eta: 0.1,
		Order: optim.Given, Mode: privacy.Sound, Threshold: &threshold}
}

// The test's exact law: sound noise keeps even the proof's worst
// neighbour at ε/2 (it meets it), the printed noise loses ε there — the
// spec's E-A2, on scores robust SGD really computes.
func TestRSGDTestLaw(t *testing.T) {
	a := tightUsers(300, nil)
	b := tightUsers(300, map[int]float64{2: 40})
	p := rsgdParams(10, 10)
	sound, err := RSGDTestLaw(p, a, b, 1)
	if err != nil {
		t.Fatal(err)
	}
	if sound.Step != 1 || len(sound.ScoresA) != 30 {
		t.Fatalf("changed user in step %d of %d, want 1 of 30", sound.Step, len(sound.ScoresA))
	}
	if sound.Violated() || !(math.Abs(sound.WorstLoss-0.5) <= 1e-3) {
		t.Errorf("sound noise: loss %v, worst %v; want ≤ ε/2 with the worst at ε/2 = 0.5", sound.Loss, sound.WorstLoss)
	}
	for i := 1; i < 30; i++ {
		if !(math.Abs(sound.ScoresA[i]-sound.ScoresB[i]) <= 1e-12) {
			t.Fatalf("step %d: scores %v and %v differ; with the squared loss only the changed user's step may", i+1, sound.ScoresA[i], sound.ScoresB[i])
		}
	}
	q, _ := RSGDMutant(p, RSGDPaperNoise)
	paper, err := RSGDTestLaw(q, a, b, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !paper.Violated() || !(math.Abs(paper.WorstLoss-1) <= 1e-3) {
		t.Errorf("printed noise: worst loss %v, want ε = 1, a violation of ε/2", paper.WorstLoss)
	}
	// The indicator kernel changes the changed step's score by at most
	// 2(B−1)/B too, and with the squared loss later scores do not depend
	// on the trajectory (Qᵢ − Qⱼ = μ(z̄ⱼ − z̄ᵢ)): on such pairs it is
	// proven harmless.
	q, _ = RSGDMutant(p, RSGDIndicator)
	box, err := RSGDTestLaw(q, a, b, 1)
	if err != nil {
		t.Fatal(err)
	}
	if box.Violated() {
		t.Errorf("indicator kernel on the squared loss: loss %v, worst %v > ε/2", box.Loss, box.WorstLoss)
	}
}

// Whole runs by sampling (20,000 per side; the audit flags a correct
// mechanism with probability at most α = 10⁻³): the sound phase passes on
// a far-outlier neighbour, the plain mean and too little trimming are
// caught — the latter on a batch of 12 with 4 far users, where TM_3 keeps
// one of them and the neighbour (one far user fewer) keeps none.
func TestRSGDMonteCarlo(t *testing.T) {
	if testing.Short() {
		t.Skip("samples 240,000 runs")
	}
	cfg := MCConfig{Runs: 20000, Alpha: 1e-3, Seed: 5}
	check := func(name string, p optim.RobustSGDParams, a, b *dataset.Dataset, want string) {
		t.Helper()
		m, _ := a.M()
		res, err := MonteCarlo(t.Context(), RSGDSampler(p, a), RSGDSampler(p, b), p.Guarantee(a.N(), m, 2, false), cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != want {
			t.Errorf("%s: verdict %s (ε ≥ %.3g), want %s", name, res.Verdict, res.EpsLower, want)
		}
	}
	a := tightUsers(40, nil)
	b := tightUsers(40, map[int]float64{2: 1e4})
	p := rsgdParams(10, 0)
	check("sound", p, a, b, "pass")
	q, _ := RSGDMutant(p, RSGDNoClip)
	check(RSGDNoClip, q, a, b, "violation")
	far := map[int]float64{8: 1000, 9: 1000, 10: 1000, 11: 1000}
	a = tightUsers(48, far)
	delete(far, 8)
	b = tightUsers(48, far)
	p = rsgdParams(12, 0)
	check("sound, four far users", p, a, b, "pass")
	q, _ = RSGDMutant(p, RSGDTrimTooLittle)
	check(RSGDTrimTooLittle, q, a, b, "violation")
}

// huberEdge is the pair on which the indicator kernel is caught: B = 40
// users a step, squared-then-linear Huber gradients (h = 1). Step 1's users
// sit at the start x₀ = 0 (gradient 0); in b its first user's items are
// 10⁴ away, whose gradient saturates at 1 and moves the mean, so x₁ by
// −η/B = −0.0025. Step 2's users are 20 saturated (items at −5, gradient
// 1) and 20 near x (items at −0.001, gradient 0.001 in a, −0.0015 in b):
// their ℓ∞ distances are 0.999 in a and 1.0015 in b, either side of r = 1.
func huberEdge(far bool) *dataset.Dataset {
	d := &dataset.Dataset{Dim: 2}
	for i := range 80 {
		z := 0.0
		switch {
		case i == 0 && far:
			z = -1e4
		case i >= 60:
			z = -0.001
		case i >= 40:
			z = -5
		}
		d.Users = append(d.Users, dataset.User{ID: strconv.Itoa(i + 1), Points: []float64{z, 0, z, 0, z, 0}})
	}
	return d
}

// The indicator kernel is not Lipschitz: on a Huber pair, where later
// gradients depend on the trajectory, a 0.0025 move of x₁ flips the 800
// cross pairs of step 2 and its score falls from 40 to 20 — far more than
// the 2 the test's noise is calibrated for, and the test loses 0.91 where
// it may lose ε/2 = 0.5. The exp kernel's score moves by 0.018 on the same
// pair, and the test loses 0.065.
func TestRSGDIndicatorCaughtOnHuber(t *testing.T) {
	p := rsgdParams(40, 30)
	p.Loss = loss.Huber{H: 1}
	a, b := huberEdge(false), huberEdge(true)
	real, err := RSGDTestLaw(p, a, b, 1)
	if err != nil {
		t.Fatal(err)
	}
	if real.Violated() || real.Step != 1 || !(math.Abs(real.ScoresA[1]-real.ScoresB[1]) <= 0.02) {
		t.Errorf("exp kernel: loss %v, scores %v vs %v", real.Loss, real.ScoresA, real.ScoresB)
	}
	q, _ := RSGDMutant(p, RSGDIndicator)
	box, err := RSGDTestLaw(q, a, b, 1)
	if err != nil {
		t.Fatal(err)
	}
	if box.ScoresA[1] != 40 || box.ScoresB[1] != 20 || !box.Violated() || box.Loss <= box.Budget {
		t.Errorf("indicator kernel: step 2 scores %v and %v, loss %v (budget %v), want 40, 20 and a violation",
			box.ScoresA[1], box.ScoresB[1], box.Loss, box.Budget)
	}
	t.Logf("exp kernel: step 2 scores %.6g vs %.6g, loss %.4g; indicator: loss %.4g of ε/2 = %g", real.ScoresA[1], real.ScoresB[1], real.Loss, box.Loss, box.Budget)
}

// The fast sampler's runs are the real runs: the same output, bit for bit,
// from the same seed, for the real phase and every variant, and its
// halting probability is the test law's.
func TestSampleRSGDIsTheRealRun(t *testing.T) {
	for _, c := range []struct {
		name string
		loss loss.Smooth
		data *dataset.Dataset
	}{
		{"far user", loss.Squared{Mu: 1}, tightUsers(80, map[int]float64{2: 1e4})},
		{"huber edge", loss.Huber{H: 1}, huberEdge(true)},
	} {
		for _, mutant := range append([]string{""}, RSGDMutantNames()...) {
			p := rsgdParams(40, 30)
			p.Eps, p.Loss = 8, c.loss
			p, _ = RSGDMutant(p, mutant)
			runs, err := SampleRSGD(p, c.data)
			if err != nil {
				t.Fatal(err)
			}
			real := RSGDSampler(p, c.data)
			halted := 0
			for seed := range uint64(300) {
				want, err := real(rng.New(seed))
				if err != nil {
					t.Fatal(err)
				}
				got, _ := runs.Sample(rng.New(seed))
				if !slices.Equal(got, want) {
					t.Fatalf("%s, %q, seed %d: sampled %v, the real run answers %v", c.name, mutant, seed, got, want)
				}
				if res, _, _ := optim.RobustSGD(t.Context(), withOnline(p), c.data, rng.New(seed), nil); !res.Phases[0].Passed {
					halted++
				}
			}
			// 300 runs: the halting frequency is within 0.1 of Halt except
			// with probability 2e^{−2·300·0.01} < 0.005 (Hoeffding).
			if !(math.Abs(float64(halted)/300-runs.Halt) <= 0.1) {
				t.Errorf("%s, %q: %d of 300 runs halted, Pr[halt] = %v", c.name, mutant, halted, runs.Halt)
			}
		}
	}
	p := rsgdParams(40, 30)
	p.Order = optim.Shuffled
	if _, err := SampleRSGD(p, huberEdge(false)); err == nil || !strings.Contains(err.Error(), "file order") {
		t.Errorf("a shuffled phase: %v", err)
	}
}

func withOnline(p optim.RobustSGDParams) optim.RobustSGDParams {
	p.Online = true
	return p
}
