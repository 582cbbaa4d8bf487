package privacy

import (
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/noise"
)

// Step is one line of a derivation: Symbol = Formula = Value.
type Step struct {
	Symbol  string  `json:"symbol"`
	Formula string  `json:"formula"`
	Value   float64 `json:"value"`
}

// Calibration is a noise scale with the formula that produced it, the range
// where that formula is proven, and every step of the derivation.
type Calibration struct {
	Mechanism string  `json:"mechanism"`
	Formula   string  `json:"formula"`
	Symbol    string  `json:"symbol"` // "b" for Laplace, "σ" for Gaussians
	Scale     float64 `json:"scale"`
	Eps       float64 `json:"eps"`
	Delta     float64 `json:"delta"` // 0 for pure ε-DP mechanisms
	Sens      float64 `json:"sens"`
	Validity  string  `json:"validity"`
	Valid     bool    `json:"valid"`
	// Warning explains an invalid use in numbers, e.g. the δ actually
	// achieved by the classical Gaussian σ outside ε < 1.
	Warning string `json:"warning,omitempty"`
	Steps   []Step `json:"steps"`
}

// Mechanism names accepted by Calibrate.
const (
	MechLaplace          = "laplace"
	MechGaussian         = "gaussian"
	MechAnalyticGaussian = "analytic-gaussian"
	MechDelOutputPert    = "deloutputpert"
)

// calibrators maps each mechanism name to its calibration, so every front end
// offers the same list.
var calibrators = map[string]func(eps, delta, sens float64) (Calibration, error){
	MechLaplace:          func(eps, _, sens float64) (Calibration, error) { return LaplaceScale(eps, sens) },
	MechGaussian:         GaussianSigma,
	MechAnalyticGaussian: AnalyticGaussianSigma,
	MechDelOutputPert: func(eps, delta, sens float64) (Calibration, error) {
		c, err := DelOutputPert(eps, delta, sens)
		return c.Calibration, err
	},
}

// Spend is one release calibrated by c, as composition should know it. A
// Laplace release is pure ε-DP. A Gaussian one carries its exact ρ =
// Δ²/(2σ²), and its δ at ε is the mechanism's true δ where the formula's
// claim falls short of it (the classical σ outside ε < 1). A DelOutputPert
// release is (ε, δ)-DP and nothing more: its ⊥ outcome is no Gaussian's.
func (c Calibration) Spend(label string) Spend {
	switch c.Mechanism {
	case MechLaplace:
		return Spend{Label: label, Eps: c.Eps}
	case MechGaussian, MechAnalyticGaussian:
		delta := math.Max(c.Delta, GaussianDelta(c.Eps, c.Sens, c.Scale))
		return GaussianStep(label, c.Eps, delta, c.Scale/c.Sens)
	}
	return Spend{Label: label, Eps: c.Eps, Delta: c.Delta}
}

// Calibrate looks the mechanism up by name and calibrates it.
func Calibrate(mech string, eps, delta, sens float64) (Calibration, error) {
	f, ok := calibrators[mech]
	if !ok {
		return Calibration{}, format.Errorf("mechanism %q: use one of %s", mech, strings.Join(CalibratorNames(), ", "))
	}
	c, err := f(eps, delta, sens)
	if err == nil {
		err = c.finite()
	}
	return c, err
}

// finite refuses a calibration whose scale or a value of its derivation is
// not a finite number (Δ = 10³⁰⁸ at ε = 10⁻³⁰⁰, say): no noise can be drawn
// at such a scale, and no front end can show or send it.
func (c Calibration) finite() error {
	bad := func(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }
	what, v := c.Formula, c.Scale
	for _, s := range c.Steps {
		if bad(s.Value) {
			what, v = s.Symbol+" = "+s.Formula, s.Value
			break
		}
	}
	if !bad(v) {
		return nil
	}
	return format.Errorf("%s comes to %v at ε = %g, δ = %g, Δ = %g: not a finite number, so no noise can be drawn; use a larger ε or δ, or a smaller Δ",
		what, v, c.Eps, c.Delta, c.Sens)
}

// CalibratorNames returns the mechanisms Calibrate knows, sorted.
func CalibratorNames() []string {
	return slices.Sorted(maps.Keys(calibrators))
}

// LaplaceScale returns b = Δ/ε: Lap(b) noise on an ℓ₁-sensitivity-Δ query is
// ε-DP for every ε > 0.
func LaplaceScale(eps, sens float64) (Calibration, error) {
	if err := firstErr(CheckEps(eps), CheckSens(sens)); err != nil {
		return Calibration{}, err
	}
	b := sens / eps
	return Calibration{
		Mechanism: MechLaplace, Formula: "b = Δ/ε", Symbol: "b", Scale: b,
		Eps: eps, Sens: sens, Validity: "any ε > 0 (pure ε-DP; Δ is the ℓ₁ sensitivity)", Valid: true,
		Steps: []Step{{"b", "Δ/ε", b}},
	}, nil
}

