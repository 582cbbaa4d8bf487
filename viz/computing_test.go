package viz

import (
	"strings"
	"testing"
)

// busyScene computes for a few ticks, saying so in its "computing" readout
// (or, quiet, saying nothing).
type busyScene struct {
	*workScene
	quiet bool
}

func (b *busyScene) Readouts() []Readout {
	if b.quiet || !b.Busy() {
		return nil
	}
	return []Readout{ComputingReadout("the run", 0.5, LastRunShown)}
}

// banner returns the text and the bar's filled width of the computing
// banner in l (0 and "" when there is none).
func banner(l *List) (text string, filled float64) {
	for _, it := range l.Items {
		switch {
		case it.Kind == Text && strings.HasPrefix(it.Text, "computing: "):
			text = it.Text
		case it.Kind == Rect && it.Style.Fill == Blue:
			filled = it.P[1].X - it.P[0].X
		}
	}
	return text, filled
}

// While a scene computes, the figure carries its "computing" readout and a
// bar as far as its Value, whatever the scene draws; not once it is done,
// nor for a scene that does not say it computes.
func TestFigureSaysWhatIsComputed(t *testing.T) {
	b := &busyScene{workScene: &workScene{stepScene: newStepScene(t, 5), left: 2, run: &Player{}}}
	a := NewApp(b)
	l, _ := a.Frame(400, 300)
	text, filled := banner(l)
	if !strings.HasPrefix(text, "computing: the run, 50% —") || !(filled > 150 && filled < 250) {
		t.Errorf("computing: the figure says %q, its bar filled %.0f px of about 384", text, filled)
	}
	// 200 px wide, the text wraps onto lines the banner's box holds.
	narrow, _ := a.Frame(200, 300)
	var box *Item
	lines := 0
	for i := range narrow.Items {
		it := &narrow.Items[i]
		switch {
		case it.Kind == Rect && it.Style.Fill == Paper && box == nil:
			box = it
		case it.Kind == Text && box != nil:
			lines++
			if y := it.P[0].Y + it.Size/2; y > box.P[1].Y || it.Size < 12 {
				t.Errorf("200 px wide: the line %q (size %.1f) reaches %.0f, below the banner's box at %.0f, or was shrunk", it.Text, it.Size, y, box.P[1].Y)
			}
		}
	}
	if box == nil || lines < 4 {
		t.Errorf("200 px wide: the banner's text on %d lines, want it wrapped onto 4 or more", lines)
	}
	a.Tick(0)
	a.Tick(0)
	if l, _ := a.Frame(400, 300); b.Busy() || len(l.Items) != 2 {
		t.Errorf("done: busy %v, the figure holds %d items, the scene's 2", b.Busy(), len(l.Items))
	}
	q := &busyScene{workScene: &workScene{stepScene: newStepScene(t, 5), left: 2, run: &Player{}}, quiet: true}
	if l, _ := NewApp(q).Frame(400, 300); len(l.Items) != 2 {
		t.Errorf("a scene computing without a readout: %d items, the scene's 2", len(l.Items))
	}
	live := liveScene{&busyScene{workScene: &workScene{stepScene: newStepScene(t, 5), left: 2, run: &Player{}}}}
	if l, _ := NewApp(live).Frame(400, 300); !live.Busy() || len(l.Items) != 2 {
		t.Errorf("a live figure computing: %d items, the scene's 2", len(l.Items))
	}
}

// liveScene shows its computation as it goes.
type liveScene struct{ *busyScene }

func (liveScene) Live() {}
