package audit

import (
	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/mech"
	"github.com/uldplab/uldp/core/privacy"
)

// The Gaussian mechanism's σ rules the audit compares: the exact one, and
// the classical formula used where its proof does not reach.
const (
	// GaussianAnalytic is the smallest σ that is (ε, δ)-DP at any ε.
	GaussianAnalytic = "analytic"
	// GaussianClassical is σ = √(2 ln(1.25/δ))·Δ/ε, proven for ε < 1 only:
	// the mutant "classical Gaussian σ used at ε = 3".
	GaussianClassical = "classical-sigma"
)

// GaussianMechSigma returns the Gaussian mechanism's σ for a query of ℓ₂
// sensitivity sens under rule.
func GaussianMechSigma(rule string, eps, delta, sens float64) (float64, error) {
	var cal privacy.Calibration
	var err error
	switch rule {
	case GaussianAnalytic:
		cal, err = privacy.AnalyticGaussianSigma(eps, delta, sens)
	case GaussianClassical:
		cal, err = privacy.GaussianSigma(eps, delta, sens)
	default:
		return 0, format.Errorf("σ rule %q: use %s or %s", rule, GaussianAnalytic, GaussianClassical)
	}
	return cal.Scale, err
}

// GaussianLaw is the Gaussian mechanism's output law on a query answer,
// N(answer, σ²I): a DelLaw that never outputs ⊥, so Curve and
// DelOutputPertDelta audit it unchanged.
func GaussianLaw(answer []float64, sigma float64) mech.DelLaw {
	return mech.DelLaw{Sigma: sigma, Centre: answer, Mean: answer}
}
