// Package optim holds the private optimisers built from the mechanisms:
// Phased-ERM (Paper A, Alg. 3) so far, with the others of design.md §2 to
// follow.
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
// dataset with f the exact minimiser of
// (Mu/2)‖θ − x‖² + (λ_i/2)‖θ − θ̂_{i−1}‖² over 𝒦 ∩ B(θ̂_{i−1}, R_i), which is
// the projection of (Mu·mean + λ_i·θ̂_{i−1})/(Mu + λ_i) onto that set
// (spec 000-002 §8.1). Every user must hold the same number of items.
func PhasedERM(ctx context.Context, p PhasedParams, data *dataset.Dataset, streams *rng.Streams, progress mech.Progress) (PhasedResult, *trace.Trace, error) {
	sc := mech.SCParams{Eps: p.Eps, Delta: p.Delta, Beta: p.Beta, Mu: p.Mu, RK: p.RK, RX: p.RX, Rule: p.Rule, Mode: p.Mode, Kappa: p.Kappa}
	if err := sc.Validate(); err != nil {
		return PhasedResult{}, nil, err
	}
	m, ok := data.M()
	if !ok {
		return PhasedResult{}, nil, fmt.Errorf("users hold different numbers of items: Phased-ERM minimises the mean loss over all items and needs the same m for every user")
	}
	n, d := data.N(), data.Dim
	T := p.Phases
	if T == 0 {
		T = int(math.Ceil(math.Log2(float64(n * m))))
	}
	if T < 1 || T > 64 {
		return PhasedResult{}, nil, fmt.Errorf("phases = %d: choose 1 to 64", T)
	}
	G := p.G()
	lambda := p.Lambda
	if lambda == 0 {
		lambda = G * math.Sqrt(float64(d)) / (2 * p.RK * float64(n) * math.Sqrt(float64(m)))
	}
	if !(lambda > 0) || math.IsInf(lambda, 1) {
		return PhasedResult{}, nil, fmt.Errorf("lambda = %v: must be a finite number > 0 (or 0 for Thm 4.1's choice)", lambda)
	}
	epsT, deltaT, betaT := p.Eps/float64(T), p.Delta/float64(T), p.Beta/float64(T)
	rec := trace.NewRecorder("phased-erm", streams.Seed())
	ledger := privacy.NewLedger(privacy.Basic, 0)
	k := loss.Ball{Centre: make([]float64, d), Radius: p.RK}
	theta := make([]float64, d) // θ̂_0: the centre of 𝒦
	res := PhasedResult{Ledger: ledger}
	means, total := data.Means(), make([]float64, d)
	for _, u := range means {
		for j, v := range u {
			total[j] += v / float64(n)
		}
	}
	for i := 1; i <= T; i++ {
		if err := ctx.Err(); err != nil {
			return PhasedResult{}, nil, err
		}
		li := lambda * math.Pow(4, float64(i))
		ph := Phase{I: i, Lambda: li, Radius: G / li, Start: append([]float64(nil), theta...)}
		ki := loss.Ball{Centre: ph.Start, Radius: ph.Radius}
		w := p.Mu / (p.Mu + li)
		start := ph.Start
		fmap := func(mean []float64) []float64 {
			for j := range mean {
				mean[j] = w*mean[j] + (1-w)*start[j]
			}
			out, _ := loss.ProjectIntersection(k, ki, mean, mean) // θ̂ ∈ 𝒦, so they meet
			return out
		}
		ph.Minimiser = fmap(append([]float64(nil), total...))
		rec.Addf(KindPhaseStart, ph, "phase %d of %d: λ = %.4g, ball radius R = G/λ = %.4g around %v", i, T, li, ph.Radius, trace.Vec(start))
		var out []float64
		if p.Mode == privacy.NonPrivate {
			out = append([]float64(nil), ph.Minimiser...)
		} else {
			del := mech.DelParams{Eps: epsT, Delta: deltaT, Mode: p.Mode, Kappa: p.Kappa, Sens: 1, Map: fmap}
			cal, err := del.DelCalibration()
			if err != nil {
				return PhasedResult{}, nil, err
			}
			// SCOutputPert on the regularised loss: Lipschitz 2G, curvature λ_i.
			if del.Sens, err = mech.SCTargetSens(p.Rule, 2*G, li, betaT, n, m, cal.Kappa); err != nil {
				return PhasedResult{}, nil, err
			}
			law, err := mech.DelOutputPertLaw(ctx, del, data, progress)
			if err != nil {
				return PhasedResult{}, nil, fmt.Errorf("phase %d: %w", i, err)
			}
			ph.Sens, ph.Sigma, ph.Kappa, ph.RStar, ph.Certified = del.Sens, law.Sigma, law.Kappa, law.RStar, law.Certified
			if _, out, err = law.Sample(cal.EpsBar, d, streams); err != nil {
				return PhasedResult{}, nil, err
			}
			if err := ledger.Add(privacy.Spend{Label: fmt.Sprintf("phase %d", i), Eps: epsT, Delta: deltaT}); err != nil {
				return PhasedResult{}, nil, err
			}
			rec.Addf(KindLedgerSpend, privacy.Spend{Label: fmt.Sprintf("phase %d", i), Eps: epsT, Delta: deltaT},
				"phase %d spends (ε/T, δ/T) = (%.4g, %.3g)", i, epsT, deltaT)
		}
		if out == nil {
			ph.Bottom = true // erratum A6: keep the previous iterate
			out = append([]float64(nil), theta...)
		}
		theta = k.Project(out, out) // erratum A6: noise may leave 𝒦
		ph.Output = append([]float64(nil), theta...)
		what := fmt.Sprintf("release θ̂ = %v (σ = %.4g)", trace.Vec(theta), ph.Sigma)
		if ph.Bottom {
			what = "⊥: keep the previous iterate " + trace.Vec(theta)
		}
		rec.Addf(KindPhaseRelease, ph, "phase %d: %s", i, what)
		res.Phases = append(res.Phases, ph)
	}
	res.Theta = theta
	res.Guarantee = p.guarantee(n, T, epsT, deltaT)
	return res, rec.Trace(), nil
}

