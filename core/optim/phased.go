// Package optim holds the private optimisers built from the mechanisms:
// Phased-ERM, Phased-SCO and Strongly-Convex-ERM/SCO (Paper A, Algs. 3–6)
// so far, with the others of design.md §2 to follow.
package optim

import (
	"math"

	"github.com/uldplab/uldp/core/cancel"
	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/loss"
	"github.com/uldplab/uldp/core/mech"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/core/trace"
)

// PhasedParams configures the phased algorithms for the squared loss
// ℓ(θ; x) = (Mu/2)‖θ − x‖² on 𝒦 = B(0, RK), data in B(0, RX), or the 1-D
// absolute loss |θ − x| on 𝒦 = [−RK, RK] (Loss = mech.LossAbsolute: the
// "private median"; Mu is then unused and may be 0, G = 1).
type PhasedParams struct {
	Eps, Delta, Beta float64
	Mu               float64
	RK, RX           float64
	// Lambda is λ; 0 takes the algorithm's default (Thm 4.1's
	// λ = G√d/(R n √m), R = 2·RK, for Phased-ERM).
	Lambda float64
	// LambdaScale multiplies λ, given or default, so a demo can vary it
	// around the theorem's choice; 0 means 1.
	LambdaScale float64
	// Phases overrides T = ⌈log₂(nm)⌉ (erratum A17: log₂) for demos.
	Phases int
	// Rule is SCOutputPert's Δ rule (mech.DeltaPaper or mech.DeltaCorollary).
	Rule  string
	Mode  privacy.Mode
	Kappa int // teaching mode: κ of every phase
	Loss  string
}

// G is the base loss's Lipschitz constant on 𝒦 × B(0, RX).
func (p PhasedParams) G() float64 {
	if p.Loss == mech.LossAbsolute {
		return 1
	}
	return p.Mu * (p.RK + p.RX)
}

// sc is SCOutputPert's view of the parameters (stage 1 of the strongly
// convex algorithms, and the checks every algorithm shares).
func (p PhasedParams) sc() mech.SCParams {
	return mech.SCParams{Eps: p.Eps, Delta: p.Delta, Beta: p.Beta, Mu: p.Mu, RK: p.RK, RX: p.RX, Rule: p.Rule, Mode: p.Mode, Kappa: p.Kappa, Loss: p.Loss}
}

// Phase records one phase of a run.
type Phase struct {
	I      int       `json:"i"`
	Lambda float64   `json:"lambda"`
	Radius float64   `json:"radius"` // R_i = G/λ_i
	Start  []float64 `json:"start"`  // θ̂_{i−1}, centre of B(θ̂_{i−1}, R_i)
	Users  int       `json:"users"`  // users this phase runs on
	// Minimiser is the phase objective's exact minimiser over 𝒦_i (what a
	// noiseless phase would return).
	Minimiser []float64 `json:"minimiser"`
	Sens      float64   `json:"sens"`
	Sigma     float64   `json:"sigma"`
	Kappa     int       `json:"kappa"`
	RStar     int       `json:"rstar"`
	Certified bool      `json:"certified"`
	Bottom    bool      `json:"bottom"`
	Output    []float64 `json:"output"` // θ̂_i after ⊥ handling and projection onto 𝒦
}

// PhasedResult is a whole run.
type PhasedResult struct {
	Theta  []float64       `json:"theta"`
	Phases []Phase         `json:"phases"`
	Ledger *privacy.Ledger `json:"ledger"`
	// Stage1 is the first stage of Strongly-Convex-ERM/SCO (nil otherwise).
	Stage1    *Stage1           `json:"stage1,omitempty"`
	Guarantee privacy.Guarantee `json:"guarantee"`
}

// Trace kinds Phased-ERM records.
const (
	KindPhaseStart   trace.Kind = "phase.start"
	KindPhaseRelease trace.Kind = "phase.release"
	KindLedgerSpend  trace.Kind = "ledger.spend"
)

// PhasedERM runs Alg. 3. Each phase calls DelOutputPert on the full
// dataset at (ε/T, δ/T) with f the exact minimiser of
// (Mu/2)‖θ − x‖² + (λ_i/2)‖θ − θ̂_{i−1}‖² over 𝒦 ∩ B(θ̂_{i−1}, R_i), which is
// the projection of (Mu·mean + λ_i·θ̂_{i−1})/(Mu + λ_i) onto that set
// (spec 000-002 §8.1). Every user must hold the same number of items.
func PhasedERM(ctx cancel.Context, p PhasedParams, data *dataset.Dataset, streams *rng.Streams, progress mech.Progress) (PhasedResult, *trace.Trace, error) {
	n, m, err := p.check(data)
	if err != nil {
		return PhasedResult{}, nil, err
	}
	T := p.Phases
	if T == 0 {
		T = int(math.Ceil(math.Log2(float64(n * m))))
	}
	lambda := p.Lambda
	if lambda == 0 {
		lambda = p.G() * math.Sqrt(float64(data.Dim)) / (2 * p.RK * float64(n) * math.Sqrt(float64(m)))
	}
	l := p.newLoop("phased-erm", data.Dim, streams)
	if err := l.phases(ctx, p, ermPlan(data, T, p.Eps, p.Delta), lambda, progress); err != nil {
		return PhasedResult{}, nil, err
	}
	return l.finish(p, format.Sprintf("Paper A Thm 4.1: basic composition of %d DelOutputPert calls at (ε/T, δ/T)", T))
}

