package privacy

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/integrate/quad"
)

func near(t *testing.T, what string, got, want, rel float64) {
	t.Helper()
	if !(math.Abs(got-want) <= rel*math.Abs(want)) {
		t.Errorf("%s = %.12g, want %.12g (relative tolerance %g)", what, got, want, rel)
	}
}

// Spec 000-002 §9.1 (δ̄ printed to 7 significant digits, σ/Δ to 2 decimals).
func TestDelOutputPertGoldenTable(t *testing.T) {
	for _, row := range []struct {
		eps, delta, deltaBar float64
		kappa                int
		sigmaOverSens        float64
	}{
		{1, 1e-5, 2.740686e-6, 27, 3174.59},
		{1, 1e-3, 2.740686e-4, 18, 1717.92},
		{1, 0.5, 1.370343e-1, 5, 261.96},
		{0.5, 1e-5, 3.045043e-6, 52, 12180.27},
		{4, 0.2, 2.130140e-2, 3, 51.15},
		{8, 0.1, 1.766842e-3, 3, 31.82},
	} {
		c, err := DelOutputPert(row.eps, row.delta, 1)
		if err != nil {
			t.Fatal(err)
		}
		near(t, "ε̄", c.EpsBar, row.eps/2, 0)
		// Half a unit in the 7th significant digit, as printed.
		if ulp7 := math.Pow(10, math.Floor(math.Log10(row.deltaBar))-6); !(math.Abs(c.DeltaBar-row.deltaBar) <= ulp7/2) {
			t.Errorf("ε=%v δ=%v: δ̄ = %.7g, spec %.7g", row.eps, row.delta, c.DeltaBar, row.deltaBar)
		}
		if c.Kappa != row.kappa {
			t.Errorf("ε=%v δ=%v: κ = %d, spec %d", row.eps, row.delta, c.Kappa, row.kappa)
		}
		if !(math.Abs(c.Scale-row.sigmaOverSens) <= 0.005) {
			t.Errorf("ε=%v δ=%v: σ/Δ = %.4f, spec %.2f", row.eps, row.delta, c.Scale, row.sigmaOverSens)
		}
		// The formulas themselves to 1e-12.
		near(t, "δ̄ formula", c.DeltaBar, row.delta/(math.Exp(row.eps/2)+2), 1e-15)
		near(t, "σ formula", c.Scale, 16*float64(c.Kappa)*math.Sqrt(math.Log(2/c.DeltaBar))/(row.eps/2), 1e-15)
		if c.Valid != (row.eps < 2) {
			t.Errorf("ε=%v: Valid = %v, want ε < 2", row.eps, c.Valid)
		}
	}
	// Preset P1: Δ = 0.1 ⇒ σ = 3.182084.
	c, _ := DelOutputPert(8, 0.1, 0.1)
	if !(math.Abs(c.Scale-3.182084) <= 0.5e-6) {
		t.Errorf("P1 σ = %.7f, spec 3.182084", c.Scale)
	}
	if c.Warning == "" || len(c.Notes) != 3 || c.Notes[0].Met {
		t.Errorf("P1 is outside the proven regime and must say so: %+v", c.Notes)
	}
}

func TestLaplaceAndClassicalGaussian(t *testing.T) {
	l, err := LaplaceScale(0.5, 2)
	if err != nil || l.Scale != 4 || !l.Valid {
		t.Fatalf("LaplaceScale(0.5, 2) = %+v, %v", l, err)
	}
	g, _ := GaussianSigma(0.5, 1e-5, 1)
	near(t, "classical σ", g.Scale, math.Sqrt(2*math.Log(1.25e5))/0.5, 1e-15)
	if !g.Valid || g.Warning != "" {
		t.Errorf("classical Gaussian at ε = 0.5 should be valid: %+v", g)
	}
	// At ε = 1 the proof no longer applies.
	if g, _ := GaussianSigma(1, 1e-5, 1); g.Valid || !strings.Contains(g.Warning, "outside") {
		t.Errorf("classical Gaussian at ε = 1 must be flagged: %+v", g)
	}
	// At ε = 10, δ = 0.3 the classical σ really is too small: its exact δ is ≈ 0.86.
	g, _ = GaussianSigma(10, 0.3, 1)
	if real := GaussianDelta(10, 1, g.Scale); real <= 0.3 || !strings.Contains(g.Warning, "use analytic-gaussian") {
		t.Errorf("classical σ at ε=10, δ=0.3: exact δ %v, warning %q", real, g.Warning)
	}
}

