package optim

import (
	"errors"
	"math"
	"slices"

	"github.com/uldplab/uldp/core/cancel"
	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/loss"
	"github.com/uldplab/uldp/core/mech"
	"github.com/uldplab/uldp/core/noise"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/core/robust"
	"github.com/uldplab/uldp/core/trace"
)

// Order says which users each step of robust SGD takes.
type Order int

const (
	// Shuffled partitions the users by a random permutation from the
	// "perm" stream: the paper's disjoint fresh batches.
	Shuffled Order = iota
	// Given takes them in file order, step t the users (t−1)B+1…tB, so a
	// class can check a run by hand.
	Given
)

// RobustSGDParams configures the robust-statistics SGD of Ghazi, Kumar,
// Liu & Manurangsi (2025): one phase (their Alg. 1, A-SGD, released with
// the phase's Gaussian noise) or the localisation around it (Alg. 5,
// A-LOC).
type RobustSGDParams struct {
	Eps, Delta float64
	// Loss must have diagonally dominant Hessians (Assumption 2.5);
	// Domain is D, the box [−D, D]^d.
	Loss   loss.Smooth
	Domain float64
	// Batch is B, the users per step; Radius is r, the kernel's radius and
	// the clip band ς = r (the paper's 1/τ, spec 001-004 E-A1); Eta is η.
	Batch  int
	Radius float64
	Eta    float64
	// Stat is the robust statistic: the median, or TM_k.
	Stat robust.Stat
	// Threshold, if set, replaces the default v: in sound mode
	// SoundThreshold, else the printed 0.9B + 2 ln(T/δ)/ε.
	Threshold *float64
	// PrintedV keeps the printed v in sound mode too, to show that its
	// margin falls short of the doubled noise (errata A28).
	PrintedV bool
	// Theta0 is x₀ (nil: the centre); a failed test answers it.
	Theta0 []float64
	Order  Order
	// Mode: Paper keeps the printed test noise Lap(4/ε), Lap(8/ε) (never
	// certified, spec 001-004 E-A2); Sound doubles it for the scores'
	// sensitivity 2; Teaching uses Sound's noise and also runs losses and
	// steps the proof excludes, to show what breaks; NonPrivate runs no
	// test and adds no noise.
	Mode privacy.Mode
	// Online stops at the first ⊥ instead of finishing the phase and then
	// testing (the same output law: the test's noise does not depend on
	// the path).
	Online bool
	// Record keeps the trace; KeepBatches keeps each step's user gradients.
	Record, KeepBatches bool

	// Mutations the audit uses; the guarantee says what each breaks.
	Kernel robust.Kernel
	NoClip bool
}

// RobustStep is one step's story.
type RobustStep struct {
	T     int       `json:"t"` // 1-based
	Users []int     `json:"users"`
	X     []float64 `json:"x"` // x_{t−1}
	// Q are the users' mean gradients at X (KeepBatches only).
	Q        Vectors         `json:"q,omitzero"`
	Estimate robust.Estimate `json:"estimate"`
	Next     []float64       `json:"next"` // x_t = clip(X − η·g, −D, D)
	Score    float64         `json:"score"`
}

// RobustPhase is one phase: A-SGD on its users, then the Gaussian noise.
type RobustPhase struct {
	S     int     `json:"s"` // 1-based
	Users int     `json:"users"`
	Eta   float64 `json:"eta"`
	// Threshold is v; the noise scales are the test's.
	Threshold      float64      `json:"threshold"`
	NoisyThreshold float64      `json:"noisy_threshold"`
	ThresholdScale float64      `json:"threshold_noise_scale"`
	ScoreScale     float64      `json:"score_noise_scale"`
	Start          []float64    `json:"start"`
	Steps          []RobustStep `json:"steps"`
	// Average is x̄ = (1/T)Σx_t over the steps taken.
	Average []float64 `json:"average"`
	Passed  bool      `json:"passed"`
	// FailedAt is the step whose test answered ⊥, 0 if none.
	FailedAt int       `json:"failed_at"`
	Sigma    float64   `json:"sigma"`
	Noise    []float64 `json:"noise"`
	// Output is (x̄ if passed, else Start) + Noise.
	Output []float64 `json:"output"`
}

// RobustSGDResult is a run: one phase for A-SGD, several for A-LOC.
type RobustSGDResult struct {
	Output    []float64         `json:"output"`
	Phases    []RobustPhase     `json:"phases"`
	Guarantee privacy.Guarantee `json:"guarantee"`
}