// ermPlan runs every phase on all users at (ε/T, δ/T).
func ermPlan(data *dataset.Dataset, T int, eps, delta float64) []phasePlan {
	plan := make([]phasePlan, 0, T)
	for i := 1; i <= T; i++ {
		plan = append(plan, phasePlan{data: data, eps: eps / float64(T), delta: delta / float64(T)})
	}
	return plan
}

// PhasedSCO runs Alg. 4: phase i uses only the users with index in
// (⌊n/2^i⌋, ⌊n/2^{i−1}⌋] (erratum A7: half-open, disjoint), each at the full
// (ε, δ) — parallel composition, since every user is used once. T is
// ⌈log₂(n/N₀)⌉ with N₀ = 8κ(ε, δ) (erratum A18's default: each batch keeps
// Cor. 3.7's r ≤ n/2 with r = 4κ), unless Phases overrides it; λ defaults to
// (G/R)·max(√d/(n√m), 1/√(nm)) (erratum A8).
func PhasedSCO(ctx cancel.Context, p PhasedParams, data *dataset.Dataset, streams *rng.Streams, progress mech.Progress) (PhasedResult, *trace.Trace, error) {
	n, m, err := p.check(data)
	if err != nil {
		return PhasedResult{}, nil, err
	}
	plan, n0, err := p.scoPlan(data, p.Eps, p.Delta)
	if err != nil {
		return PhasedResult{}, nil, err
	}
	lambda := p.Lambda
	if lambda == 0 {
		lambda = scoLambda(p.G(), 2*p.RK, data.Dim, n, m)
	}
	l := p.newLoop("phased-sco", data.Dim, streams)
	if err := l.phases(ctx, p, plan, lambda, progress); err != nil {
		return PhasedResult{}, nil, err
	}
	l.firstBatch(p, n, n0)
	return l.finish(p, format.Sprintf("Paper A Thm 5.1: %d DelOutputPert calls at (ε, δ) on disjoint users (parallel composition)", len(plan)))
}

// scoLambda is erratum A8's λ = (G/R)·max(√d/(n√m), 1/√(nm)) for a domain
// of diameter R.
func scoLambda(G, R float64, d, n, m int) float64 {
	return G / R * math.Max(math.Sqrt(float64(d))/(float64(n)*math.Sqrt(float64(m))), 1/math.Sqrt(float64(n*m)))
}

// scoPlan splits the users into the halving batches, each at the full
// (eps, delta), and returns N₀ = 8κ(eps, delta).
func (p PhasedParams) scoPlan(data *dataset.Dataset, eps, delta float64) ([]phasePlan, int, error) {
	n := data.N()
	cal, err := privacy.DelOutputPert(eps, delta, 1)
	if err != nil {
		return nil, 0, err
	}
	n0 := 8 * cal.Kappa
	T := p.Phases
	if T == 0 {
		T = max(1, int(math.Ceil(math.Log2(float64(n)/float64(n0)))))
	}
	if n>>T < 1 {
		return nil, 0, format.Errorf("phases = %d: %d users cannot be halved %d times (the last batch would be empty)", T, n, T)
	}
	plan := make([]phasePlan, 0, T)
	for i := 1; i <= T; i++ {
		lo, hi := n>>i, n>>(i-1) // users lo+1 … hi, 1-based
		drop := make([]int, 0, n-(hi-lo))
		for u := 0; u < n; u++ {
			if u < lo || u >= hi {
				drop = append(drop, u)
			}
		}
		batch, err := data.Delete(drop...)
		if err != nil {
			return nil, 0, err
		}
		plan = append(plan, phasePlan{data: batch, eps: eps, delta: delta, group: format.Sprintf("users %d–%d", lo+1, hi)})
	}
	return plan, n0, nil
}

// phasePlan is what one phase runs on.
type phasePlan struct {
	data       *dataset.Dataset
	eps, delta float64
	group      string // the ledger group (parallel composition); "" for all users
}

