package phasederm

import (
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/internal/scenetest"
)

// The lesson opens on the localisation: no noise, the first ball about
// 𝒦's size and every ball, minimiser and iterate in the figure; the paper's
// constants are one action away, and the other brings the opening back.
func TestPhasedOpensOnTheLocalisation(t *testing.T) {
	s := New()
	a := viz.NewApp(s)
	scenetest.MustSet(t, a, viz.CtlEnd, "")
	ph := s.result.Phases
	// Three balls in view, each a quarter of the last, the first about half
	// 𝒦's radius.
	if len(ph) != 6 || ph[3].Radius < 0.4*s.params.RK || ph[3].Radius > 0.7*s.params.RK {
		t.Fatalf("%d phases, R₄ = %v: want 6 and about half 𝒦's radius %v", len(ph), ph[3].Radius, s.params.RK)
	}
	// The radii the text quotes, to its figures.
	var quoted []string
	for _, p := range ph {
		quoted = append(quoted, strconv.FormatFloat(p.Radius, 'g', 2, 64))
	}
	if q := "R = " + strings.Join(quoted, ", "); !strings.Contains(strings.Join(strings.Fields(Text()), " "), q) {
		t.Errorf("the text does not quote the balls' radii %q", q)
	}
	for _, p := range ph {
		if d := math.Hypot(p.Output[0]-p.Minimiser[0], p.Output[1]-p.Minimiser[1]); d != 0 {
			t.Errorf("phase %d: released %v, minimiser %v: the opening adds no noise", p.I, p.Output, p.Minimiser)
		}
	}
	// The last minimiser is within its ball of the data's centre, which is
	// inside 𝒦: the balls shrank onto it.
	last := ph[len(ph)-1]
	if d := math.Hypot(last.Minimiser[0]-s.centre[0], last.Minimiser[1]-s.centre[1]); d > 4*last.Radius+0.01 {
		t.Errorf("the last minimiser %v is %v from the data's centre %v", last.Minimiser, d, s.centre)
	}
	for _, b := range scenetest.Outside(scenetest.Frame(a)) {
		t.Error(b)
	}
	scenetest.MustSet(t, a, "paper-constants", "")
	if !a.Guarantee().Certified() || s.lambdaX != 1 || s.params.Phases != 4 {
		t.Errorf("the paper's constants: λ × %v, %v", s.lambdaX, a.Guarantee())
	}
	scenetest.MustSet(t, a, "localise", "")
	if s.params.Mode.String() != "non-private" || s.lambdaX != 64 || s.params.Phases != 6 {
		t.Errorf("back to the localisation: mode %v, λ × %v", s.params.Mode, s.lambdaX)
	}
}

// newPaperPhased is the lesson at the paper's constants.
func newPaperPhased(t *testing.T) (*viz.App, *Scene) {
	s := New()
	a := viz.NewApp(s)
	scenetest.MustSet(t, a, "paper-constants", "")
	return a, s
}

func TestPhasedLesson(t *testing.T) {
	a, s := newPaperPhased(t)
	if s.err != nil {
		t.Fatal(s.err)
	}
	if !a.Guarantee().Certified() {
		t.Errorf("the paper's run should be certified: %v", a.Guarantee())
	}
	balls := func() int {
		n := 0
		for _, it := range scenetest.Frame(a).Items {
			if it.Kind == viz.Circle && it.Style.Stroke == viz.Purple && it.Style.Dashed {
				n++
			}
		}
		return n
	}
	if balls() != 0 {
		t.Fatal("phase balls shown before any step")
	}
	for _, want := range []int{1, 1, 1} { // phase.start, ledger.spend, phase.release
		a.Key("ArrowRight")
		if got := balls(); got != want {
			t.Fatalf("after a step %d balls, want %d", got, want)
		}
	}
	scenetest.MustSet(t, a, viz.CtlEnd, "")
	if balls() != 4 {
		t.Errorf("after the run %d balls, want T = 4", balls())
	}
	// Radii shrink by 4 per phase.
	ph := s.result.Phases
	for i := 1; i < len(ph); i++ {
		if !(math.Abs(ph[i].Radius*4-ph[i-1].Radius) <= 1e-12*ph[i-1].Radius) {
			t.Errorf("R_%d = %v, R_%d = %v", i, ph[i-1].Radius, i+1, ph[i].Radius)
		}
	}
}

