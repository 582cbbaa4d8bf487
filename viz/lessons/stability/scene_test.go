package stability

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/uldplab/uldp/core/mech"
	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/internal/scenetest"
)

// Spec 000-002 §9.2, first row: r* = 1, S* = {14}, P⊥ = 5.923191e−6.
func TestStabilityStartsOnTheWorkedExample(t *testing.T) {
	a, s := scenetest.Open(t, New())
	if s.err != nil {
		t.Fatal(s.err)
	}
	if s.law.Kappa != 3 || s.law.RStar != 1 || !reflect.DeepEqual(s.law.Removed, []int{13}) || !(math.Abs(s.law.PBottom-5.923191e-6) <= 5e-13) {
		t.Fatalf("law %+v", s.law)
	}
	crossed := func() int {
		n := 0
		for _, it := range scenetest.Frame(a).Items {
			if it.Kind == viz.Line && it.Style.Stroke == viz.Vermillion && it.Style.Width == 2.5 {
				n++
			}
		}
		return n
	}
	if crossed() != 0 {
		t.Error("users crossed out before the stability step")
	}
	scenetest.MustSet(t, a, viz.CtlEnd, "")
	if crossed() != 2 { // one X = two strokes
		t.Errorf("after the run %d red strokes, want one X over user 14", crossed())
	}
}

// Dragging the outlier into the crowd makes x stable: r* = 0, never ⊥; R1
// is the same draw (common random numbers).
func TestStabilityDragOutlierIn(t *testing.T) {
	a, s := scenetest.Open(t, New())
	scenetest.MustSet(t, a, viz.CtlEnd, "")
	l := scenetest.Frame(a)
	r1 := s.result.R1
	from, _ := l.Locate(14)
	to, _ := l.Locate(1) // user 1 sits at 0
	a.Event(viz.Event{Kind: viz.PointerDown, X: from.X, Y: from.Y})
	for k := 1; k <= 10; k++ {
		a.Event(viz.Event{Kind: viz.PointerMove, X: from.X + (to.X-from.X)*float64(k)/10, Y: from.Y})
	}
	a.Event(viz.Event{Kind: viz.PointerUp, X: to.X, Y: to.Y})
	if !(math.Abs(s.values[13]) <= 0.05) {
		t.Fatalf("user 14 ended at %v, want ≈ 0", s.values[13])
	}
	if s.law.RStar != 0 || s.law.PBottom != 0 {
		t.Errorf("after the drag: r* = %d, P⊥ = %v", s.law.RStar, s.law.PBottom)
	}
	if s.result.R1 != r1 {
		t.Errorf("R1 changed from %d to %d under a drag", r1, s.result.R1)
	}
	for i, v := range s.values[:13] {
		if v != mech.ExampleInliers()[i] {
			t.Errorf("user %d moved", i+1)
		}
	}
}

// The neighbour lens: move one user in the copy; the exact δ at the claimed
// ε stays within the promise, and moving a second user resets the first.
func TestStabilityLens(t *testing.T) {
	a, s := scenetest.Open(t, New())
	scenetest.MustSet(t, a, "lens", "true")
	l := scenetest.Frame(a)
	p, ok := l.Locate(lensID + 14)
	if !ok {
		t.Fatal("lens users not drawn")
	}
	mid := s.axis.XOf(5) // away from the other users' dots
	a.Event(viz.Event{Kind: viz.PointerDown, X: p.X, Y: p.Y})
	a.Event(viz.Event{Kind: viz.PointerMove, X: mid, Y: p.Y})
	a.Event(viz.Event{Kind: viz.PointerUp, X: mid, Y: p.Y})
	if s.values[13] != 10 || !(math.Abs(s.neighbour[13]-5) <= 0.3) {
		t.Fatalf("lens drag changed data %v / neighbour %v", s.values[13], s.neighbour[13])
	}
	var lens viz.Readout
	for _, r := range a.Readouts() {
		if r.Name == "lens-delta" {
			lens = r
		}
	}
	if !strings.Contains(lens.Text, "within") || lens.Warn {
		t.Errorf("lens verdict %q", lens.Text)
	}
	// Move another lens user: the first goes back.
	l = scenetest.Frame(a)
	r, _ := l.Locate(lensID + 2)
	a.Event(viz.Event{Kind: viz.PointerDown, X: r.X, Y: r.Y})
	a.Event(viz.Event{Kind: viz.PointerMove, X: r.X + 30, Y: r.Y})
	a.Event(viz.Event{Kind: viz.PointerUp, X: r.X + 30, Y: r.Y})
	diff := 0
	for i := range s.values {
		if s.values[i] != s.neighbour[i] {
			diff++
		}
	}
	if diff != 1 || s.neighbour[13] != 10 {
		t.Errorf("the lens must differ in exactly one user: %d differ, user 14 = %v", diff, s.neighbour[13])
	}
}

