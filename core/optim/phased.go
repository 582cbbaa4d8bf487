// Package optim holds the private optimisers built from the mechanisms:
// Phased-ERM and Phased-SCO (Paper A, Algs. 3–4) so far, with the others of
// design.md §2 to follow.
package optim

import (
	"context"
	"fmt"
	"math"

	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/loss"
	"github.com/uldplab/uldp/core/mech"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/core/trace"
)

// PhasedParams configures Phased-ERM for the squared loss
// ℓ(θ; x) = (Mu/2)‖θ − x‖² on 𝒦 = B(0, RK), data in B(0, RX).
type PhasedParams struct {
	Eps, Delta, Beta float64
	Mu               float64
	RK, RX           float64
	// Lambda is λ; 0 takes Thm 4.1's λ = G√d/(R n √m), R = 2·RK.
	Lambda float64
	// Phases overrides T = ⌈log₂(nm)⌉ (erratum A17: log₂) for demos.
	Phases int
	// Rule is SCOutputPert's Δ rule (mech.DeltaPaper or mech.DeltaCorollary).
	Rule  string
	Mode  privacy.Mode
	Kappa int // teaching mode: κ of every phase
}

// G is the base loss's Lipschitz constant on 𝒦 × B(0, RX).
func (p PhasedParams) G() float64 { return p.Mu * (p.RK + p.RX) }

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
	Theta     []float64         `json:"theta"`
	Phases    []Phase           `json:"phases"`
	Ledger    *privacy.Ledger   `json:"ledger"`
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
func PhasedERM(ctx context.Context, p PhasedParams, data *dataset.Dataset, streams *rng.Streams, progress mech.Progress) (PhasedResult, *trace.Trace, error) {
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
	plan := make([]phasePlan, 0, T)
	for i := 1; i <= T; i++ {
		plan = append(plan, phasePlan{data: data, eps: p.Eps / float64(T), delta: p.Delta / float64(T)})
	}
	return p.run(ctx, "phased-erm", plan, lambda, T, data.Dim, streams, progress)
}

// PhasedSCO runs Alg. 4: phase i uses only the users with index in
// (⌊n/2^i⌋, ⌊n/2^{i−1}⌋] (erratum A7: half-open, disjoint), each at the full
// (ε, δ) — parallel composition, since every user is used once. T is
// ⌈log₂(n/N₀)⌉ with N₀ = 8κ(ε, δ) (erratum A18's default: each batch keeps
// Cor. 3.7's r ≤ n/2 with r = 4κ), unless Phases overrides it; λ defaults to
// (G/R)·max(√d/(n√m), 1/√(nm)) (erratum A8).
func PhasedSCO(ctx context.Context, p PhasedParams, data *dataset.Dataset, streams *rng.Streams, progress mech.Progress) (PhasedResult, *trace.Trace, error) {
	n, m, err := p.check(data)
	if err != nil {
		return PhasedResult{}, nil, err
	}
	cal, err := privacy.DelOutputPert(p.Eps, p.Delta, 1)
	if err != nil {
		return PhasedResult{}, nil, err
	}
	n0 := 8 * cal.Kappa
	T := p.Phases
	if T == 0 {
		T = max(1, int(math.Ceil(math.Log2(float64(n)/float64(n0)))))
	}
	if n>>T < 1 {
		return PhasedResult{}, nil, fmt.Errorf("phases = %d: %d users cannot be halved %d times (the last batch would be empty)", T, n, T)
	}
	lambda := p.Lambda
	if lambda == 0 {
		d := float64(data.Dim)
		lambda = p.G() / (2 * p.RK) * math.Max(math.Sqrt(d)/(float64(n)*math.Sqrt(float64(m))), 1/math.Sqrt(float64(n*m)))
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
			return PhasedResult{}, nil, err
		}
		plan = append(plan, phasePlan{data: batch, eps: p.Eps, delta: p.Delta, group: fmt.Sprintf("users %d–%d", lo+1, hi)})
	}
	res, tr, err := p.run(ctx, "phased-sco", plan, lambda, T, data.Dim, streams, progress)
	if err == nil && n-n>>1 < n0 && p.Mode != privacy.NonPrivate {
		res.Guarantee.Preconditions = append(res.Guarantee.Preconditions,
			privacy.Require("first batch ≥ N₀ = 8κ", float64(n-n>>1), privacy.AtLeast, float64(n0)))
	}
	return res, tr, err
}

