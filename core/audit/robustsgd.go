package audit

import (
	"context"
	"math"
	"slices"
	"strings"

	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/mech"
	"github.com/uldplab/uldp/core/noise"
	"github.com/uldplab/uldp/core/optim"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/core/robust"
)

// Robust SGD's broken variants.
const (
	// RSGDPaperNoise keeps the test noise Ghazi et al. print, Lap(4/ε) and
	// Lap(8/ε), calibrated for sensitivity 1 while scores have 2.
	RSGDPaperNoise = "paper-noise"
	// RSGDNoClip releases the plain batch mean: one far user moves it
	// without bound.
	RSGDNoClip = "no-clip"
	// RSGDTrimTooLittle trims k = ⌈B/3⌉ − 1 < B/3 users at each end.
	RSGDTrimTooLittle = "trim-too-little"
	// RSGDIndicator scores with 1[‖·‖∞ ≤ r] instead of exp(−‖·‖∞/r).
	RSGDIndicator = "indicator-kernel"
)

// RSGDMutantNames lists robust SGD's broken variants.
func RSGDMutantNames() []string {
	return []string{RSGDPaperNoise, RSGDNoClip, RSGDTrimTooLittle, RSGDIndicator}
}

// RSGDMutant returns p broken as the named variant ("" leaves it as is).
func RSGDMutant(p optim.RobustSGDParams, name string) (optim.RobustSGDParams, error) {
	switch name {
	case "":
	case RSGDPaperNoise:
		p.Mode = privacy.Paper
	case RSGDNoClip:
		p.NoClip = true
	case RSGDTrimTooLittle:
		p.Stat.Trim = robust.MinTrim(p.Batch) - 1
		if p.Stat.Trim < 1 {
			return p, format.Errorf("mutant %s: B = %d leaves no k with 1 ≤ k < B/3; use B ≥ 4", name, p.Batch)
		}
	case RSGDIndicator:
		p.Kernel = robust.BoxKernel
	default:
		return p, format.Errorf("mutant %q: robust-sgd's broken variants are %s", name, strings.Join(RSGDMutantNames(), ", "))
	}
	return p, nil
}

// RSGDTest is the exact law of robust SGD's concentration test on two
// neighbouring datasets. The test is AboveThreshold on scores that do not
// depend on its noise, so given the partition (drawn from the seed, the
// same for both: it does not look at the data) its halting step has a
// closed-form law on each side.
type RSGDTest struct {
	// Step is the step that holds the changed user (1-based; 0 if none).
	Step    int       `json:"step"`
	ScoresA []float64 `json:"scores_a"`
	ScoresB []float64 `json:"scores_b"`
	LawA    []float64 `json:"law_a"` // Pr[⊥ first at step k], k = 1…T, then Pr[all ⊤]
	LawB    []float64 `json:"law_b"`
	Loss    float64   `json:"loss"` // max |ln(LawA/LawB)|
	// WorstLoss is the largest loss the proof lets a neighbour cause on
	// A's scores: every score from Step on may move by up to 2 (one
	// directly, the later ones through the trajectory, Lemma 3.9), and for
	// each outcome the worst neighbour moves the steps before it one way
	// and the halting step the other.
	WorstLoss float64 `json:"worst_loss"`
	// Budget is ε/2, what the proof gives the test.
	Budget float64 `json:"budget"`
}

// Violated reports whether either loss exceeds the budget (by more than
// 10⁻⁶: sound noise meets it exactly at the worst case, and the
// quadrature is good to about 10⁻¹⁰ there).
func (t RSGDTest) Violated() bool { return t.Loss > t.Budget+1e-6 || t.WorstLoss > t.Budget+1e-6 }

// RSGDTestLaw computes the test's exact laws on a and b for p (a private
// mode) with the partition seed draws.
func RSGDTestLaw(p optim.RobustSGDParams, a, b *dataset.Dataset, seed uint64) (RSGDTest, error) {
	if p.Mode == privacy.NonPrivate {
		return RSGDTest{}, format.Errorf("non-private runs have no test to audit")
	}
	scores := func(data *dataset.Dataset) ([]float64, [][]int, error) {
		q := p
		q.Mode, q.Online, q.Record = privacy.NonPrivate, false, false
		res, _, err := optim.RobustSGD(context.Background(), q, data, rng.New(seed), nil)
		if err != nil {
			return nil, nil, err
		}
		var s []float64
		var users [][]int
		for _, st := range res.Phases[0].Steps {
			s = append(s, st.Score)
			users = append(users, st.Users)
		}
		return s, users, nil
	}
	sa, users, err := scores(a)
	if err != nil {
		return RSGDTest{}, err
	}
	sb, _, err := scores(b)
	if err != nil {
		return RSGDTest{}, err
	}
	changed, _ := CheckNeighbours(a, b)
	out := RSGDTest{ScoresA: sa, ScoresB: sb, Budget: p.Eps / 2}
	for t, u := range users {
		if slices.Contains(u, changed) {
			out.Step = t + 1
		}
	}
	at := p.Test(len(sa))
	out.LawA, out.LawB = mech.ATHaltDistribution(at, sa), mech.ATHaltDistribution(at, sb)
	out.Loss = maxLogRatio(out.LawA, out.LawB)
	if out.Step > 0 {
		out.WorstLoss = worstLoss(at, sa, out.LawA, out.Step)
	}
	return out, nil
}