// Trace kinds robust SGD records besides AboveThreshold's.
const (
	KindRobustStep   trace.Kind = "rsgd.step"
	KindRobustPhase  trace.Kind = "rsgd.phase"
	KindRobustAnswer trace.Kind = "rsgd.answer"
	KindRobustNoise  trace.Kind = "rsgd.noise"
)

// Validate checks the parameters for n users in ℝ^d.
func (p RobustSGDParams) Validate(n, d int) error {
	// Even a non-private run needs ε and δ: they set the threshold v.
	errs := []error{privacy.CheckEps(p.Eps), privacy.CheckDelta(p.Delta)}
	bad := func(msg string, args ...any) { errs = append(errs, format.Errorf(msg, args...)) }
	if p.Loss == nil {
		bad("no loss: choose squared or huber")
	}
	if _, err := p.Mode.MarshalText(); err != nil {
		errs = append(errs, err)
	}
	switch {
	case p.Batch < 1:
		bad("batch = %d: B, the users per step, must be at least 1", p.Batch)
	case p.Batch > n:
		bad("batch = %d with %d users: a step needs B fresh users, so B ≤ n", p.Batch, n)
	default:
		if err := p.Stat.Check(p.Batch); err != nil {
			errs = append(errs, err)
		}
	}
	if !(p.Radius > 0) || math.IsInf(p.Radius, 1) {
		bad("r = %v: the kernel radius (and clip band) must be a finite number > 0", p.Radius)
	}
	if !(p.Domain > 0) || math.IsInf(p.Domain, 1) {
		bad("domain = %v: D, the half-width of the box [−D, D]^d, must be a finite number > 0", p.Domain)
	}
	if !(p.Eta > 0) || math.IsInf(p.Eta, 1) {
		bad("eta = %v: the step size η must be a finite number > 0", p.Eta)
	} else if p.Loss != nil && p.Mode != privacy.Teaching {
		if beta := p.Loss.Beta(d); p.Eta > 2/beta {
			bad("eta = %v > 2/β = %.6g: a step this long can stretch the gap between two runs, which the privacy proof needs never to grow (Lemma 3.2); take η ≤ %.6g, or teaching mode to watch it break", p.Eta, 2/beta, 2/beta)
		}
	}
	if p.Loss != nil && p.Mode != privacy.Teaching {
		if err := p.Loss.DiagonallyDominant(d); err != nil {
			bad("this loss cannot be used: %v; use squared or huber, or teaching mode to watch it break", err)
		}
	}
	if p.Threshold != nil && (math.IsNaN(*p.Threshold) || math.IsInf(*p.Threshold, 0)) {
		bad("threshold = %v: v must be a finite number", *p.Threshold)
	}
	if p.Theta0 != nil {
		if len(p.Theta0) != d {
			bad("theta0 has %d coordinates, the data %d", len(p.Theta0), d)
		} else {
			for k, v := range p.Theta0 {
				if !(math.Abs(v) <= p.Domain) {
					bad("theta0's coordinate %d is %v, outside the domain [−%g, %g]", k+1, v, p.Domain, p.Domain)
					break
				}
			}
		}
	}
	return errors.Join(errs...)
}

// literal reports whether the test uses the paper's printed noise.
func (p RobustSGDParams) literal() bool { return p.Mode == privacy.Paper }

// Test returns the concentration test of a phase of T steps as
// AboveThreshold: at ε/2, with sensitivity 2 (1 as printed, in paper mode).
func (p RobustSGDParams) Test(steps int) mech.ATParams {
	at := p.testNoise()
	at.Threshold = p.threshold(steps)
	return at
}

// testNoise is the test without its threshold: its ε, sensitivity and mode.
func (p RobustSGDParams) testNoise() mech.ATParams {
	sens := 2.0
	if p.literal() {
		sens = 1
	}
	return mech.ATParams{Eps: p.Eps / 2, Sens: sens, Mode: p.Mode}
}

// threshold is v for a phase of T steps.
func (p RobustSGDParams) threshold(steps int) float64 {
	switch {
	case p.Threshold != nil:
		return *p.Threshold
	case p.Mode == privacy.Sound && !p.PrintedV:
		return p.SoundThreshold()
	}
	// Paper mode runs the print; teaching mode too, since it shows the
	// paper's constants under sound noise, shortfall included.
	return 0.9*float64(p.Batch) + 2*math.Log(float64(steps)/p.Delta)/p.Eps
}