// GaussianSigma returns the classical σ = √(2 ln(1.25/δ))·Δ/ε of Dwork & Roth
// (2014, Thm A.1), proven for ε < 1 only. Outside that range the result is
// marked invalid and Warning gives the δ it really achieves at ε.
func GaussianSigma(eps, delta, sens float64) (Calibration, error) {
	if err := firstErr(CheckEps(eps), CheckDelta(delta), CheckSens(sens)); err != nil {
		return Calibration{}, err
	}
	c := math.Sqrt(2 * math.Log(1.25/delta))
	sigma := c * sens / eps
	cal := Calibration{
		Mechanism: MechGaussian, Formula: "σ = √(2 ln(1.25/δ))·Δ/ε", Symbol: "σ", Scale: sigma,
		Eps: eps, Delta: delta, Sens: sens,
		Validity: "ε < 1 (Dwork & Roth 2014, Thm A.1); Δ is the ℓ₂ sensitivity",
		Valid:    eps < 1,
		Steps:    []Step{{"c", "√(2 ln(1.25/δ))", c}, {"σ", "c·Δ/ε", sigma}},
	}
	if !cal.Valid {
		real := GaussianDelta(eps, sens, sigma)
		cal.Warning = format.Sprintf("ε = %g ≥ 1 is outside the classical formula's proof; at this σ the mechanism is (ε, δ)-DP only for δ ≥ %.3g (exact profile)", eps, real)
		if real <= delta {
			cal.Warning += format.Sprintf(", which happens to be ≤ the requested %g", delta)
		} else {
			cal.Warning += format.Sprintf(", more than the requested %g: use analytic-gaussian", delta)
		}
	}
	return cal, nil
}

// AnalyticGaussianSigma returns the smallest σ for which N(0, σ²) noise on an
// ℓ₂-sensitivity-Δ query is (ε, δ)-DP, for any ε > 0 (Balle & Wang 2018): the
// root of GaussianDelta(ε, Δ, σ) = δ, found by bisection to 1e-14 relative.
func AnalyticGaussianSigma(eps, delta, sens float64) (Calibration, error) {
	if err := firstErr(CheckEps(eps), CheckDelta(delta), CheckSens(sens)); err != nil {
		return Calibration{}, err
	}
	// δ(σ) decreases in σ, and σ scales with Δ: solve for Δ = 1.
	lo, hi := 1.0, 1.0
	for GaussianDelta(eps, 1, hi) > delta {
		hi *= 2
	}
	for GaussianDelta(eps, 1, lo) <= delta && lo > 1e-300 {
		lo /= 2
	}
	for i := 0; i < 200 && hi-lo > 1e-14*hi; i++ {
		mid := lo + (hi-lo)/2
		if GaussianDelta(eps, 1, mid) > delta {
			lo = mid
		} else {
			hi = mid
		}
	}
	sigma := hi * sens
	return Calibration{
		Mechanism: MechAnalyticGaussian,
		Formula:   "smallest σ with Φ(Δ/2σ − εσ/Δ) − e^ε·Φ(−Δ/2σ − εσ/Δ) ≤ δ",
		Symbol:    "σ", Scale: sigma, Eps: eps, Delta: delta, Sens: sens,
		Validity: "any ε > 0 (exact; Balle & Wang 2018, Thm 8)", Valid: true,
		Steps: []Step{
			{"σ/Δ", "root of δ(ε; σ/Δ) = δ by bisection", hi},
			{"σ", "(σ/Δ)·Δ", sigma},
			{"δ(ε; σ)", "Φ(Δ/2σ − εσ/Δ) − e^ε·Φ(−Δ/2σ − εσ/Δ)", GaussianDelta(eps, sens, sigma)},
		},
	}, nil
}

// GaussianDelta is the exact privacy profile of the Gaussian mechanism: the
// smallest δ for which adding N(0, σ²I) to a query of ℓ₂ sensitivity Δ is
// (ε, δ)-DP. It is GaussianHockeyStick(1, e^ε, Δ/σ), evaluated in log space so
// that large ε does not overflow.
func GaussianDelta(eps, sens, sigma float64) float64 {
	d := sens / sigma
	a := d/2 - eps/d
	b := -d/2 - eps/d
	v := noise.Phi(a) - math.Exp(eps+noise.LogPhi(b))
	return math.Max(v, 0)
}