// Dragging the data's handle moves the cloud and the phase minimisers follow.
func TestPhasedDragData(t *testing.T) {
	s := New()
	a := viz.NewApp(s)
	scenetest.MustSet(t, a, "lambda", "1") // Thm 4.1's λ: little bias
	scenetest.MustSet(t, a, viz.CtlEnd, "")
	l := scenetest.Frame(a)
	h, ok := l.Locate(1)
	if !ok {
		t.Fatal("no data handle")
	}
	before := append([]float64(nil), s.result.Theta...)
	a.Event(viz.Event{Kind: viz.PointerDown, X: h.X, Y: h.Y})
	a.Event(viz.Event{Kind: viz.PointerMove, X: h.X - 100, Y: h.Y + 60})
	a.Event(viz.Event{Kind: viz.PointerUp, X: h.X - 100, Y: h.Y + 60})
	if reflect.DeepEqual(before, s.result.Theta) {
		t.Error("moving the data did not move the result")
	}
	// Without noise the last iterate sits at the projected mean.
	mx, my := s.centre[0], s.centre[1]
	if r := math.Hypot(mx, my); r > 1 {
		mx, my = mx/r, my/r
	}
	if d := math.Hypot(s.result.Theta[0]-mx, s.result.Theta[1]-my); d > 0.01 {
		t.Errorf("θ̂ = %v, projected data centre (%v, %v)", s.result.Theta, mx, my)
	}
}

func TestPhasedRejects(t *testing.T) {
	a, s := newPaperPhased(t)
	for _, bad := range [][2]string{{"eps", "0"}, {"phases", "30"}, {"mode", "sound"}, {"lambda", "NaN"}} {
		if err := a.Set(bad[0], bad[1]); err == nil {
			t.Errorf("Set(%s, %s) accepted", bad[0], bad[1])
		}
	}
	// Wide data: the certificate cannot fire and κ′ is far beyond exact
	// search, so the run is refused and the last run stays.
	if err := a.Set("spread", "1"); err == nil {
		t.Error("an infeasible run was accepted")
	}
	if s.err != nil || s.spread != 0.002 {
		t.Errorf("a refused value changed the scene: spread %v, err %v", s.spread, s.err)
	}
}

// The algorithm choice: the strongly convex variants show their first
// stage (θ₀ and the R′ ball) before any phase, SCO colours the batches and
// every run's ledger spends exactly (ε, δ).
func TestPhasedAlgorithms(t *testing.T) {
	for _, algo := range []string{"phased-sco", "strongly-convex-erm", "strongly-convex-sco"} {
		a, s := newPaperPhased(t)
		scenetest.MustSet(t, a, "algorithm", algo)
		green := func() int {
			n := 0
			for _, it := range scenetest.Frame(a).Items {
				if it.Kind == viz.Circle && it.Style.Stroke == viz.Green && it.Style.Width == 2 {
					n++
				}
			}
			return n
		}
		strong := algo != "phased-sco"
		if green() != 0 {
			t.Errorf("%s: the R′ ball is drawn before the first step", algo)
		}
		scenetest.MustSet(t, a, viz.CtlEnd, "")
		if want := map[bool]int{true: 1, false: 0}[strong]; green() != want {
			t.Errorf("%s: %d R′ balls after the run, want %d", algo, green(), want)
		}
		if _, ok := scenetest.Readout(a, "stage-1"); ok != strong {
			t.Errorf("%s: stage-1 readout present = %v", algo, ok)
		}
		total, _ := s.result.Ledger.Total()
		if !(math.Abs(total.Eps-1) <= 1e-12) || !(math.Abs(total.Delta-1e-5) <= 1e-18) {
			t.Errorf("%s: ledger total %+v", algo, total)
		}
		dots := map[viz.Colour]bool{}
		for _, it := range scenetest.Frame(a).Items {
			if it.Kind == viz.Dots {
				dots[it.Style.Fill] = true
			}
		}
		if sco := algo != "strongly-convex-erm"; sco != (len(dots) > 2) {
			t.Errorf("%s: data drawn in %d colours", algo, len(dots))
		}
		if r, _ := scenetest.Readout(a, "ledger"); !strings.Contains(r.Formula, map[bool]string{true: "stage 1", false: "parallel"}[strong]) {
			t.Errorf("%s: ledger formula %q", algo, r.Formula)
		}
	}
	a := viz.NewApp(New())
	if err := a.Set("algorithm", "sgd"); err == nil || !strings.Contains(err.Error(), "sgd") {
		t.Errorf("unknown algorithm: %v", err)
	}
}