// SoundThreshold is sound mode's v: the least at which a batch with no
// 2B/3 of its users in any r-box, scoring below BadScore(B) + 2 with its
// neighbour's change, passes the test with probability at most
// δ/(2e^ε), the share of δ the proof gives it. The printed
// 0.9B + 2 ln(T/δ)/ε was sized for the printed noise; with the noise
// doubled for the scores' sensitivity 2 its margin is too small (errata
// A28), so sound mode solves the margin from the exact law of the
// difference of the test's two Laplace draws. A good batch (score near B)
// passes only while this stays below B, which takes a larger B at a
// smaller ε.
func (p RobustSGDParams) SoundThreshold() float64 {
	at := p.testNoise()
	b1, b2, budget := at.ThresholdScale(), at.QueryScale(), p.gaussDelta()
	lo, hi := 0.0, b1+b2
	for mech.LaplaceSumSurvival(b1, b2, hi) > budget {
		lo, hi = hi, 2*hi
	}
	for range 100 { // the survival function falls with the margin
		mid := (lo + hi) / 2
		if mech.LaplaceSumSurvival(b1, b2, mid) > budget {
			lo = mid
		} else {
			hi = mid
		}
	}
	// The margin BadBatchPass takes back from v may round below hi: step
	// v up until the budget holds exactly as it will be checked.
	v := robust.BadScore(p.Batch) + 2 + hi
	for mech.LaplaceSumSurvival(b1, b2, p.badMargin(v)) > budget {
		v = math.Nextafter(v, math.Inf(1))
	}
	return v
}

// badMargin is how far v lies above the highest score a batch with no
// crowd can reach with its neighbour's change, BadScore(B) + 2: the one
// computation SoundThreshold solves and BadBatchPass checks.
func (p RobustSGDParams) badMargin(v float64) float64 { return v - robust.BadScore(p.Batch) - 2 }

// Sigma is a phase's noise σ = Δ·√(2 ln(1.25/δ′))/(ε/2) with step size η:
// the classical Gaussian at (ε/2, δ′ = δ/(2e^ε)) for the averages'
// ℓ2 sensitivity Δ = 6ηr√d (spec §2.7; the paper gives only its order).
func (p RobustSGDParams) Sigma(eta float64, d int) float64 {
	if p.Mode == privacy.NonPrivate {
		return 0
	}
	c, _ := privacy.GaussianSigma(p.Eps/2, p.gaussDelta(), p.Sensitivity(eta, d)) // Validate checked ε, δ, η and r
	return c.Scale
}

// Sensitivity is Δ = 6ηr√d: two runs whose batches are both r-aligned
// end within 6ηr of each other in ℓ∞ (Lemmas 3.6–3.7).
func (p RobustSGDParams) Sensitivity(eta float64, d int) float64 {
	return 6 * eta * p.Radius * math.Sqrt(float64(d))
}

func (p RobustSGDParams) gaussDelta() float64 { return p.Delta / (2 * math.Exp(p.Eps)) }

// RobustSGD runs one phase on every user: ⌊n/B⌋ steps of robust SGD, the
// concentration test, and the phase's Gaussian noise on the answer.
func RobustSGD(ctx cancel.Context, p RobustSGDParams, data *dataset.Dataset, streams *rng.Streams, progress mech.Progress) (RobustSGDResult, *trace.Trace, error) {
	return p.run(ctx, data, streams, progress, false)
}

// RobustLocalization runs A-LOC: S = ⌈log₂(n/B)⌉ phases, phase s on
// ⌊n/2^s⌋ users not used before with step η/b^s (b = ln m, at least 2:
// spec 001-004 E-A5), each releasing its noisy answer as the next start.
// Phases too small for one batch are skipped. Each user is in one phase
// only, so the phases compose in parallel.
func RobustLocalization(ctx cancel.Context, p RobustSGDParams, data *dataset.Dataset, streams *rng.Streams, progress mech.Progress) (RobustSGDResult, *trace.Trace, error) {
	return p.run(ctx, data, streams, progress, true)
}

// EtaBase is b in η_s = η/b^s: ln m, or 2 where ln m < 2 — for m < e the
// paper's (ln m)^{−s} would grow the step (spec 001-004 E-A5).
func EtaBase(m int) float64 { return math.Max(math.Log(float64(m)), 2) }

