package ratesexplorer

import (
	"math"
	"strings"
	"testing"

	"github.com/uldplab/uldp/core/rates"
	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/internal/scenetest"
)

// mustRead is the readout name, which must be shown.
func mustRead(t *testing.T, app *viz.App, name string) viz.Readout {
	t.Helper()
	r, ok := scenetest.Readout(app, name)
	if !ok {
		t.Fatalf("no readout %s in %+v", name, app.Readouts())
	}
	return r
}

// The explorer's points are simulated a slice per frame and follow the
// optimal bound's slope (the sound check of where they land is core/rates's
// test; here the lesson's wiring).
func TestRatesSimulatesBetweenFrames(t *testing.T) {
	defer func(c func() float64) { viz.Clock = c }(viz.Clock)
	var now float64
	viz.Clock = func() float64 { now += 1; return now } // every reading 1 ms later
	app := viz.NewApp(New())
	if !app.Scene().(viz.Worker).Busy() {
		t.Fatal("the sweep did not start")
	}
	app.Tick(0)
	if r := mustRead(t, app, "computing"); !strings.Contains(r.Text, "runs") {
		t.Errorf("progress %+v", r)
	}
	// The figure says it too, in its title: it is Live, no banner over it.
	// 600 px wide, the title takes two lines while it simulates.
	l, _ := app.Frame(600, 600)
	if !scenetest.HasText(l, "simulating: ") || scenetest.HasText(l, "computing: ") {
		t.Error("the figure does not say, in its title alone, that it is simulating")
	}
	busyAxis := axisAt(l)
	app.Settle()
	if l, _ := app.Frame(600, 600); scenetest.HasText(l, "simulating: ") || axisAt(l) != busyAxis {
		t.Errorf("done, the figure still says it is simulating, or its plot moved: top line at %v, %v while simulating", axisAt(l), busyAxis)
	}
	r := app.Scene().(*Scene)
	if len(r.points) != len(sweeps["n"]) {
		t.Fatalf("%d points, want %d", len(r.points), len(sweeps["n"]))
	}
	s := mustRead(t, app, "sim-slope")
	if s.Value < -1.2 || s.Value > -0.7 || !strings.Contains(s.Text, "the optimal bound's") {
		t.Errorf("simulated slope %+v", s)
	}
	if c := mustRead(t, app, "constants"); c.Value < 1000 {
		t.Errorf("privacy constant %+v: the logarithms make it large (the text says over a thousand)", c)
	}
	if r.d != 16 || r.stat < 2.5 || r.stat > 3.5 || !strings.Contains(Text(), "about 3 for the statistical term at d = 16") {
		t.Errorf("statistical constant %v at d = %d; the text says about 3 at d = 16", r.stat, r.d)
	}
	// The figure holds the points and their bars.
	l, _ = app.Frame(900, 600)
	for i := range r.points {
		if _, ok := l.Locate(i + 1); !ok {
			t.Errorf("point %d is not drawn", i+1)
		}
	}
}