// phasePlan is what one phase runs on.
type phasePlan struct {
	data       *dataset.Dataset
	eps, delta float64
	group      string // the ledger group (parallel composition); "" for all users
}

// check validates the parameters and returns n and the common m.
func (p PhasedParams) check(data *dataset.Dataset) (int, int, error) {
	sc := mech.SCParams{Eps: p.Eps, Delta: p.Delta, Beta: p.Beta, Mu: p.Mu, RK: p.RK, RX: p.RX, Rule: p.Rule, Mode: p.Mode, Kappa: p.Kappa}
	if err := sc.Validate(); err != nil {
		return 0, 0, err
	}
	m, ok := data.M()
	if !ok {
		return 0, 0, fmt.Errorf("users hold different numbers of items: the phased algorithms minimise the mean loss over all items and need the same m for every user")
	}
	if p.Phases < 0 || p.Phases > 64 {
		return 0, 0, fmt.Errorf("phases = %d: choose 1 to 64 (0: the paper's count)", p.Phases)
	}
	if p.Lambda < 0 || math.IsNaN(p.Lambda) || math.IsInf(p.Lambda, 0) {
		return 0, 0, fmt.Errorf("lambda = %v: must be a finite number > 0 (or 0 for the theorem's choice)", p.Lambda)
	}
	return data.N(), m, nil
}

