package optim

import (
	"math"

	"github.com/uldplab/uldp/core/cancel"
	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/mech"
	"github.com/uldplab/uldp/core/noise"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/core/trace"
)

// The plain Gaussian DP-SGDs Paper B improves on, for side-by-side runs:
// every step releases the mean of all gradients plus N(0, σ²I), σ set by
// zCDP composition of T steps at (ε, δ) for the sensitivity of one item or
// one user.
const (
	// BaselineItem protects one item: a changed item moves the mean of the
	// nm gradients by at most 2G/(nm). A user holds m items, so the same
	// numbers protect a user only at about m·ε (group privacy).
	BaselineItem = "item-level"
	// BaselineUser protects one user, paying the worst case: a changed
	// user moves the mean by up to 2G/n, however concentrated users are.
	BaselineUser = "user-level-gaussian"
)

// BaselineSigma returns the per-step σ for kind with n users of m items, a
// G-Lipschitz loss and T steps.
func BaselineSigma(kind string, eps, delta, g float64, n, m, steps int) (float64, error) {
	sens := 2 * g / float64(n)
	switch kind {
	case BaselineItem:
		sens /= float64(m)
	case BaselineUser:
	default:
		return 0, format.Errorf("baseline %q: use %s or %s", kind, BaselineItem, BaselineUser)
	}
	rho := privacy.RhoFor(eps, delta)
	return sens * math.Sqrt(float64(steps)/(2*rho)), nil
}

// BaselineDPSGD runs the Gaussian baseline of kind on the same steps,
// smoothing and seed as DPSGD with the same parameters would (only the
// mean estimate differs), for a G-Lipschitz loss. Mode NonPrivate adds no
// noise.
func BaselineDPSGD(ctx cancel.Context, kind string, g float64, p DPSGDParams, data *dataset.Dataset, streams *rng.Streams, progress mech.Progress) (DPSGDResult, *trace.Trace, error) {
	n, m, err := p.check(data)
	if err != nil {
		return DPSGDResult{}, nil, err
	}
	var res DPSGDResult
	if res.ORME.Sigma, res.Guarantee, err = BaselineGuarantee(kind, g, p, n, m); err != nil {
		return DPSGDResult{}, nil, err
	}
	sigma := res.ORME.Sigma
	gauss := noise.Gaussian{Sigma: sigma, Src: streams.Get(rng.Gauss)}
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	estimate := func(values [][]float64) (mech.ORMEStep, error) {
		st := mech.ORMEStep{Passed: true, PPass: 1, Kept: all}
		st.Mean = make([]float64, data.Dim)
		for _, v := range values {
			for k, x := range v {
				st.Mean[k] += x / float64(n)
			}
		}
		st.AllMean = st.Mean
		st.Output = gauss.RandVec(make([]float64, data.Dim))
		for k := range st.Output {
			st.Output[k] += st.Mean[k]
		}
		return st, nil
	}
	return p.descend(ctx, data, streams, progress, p.recorder(kind+" dp-sgd", streams), estimate, res)
}

// BaselineGuarantee is what a baseline run on n users of m items promises
// and the noise per step it adds for it, before it runs: what a copy that
// adopts another's run derives for itself.
func BaselineGuarantee(kind string, g float64, p DPSGDParams, n, m int) (sigma float64, _ privacy.Guarantee, _ error) {
	sigma, err := BaselineSigma(kind, p.Eps, p.Delta, g, n, m, p.Steps)
	if err != nil {
		return 0, privacy.Guarantee{}, err
	}
	gu := privacy.Guarantee{Eps: p.Eps, Delta: p.Delta, Mode: p.Mode,
		Note: format.Sprintf("%s Gaussian DP-SGD: %d steps, zCDP composition, σ = %.4g per step", kind, p.Steps, sigma)}
	if kind == BaselineItem {
		gu.Preconditions = append(gu.Preconditions, privacy.Fact("protects users, not only items (it protects one item; a user's m items cost about m·ε)", false))
	}
	if p.Mode == privacy.NonPrivate {
		return 0, privacy.Guarantee{Eps: math.Inf(1), Mode: p.Mode, Note: "non-private: the mean of the gradients, no noise"}, nil
	}
	return sigma, gu, nil
}
