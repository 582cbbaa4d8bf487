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

// Stage1 is Strongly-Convex-ERM/SCO's first release and the ball it fixes
// for the second stage.
type Stage1 struct {
	// Output is θ₀ projected onto 𝒦 (erratum A6), nil for ⊥.
	Output    []float64 `json:"output"`
	Sigma     float64   `json:"sigma"`
	Kappa     int       `json:"kappa"`
	RStar     int       `json:"rstar"`
	Certified bool      `json:"certified"`
	// Radius is R′ = NoiseRadius + SamplingRadius.
	Radius float64 `json:"radius"`
	// NoiseRadius is σ(√d + √(2 ln(1/β))), a (1 − β) bound on the norm of
	// the stage's Gaussian noise (erratum A10).
	NoiseRadius float64 `json:"noise_radius"`
	// SamplingRadius is Prop. B.1's 30G√(ln(2/β))/(μ√(nm)) (erratum A11):
	// how far the sample's minimiser may sit from the population's. Zero
	// for ERM, whose target is the sample's minimiser itself.
	SamplingRadius float64 `json:"sampling_radius"`
}

// KindStage1 is the step where the first stage releases θ₀ and fixes 𝒦′.
const KindStage1 trace.Kind = "stage1.release"

// StronglyConvexERM runs Paper A's Alg. 5, the reduction of Bassily et al.
// (2014), for the Mu-strongly convex (Mu/2)‖θ − x‖²: SCOutputPert at
// (ε/2, δ/2) releases θ₀, whose noise bound R′ fixes 𝒦′ = 𝒦 ∩ B(θ₀, R′);
// Phased-ERM at (ε/2, δ/2) with λ = G√d/(R′n√m) localises inside 𝒦′. On ⊥,
// 𝒦′ = 𝒦 (erratum A6). The proof takes β = 1/(2n²m).
func StronglyConvexERM(ctx cancel.Context, p PhasedParams, data *dataset.Dataset, streams *rng.Streams, progress mech.Progress) (PhasedResult, *trace.Trace, error) {
	return p.stronglyConvex(ctx, false, data, streams, progress)
}

// StronglyConvexSCO runs Alg. 6: as StronglyConvexERM, with R′ widened by
// Prop. B.1's sampling radius and Phased-SCO (disjoint halving batches at
// (ε/2, δ/2) each) as the second stage, λ by erratum A8 with R = R′.
func StronglyConvexSCO(ctx cancel.Context, p PhasedParams, data *dataset.Dataset, streams *rng.Streams, progress mech.Progress) (PhasedResult, *trace.Trace, error) {
	return p.stronglyConvex(ctx, true, data, streams, progress)
}

func (p PhasedParams) stronglyConvex(ctx cancel.Context, sco bool, data *dataset.Dataset, streams *rng.Streams, progress mech.Progress) (PhasedResult, *trace.Trace, error) {
	if p.Loss == mech.LossAbsolute {
		return PhasedResult{}, nil, format.Errorf("the absolute loss is not strongly convex: Strongly-Convex-ERM/SCO need the squared loss (Phased-ERM/SCO take either)")
	}
	n, m, err := p.check(data)
	if err != nil {
		return PhasedResult{}, nil, err
	}
	name, second, thm := "strongly-convex-erm", "Phased-ERM", "4.3"
	if sco {
		name, second, thm = "strongly-convex-sco", "Phased-SCO", "5.3"
	}
	eps, delta := p.Eps/2, p.Delta/2
	d := data.Dim
	l := p.newLoop(name, d, streams)
	sc := mech.SCParams{Eps: eps, Delta: delta, Beta: p.Beta, Mu: p.Mu, RK: p.RK, RX: p.RX, Rule: p.Rule, Mode: p.Mode, Kappa: p.Kappa}
	first, _, err := mech.SCOutputPert(ctx, sc, data, streams, progress)
	if err != nil {
		return PhasedResult{}, nil, format.Errorf("stage 1: %w", err)
	}
	st := &Stage1{Sigma: first.Law.Sigma, Kappa: first.Law.Kappa, RStar: first.Law.RStar, Certified: first.Law.Certified,
		NoiseRadius: first.Law.Sigma * (math.Sqrt(float64(d)) + math.Sqrt(2*math.Log(1/p.Beta)))}
	if sco {
		st.SamplingRadius = 30 * p.G() * math.Sqrt(math.Log(2/p.Beta)) / (p.Mu * math.Sqrt(float64(n*m)))
	}
	st.Radius = st.NoiseRadius + st.SamplingRadius
	if p.Mode != privacy.NonPrivate {
		if err := l.spend("stage 1", eps, delta, "", "all users"); err != nil {
			return PhasedResult{}, nil, err
		}
		for _, pre := range first.Guarantee.Preconditions {
			pre.What = "stage 1: " + pre.What
			l.pre = append(l.pre, pre)
		}
	}
	what := "⊥: 𝒦′ = 𝒦, the second stage starts from its centre"
	if first.Output != nil {
		st.Output, _ = l.dom.Project(first.Output, first.Output) // erratum A6
		l.theta = append([]float64(nil), st.Output...)
		what = format.Sprintf("θ₀ = %v (σ = %.4g); 𝒦′ = 𝒦 ∩ B(θ₀, R′ = %.4g)", trace.Vec(st.Output), st.Sigma, st.Radius)
		if st.Radius > 0 {
			l.dom = append(l.dom, loss.Ball{Centre: st.Output, Radius: st.Radius})
		}
	}
	l.rec.Addf(KindStage1, st, "stage 1, SCOutputPert at (ε/2, δ/2): %s", what)
	l.res.Stage1 = st
	note := format.Sprintf("Paper A Thm %s: SCOutputPert at (ε/2, δ/2), then %s at (ε/2, δ/2), by basic composition", thm, second)
	if st.Radius == 0 { // non-private ERM: θ₀ is the exact minimiser, 𝒦′ a point
		return l.finish(p, note)
	}
	var plan []phasePlan
	lambda := p.Lambda
	if sco {
		var n0 int
		if plan, n0, err = p.scoPlan(data, eps, delta); err != nil {
			return PhasedResult{}, nil, err
		}
		if lambda == 0 {
			lambda = scoLambda(p.G(), st.Radius, d, n, m)
		}
		l.firstBatch(p, n, n0)
	} else {
		T := p.Phases
		if T == 0 {
			T = int(math.Ceil(math.Log2(float64(n * m))))
		}
		plan = ermPlan(data, T, eps, delta)
		if lambda == 0 {
			lambda = p.G() * math.Sqrt(float64(d)) / (st.Radius * float64(n) * math.Sqrt(float64(m)))
		}
	}
	if err := l.phases(ctx, p, plan, lambda, progress); err != nil {
		return PhasedResult{}, nil, err
	}
	return l.finish(p, note)
}
