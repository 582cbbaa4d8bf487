package ratesexplorer

import (
	"strings"
	"testing"

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
	app.Settle()
	r := app.Scene().(*Scene)
	if len(r.points) != len(sweeps["n"]) {
		t.Fatalf("%d points, want %d", len(r.points), len(sweeps["n"]))
	}
	s := mustRead(t, app, "sim-slope")
	if s.Value < -1.2 || s.Value > -0.7 || !strings.Contains(s.Text, "the optimal bound's") {
		t.Errorf("simulated slope %+v", s)
	}
	if c := mustRead(t, app, "constants"); c.Value < 100 {
		t.Errorf("privacy constant %+v: the logarithms make it large", c)
	}
	// The figure holds the points and their bars.
	l, _ := app.Frame(900, 600)
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