// guarantee is basic composition of T phases at (ε/T, δ/T), each needing
// n ≥ 4κ′+2 and ε̄′ < 1.
func (p PhasedParams) guarantee(n, T int, epsT, deltaT float64) privacy.Guarantee {
	if p.Mode == privacy.NonPrivate {
		return privacy.Guarantee{Eps: math.Inf(1), Mode: p.Mode, Note: "non-private: exact minimisers, no noise"}
	}
	del := mech.DelParams{Eps: epsT, Delta: deltaT, Sens: 1, Kappa: p.Kappa, Mode: p.Mode}
	cal, _ := del.DelCalibration()
	g := privacy.Guarantee{Eps: p.Eps, Delta: p.Delta, Mode: p.Mode,
		Note: fmt.Sprintf("Paper A Thm 4.1: basic composition of %d DelOutputPert calls at (ε/T, δ/T)", T),
		Preconditions: []privacy.Precondition{
			privacy.Require("n ≥ 4κ′+2 in every phase", float64(n), privacy.AtLeast, float64(4*cal.Kappa+2)),
			privacy.Require("ε̄′ = ε/(2T) < 1 (Gaussian-mechanism lemma)", cal.EpsBar, privacy.Below, 1),
		}}
	if p.Kappa != 0 {
		auto, _ := mech.DelParams{Eps: epsT, Delta: deltaT, Sens: 1}.DelCalibration()
		g.Preconditions = append(g.Preconditions, privacy.Require("κ chosen by hand ≥ κ(ε̄′, δ̄′)", float64(p.Kappa), privacy.AtLeast, float64(auto.Kappa)))
	}
	return g
}