// schedule returns the user count of each phase and the first phase's
// step: one phase of all n users at η, or A-LOC's phases from η/b.
func (p RobustSGDParams) schedule(n, m int, localize bool) ([]int, float64) {
	if !localize {
		return []int{n}, p.Eta
	}
	return Phases(n, p.Batch), p.Eta / EtaBase(m)
}

// Phases returns A-LOC's schedule for n users: each phase's user count
// n_s = ⌊n/2^s⌋ for s = 1…⌈log₂(n/B)⌉, stopping before a phase with
// fewer than B users.
func Phases(n, b int) []int {
	var out []int
	for s := 1; b<<(s-1) < n; s++ { // s ≤ ⌈log₂(n/B)⌉ ⇔ B·2^{s−1} < n
		ns := n >> s
		if ns < b {
			break
		}
		out = append(out, ns)
	}
	return out
}

func (p RobustSGDParams) run(ctx cancel.Context, data *dataset.Dataset, streams *rng.Streams, progress mech.Progress, localize bool) (RobustSGDResult, *trace.Trace, error) {
	n, d := data.N(), data.Dim
	if err := p.Validate(n, d); err != nil {
		return RobustSGDResult{}, nil, err
	}
	m, ok := data.M()
	if !ok {
		return RobustSGDResult{}, nil, format.Errorf("users hold different numbers of items: robust SGD averages each user's m item gradients and needs the same m for every user")
	}
	var rec *trace.Recorder
	if p.Record {
		name := "robust-sgd"
		if localize {
			name = "robust-sgd-loc"
		}
		rec = trace.NewRecorder(name, streams.Seed())
	}
	order := userOrder(n, p.Order, streams)
	sizes, eta := p.schedule(n, m, localize)
	if len(sizes) == 0 {
		return RobustSGDResult{}, nil, format.Errorf("%d users cannot fill one phase: A-LOC's first phase takes ⌊n/2⌋ users, which must be at least B = %d; lower --batch or bring more users", n, p.Batch)
	}
	x := make([]float64, d)
	if p.Theta0 != nil {
		copy(x, p.Theta0)
	}
	var total int64
	for _, ns := range sizes {
		total += int64(ns / p.Batch)
	}
	ph := phaseRunner{p: p, data: data, m: m, rec: rec, progress: progress, total: total}
	var res RobustSGDResult
	used := 0
	for s, ns := range sizes {
		st := streams
		if localize {
			st = streams.Scope(format.Sprintf("phase %d", s+1))
			if s > 0 {
				eta /= EtaBase(m)
			}
		}
		phase, err := ph.phase(ctx, s+1, order[used:used+ns], eta, x, st)
		if err != nil {
			return RobustSGDResult{}, nil, err
		}
		used += ns
		res.Phases = append(res.Phases, phase)
		x = phase.Output
	}
	res.Output = x
	res.Guarantee = p.Guarantee(n, m, d, localize)
	return res, rec.Trace(), nil
}

// phaseRunner holds what every phase shares.
type phaseRunner struct {
	p        RobustSGDParams
	data     *dataset.Dataset
	m        int
	rec      *trace.Recorder
	progress mech.Progress
	done     int64
	total    int64
}