// hockeyStickQuad computes sup_E P(E) − e^ε Q(E) for P = N(0, σ²), Q = N(Δ, σ²)
// by integrating p − e^ε q over {p > e^ε q} = (−∞, Δ/2 − εσ²/Δ) with
// Gauss–Legendre quadrature on the densities: no Φ, no shared code.
func hockeyStickQuad(eps, sens, sigma float64) float64 {
	x0 := sens/2 - eps*sigma*sigma/sens
	dens := func(x, mu float64) float64 {
		z := (x - mu) / sigma
		return math.Exp(-z*z/2) / (sigma * math.Sqrt(2*math.Pi))
	}
	f := func(x float64) float64 { return dens(x, 0) - math.Exp(eps)*dens(x, sens) }
	var total float64
	// Panels of one σ each over 40σ to the left of x0.
	for k := 0; k < 40; k++ {
		a, b := x0-float64(k+1)*sigma, x0-float64(k)*sigma
		total += quad.Fixed(f, a, b, 64, quad.Legendre{}, 0)
	}
	return total
}

func TestAnalyticGaussianAgainstExactProfile(t *testing.T) {
	for _, p := range []struct{ eps, delta, sens float64 }{
		{0.1, 1e-6, 1}, {0.5, 1e-5, 1}, {1, 1e-5, 2}, {3, 1e-3, 1}, {10, 1e-8, 0.5}, {0.05, 0.2, 1},
	} {
		c, err := AnalyticGaussianSigma(p.eps, p.delta, p.sens)
		if err != nil {
			t.Fatal(err)
		}
		// The root: the profile at σ equals δ (independent quadrature).
		near(t, "δ(σ*) by quadrature", hockeyStickQuad(p.eps, p.sens, c.Scale), p.delta, 1e-8)
		near(t, "δ(σ*) closed form", GaussianDelta(p.eps, p.sens, c.Scale), p.delta, 1e-9)
		// Minimality: a slightly smaller σ is no longer (ε, δ)-DP.
		if hockeyStickQuad(p.eps, p.sens, c.Scale*(1-1e-6)) <= p.delta {
			t.Errorf("ε=%v δ=%v: σ* is not the smallest valid σ", p.eps, p.delta)
		}
		if p.eps < 1 {
			g, _ := GaussianSigma(p.eps, p.delta, p.sens)
			if c.Scale > g.Scale {
				t.Errorf("ε=%v: analytic σ %v exceeds the classical %v", p.eps, c.Scale, g.Scale)
			}
		}
	}
}

func TestGaussianHockeyStick(t *testing.T) {
	if GaussianHockeyStick(0, 1, 1) != 0 || GaussianHockeyStick(0.3, 0, 1) != 0.3 || GaussianHockeyStick(0.5, 0.2, 0) != 0.3 {
		t.Error("edge cases (a = 0, b = 0, no shift) wrong")
	}
	// a = 1, b = e^ε is the Gaussian privacy profile.
	near(t, "HS(1, e^ε, Δ/σ)", GaussianHockeyStick(1, math.Exp(2), 1/1.3), GaussianDelta(2, 1, 1.3), 1e-12)
	near(t, "profile vs quadrature", GaussianDelta(2, 1, 1.3), hockeyStickQuad(2, 1, 1.3), 1e-9)
	// GaussianDelta survives ε far past exp overflow.
	if v := GaussianDelta(800, 1, 0.01); math.IsNaN(v) || v < 0 || v > 1 {
		t.Errorf("GaussianDelta(800, …) = %v", v)
	}
}

