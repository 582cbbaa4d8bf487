package abovethreshold

import (
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/uldplab/uldp/core/exercise"
	"github.com/uldplab/uldp/core/mech"
	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/internal/scenetest"
)

func TestSameSeedSameDisplayList(t *testing.T) {
	a, _ := scenetest.Open(t, New())
	b, _ := scenetest.Open(t, New())
	for _, app := range []*viz.App{a, b} {
		scenetest.MustSet(t, app, "seed", "42")
		scenetest.MustSet(t, app, viz.CtlEnd, "")
	}
	if !reflect.DeepEqual(scenetest.Frame(a), scenetest.Frame(b)) {
		t.Fatal("same seed gave different display lists")
	}
	scenetest.MustSet(t, b, "seed", "43")
	if reflect.DeepEqual(scenetest.Frame(a), scenetest.Frame(b)) {
		t.Fatal("seeds 42 and 43 gave the same display list")
	}
}

func TestStepBackRestoresTheFigure(t *testing.T) {
	a, s := scenetest.Open(t, New())
	var lists []*viz.List
	for i := 0; ; i++ {
		lists = append(lists, scenetest.Frame(a))
		if s.player.Stepper().Pos() == s.player.Stepper().Len() {
			break
		}
		if !a.Key("ArrowRight") {
			t.Fatal("→ did not step")
		}
	}
	if len(lists) < 4 {
		t.Fatalf("only %d positions", len(lists))
	}
	for i := len(lists) - 2; i >= 0; i-- {
		if !a.Key("ArrowLeft") {
			t.Fatal("← did not step back")
		}
		if !reflect.DeepEqual(scenetest.Frame(a), lists[i]) {
			t.Fatalf("stepping back to position %d did not restore its figure", i)
		}
	}
	if a.Key("ArrowLeft") {
		t.Error("← at the start should do nothing")
	}
}

// The figure reveals the threshold, then one comparison per step.
func TestStepsRevealTheRun(t *testing.T) {
	a, s := scenetest.Open(t, New())
	count := func(colour viz.Colour) int {
		n := 0
		for _, it := range scenetest.Frame(a).Items {
			if it.Kind == viz.Circle && it.Style.Fill == colour {
				n++
			}
		}
		return n
	}
	// Values 90 above Δ: each passes except with probability < 1e-9.
	scenetest.MustSet(t, a, "queries", "100,100,100")
	if count(viz.Orange) != 0 {
		t.Fatal("noisy values shown before any step")
	}
	a.Key("ArrowRight") // threshold
	a.Key("ArrowRight") // query 1
	a.Key("ArrowRight") // query 2
	if count(viz.Orange) != 2 {
		t.Errorf("after two comparisons %d noisy markers", count(viz.Orange))
	}
	if st := a.Readouts()[0].Text; !strings.Contains(st, "step 3 of at most 5") || !strings.Contains(st, "query 2") {
		t.Errorf("status %q", st)
	}
	if s.result.HaltedAt != 0 {
		t.Errorf("halted at %d", s.result.HaltedAt)
	}
}

// Dragging a bar changes exactly that query; the noise is common (same seed).
func TestDragMovesOneQueryAndKeepsTheNoise(t *testing.T) {
	a, s := scenetest.Open(t, New())
	scenetest.MustSet(t, a, viz.CtlEnd, "")
	l := scenetest.Frame(a)
	before := append([]float64(nil), s.queries...)
	noise := func() []float64 {
		var out []float64
		for _, st := range s.player.Stepper().Trace().Steps {
			switch d := st.Data.(type) {
			case mech.ATThresholdStep:
				out = append(out, d.Noise)
			case mech.ATCompareStep:
				out = append(out, d.Noise)
			}
		}
		return out
	}
	noiseBefore := noise()
	// Grab bar 2 in the middle and drag it up by 40 px.
	var bar viz.Item
	for _, it := range l.Items {
		if it.ID == 2 {
			bar = it
		}
	}
	x := (bar.P[0].X + bar.P[1].X) / 2
	y := (bar.P[0].Y + bar.P[1].Y) / 2
	if !a.Event(viz.Event{Kind: viz.PointerDown, X: x, Y: y}) {
		t.Fatal("pointer down on bar 2 did not grab it")
	}
	a.Event(viz.Event{Kind: viz.PointerMove, X: x, Y: bar.P[1].Y - 40})
	a.Event(viz.Event{Kind: viz.PointerUp, X: x, Y: bar.P[1].Y - 40})
	for i := range s.queries {
		if changed := s.queries[i] != before[i]; changed != (i == 1) {
			t.Errorf("query %d changed = %v", i+1, changed)
		}
	}
	if s.queries[1] <= before[1] {
		t.Errorf("dragging up lowered q2: %v → %v", before[1], s.queries[1])
	}
	after := noise()
	for i := 0; i < min(len(after), len(noiseBefore)); i++ {
		if after[i] != noiseBefore[i] {
			t.Fatalf("noise draw %d changed under the drag", i)
		}
	}
	if s.player.Stepper().Pos() != s.player.Stepper().Len() {
		t.Error("the drag moved the stepper position")
	}
}