func (ph *phaseRunner) phase(ctx cancel.Context, s int, users []int, eta float64, start []float64, streams *rng.Streams) (RobustPhase, error) {
	p, d, rec := ph.p, ph.data.Dim, ph.rec
	b := p.Batch
	steps := len(users) / b
	at := p.Test(steps)
	out := RobustPhase{S: s, Users: len(users), Eta: eta, Threshold: at.Threshold, Start: slices.Clone(start), Passed: true}
	// A score is at most B, so at v ≥ B only the test's noise lets a step
	// pass: the run is private and, nearly always, answers x₀ — say so.
	beyond := ""
	if at.Threshold >= float64(b) && p.Mode != privacy.NonPrivate {
		beyond = format.Sprintf(" ≥ B = %d: no score reaches it, so only the noise lets a step pass (a larger B, ε or δ lowers v below B)", b)
	}
	rec.Addf(KindRobustPhase, out, "phase %d: %d users, T = ⌊%d/%d⌋ = %d steps of η = %.4g from x₀ = %s; test threshold v = %.4g%s",
		s, len(users), len(users), b, steps, eta, trace.Vec(start), at.Threshold, beyond)
	out.NoisyThreshold = at.Threshold
	var test *mech.AboveThreshold
	// The test draws its threshold when it starts: before the first step
	// online, after the last one as Alg. 1 prints it. Its noise has streams
	// of its own, so the draws are the same either way.
	begin := func() error {
		if p.Mode == privacy.NonPrivate {
			return nil
		}
		var err error
		if test, err = mech.NewAboveThreshold(at, streams, rec); err != nil {
			return err
		}
		out.NoisyThreshold = test.NoisyThreshold()
		out.ThresholdScale, out.ScoreScale = at.ThresholdScale(), at.QueryScale()
		return nil
	}
	if p.Online {
		if err := begin(); err != nil {
			return RobustPhase{}, err
		}
	}
	x := slices.Clone(start)
	sum := make([]float64, d)
	q := make([]float64, b*d)
	g := make([]float64, d)
	scratch := make([]float64, b)
	for t := 1; t <= steps; t++ {
		if err := ctx.Err(); err != nil {
			return RobustPhase{}, err
		}
		batch := users[(t-1)*b : t*b]
		for i, u := range batch {
			ph.userGradient(u, x, q[i*d:(i+1)*d], g)
		}
		step := RobustStep{T: t, Users: slices.Clone(batch), X: slices.Clone(x)}
		robust.RGE(q, d, p.Radius, p.Stat, &step.Estimate, scratch)
		if p.NoClip {
			copy(step.Estimate.Est, step.Estimate.Mean)
			clear(step.Estimate.Clipped)
		}
		for k := range x {
			x[k] = robust.Clip(x[k]-eta*step.Estimate.Est[k], -p.Domain, p.Domain)
			sum[k] += x[k]
		}
		step.Next = slices.Clone(x)
		step.Score = robust.KernelScore(q, d, p.Radius, p.Kernel, nil)
		if p.KeepBatches {
			step.Q = Vectors{Dim: d, Flat: slices.Clone(q)}
		}
		out.Steps = append(out.Steps, step)
		rec.Addf(KindRobustStep, step, "step %d: %d users' gradients at %s; robust estimate %s (%s ± r = %g%s); x_%d = %s; score s = %.4g of B = %d",
			t, b, trace.Vec(step.X), trace.Vec(step.Estimate.Est), p.Stat, p.Radius, clippedNote(step.Estimate.Clipped), t, trace.Vec(x), step.Score, b)
		ph.done++
		if ph.progress != nil {
			ph.progress(ph.done, ph.total)
		}
		if p.Online && test != nil && !ask(test, &out, t, step.Score) {
			break
		}
	}
	out.Average = make([]float64, d)
	for k := range sum {
		out.Average[k] = sum[k] / float64(len(out.Steps))
	}
	if !p.Online {
		if err := begin(); err != nil {
			return RobustPhase{}, err
		}
		for t, st := range out.Steps {
			if test != nil && !ask(test, &out, t+1, st.Score) {
				break
			}
		}
	}
	centre := out.Average
	switch {
	case !out.Passed:
		centre = out.Start
		rec.Addf(KindRobustAnswer, centre, "the test answered ⊥ at step %d: the phase answers its start x₀ = %s", out.FailedAt, trace.Vec(centre))
	case test == nil:
		rec.Addf(KindRobustAnswer, centre, "non-private: no test; the phase answers the average x̄ = %s", trace.Vec(centre))
	default:
		rec.Addf(KindRobustAnswer, centre, "every test passed: the phase answers the average x̄ = %s", trace.Vec(centre))
	}
	out.Sigma = p.Sigma(eta, d)
	out.Noise = make([]float64, d)
	if out.Sigma > 0 {
		noise.Gaussian{Sigma: out.Sigma, Src: streams.Get(rng.Gauss)}.RandVec(out.Noise)
	}
	out.Output = make([]float64, d)
	for k := range centre {
		out.Output[k] = centre[k] + out.Noise[k]
	}
	if p.Mode == privacy.NonPrivate {
		rec.Addf(KindRobustNoise, out.Output, "non-private: release %s with no noise", trace.Vec(out.Output))
	} else {
		rec.Addf(KindRobustNoise, out.Output, "release %s + N(0, σ²I) with σ = 6ηr√d·√(2 ln(2.5e^ε/δ))/(ε/2) = %.4g: %s",
			trace.Vec(centre), out.Sigma, trace.Vec(out.Output))
	}
	return out, nil
}