// Semi-sensitive bounds have their own axes; settings beyond the
// simulation say so instead of simulating.
func TestRatesFamiliesAndLimits(t *testing.T) {
	app := viz.NewApp(New())
	if err := app.Restore("scene=rates&axis=m&family=semi-sensitive"); err != nil {
		t.Fatal(err)
	}
	app.Settle()
	if !strings.Contains(app.State(), "axis=m") || !strings.Contains(app.State(), "k=") {
		t.Errorf("semi-sensitive state %s", app.State())
	}
	if err := app.Set("axis", "k"); err != nil {
		t.Fatal(err)
	}
	mustRead(t, app, "crossover")
	mustRead(t, app, "pvmw")
	if err := app.Set("family", "user-level"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(app.State(), "axis=n") {
		t.Errorf("user-level has no k axis: %s", app.State())
	}
	if err := app.Set("n", "100000"); err != nil {
		t.Fatal(err)
	}
	if err := app.Set("axis", "m"); err != nil {
		t.Fatal(err)
	}
	app.Settle()
	if s := mustRead(t, app, "simulation"); !s.Warn || !strings.Contains(s.Text, "6400 users") {
		t.Errorf("beyond the simulation: %+v", s)
	}
	if err := app.Set("delta", "0.7"); err == nil {
		t.Error("δ = 0.7 accepted")
	}
}

// Reopening a lesson stops the sweep its old scene had under way.
func TestReopenStopsTheSweep(t *testing.T) {
	defer func(c func() float64) { viz.Clock = c }(viz.Clock)
	var now float64
	viz.Clock = func() float64 { now += 1; return now }
	old := New()
	app := viz.NewApp(scenetest.Blank{Name: "first"}, old)
	if err := app.SwitchTo("rates"); err != nil {
		t.Fatal(err)
	}
	app.Tick(0)
	if old.job == nil {
		t.Fatal("no sweep under way after a tick")
	}
	if err := app.Reopen(New()); err != nil {
		t.Fatal(err)
	}
	if old.Busy() {
		t.Error("the dropped scene's sweep is still under way")
	}
	if !app.Scene().(*Scene).Busy() {
		t.Error("the fresh scene has no sweep to start")
	}
}

// The figure says what it shows, and another ε changes what it says.
func TestRatesDescribes(t *testing.T) {
	a, _ := scenetest.Open(t, New(), [2]string{"simulate", "false"})
	scenetest.Describes(t, a, func() { scenetest.MustSet(t, a, "eps", "2") })
}

// curves returns the figure's bound curves by bound, each as the pieces
// drawn in its colour.
func curves(t *testing.T, a *viz.App, fam rates.Family) map[string][][]viz.Point {
	t.Helper()
	l, _ := a.Frame(1000, 700)
	out := map[string][][]viz.Point{}
	for i, b := range rates.Bounds(fam) {
		for _, it := range l.Items {
			if it.Kind == viz.Polyline && it.Style.Stroke == boundColours[i] {
				out[b.ID] = append(out[b.ID], it.P)
			}
		}
	}
	return out
}

// At the opening state every two user-level bounds with different
// formulas are apart somewhere on the figure by more than a line's width
// (at d = 8, ε = 0.5 Levy et al.'s d/ε and Ghazi et al.'s √d/ε^2.5 are
// equal, and one curve hid the other), and where they meet the figure
// says why.
func TestRatesCurvesApart(t *testing.T) {
	a, _ := scenetest.Open(t, New(), [2]string{"simulate", "false"})
	cs := curves(t, a, rates.UserLevel)
	bs := rates.Bounds(rates.UserLevel)
	for i, b := range bs {
		if len(cs[b.ID]) != 1 {
			t.Fatalf("%s is drawn in %d pieces", b.ID, len(cs[b.ID]))
		}
		for _, c := range bs[:i] {
			if c.Formula == b.Formula {
				continue // the lower bound is the optimal one, drawn dashed over it
			}
			p, q := cs[b.ID][0], cs[c.ID][0]
			gap := 0.0
			for k := range min(len(p), len(q)) {
				gap = math.Max(gap, math.Abs(p[k].Y-q[k].Y))
			}
			if gap < 8 {
				t.Errorf("%s and %s are never more than %.1f px apart", b.ID, c.ID, gap)
			}
		}
	}
	if l, _ := a.Frame(1000, 700); !scenetest.HasText(l, "n = d/ε² = 64: the optimal bound's two terms are equal") {
		t.Error("the figure does not say where the bounds meet")
	}
}

// The legend explains the hollow points the simulation draws.
func TestRatesLegendHasHollowPoints(t *testing.T) {
	a, _ := scenetest.Open(t, New())
	a.Settle()
	l, _ := a.Frame(1000, 700)
	found := false
	for _, it := range l.Items {
		found = found || it.Kind == viz.Circle && it.ID == 0 && it.Style.Fill == viz.Paper
	}
	if !found || !scenetest.HasText(l, "hollow: some of the point's runs halted") {
		t.Error("no hollow point in the legend")
	}
}

// Across d, the semi-sensitive lower bounds are drawn only where they are
// proved, so full DP's bound never passes under one (at small d it lies
// below both, which the figure used to draw); the readouts say they do not
// apply at d = 16, and "problems m" says what it is.
func TestRatesSemiLowerBoundsWhereTheyApply(t *testing.T) {
	a, _ := scenetest.Open(t, New(), [2]string{"family", "semi-sensitive"}, [2]string{"axis", "d"})
	cs := curves(t, a, rates.SemiSensitive)
	full := map[float64]float64{}
	for _, piece := range cs["full"] {
		for _, p := range piece {
			full[p.X] = p.Y
		}
	}
	for _, id := range []string{"semi-lower", "semi-base"} {
		drawn := 0
		for _, piece := range cs[id] {
			for _, p := range piece {
				drawn++
				if y, ok := full[p.X]; ok && y > p.Y+0.5 { // y grows downwards
					t.Errorf("%s: full DP's bound passes under it at x = %.1f", id, p.X)
				}
			}
		}
		if drawn < 2 {
			t.Errorf("%s is not drawn at all", id)
		}
		if r := mustRead(t, a, id); !strings.Contains(r.Text, "does not apply here: needs d ≥") {
			t.Errorf("%s's readout at d = 16: %q", id, r.Text)
		}
	}
	if h := scenetest.Control(a, "m").Help; !strings.Contains(h, "problems on the same data") {
		t.Errorf("problems m is not explained: %q", h)
	}
}

// On a phone the legend names the curves (their formulas are in the
// readouts), so the plot keeps 40 % of the figure's height; it was 120 px
// of 590 under ten entries with formulas. Wider, the legend has them.
func TestRatesPlotKeepsItsHeightOnAPhone(t *testing.T) {
	a, _ := scenetest.Open(t, New())
	height := func(w, h float64) (float64, *viz.List) {
		l, _ := a.Frame(w, h)
		var top, bottom float64 = math.Inf(1), math.Inf(-1)
		for _, it := range l.Items {
			if it.Kind == viz.Line && it.Style.Stroke == viz.Grid && it.P[0].X == it.P[1].X {
				top, bottom = math.Min(top, it.P[0].Y), math.Max(bottom, it.P[1].Y)
			}
		}
		return bottom - top, l
	}
	if ph, l := height(358, 590); ph < 0.4*590 || scenetest.HasText(l, "√d/(nε√m)") {
		t.Errorf("at 358 × 590 the plot is %.0f px tall (want ≥ 236), formulas in the legend: %v", ph, scenetest.HasText(l, "√d/(nε√m)"))
	}
	if _, l := height(1000, 700); !scenetest.HasText(l, "√d/(nε√m)") {
		t.Error("at 1000 px the legend has no formulas")
	}
}

// On a phone the title wraps onto two lines: the plot starts below them.
func TestRatesTitleClearsThePlot(t *testing.T) {
	a, _ := scenetest.Open(t, New())
	for _, w := range []float64{358, 1000} {
		l, _ := a.Frame(w, 675)
		titleEnd, plotTop := 0.0, math.Inf(1)
		for _, it := range l.Items {
			switch {
			case it.Kind == viz.Text && it.P[0].Y < 60 && it.Align == viz.Left && it.P[0].X == 62:
				titleEnd = math.Max(titleEnd, it.P[0].Y+it.Size/2)
			case it.Kind == viz.Line && it.Style.Stroke == viz.Grid && it.P[0].X == it.P[1].X:
				plotTop = math.Min(plotTop, math.Min(it.P[0].Y, it.P[1].Y))
			}
		}
		if titleEnd == 0 || plotTop < titleEnd+2 {
			t.Errorf("%v wide: the title ends at %.1f, the plot starts at %.1f", w, titleEnd, plotTop)
		}
	}
}

// axisAt is the height of the plot's top decade label (the highest of
// the labels right-aligned to its y axis): where the plot starts.
func axisAt(l *viz.List) float64 {
	top := math.Inf(1)
	for _, it := range l.Items {
		if it.Kind == viz.Text && it.Align == viz.Right {
			top = math.Min(top, it.P[0].Y)
		}
	}
	return top
}