// check validates the parameters and returns n and the common m.
func (p PhasedParams) check(data *dataset.Dataset) (int, int, error) {
	sc := p.sc()
	if p.Loss == mech.LossAbsolute && sc.Mu == 0 {
		sc.Mu = 1 // the absolute loss's phases have no μ to check
	}
	if err := sc.Validate(); err != nil {
		return 0, 0, err
	}
	m, err := sc.CheckData(data)
	if err != nil {
		return 0, 0, err
	}
	if p.Phases < 0 || p.Phases > 64 {
		return 0, 0, format.Errorf("phases = %d: choose 1 to 64 (0: the paper's count)", p.Phases)
	}
	if p.Lambda < 0 || math.IsNaN(p.Lambda) || math.IsInf(p.Lambda, 0) {
		return 0, 0, format.Errorf("lambda = %v: must be a finite number > 0 (or 0 for the theorem's choice)", p.Lambda)
	}
	if p.LambdaScale < 0 || math.IsNaN(p.LambdaScale) || math.IsInf(p.LambdaScale, 0) {
		return 0, 0, format.Errorf("lambda scale = %v: must be a finite number > 0 (or 0 for 1)", p.LambdaScale)
	}
	return data.N(), m, nil
}

// loop is the state the phased algorithms share: the domain, the iterate,
// the ledger and the trace, carried through their stages.
type loop struct {
	name     string
	dom      loss.Intersection // 𝒦, or 𝒦′ = 𝒦 ∩ B(θ₀, R′) after a first stage
	theta    []float64
	rec      *trace.Recorder
	ledger   *privacy.Ledger
	res      PhasedResult
	streams  *rng.Streams
	minUsers int
	worst    privacy.DelCalibration // the phase with the largest κ′
	pre      []privacy.Precondition
}

// newLoop starts at θ̂₀ = the centre of 𝒦 = B(0, RK).
func (p PhasedParams) newLoop(name string, d int, streams *rng.Streams) *loop {
	l := &loop{name: name, dom: loss.Intersection{{Centre: make([]float64, d), Radius: p.RK}},
		theta: make([]float64, d), rec: trace.NewRecorder(name, streams.Seed()),
		ledger: privacy.NewLedger(privacy.Basic, 0), streams: streams, minUsers: math.MaxInt}
	l.res.Ledger = l.ledger
	return l
}

// phases executes a plan's phases from the current iterate.
func (l *loop) phases(ctx cancel.Context, p PhasedParams, plan []phasePlan, lambda float64, progress mech.Progress) error {
	G, T, d := p.G(), len(plan), len(l.theta)
	if p.LambdaScale > 0 {
		lambda *= p.LambdaScale
	}
	for idx, ph := range plan {
		i := idx + 1
		if err := ctx.Err(); err != nil {
			return err
		}
		n := ph.data.N()
		m, _ := ph.data.M()
		l.minUsers = min(l.minUsers, n)
		li := lambda * math.Pow(4, float64(i))
		out := Phase{I: i, Lambda: li, Radius: G / li, Start: append([]float64(nil), l.theta...), Users: n}
		start := out.Start
		del := mech.DelParams{Eps: ph.eps, Delta: ph.delta, Mode: p.Mode, Kappa: p.Kappa, Sens: 1}
		if p.Loss == mech.LossAbsolute {
			// (1/N)Σ|θ − x| + (λ_i/2)(θ − θ̂)² over 𝒦 ∩ [θ̂ − R_i, θ̂ + R_i].
			del.Func = mech.AbsoluteFunc(li, start[0], math.Max(-p.RK, start[0]-out.Radius), math.Min(p.RK, start[0]+out.Radius))
		} else {
			ki := append(append(loss.Intersection(nil), l.dom...), loss.Ball{Centre: out.Start, Radius: out.Radius})
			w := p.Mu / (p.Mu + li)
			del.Map = func(mean []float64) []float64 {
				for j := range mean {
					mean[j] = w*mean[j] + (1-w)*start[j]
				}
				r, _ := ki.Project(mean, mean) // θ̂ ∈ the domain, so they meet
				return r
			}
		}
		f, err := minimiser(del, ph.data)
		if err != nil {
			return err
		}
		out.Minimiser = f
		l.rec.Addf(KindPhaseStart, out, "phase %d of %d on %d users: λ = %.4g, ball radius R = G/λ = %.4g around %v", i, T, n, li, out.Radius, trace.Vec(start))
		var released []float64
		if p.Mode == privacy.NonPrivate {
			released = append([]float64(nil), out.Minimiser...)
		} else {
			cal, err := del.DelCalibration()
			if err != nil {
				return err
			}
			if cal.Kappa > l.worst.Kappa {
				l.worst = cal
			}
			// SCOutputPert on the regularised loss: Lipschitz 2G, curvature λ_i.
			if del.Sens, err = mech.SCTargetSens(p.Rule, 2*G, li, p.Beta/float64(T), n, m, cal.Kappa); err != nil {
				return err
			}
			law, err := mech.DelOutputPertLaw(ctx, del, ph.data, progress)
			if err != nil {
				return format.Errorf("phase %d: %w", i, err)
			}
			out.Sens, out.Sigma, out.Kappa, out.RStar, out.Certified = del.Sens, law.Sigma, law.Kappa, law.RStar, law.Certified
			if _, released, err = law.Sample(cal.EpsBar, d, l.streams); err != nil {
				return err
			}
			who := "all users"
			if ph.group != "" {
				who = ph.group + " (disjoint: parallel composition)"
			}
			if err := l.spend(format.Sprintf("phase %d", i), ph.eps, ph.delta, ph.group, who); err != nil {
				return err
			}
		}
		if released == nil {
			out.Bottom = true // erratum A6: keep the previous iterate
			released = append([]float64(nil), l.theta...)
		}
		l.dom.Project(released, released) // erratum A6: noise may leave the domain
		l.theta = released
		out.Output = append([]float64(nil), l.theta...)
		what := format.Sprintf("release θ̂ = %v (σ = %.4g)", trace.Vec(l.theta), out.Sigma)
		if out.Bottom {
			what = "⊥: keep the previous iterate " + trace.Vec(l.theta)
		}
		l.rec.Addf(KindPhaseRelease, out, "phase %d: %s", i, what)
		l.res.Phases = append(l.res.Phases, out)
	}
	return nil
}