// ask puts step t's score to the test; false on ⊥, which ends the phase.
func ask(test *mech.AboveThreshold, out *RobustPhase, t int, score float64) bool {
	pass, _ := test.Query(score) // scores are finite and the test has not halted
	if !pass {
		out.Passed, out.FailedAt = false, t
	}
	return pass
}

// userGradient writes user u's mean item gradient at x into dst.
func (ph *phaseRunner) userGradient(u int, x, dst, g []float64) {
	clear(dst)
	for j := range ph.m {
		ph.p.Loss.Grad(x, ph.data.Item(u, j), g)
		for k, v := range g {
			dst[k] += v
		}
	}
	for k := range dst {
		dst[k] /= float64(ph.m)
	}
}

func clippedNote(clipped []bool) string {
	var ks []string
	for k, c := range clipped {
		if c {
			ks = append(ks, format.Sprint(k+1))
		}
	}
	if len(ks) == 0 {
		return ""
	}
	return "; clipped in coordinate " + trace.And(ks)
}

// Guarantee is what a run on n users of m items in ℝ^d may claim: (ε, δ)
// at user level — the test ε/2, the Gaussian (ε/2, δ/(2e^ε)), and a
// misaligned batch halting but for δ/(2e^ε) (spec §2.9) — if every
// precondition of the proof holds, in the phase where it is tightest.
func (p RobustSGDParams) Guarantee(n, m, d int, localize bool) privacy.Guarantee {
	if p.Mode == privacy.NonPrivate {
		return privacy.Guarantee{Eps: math.Inf(1), Mode: p.Mode, Note: "non-private: no test and no noise"}
	}
	sizes, eta := p.schedule(n, m, localize) // the first phase has the longest step
	beta := p.Loss.Beta(d)
	dom := p.Loss.DiagonallyDominant(d)
	var pBad float64
	for _, ns := range sizes {
		pBad = math.Max(pBad, p.BadBatchPass(ns/p.Batch))
	}
	sigma := p.Sigma(eta, d)
	g := privacy.Guarantee{Eps: p.Eps, Delta: p.Delta, Mode: p.Mode,
		Note: "Ghazi et al. 2025, Lemma 3.10, with the test noise doubled for the scores' sensitivity 2, the conditions η ≤ 2/β and 6βηB ≤ 1 its proof uses, and bad batches read as holding fewer than 2B/3 users in any r-box (errata A25–A28)"}
	g.Preconditions = []privacy.Precondition{
		privacy.Fact("the test's noise is calibrated to the scores' sensitivity 2: Lap(8/ε) once, Lap(16/ε) per step (the printed Lap(4/ε), Lap(8/ε) leak up to ε where ε/2 is claimed)", !p.literal()),
		privacy.Fact("every Hessian of the loss is diagonally dominant, so steps never stretch the ℓ∞ gap", dom == nil),
		privacy.Require("η·β (steps never stretch the gap: η ≤ 2/β)", eta*beta, privacy.AtMost, 2),
		privacy.Require("6βηB (later scores move by at most 2)", 6*beta*eta*float64(p.Batch), privacy.AtMost, 1),
		privacy.Fact(format.Sprintf("the %s lies in every ℓ∞ box that holds 2B/3 of the batch (median, or trimming k ≥ ⌈B/3⌉ = %d)", p.Stat, robust.MinTrim(p.Batch)), p.Stat.Contains(p.Batch)),
		privacy.Fact("the estimate is the mean clipped to the statistic ± r", !p.NoClip),
		privacy.Fact("the score uses the smooth kernel exp(−‖·‖∞/r)", p.Kernel == robust.ExpKernel),
		privacy.Require("Pr[a batch with no 2B/3 in any r-box passes its test]", pBad, privacy.AtMost, p.gaussDelta()),
		privacy.Require("the Gaussian's true δ at ε/2", privacy.GaussianDelta(p.Eps/2, p.Sensitivity(eta, d), sigma), privacy.AtMost, p.gaussDelta()),
	}
	return g
}

// BadBatchPass is the probability that a step whose batch has no ℓ∞ box
// of radius r holding 2B/3 of it — or whose neighbour's batch has none —
// still passes the test of a phase of T steps: its score is below
// BadScore(B) + 2, so the noisy comparison must overcome the rest of the
// gap to v.
func (p RobustSGDParams) BadBatchPass(steps int) float64 {
	at := p.Test(steps)
	return mech.LaplaceSumSurvival(at.ThresholdScale(), at.QueryScale(), p.badMargin(at.Threshold))
}