// run executes the phases of a plan: the loop both algorithms share.
func (p PhasedParams) run(ctx context.Context, name string, plan []phasePlan, lambda float64, T, d int, streams *rng.Streams, progress mech.Progress) (PhasedResult, *trace.Trace, error) {
	G := p.G()
	rec := trace.NewRecorder(name, streams.Seed())
	ledger := privacy.NewLedger(privacy.Basic, 0)
	k := loss.Ball{Centre: make([]float64, d), Radius: p.RK}
	theta := make([]float64, d) // θ̂_0: the centre of 𝒦
	res := PhasedResult{Ledger: ledger}
	minUsers := math.MaxInt
	var worst privacy.DelCalibration
	for idx, ph := range plan {
		i := idx + 1
		if err := ctx.Err(); err != nil {
			return PhasedResult{}, nil, err
		}
		n := ph.data.N()
		m, _ := ph.data.M()
		minUsers = min(minUsers, n)
		total := make([]float64, d)
		for _, u := range ph.data.Means() {
			for j, v := range u {
				total[j] += v / float64(n)
			}
		}
		li := lambda * math.Pow(4, float64(i))
		out := Phase{I: i, Lambda: li, Radius: G / li, Start: append([]float64(nil), theta...), Users: n}
		ki := loss.Ball{Centre: out.Start, Radius: out.Radius}
		w := p.Mu / (p.Mu + li)
		start := out.Start
		fmap := func(mean []float64) []float64 {
			for j := range mean {
				mean[j] = w*mean[j] + (1-w)*start[j]
			}
			r, _ := loss.ProjectIntersection(k, ki, mean, mean) // θ̂ ∈ 𝒦, so they meet
			return r
		}
		out.Minimiser = fmap(append([]float64(nil), total...))
		rec.Addf(KindPhaseStart, out, "phase %d of %d on %d users: λ = %.4g, ball radius R = G/λ = %.4g around %v", i, T, n, li, out.Radius, trace.Vec(start))
		var released []float64
		if p.Mode == privacy.NonPrivate {
			released = append([]float64(nil), out.Minimiser...)
		} else {
			del := mech.DelParams{Eps: ph.eps, Delta: ph.delta, Mode: p.Mode, Kappa: p.Kappa, Sens: 1, Map: fmap}
			cal, err := del.DelCalibration()
			if err != nil {
				return PhasedResult{}, nil, err
			}
			if cal.Kappa > worst.Kappa {
				worst = cal
			}
			// SCOutputPert on the regularised loss: Lipschitz 2G, curvature λ_i.
			if del.Sens, err = mech.SCTargetSens(p.Rule, 2*G, li, p.Beta/float64(T), n, m, cal.Kappa); err != nil {
				return PhasedResult{}, nil, err
			}
			law, err := mech.DelOutputPertLaw(ctx, del, ph.data, progress)
			if err != nil {
				return PhasedResult{}, nil, fmt.Errorf("phase %d: %w", i, err)
			}
			out.Sens, out.Sigma, out.Kappa, out.RStar, out.Certified = del.Sens, law.Sigma, law.Kappa, law.RStar, law.Certified
			if _, released, err = law.Sample(cal.EpsBar, d, streams); err != nil {
				return PhasedResult{}, nil, err
			}
			spend := privacy.Spend{Label: fmt.Sprintf("phase %d", i), Eps: ph.eps, Delta: ph.delta, Group: ph.group}
			if err := ledger.Add(spend); err != nil {
				return PhasedResult{}, nil, err
			}
			who := "all users"
			if ph.group != "" {
				who = ph.group + " (disjoint: parallel composition)"
			}
			rec.Addf(KindLedgerSpend, spend, "phase %d spends (ε, δ) = (%.4g, %.3g) on %s", i, ph.eps, ph.delta, who)
		}
		if released == nil {
			out.Bottom = true // erratum A6: keep the previous iterate
			released = append([]float64(nil), theta...)
		}
		theta = k.Project(released, released) // erratum A6: noise may leave 𝒦
		out.Output = append([]float64(nil), theta...)
		what := fmt.Sprintf("release θ̂ = %v (σ = %.4g)", trace.Vec(theta), out.Sigma)
		if out.Bottom {
			what = "⊥: keep the previous iterate " + trace.Vec(theta)
		}
		rec.Addf(KindPhaseRelease, out, "phase %d: %s", i, what)
		res.Phases = append(res.Phases, out)
	}
	res.Theta = theta
	res.Guarantee = p.guarantee(name, minUsers, T, worst)
	return res, rec.Trace(), nil
}

// guarantee: (ε, δ) by basic (ERM) or parallel (SCO) composition, each
// phase needing n ≥ 4κ′+2 users and ε̄′ < 1 (worst is the phase with the
// largest κ′).
func (p PhasedParams) guarantee(name string, minUsers, T int, worst privacy.DelCalibration) privacy.Guarantee {
	if p.Mode == privacy.NonPrivate {
		return privacy.Guarantee{Eps: math.Inf(1), Mode: p.Mode, Note: "non-private: exact minimisers, no noise"}
	}
	note := fmt.Sprintf("Paper A Thm 4.1: basic composition of %d DelOutputPert calls at (ε/T, δ/T)", T)
	if name == "phased-sco" {
		note = fmt.Sprintf("Paper A Thm 5.1: %d DelOutputPert calls at (ε, δ) on disjoint users (parallel composition)", T)
	}
	g := privacy.Guarantee{Eps: p.Eps, Delta: p.Delta, Mode: p.Mode, Note: note,
		Preconditions: []privacy.Precondition{
			privacy.Require("n ≥ 4κ′+2 users in every phase", float64(minUsers), privacy.AtLeast, float64(4*worst.Kappa+2)),
			privacy.Require("ε̄′ < 1 in every phase (Gaussian-mechanism lemma)", worst.EpsBar, privacy.Below, 1),
		}}
	if p.Kappa != 0 {
		auto, _ := privacy.DelOutputPert(worst.Eps, worst.Delta, 1)
		g.Preconditions = append(g.Preconditions, privacy.Require("κ chosen by hand ≥ κ(ε̄′, δ̄′)", float64(p.Kappa), privacy.AtLeast, float64(auto.Kappa)))
	}
	return g
}