func TestCalibrateDispatch(t *testing.T) {
	for _, name := range CalibratorNames() {
		c, err := Calibrate(name, 0.5, 1e-5, 1)
		if err != nil || c.Mechanism != name || len(c.Steps) == 0 || c.Formula == "" || c.Validity == "" {
			t.Errorf("Calibrate(%q) = %+v, %v", name, c, err)
		}
	}
	if _, err := Calibrate("nope", 1, 1e-5, 1); err == nil || !strings.Contains(err.Error(), "analytic-gaussian") {
		t.Errorf("unknown mechanism error should list the choices: %v", err)
	}
	for _, bad := range []struct{ eps, delta, sens float64 }{
		{0, 1e-5, 1}, {1, 0, 1}, {1, 1, 1}, {1, 1e-5, 0}, {math.NaN(), 1e-5, 1}, {1, 1e-5, math.Inf(1)},
	} {
		if _, err := Calibrate(MechGaussian, bad.eps, bad.delta, bad.sens); err == nil {
			t.Errorf("accepted ε=%v δ=%v Δ=%v", bad.eps, bad.delta, bad.sens)
		}
	}
}

// Inputs that each pass their own check but whose calibration overflows
// are refused with the value that overflowed, by every mechanism and by
// Explain (which the CLI and the API use), never returned as +Inf.
func TestCalibrateRefusesNonFiniteScales(t *testing.T) {
	for _, c := range []struct {
		mech             string
		eps, delta, sens float64
		want             string
	}{
		{MechLaplace, 5e-324, 0, 1, "b = Δ/ε comes to +Inf"},
		{MechLaplace, 1e-300, 0, 1e308, "b = Δ/ε comes to +Inf"},
		{MechGaussian, 1, 5e-324, 1, "c = √(2 ln(1.25/δ)) comes to +Inf"},
		{MechGaussian, 1e-300, 1e-5, 1e308, "comes to +Inf"},
		{MechAnalyticGaussian, 1e-300, 1e-5, 1e308, "comes to +Inf"},
		{MechDelOutputPert, 1, 1e-5, 1e308, "8κΔ = sensitivity of the released centre comes to +Inf"},
	} {
		_, _, _, err := Explain(c.mech, c.eps, c.delta, c.sens)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "not a finite number") {
			t.Errorf("Explain(%s, ε=%g, δ=%g, Δ=%g): %v, want an error saying %q", c.mech, c.eps, c.delta, c.sens, err, c.want)
		}
		if c.mech != MechDelOutputPert {
			if cal, err := Calibrate(c.mech, c.eps, c.delta, c.sens); err == nil {
				t.Errorf("Calibrate(%s, ε=%g, δ=%g, Δ=%g) = %v, no error", c.mech, c.eps, c.delta, c.sens, cal.Scale)
			}
		}
	}
	// The largest values that stay finite still calibrate.
	if c, err := Calibrate(MechLaplace, 1e-300, 0, 1e7); err != nil || c.Scale != 1e307 {
		t.Errorf("b = 10⁷/10⁻³⁰⁰: %v, %v", c.Scale, err)
	}
}

// The classical Gaussian σ = √(2 ln(1.25/δ))·Δ/ε is proven for ε < 1 only,
// but by the exact profile it still gives (ε, δ)-DP at ε = 3 for every
// δ ∈ (0, 1): it first fails between ε = 3 and ε = 5. So "classical σ used at
// ε = 3" is not a privacy bug an audit could catch; at ε = 10 it is.
func TestClassicalGaussianHoldsAtEps3FailsLater(t *testing.T) {
	worst := func(eps float64) (ratio, at float64) {
		for k := 1; k < 2000; k++ {
			delta := math.Pow(10, -12+12*float64(k)/2000) * 0.999
			c, err := GaussianSigma(eps, delta, 1)
			if err != nil {
				t.Fatal(err)
			}
			if r := GaussianDelta(eps, 1, c.Scale) / delta; r > ratio {
				ratio, at = r, delta
			}
		}
		return
	}
	if r, at := worst(3); r > 1 {
		t.Errorf("ε = 3: real δ exceeds the requested δ by %.3g at δ = %.3g", r, at)
	}
	if r, _ := worst(5); r <= 1 {
		t.Errorf("ε = 5: expected some δ where the classical σ fails, worst ratio %.3g", r)
	}
	if r, _ := worst(10); r < 4 {
		t.Errorf("ε = 10: worst ratio %.3g, expected ≈ 4.3", r)
	}
}
