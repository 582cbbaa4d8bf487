package semisens

import (
	"math"

	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/privacy"
)

// The two calibrations of PVMW's Gaussian release.
const (
	// CalPaper is the paper's std s_G = 2σ/n, charged 2/σ² per update: its
	// real cost is 1/(2σ²), a quarter of the charge, so it is private and
	// four times conservative.
	CalPaper = "paper"
	// CalTight is s_G = σ/n, which spends exactly the (1 − ζ)·ρ/L_max the
	// accounting charges.
	CalTight = "tight"
)

// MaxLMax bounds L_max, the updates PVMW pays for.
const MaxLMax = 1_000_000

// Calibration is PVMW's noise, derived from its zCDP budget ρ, the
// updates L_max it pays for, the examples n and the split ζ between the
// test and norm releases (ζ) and the Gaussian (1 − ζ).
type Calibration struct {
	Rule     string  `json:"calibration"`
	Rho      float64 `json:"rho"`
	LMax     int     `json:"lmax"`
	N        int     `json:"n"`
	Zeta     float64 `json:"zeta"`
	RhoInst  float64 `json:"rho_instance"`
	EpsPrime float64 `json:"eps_prime"`
	RhoG     float64 `json:"rho_gaussian"`
	Sigma    float64 `json:"sigma"`
	// BThr, BQuery and BNorm are the Laplace scales of the threshold, of
	// each test and of the error norm's release.
	BThr   float64 `json:"b_thr"`
	BQuery float64 `json:"b_query"`
	BNorm  float64 `json:"b_norm"`
	// SG is the Gaussian's standard deviation per coordinate.
	SG float64 `json:"s_g"`
	// GaussianSpent is the ρ one Gaussian release really costs: RhoG for
	// the tight calibration, RhoG/4 for the paper's.
	GaussianSpent float64        `json:"rho_gaussian_spent"`
	Steps         []privacy.Step `json:"steps"`
}

// Calibrate derives PVMW's noise. zeta 0 means the paper's ½; rule is
// CalPaper or CalTight.
func Calibrate(rho float64, lmax, n int, zeta float64, rule string) (Calibration, error) {
	if zeta == 0 {
		zeta = 0.5
	}
	switch {
	case !(rho > 0) || math.IsInf(rho, 1):
		return Calibration{}, format.Errorf("ρ = %v: the zCDP budget must be a finite number > 0", rho)
	case lmax < 1 || lmax > MaxLMax:
		return Calibration{}, format.Errorf("L_max = %d: PVMW pays for 1 to %d updates", lmax, MaxLMax)
	case n < 1:
		return Calibration{}, format.Errorf("n = %d: give the number of examples, ≥ 1", n)
	case !(zeta > 0 && zeta < 1):
		return Calibration{}, format.Errorf("ζ = %v: the split between the tests and the Gaussian must be in (0, 1)", zeta)
	case rule != CalPaper && rule != CalTight:
		return Calibration{}, format.Errorf("calibration %q: use paper (s_G = 2σ/n, as printed) or tight (s_G = σ/n)", rule)
	}
	c := Calibration{Rule: rule, Rho: rho, LMax: lmax, N: n, Zeta: zeta}
	fn := float64(n)
	c.RhoInst = rho / float64(lmax)
	c.EpsPrime = math.Sqrt(zeta * c.RhoInst)
	c.RhoG = (1 - zeta) * c.RhoInst
	c.Sigma = math.Sqrt(2 / c.RhoG)
	c.BThr = 4 / (c.EpsPrime * fn)
	c.BQuery = 8 / (c.EpsPrime * fn)
	c.BNorm = 2 / (c.EpsPrime * fn)
	sg := "2σ/n"
	c.SG = 2 * c.Sigma / fn
	if rule == CalTight {
		sg = "σ/n"
		c.SG = c.Sigma / fn
	}
	c.GaussianSpent = privacy.GaussianRho(2/fn, c.SG)
	c.Steps = []privacy.Step{
		{Symbol: "ρ_inst", Formula: format.Sprintf("ρ/L_max = %.6g/%d", rho, lmax), Value: c.RhoInst},
		{Symbol: "ε′", Formula: format.Sprintf("√(ζ·ρ_inst) = √(%.6g·%.6g): the test and the norm release, ε′²/2 each", zeta, c.RhoInst), Value: c.EpsPrime},
		{Symbol: "ρ_G", Formula: format.Sprintf("(1 − ζ)·ρ_inst = %.6g·%.6g: the Gaussian's share", 1-zeta, c.RhoInst), Value: c.RhoG},
		{Symbol: "σ", Formula: format.Sprintf("√(2/ρ_G) = √(2/%.6g): the paper charges 2/σ² per Gaussian", c.RhoG), Value: c.Sigma},
		{Symbol: "b_thr", Formula: format.Sprintf("4/(ε′n) = 2Δ/ε′ with Δ = 2/n = %.6g", 2/fn), Value: c.BThr},
		{Symbol: "b_query", Formula: "8/(ε′n) = 4Δ/ε′", Value: c.BQuery},
		{Symbol: "b_norm", Formula: "2/(ε′n) = Δ/ε′", Value: c.BNorm},
		{Symbol: "s_G", Formula: format.Sprintf("%s (%s calibration)", sg, rule), Value: c.SG},
		{Symbol: "ρ spent", Formula: format.Sprintf("Δ²/(2s_G²) = (2/n)²/(2·%.6g²): one Gaussian's real cost, against ρ_G = %.6g charged", c.SG, c.RhoG), Value: c.GaussianSpent},
	}
	return c, nil
}

// RhoPaper is the paper's budget for an (ε, δ) target, ρ = 0.1ε²/ln(1/δ):
// its conversion stays within ε while ε ≤ 3.68·ln(1/δ).
func RhoPaper(eps, delta float64) float64 { return 0.1 * eps * eps / math.Log(1/delta) }

// Rho is the budget for an (ε, δ) target under rule: the paper's
// 0.1ε²/ln(1/δ), or for CalTight the largest ρ whose conversion is ε,
// ρ* = (√(ln(1/δ) + ε) − √(ln(1/δ)))².
func Rho(eps, delta float64, rule string) (float64, error) {
	if err := privacy.CheckEps(eps); err != nil {
		return 0, err
	}
	if err := privacy.CheckDelta(delta); err != nil {
		return 0, err
	}
	if rule == CalTight {
		return privacy.RhoFor(eps, delta), nil
	}
	return RhoPaper(eps, delta), nil
}