func TestRerollOneStream(t *testing.T) {
	a, s := scenetest.Open(t, New())
	th := func() mech.ATThresholdStep { return s.player.Stepper().Trace().Steps[0].Data.(mech.ATThresholdStep) }
	q1 := func() float64 { return s.player.Stepper().Trace().Steps[1].Data.(mech.ATCompareStep).Noise }
	t0, n0 := th(), q1()
	scenetest.MustSet(t, a, "reroll-queries", "")
	if th() != t0 || q1() == n0 {
		t.Error("re-rolling the query noise must keep Λ and change ν")
	}
	t1, n1 := th(), q1()
	a.Key("t")
	if th() == t1 || q1() != n1 {
		t.Error("re-rolling the threshold noise must change Λ and keep ν")
	}
}

// 10,000 simulated runs against the exact law: the largest gap over the
// T+1 halting times stays below √(ln(2(T+1)/α)/(2N)) with α = 1e-6 (DKW-style
// union bound; fixed seed).
func TestSimulationMatchesExact(t *testing.T) {
	a, s := scenetest.Open(t, New())
	scenetest.MustSet(t, a, "simulate", "")
	var gap float64
	for _, r := range a.Readouts() {
		if r.Name == "sim-gap" {
			gap = r.Value
		}
	}
	bound := math.Sqrt(math.Log(2*float64(len(s.queries)+1)/1e-6) / (2 * simRuns))
	if gap == 0 || gap > bound {
		t.Errorf("simulated vs exact gap %v (bound %v)", gap, bound)
	}
}

func TestURLStateRoundTrip(t *testing.T) {
	a, _ := scenetest.Open(t, New())
	scenetest.MustSet(t, a, "eps", "2.5")
	scenetest.MustSet(t, a, "queries", "1,2,3.5")
	scenetest.MustSet(t, a, "seed", "9")
	state := a.State()
	b, _ := scenetest.Open(t, New())
	if err := b.Restore("#" + state); err != nil {
		t.Fatal(err)
	}
	if b.State() != state {
		t.Fatalf("state %q restored as %q", state, b.State())
	}
	scenetest.MustSet(t, a, viz.CtlEnd, "")
	scenetest.MustSet(t, b, viz.CtlEnd, "")
	if !reflect.DeepEqual(scenetest.Frame(a), scenetest.Frame(b)) {
		t.Fatal("restored state draws differently")
	}
}