// A wide cloud reaches past the data radius R_X; its items are clipped
// into B(0, R_X) instead of the run being refused.
func TestPhasedClipsWideData(t *testing.T) {
	s := New()
	a := viz.NewApp(s)
	scenetest.MustSet(t, a, "mode", "non-private")
	scenetest.MustSet(t, a, "spread", "1")
	far := 0.0
	for i := range s.data.Users {
		for j := range s.data.Items(i) {
			it := s.data.Item(i, j)
			far = math.Max(far, math.Hypot(it[0], it[1]))
		}
	}
	if far > s.params.RX+1e-12 || far < s.params.RX-1e-9 {
		t.Errorf("farthest item at %v: want clipped onto R_X = %v", far, s.params.RX)
	}
}

// The figure says what it shows, and a step changes what it says.
func TestPhasedDescribes(t *testing.T) {
	a, _ := scenetest.Open(t, New())
	scenetest.Describes(t, a, func() { a.Key("ArrowRight") })
}

// The keyboard moves the data as a mouse drag does.
func TestPhasedKeyboardDrag(t *testing.T) {
	scenetest.KeyboardMatchesMouse(t, scenetest.Opens(t, New), "ArrowDown")
}

// The early phases' balls reach far past the plane's view, through the
// key above it and the ledger below: both sit on paper drawn over them.
func TestPhasedERMKeyAndLedgerOverTheBalls(t *testing.T) {
	a, _ := scenetest.Open(t, New())
	scenetest.MustSet(t, a, viz.CtlEnd, "")
	l := scenetest.Frame(a)
	ball, key, ledger := -1, -1, -1
	var backs [][2]float64 // the y ranges of paper drawn after the ball
	for i, it := range l.Items {
		switch {
		case it.Kind == viz.Circle && it.Style.Dashed && ball < 0 && it.P[0].Y-it.R < 0:
			ball = i // reaches above the figure's top, through the key
		case it.Kind == viz.Rect && it.Style.Fill == viz.Paper && ball >= 0:
			backs = append(backs, [2]float64{min(it.P[0].Y, it.P[1].Y), max(it.P[0].Y, it.P[1].Y)})
		case it.Kind == viz.Text && strings.HasPrefix(it.Text, "◆ phase minimiser"):
			key = i
		case it.Kind == viz.Text && strings.HasPrefix(it.Text, "privacy ledger"):
			ledger = i
		}
	}
	if ball < 0 {
		t.Fatal("no ball reaches the key at the end: the test checks nothing")
	}
	if key < ball || ledger < ball {
		t.Fatalf("ball drawn at %d, the key at %d, the ledger at %d", ball, key, ledger)
	}
	for _, text := range []viz.Item{l.Items[key], l.Items[ledger]} {
		backed := false
		for _, b := range backs {
			backed = backed || b[0] <= text.P[0].Y-text.Size/2 && text.P[0].Y+text.Size/2 <= b[1]
		}
		if !backed {
			t.Errorf("%q has no paper under it over the balls (paper at %v)", text.Text, backs)
		}
	}
}