// worstLoss is RSGDTest.WorstLoss: for each outcome k (⊥ first at step k,
// or k = T+1, all ⊤) and each direction, the scores from step t0 move by
// 2 against the outcome — down before k, up at k — which moves its
// probability the most.
func worstLoss(at mech.ATParams, scores, law []float64, t0 int) float64 {
	var m float64
	moved := make([]float64, len(scores))
	for k := t0; k <= len(scores)+1; k++ { // outcomes before t0 are equal
		for _, dir := range []float64{1, -1} {
			copy(moved, scores)
			for t := t0 - 1; t < len(scores); t++ {
				switch {
				case t < k-1:
					moved[t] -= 2 * dir
				case t == k-1:
					moved[t] += 2 * dir
				}
			}
			other := mech.ATHaltDistribution(at, moved)
			m = math.Max(m, maxLogRatio(law[k-1:k], other[k-1:k]))
		}
	}
	return m
}

// maxLogRatio is max_k |ln(a_k/b_k)| over outcomes either law gives a
// probability the quadrature resolves (above 10⁻¹²); an outcome one side
// never shows and the other does is an infinite loss.
func maxLogRatio(a, b []float64) float64 {
	var m float64
	for k := range a {
		switch {
		case a[k] < 1e-12 && b[k] < 1e-12:
		case a[k] < 1e-12 || b[k] < 1e-12:
			return math.Inf(1)
		default:
			m = math.Max(m, math.Abs(math.Log(a[k]/b[k])))
		}
	}
	return m
}

// RSGDSampler runs robust SGD (one phase) on data and outputs its answer.
func RSGDSampler(p optim.RobustSGDParams, data *dataset.Dataset) Sampler {
	p.Record, p.KeepBatches, p.Online = false, false, true
	return func(s *rng.Streams) ([]float64, error) {
		res, _, err := optim.RobustSGD(context.Background(), p, data, s, nil)
		return res.Output, err
	}
}

// RSGDRuns is one phase of robust SGD on one dataset, in file order, as
// the audit lab samples it.
type RSGDRuns struct {
	// Sample draws one run's output, bit for bit the output RSGDSampler
	// draws from the same streams.
	Sample Sampler
	// Halt is the exact probability that the test halts the run (which
	// then answers its start plus noise).
	Halt float64
	// Scores are the steps' concentration scores.
	Scores []float64
}

// SampleRSGD prepares fast runs of robust SGD (one phase, p.Order Given)
// on data. In file order nothing the run computes depends on its
// randomness: the trajectory, its average and the scores are computed once,
// and a run only draws the test's noise, asks it the scores until it
// halts, and adds the Gaussian — the draws the real run makes, from the
// same streams, so its output is the real run's.
func SampleRSGD(p optim.RobustSGDParams, data *dataset.Dataset) (RSGDRuns, error) {
	if p.Order != optim.Given {
		return RSGDRuns{}, format.Errorf("the fast robust SGD sampler needs the users in file order: a shuffled run's batches, and so its trajectory, depend on the seed")
	}
	if p.Mode == privacy.NonPrivate {
		return RSGDRuns{}, format.Errorf("non-private runs have no noise to sample")
	}
	q := p
	q.Mode, q.Online, q.Record, q.KeepBatches = privacy.NonPrivate, false, false, false
	res, _, err := optim.RobustSGD(context.Background(), q, data, rng.New(1), nil)
	if err != nil {
		return RSGDRuns{}, err
	}
	ph := res.Phases[0]
	scores := make([]float64, len(ph.Steps))
	for i, st := range ph.Steps {
		scores[i] = st.Score
	}
	at := p.Test(len(scores))
	law := mech.ATHaltDistribution(at, scores)
	sigma, d := p.Sigma(ph.Eta, data.Dim), data.Dim
	sample := func(st *rng.Streams) ([]float64, error) {
		test, err := mech.NewAboveThreshold(at, st, nil)
		if err != nil {
			return nil, err
		}
		centre := ph.Average
		for _, s := range scores {
			if pass, _ := test.Query(s); !pass {
				centre = ph.Start
				break
			}
		}
		out := make([]float64, d)
		noise.Gaussian{Sigma: sigma, Src: st.Get(rng.Gauss)}.RandVec(out)
		for k := range out {
			out[k] += centre[k]
		}
		return out, nil
	}
	return RSGDRuns{Sample: sample, Halt: 1 - law[len(law)-1], Scores: scores}, nil
}