func TestStabilityRerollsAndState(t *testing.T) {
	a, s := scenetest.Open(t, New())
	r1, z := s.result.R1, s.result.Output
	scenetest.MustSet(t, a, "reroll-noise", "")
	if s.result.R1 != r1 || reflect.DeepEqual(s.result.Output, z) {
		t.Error("re-drawing the noise must keep R1 and change the output")
	}
	b, _ := scenetest.Open(t, New())
	scenetest.MustSet(t, a, "values", "0,0,0,0,0,0,0,10,10,10,10,10,10,10")
	if err := b.Restore(a.State()); err != nil {
		t.Fatal(err)
	}
	scenetest.MustSet(t, a, viz.CtlEnd, "")
	scenetest.MustSet(t, b, viz.CtlEnd, "")
	if !reflect.DeepEqual(scenetest.Frame(a).Items, scenetest.Frame(b).Items) {
		t.Error("restored state draws differently")
	}
	for _, bad := range [][2]string{{"values", "1,2,3"}, {"values", "1,x"}, {"eps", "0.5"}, {"eps", "2.4"}, {"sens", "0"}} {
		if err := a.Set(bad[0], bad[1]); err == nil {
			t.Errorf("Set(%s, %q) accepted", bad[0], bad[1])
		}
	}
	if s.err != nil {
		t.Errorf("a rejected value broke the scene: %v", s.err)
	}
}

// In a phone's frame (358 px) the lesson stacks its panels: at every step,
// with and without the lens, nothing runs out of the frame and no label
// over another (boxes from the display list, at TextWidth's estimate).
func TestStabilityNarrowFrame(t *testing.T) {
	a, _ := scenetest.Open(t, New())
	const w, h = 358, 590
	for _, lens := range []string{"false", "true"} {
		scenetest.MustSet(t, a, "lens", lens)
		scenetest.MustSet(t, a, viz.CtlReset, "")
		for step := 0; ; step++ {
			l, _ := a.Frame(w, h)
			for _, bad := range append(scenetest.Clashes(l), scenetest.Outside(l)...) {
				t.Errorf("lens %s, step %d: %s", lens, step, bad)
			}
			if !a.Key("ArrowRight") {
				break
			}
		}
	}
}

// The figure says what it shows, and a step changes what it says.
func TestStabilityDescribes(t *testing.T) {
	a, _ := scenetest.Open(t, New())
	scenetest.Describes(t, a, func() { a.Key("ArrowRight") })
}

// The keyboard moves the far user (the last point) as a mouse drag does.
func TestStabilityKeyboardDrag(t *testing.T) {
	scenetest.KeyboardMatchesMouse(t, scenetest.Opens(t, New), "ArrowUp")
}

// The lesson opens outside its proof (ε̄ = 4) and its button moves to the
// nearest run the proof covers: ε = 1.9, δ = 1/2, κ = 4, 18 users — the
// 14 the reader had, dragged ones included, and 4 beside their median.
// The thresholds the ε slider's help quotes are κ's.
func TestStabilityCertifies(t *testing.T) {
	a, s := scenetest.Open(t, New())
	scenetest.MustSet(t, a, "values", "0,0.05,-0.05,0.1,-0.1,0.02,-0.02,0.07,-0.07,0.03,-0.03,0.04,-0.04,3")
	if g := a.Guarantee(); g.Certified() {
		t.Fatal("ε = 8 is certified")
	}
	if !scenetest.Certifies(t, a, "stability") {
		return
	}
	if s.params.Eps != 1.9 || s.params.Delta != 0.5 || len(s.values) != 18 || s.values[13] != 3 || s.err != nil {
		t.Errorf("certified at ε = %g, δ = %g, %d users %v (%v)", s.params.Eps, s.params.Delta, len(s.values), s.values, s.err)
	}
	if cal, _ := s.params.DelCalibration(); cal.Kappa != 4 {
		t.Errorf("κ = %d at the certified settings", cal.Kappa)
	}
	for _, c := range []struct {
		eps, delta float64
		kappa      int
	}{{1.39, 0.5, 4}, {1.38, 0.5, 5}, {2.72, 0.1, 4}, {2.71, 0.1, 5}, {2.35, 0.5, 3}, {2.34, 0.5, 4}, {4.93, 0.1, 3}, {4.92, 0.1, 4}} {
		if cal, _ := (mech.DelParams{Eps: c.eps, Delta: c.delta, Sens: 0.1}).DelCalibration(); cal.Kappa != c.kappa {
			t.Errorf("ε = %g, δ = %g: κ = %d, the help says %d", c.eps, c.delta, cal.Kappa, c.kappa)
		}
	}
	if h := scenetest.Control(a, "eps").Help; !strings.Contains(h, "from ε = 1.39 at δ = 0.5, from ε = 2.72 at δ = 0.1") || !strings.Contains(h, "κ = 3 from ε = 2.35 at δ = 0.5, from ε = 4.93 at δ = 0.1") {
		t.Errorf("the ε slider's help: %q", h)
	}
}