// GaussianHockeyStick returns sup_E (a·P(E) − b·Q(E)) for P = N(u, σ²I) and
// Q = N(u′, σ²I) with shift = ‖u − u′‖/σ, a ≥ 0, b ≥ 0 (spec 000-002 §2.4):
// a·Φ(z₀) − b·Φ(z₀ − shift) with z₀ = shift/2 + ln(a/b)/shift. The audits use
// it with a, b the non-⊥ masses of two output laws.
func GaussianHockeyStick(a, b, shift float64) float64 {
	switch {
	case a <= 0:
		return 0
	case b <= 0:
		return a
	case shift == 0:
		return math.Max(0, a-b)
	}
	z0 := shift/2 + math.Log(a/b)/shift
	return math.Max(0, a*noise.Phi(z0)-b*noise.Phi(z0-shift))
}

// DelCalibration is DelOutputPert's full parameter chain (spec 000-002 §A-1).
type DelCalibration struct {
	Calibration
	EpsBar   float64 `json:"eps_bar"`
	DeltaBar float64 `json:"delta_bar"`
	Kappa    int     `json:"kappa"`
	// Notes list the paper's standing assumptions and whether they hold.
	Notes []Precondition `json:"notes"`
}

// DelOutputPert returns ε̄ = ε/2, δ̄ = δ/(e^ε̄ + 2) (erratum A1), κ = κ(ε̄, δ̄)
// and σ = 16κΔ√(ln(2/δ̄))/ε̄ (erratum A2) for target deletion sensitivity Δ.
// The Gaussian step is proven for ε̄ < 1, i.e. ε < 2.
func DelOutputPert(eps, delta, sens float64) (DelCalibration, error) {
	if err := firstErr(CheckEps(eps), CheckDelta(delta), CheckSens(sens)); err != nil {
		return DelCalibration{}, err
	}
	epsBar := eps / 2
	deltaBar := delta / (math.Exp(epsBar) + 2)
	kappa, err := noise.TDLapKappa(epsBar, deltaBar)
	if err != nil {
		return DelCalibration{}, err
	}
	k := float64(kappa)
	root := math.Sqrt(math.Log(2 / deltaBar))
	sigma := 16 * k * sens * root / epsBar
	cal := DelCalibration{
		Calibration: Calibration{
			Mechanism: MechDelOutputPert, Formula: "σ = 16κΔ√(ln(2/δ̄))/ε̄", Symbol: "σ", Scale: sigma,
			Eps: eps, Delta: delta, Sens: sens,
			Validity: "ε̄ < 1, i.e. ε < 2 (the Gaussian-mechanism lemma of Dwork & Roth 2014, Thm A.1)",
			Valid:    epsBar < 1,
			Steps: []Step{
				{"ε̄", "ε/2", epsBar},
				{"δ̄", "δ/(e^ε̄ + 2)", deltaBar},
				{"κ", "1 + ⌈ln(1/δ̄)/ε̄⌉", k},
				{"2κ", "largest R1 (TDLap support {0..2κ})", 2 * k},
				{"4κ", "deletion depth of the stability test", 4 * k},
				{"8κΔ", "sensitivity of the released centre", 8 * k * sens},
				{"σ", "2√(ln(2/δ̄))·8κΔ/ε̄", sigma},
			},
		},
		EpsBar: epsBar, DeltaBar: deltaBar, Kappa: kappa,
		Notes: []Precondition{
			Require("ε ≤ 1 (Paper A's standing assumption)", eps, AtMost, 1),
			Require("δ ≤ 1/2 (Paper A's standing assumption)", delta, AtMost, 0.5),
			Require("ε̄ < 1 (Gaussian-mechanism lemma)", epsBar, Below, 1),
		},
	}
	if !cal.Valid {
		cal.Warning = format.Sprintf("ε̄ = %g ≥ 1: the Gaussian step of Theorem 3.3 is outside the proven regime (the spec's P1 preset does this on purpose)", epsBar)
	}
	return cal, nil
}

// Explain calibrates mech as the command line and the HTTP API report it:
// for DelOutputPert its whole chain (a DelCalibration), for the others the
// Calibration. cal and notes are what a text report needs besides.
func Explain(mech string, eps, delta, sens float64) (report any, cal Calibration, notes []Precondition, err error) {
	if mech == MechDelOutputPert {
		c, err := DelOutputPert(eps, delta, sens)
		if err == nil {
			err = c.finite()
		}
		return c, c.Calibration, c.Notes, err
	}
	c, err := Calibrate(mech, eps, delta, sens)
	return c, c, nil, err
}