// A hand-edited link with bad values opens the lesson with the good ones and
// says what was wrong.
func TestBadInputIsReportedAndIgnored(t *testing.T) {
	a, s := scenetest.Open(t, New())
	err := a.Restore("scene=abovethreshold&eps=NaN&threshold=3&queries=1,x&seed=-1&bogus=1")
	if err == nil {
		t.Fatal("bad link accepted silently")
	}
	for _, want := range []string{"eps", "not a number", "queries", "query 2", "seed", "bogus"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	if s.threshold != 3 || s.eps != 1 {
		t.Errorf("good value not applied or bad one applied: Δ = %v, ε = %v", s.threshold, s.eps)
	}
	for _, bad := range [][2]string{{"eps", "0"}, {"eps", "1e9"}, {"queries", strings.Repeat("1,", 30) + "1"}, {"queries", "1e300"}, {"mode", "sound"}, {"speed", "0"}} {
		if err := a.Set(bad[0], bad[1]); err == nil {
			t.Errorf("Set(%s, %q) accepted", bad[0], bad[1])
		}
	}
	scenetest.Frame(a) // still draws
}

func TestNonPrivateMode(t *testing.T) {
	a, s := scenetest.Open(t, New())
	scenetest.MustSet(t, a, "mode", "non-private")
	scenetest.MustSet(t, a, "queries", "12,11,9,14")
	if s.result.HaltedAt != 3 || s.result.NoisyThreshold != 10 || a.Guarantee().Certified() {
		t.Errorf("non-private: %+v", s.result)
	}
}

func TestPlayAdvancesOnTicks(t *testing.T) {
	a, s := scenetest.Open(t, New())
	if !a.Key(" ") || !s.player.Playing() {
		t.Fatal("space did not start playing")
	}
	scenetest.MustSet(t, a, viz.CtlSpeed, "4")
	a.Tick(0.6) // 2.4 steps
	if got := s.player.Stepper().Pos(); got != 2 {
		t.Errorf("after 0.6 s at 4 steps/s: position %d", got)
	}
	a.Tick(100)
	if s.player.Playing() || s.player.Stepper().Pos() != s.player.Stepper().Len() {
		t.Error("playing did not stop at the end")
	}
	a.Key("r")
	if s.player.Stepper().Pos() != 0 {
		t.Error("r did not reset")
	}
	seed := s.streams.Seed()
	a.Key("s")
	if s.streams.Seed() != seed+1 {
		t.Error("s did not move to the next seed")
	}
}

// Redraw only when something changed.
func TestFrameRedrawsOnlyOnChange(t *testing.T) {
	a, _ := scenetest.Open(t, New())
	if _, changed := a.Frame(scenetest.W, scenetest.H); !changed {
		t.Fatal("first frame not drawn")
	}
	if _, changed := a.Frame(scenetest.W, scenetest.H); changed {
		t.Error("unchanged state redrew")
	}
	if _, changed := a.Frame(scenetest.W+1, scenetest.H); !changed {
		t.Error("resize did not redraw")
	}
	a.Key("ArrowRight")
	if _, changed := a.Frame(scenetest.W+1, scenetest.H); !changed {
		t.Error("a step did not redraw")
	}
}

func TestExports(t *testing.T) {
	a, _ := scenetest.Open(t, New())
	scenetest.MustSet(t, a, "queries", "4,5.5")
	csv, err := a.ExportCSV()
	if err != nil || string(csv) != "user,x1\n1,4\n2,5.5\n" {
		t.Errorf("CSV %q, %v", csv, err)
	}
	tr, err := a.ExportTrace()
	if err != nil || !strings.HasPrefix(string(tr), `{"schema":1,"mechanism":"abovethreshold"`) {
		t.Errorf("trace %.60q, %v", tr, err)
	}
}

// Grabbing a bar anywhere keeps the grab offset: a press without movement
// changes nothing, and the value follows the pointer's movement.
func TestDragKeepsTheGrabOffset(t *testing.T) {
	a, s := scenetest.Open(t, New())
	l := scenetest.Frame(a)
	p, _ := l.Locate(4)
	before := s.queries[3]
	a.Event(viz.Event{Kind: viz.PointerDown, X: p.X, Y: p.Y})
	scenetest.Frame(a)
	a.Event(viz.Event{Kind: viz.PointerMove, X: p.X, Y: p.Y})
	if s.queries[3] != before {
		t.Fatalf("pressing on the bar's middle moved it: %v → %v", before, s.queries[3])
	}
	a.Event(viz.Event{Kind: viz.PointerMove, X: p.X, Y: p.Y - 30})
	if want := before + 30*(s.plot.Hi-s.plot.Lo)/s.plot.H; !(math.Abs(s.queries[3]-want) <= 0.011) {
		t.Errorf("dragging up 30 px gave %v, want %v", s.queries[3], want)
	}
}

// Before a step shows them, the readouts keep the run's draws to
// themselves: no noisy threshold, no halting query.
func TestAboveThresholdReadoutsFollowTheStepper(t *testing.T) {
	a := viz.NewApp(New())
	if r, _ := scenetest.Readout(a, "noisy-threshold"); !strings.HasPrefix(r.Text, "not drawn yet") {
		t.Errorf("step 0 shows the noisy threshold: %q", r.Text)
	}
	if r, _ := scenetest.Readout(a, "halted"); strings.Contains(r.Text, "⊥") || strings.Contains(r.Text, "passed") {
		t.Errorf("step 0 shows how the run ends: %q", r.Text)
	}
	a.Key("ArrowRight")
	if r, _ := scenetest.Readout(a, "noisy-threshold"); strings.HasPrefix(r.Text, "not drawn yet") {
		t.Errorf("step 1 hides the noisy threshold: %q", r.Text)
	}
	a.Key("End")
	if r, _ := scenetest.Readout(a, "halted"); !strings.Contains(r.Text, "⊥ at query") && !strings.Contains(r.Text, "every query passed") {
		t.Errorf("the end hides how the run ended: %q", r.Text)
	}
}

// The figure says what it shows, and a step changes what it says.
func TestAboveThresholdDescribes(t *testing.T) {
	a, _ := scenetest.Open(t, New())
	scenetest.Describes(t, a, func() { a.Key("ArrowRight") })
}

// The keyboard moves a query's bar as a mouse drag does.
func TestAboveThresholdKeyboardDrag(t *testing.T) {
	scenetest.KeyboardMatchesMouse(t, scenetest.Opens(t, New), "ArrowDown", "ArrowDown")
}

// The built-in exercise abovethreshold-halt-early rests on the exact law at
// its state: the run halts likeliest at query 2, about twice as often as at
// query 5, though query 5 alone would fail more often.
func TestTheHaltEarlyExercisesPremise(t *testing.T) {
	p, err := exercise.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	var state string
	for _, e := range p.Exercises {
		if e.ID == "abovethreshold-halt-early" {
			state = e.State
		}
	}
	if state == "" {
		t.Fatal("the built-in pack has no abovethreshold-halt-early")
	}
	a, s := scenetest.Open(t, New())
	if err := a.Restore("scene=abovethreshold&" + state); err != nil {
		t.Fatal(err)
	}
	halts := s.exact[:len(s.queries)]
	likeliest := 0
	for k, pr := range halts {
		if pr > halts[likeliest] {
			likeliest = k
		}
	}
	if r := halts[1] / halts[4]; likeliest != 1 || r < 1.7 || r > 2.5 {
		t.Errorf("the exact law of ⊥: %v (the question says query 2 is likeliest, about twice query 5)", halts)
	}
}

// Where the run halts is the lesson's question: before the end the status
// gives the most steps a run of 8 queries can take (the threshold, 8
// comparisons and a halt: 10), not this run's length. The default run
// halts at query 5 after 7 steps; one that halts nowhere takes 9, one that
// halts at the last query all 10.
func TestStatusKeepsTheHaltUnsaid(t *testing.T) {
	a, s := scenetest.Open(t, New())
	if got := s.player.Status(); !strings.HasPrefix(got, "step 0 of at most 10:") {
		t.Errorf("opening status %q", got)
	}
	for _, c := range []struct {
		set   [2]string
		steps int
	}{{[2]string{"seed", "13"}, 7}, {[2]string{"threshold", "-50"}, 9}, {[2]string{"queries", "100,100,100,100,100,100,100,-100"}, 10}} {
		scenetest.MustSet(t, a, c.set[0], c.set[1])
		scenetest.MustSet(t, a, viz.CtlEnd, "")
		end := "step " + strconv.Itoa(c.steps) + " of " + strconv.Itoa(c.steps) + ":"
		if n := s.player.Stepper().Len(); n != c.steps || !strings.HasPrefix(s.player.Status(), end) {
			t.Errorf("after %v: %d steps, status %q; want %q", c.set, n, s.player.Status(), end)
		}
		scenetest.MustSet(t, a, viz.CtlReset, "")
		if got := s.player.Status(); !strings.HasPrefix(got, "step 0 of at most 10:") {
			t.Errorf("after %v, reset: %q", c.set, got)
		}
	}
}
