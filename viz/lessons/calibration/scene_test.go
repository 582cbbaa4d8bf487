package calibration

import (
	"math"
	"strings"
	"testing"

	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/internal/scenetest"
)

func TestCalibrationMatchesCore(t *testing.T) {
	c := New()
	a := viz.NewApp(c)
	for _, mech := range privacy.CalibratorNames() {
		scenetest.MustSet(t, a, "mech", mech)
		want, err := privacy.Calibrate(mech, c.eps, c.delta, 2*c.radius/float64(c.n))
		if err != nil {
			t.Fatal(err)
		}
		if got := scenetest.ReadoutValue(a, "user-scale"); got != want.Scale {
			t.Errorf("%s: user-level scale %v, core says %v", mech, got, want.Scale)
		}
		// Every formula here is linear in Δ, so the ratio is exactly m.
		if got := scenetest.ReadoutValue(a, "ratio"); !(math.Abs(got-float64(c.m)) <= 1e-9*float64(c.m)) {
			t.Errorf("%s: user ÷ item = %v, want m = %d", mech, got, c.m)
		}
	}
}

func TestCalibrationWarnsOutsideTheProof(t *testing.T) {
	a := viz.NewApp(New())
	scenetest.MustSet(t, a, "mech", privacy.MechGaussian)
	scenetest.MustSet(t, a, "eps", "3")
	warned := false
	for _, r := range a.Readouts() {
		if r.Name == "validity" && r.Warn {
			warned = true
		}
	}
	if !warned || a.Guarantee().Certified() {
		t.Error("classical Gaussian at ε = 3 must be flagged and not certified")
	}
	found := false
	for _, it := range scenetest.Frame(a).Items {
		if it.Kind == viz.Text && strings.HasPrefix(it.Text, "NOT proven") && it.Style.Fill == viz.VermillionText {
			found = true
		}
	}
	if !found {
		t.Error("the figure does not show the warning")
	}
	scenetest.MustSet(t, a, "mech", privacy.MechAnalyticGaussian)
	if !a.Guarantee().Certified() {
		t.Error("the analytic Gaussian at ε = 3 is proven")
	}
}

func TestCalibrationComposition(t *testing.T) {
	c := New()
	a := viz.NewApp(c)
	scenetest.MustSet(t, a, "eps", "0.1")
	scenetest.MustSet(t, a, "k", "100")
	scenetest.MustSet(t, a, "rule", "advanced")
	scenetest.MustSet(t, a, "slack", "1e-5")
	g, _ := privacy.AnalyticGaussianSigma(0.1, c.delta, 1)
	want, _ := privacy.Compose(privacy.Advanced, privacy.GaussianStep("", 0.1, c.delta, g.Scale), 100, 1e-5)
	if got := a.Guarantee().Eps; got != want.Total.Eps {
		t.Errorf("total ε %v, core says %v", got, want.Total.Eps)
	}
	// Under zCDP the analytic Gaussian's releases enter with their real ρ
	// and add no δ; DelOutputPert's are generic (ε, δ) and add theirs.
	scenetest.MustSet(t, a, "rule", "zcdp")
	if got := a.Guarantee(); !(math.Abs(got.Eps-privacy.ZCDPToDP(100/(2*g.Scale*g.Scale), 1e-5)) <= 1e-12) || got.Delta != 1e-5 {
		t.Errorf("zCDP of 100 analytic Gaussian releases: %v", got)
	}
	scenetest.MustSet(t, a, "mech", privacy.MechDelOutputPert)
	if got := a.Guarantee(); !(math.Abs(got.Eps-privacy.ZCDPToDP(100*0.01/2, 1e-5)) <= 1e-12) || !(math.Abs(got.Delta-(100*c.delta+1e-5)) <= 1e-15) {
		t.Errorf("zCDP of 100 DelOutputPert releases: %v", got)
	}
	// "best" states the smallest ε of the four rules and names it.
	scenetest.MustSet(t, a, "rule", "best")
	best := a.Guarantee()
	for _, r := range privacy.Rules {
		scenetest.MustSet(t, a, "rule", string(r))
		if g := a.Guarantee(); g.Eps < best.Eps {
			t.Errorf("%s gives ε = %v below best's %v", r, g.Eps, best.Eps)
		}
	}
	scenetest.MustSet(t, a, "mech", privacy.MechAnalyticGaussian)
	// Laplace steps are pure: their δ does not count.
	scenetest.MustSet(t, a, "mech", privacy.MechLaplace)
	scenetest.MustSet(t, a, "rule", "basic")
	if got := a.Guarantee(); got.Eps != 10 || got.Delta != 0 {
		t.Errorf("100 Laplace releases at ε = 0.1: %v", got)
	}
}