// spend records a release's (ε, δ) in the ledger and the trace.
func (l *loop) spend(label string, eps, delta float64, group, who string) error {
	s := privacy.Spend{Label: label, Eps: eps, Delta: delta, Group: group}
	if err := l.ledger.Add(s); err != nil {
		return err
	}
	l.rec.Addf(KindLedgerSpend, s, "%s spends (ε, δ) = (%.4g, %.3g) on %s", label, eps, delta, who)
	return nil
}

// firstBatch adds Phased-SCO's batch floor: the first (largest) batch must
// hold N₀ users.
func (l *loop) firstBatch(p PhasedParams, n, n0 int) {
	if n-n>>1 < n0 && p.Mode != privacy.NonPrivate {
		l.pre = append(l.pre, privacy.Require("first batch ≥ N₀ = 8κ", float64(n-n>>1), privacy.AtLeast, float64(n0)))
	}
}

// finish returns the run with its guarantee: (ε, δ) as the note says,
// each phase needing n ≥ 4κ′+2 users and ε̄′ < 1 (checked on the phase
// with the largest κ′), plus the stages' own preconditions.
func (l *loop) finish(p PhasedParams, note string) (PhasedResult, *trace.Trace, error) {
	l.res.Theta = l.theta
	if p.Mode == privacy.NonPrivate {
		l.res.Guarantee = privacy.Guarantee{Eps: math.Inf(1), Mode: p.Mode, Note: "non-private: exact minimisers, no noise"}
		return l.res, l.rec.Trace(), nil
	}
	g := privacy.Guarantee{Eps: p.Eps, Delta: p.Delta, Mode: p.Mode, Note: note}
	if len(l.res.Phases) > 0 {
		g.Preconditions = append(g.Preconditions,
			privacy.Require("n ≥ 4κ′+2 users in every phase", float64(l.minUsers), privacy.AtLeast, float64(4*l.worst.Kappa+2)),
			privacy.Require("ε̄′ < 1 in every phase (Gaussian-mechanism lemma)", l.worst.EpsBar, privacy.Below, 1))
		if p.Kappa != 0 {
			auto, _ := privacy.DelOutputPert(l.worst.Eps, l.worst.Delta, 1)
			g.Preconditions = append(g.Preconditions, privacy.Require("κ chosen by hand ≥ κ(ε̄′, δ̄′)", float64(p.Kappa), privacy.AtLeast, float64(auto.Kappa)))
		}
	}
	g.Preconditions = append(g.Preconditions, l.pre...)
	l.res.Guarantee = g
	return l.res, l.rec.Trace(), nil
}

// minimiser is the phase's f on the whole batch: its exact minimiser.
func minimiser(del mech.DelParams, data *dataset.Dataset) ([]float64, error) {
	if del.Func == nil {
		means := data.Means()
		mean := make([]float64, data.Dim)
		for _, u := range means {
			for j, v := range u {
				mean[j] += v / float64(len(means))
			}
		}
		return del.Map(mean), nil
	}
	sf, err := del.Func(data)
	if err != nil {
		return nil, err
	}
	return sf.Without(0, make([]float64, data.Dim)), nil
}