func TestCalibrationRejectsBadValues(t *testing.T) {
	c := New()
	a := viz.NewApp(c)
	before := *c
	for _, bad := range [][2]string{{"eps", "0"}, {"delta", "1"}, {"mech", "fourier"}, {"rule", "renyi"}, {"n", "1"}, {"m", "NaN"}} {
		if err := a.Set(bad[0], bad[1]); err == nil {
			t.Errorf("Set(%s, %s) accepted", bad[0], bad[1])
		}
	}
	if c.eps != before.eps || c.mech != before.mech || c.n != before.n {
		t.Error("a rejected value changed the scene")
	}
	if _, err := a.ExportCSV(); err == nil {
		t.Error("the calibration lesson has no dataset to export")
	}
}

// The figure says what it shows, and ε changes what it says.
func TestCalibrationDescribes(t *testing.T) {
	a, _ := scenetest.Open(t, New())
	scenetest.Describes(t, a, func() { scenetest.MustSet(t, a, "eps", "2") })
}

// At the default the two noise curves have widths to compare: the user
// level's half maximum spans a tenth of the axis or more, the item level's
// (20 times narrower) is still a visible peak, and the data range's label
// says it runs past the axis. On the data range's scale both were spikes,
// the user level's 4 % of the axis wide.
func TestCalibrationCurvesShowTheirWidths(t *testing.T) {
	a, _ := scenetest.Open(t, New())
	fr := scenetest.Frame(a)
	halfWidth := func(col viz.Colour) float64 {
		for _, it := range fr.Items {
			if it.Kind != viz.Polyline || it.Style.Stroke != col {
				continue
			}
			top, base := math.Inf(1), math.Inf(-1)
			for _, p := range it.P {
				top, base = math.Min(top, p.Y), math.Max(base, p.Y)
			}
			lo, hi := math.Inf(1), math.Inf(-1)
			for _, p := range it.P {
				if p.Y <= (top+base)/2 {
					lo, hi = math.Min(lo, p.X), math.Max(hi, p.X)
				}
			}
			return (hi - lo) / fr.Width
		}
		t.Fatalf("no curve drawn in %v", col)
		return 0
	}
	if user, item := halfWidth(viz.Vermillion), halfWidth(viz.Blue); user < 0.1 || item <= 0 || item > user/5 {
		t.Errorf("half-maximum widths: user level %.3g, item level %.3g of the figure's width", user, item)
	}
	if !scenetest.HasText(fr, "data range [−R, R], 3.83× this axis") {
		t.Error("the data range's label does not say it runs past the axis")
	}
	// The notes sit above the curves: the spikes crossed them on a phone.
	for _, w := range []float64{390, 1000} {
		fr, _ := a.Frame(w, 700)
		peak, lowest := math.Inf(1), math.Inf(-1)
		for _, it := range fr.Items {
			switch {
			case it.Kind == viz.Polyline && (it.Style.Stroke == viz.Blue || it.Style.Stroke == viz.Vermillion):
				for _, p := range it.P {
					peak = math.Min(peak, p.Y)
				}
			case it.Kind == viz.Text && (strings.Contains(it.Text, "range") || strings.Contains(it.Text, "scaled")):
				lowest = math.Max(lowest, it.P[0].Y+it.Size/2)
			}
		}
		if !(lowest < peak) {
			t.Errorf("at %v px a note reaches y = %.0f, the curves' peak %.0f: a spike runs through it", w, lowest, peak)
		}
	}
}

// The text's claim that zCDP's row can beat optimal composition's for a
// Gaussian release: at k = 3, ε = 1, 2.548 against 3 — optimal is exact
// for arbitrary (ε, δ) steps, zCDP knows the steps are Gaussian.
func TestCalibrationZCDPBeatsOptimalForGaussians(t *testing.T) {
	_, c := scenetest.Open(t, New(), [2]string{"k", "3"})
	if c.mech != privacy.MechAnalyticGaussian || c.eps != 1 {
		t.Fatalf("the lesson opens on %s at ε = %v", c.mech, c.eps)
	}
	eps := map[privacy.Rule]float64{}
	for _, r := range c.rules.Rules {
		eps[r.Rule] = r.Total.Eps
	}
	z, o := eps[privacy.Rule("zcdp")], eps[privacy.Rule("optimal")]
	if !(math.Abs(z-2.548) < 0.001 && math.Abs(o-3) < 0.001) {
		t.Errorf("k = 3, ε = 1: zCDP ε = %v, optimal ε = %v; the text says 2.548 and 3", z, o)
	}
	if !strings.Contains(Text(), "at k = 3, ε = 1: 2.548 against 3") {
		t.Error("the text no longer quotes the figures this test checks")
	}
}
