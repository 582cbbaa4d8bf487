package viz

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/uldplab/uldp/core/cancel"
	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/core/trace"
)

// dragScene is a figure of two handles (a disc, ID 1, and a pair of dots,
// IDs 10 and 11) that moves whichever one a pointer presses, as the
// lessons' drags do, and records the events it was sent.
type dragScene struct {
	pos    map[int]Point
	held   int
	events []Event
}

func newDragScene() *dragScene {
	return &dragScene{pos: map[int]Point{1: {100, 100}, 10: {200, 50}, 11: {220, 60}}}
}

func (s *dragScene) Info() Info                   { return Info{Name: "drag", Title: "Drag", Summary: "Two handles."} }
func (s *dragScene) Controls() []Control          { return nil }
func (s *dragScene) Set(string, string) error     { return nil }
func (s *dragScene) Readouts() []Readout          { return nil }
func (s *dragScene) Guarantee() privacy.Guarantee { return privacy.Guarantee{} }
func (s *dragScene) Describe() string {
	return format.Sprintf("the disc at (%.0f, %.0f)", s.pos[1].X, s.pos[1].Y)
}

func (s *dragScene) Pointer(ev Event) bool {
	s.events = append(s.events, ev)
	switch ev.Kind {
	case PointerDown:
		s.held = 0
		for id, p := range s.pos {
			if (p.X-ev.X)*(p.X-ev.X)+(p.Y-ev.Y)*(p.Y-ev.Y) <= 25 {
				s.held = id
			}
		}
	case PointerMove:
		if s.held != 0 {
			s.pos[s.held] = Point{ev.X, ev.Y}
		}
	case PointerUp:
		s.held = 0
	}
	return true
}

func (s *dragScene) Draw(w, h float64) *List {
	l := &List{Width: w, Height: h}
	dots := []Point{s.pos[10]}
	if p, ok := s.pos[11]; ok {
		dots = append(dots, p)
	}
	l.Items = append(l.Items,
		Item{Kind: Circle, P: []Point{s.pos[1]}, R: 5, ID: 1},
		Item{Kind: Dots, P: dots, R: 3, ID: 10})
	return l
}

// The keyboard chooses, picks up, moves and drops a handle with the very
// events a mouse drag sends, and the figure marks and names the choice.
func TestKeyboardDragsAsTheMouseDoes(t *testing.T) {
	s := newDragScene()
	a := NewApp(s)
	a.Frame(400, 300)
	if got := a.Label(); !strings.Contains(got, "Figure of Drag") || !strings.Contains(got, "Enter picks it up") {
		t.Errorf("label %q", got)
	}
	keys := func(ks ...string) {
		for _, k := range ks {
			a.Key(k)
			a.Frame(400, 300)
		}
	}
	keys("ArrowDown")
	if a.sel != 1 || !strings.Contains(a.Describe(), "Chosen: item 1 of 3") {
		t.Fatalf("after ↓: chose %d, %q", a.sel, a.Describe())
	}
	if l := a.LastFrame(); l.Items[len(l.Items)-1].Kind != Circle || !l.Items[len(l.Items)-1].Style.Dashed {
		t.Error("the choice is not marked by a dashed ring")
	}
	keys("ArrowDown", "ArrowDown", "ArrowDown") // 10, 11, and round to 1
	if a.sel != 1 {
		t.Fatalf("↓ three times more chose %d, want 1 again", a.sel)
	}
	keys("ArrowUp")
	if a.sel != 11 {
		t.Fatalf("↑ from the first chose %d, want the last (11)", a.sel)
	}
	keys("ArrowDown", "Enter", "ArrowRight", "Shift+ArrowDown", "Enter")
	if got, want := s.pos[1], (Point{100 + KeyStep, 100 + KeyStepLarge}); got != want {
		t.Errorf("the disc moved to %v, want %v", got, want)
	}
	want := []EventKind{PointerDown, PointerMove, PointerMove, PointerUp}
	if len(s.events) != len(want) {
		t.Fatalf("events %+v", s.events)
	}
	for i, ev := range s.events {
		if ev.Kind != want[i] || ev.Pointer != 0 {
			t.Errorf("event %d: %+v, want kind %v from the mouse's pointer", i, ev, want[i])
		}
	}
	if !strings.Contains(a.Describe(), "the disc at (104, 124)") {
		t.Errorf("description %q", a.Describe())
	}
	// Not holding, ← and → are the stepper's: the figure leaves them.
	if handled, _ := a.figureKey("ArrowLeft"); handled {
		t.Error("← taken by the figure while nothing is held")
	}
	keys("Escape")
	if a.sel != 0 || a.Selection() != "" {
		t.Errorf("Escape kept the choice %d", a.sel)
	}
}

// A handle that leaves the figure (fewer users) is no longer chosen, and
// switching lessons drops a held one.
func TestKeyboardChoiceFollowsTheFigure(t *testing.T) {
	s := newDragScene()
	a := NewApp(s, newDragScene())
	a.Frame(400, 300)
	a.Key("ArrowUp") // the last: dot 11
	a.Frame(400, 300)
	a.Key("Enter")
	if err := a.Switch(1); err != nil {
		t.Fatal(err)
	}
	if a.sel != 0 || a.held || s.events[len(s.events)-1].Kind != PointerUp {
		t.Errorf("after a switch: chosen %d, held %v, last event %+v", a.sel, a.held, s.events[len(s.events)-1])
	}
	b := NewApp(newDragScene())
	b.Frame(400, 300)
	b.Key("ArrowUp")
	b.Invalidate()
	delete(b.Scene().(*dragScene).pos, 11)
	b.Frame(400, 300)
	if b.sel != 0 {
		t.Errorf("chosen %d after it left the figure", b.sel)
	}
}

// stepScene is dragScene with a stepper bar.
type stepScene struct {
	*dragScene
	player Player
}

func (s *stepScene) Player() *Player { return &s.player }

// newStepScene is a stepScene whose run has n steps.
func newStepScene(t *testing.T, n int) *stepScene {
	s := &stepScene{dragScene: newDragScene()}
	st, err := trace.NewStepper(nil, func(cancel.Context, *dataset.Dataset, *rng.Streams) (*trace.Trace, error) {
		return &trace.Trace{Steps: make([]trace.Step, n)}, nil
	}, &dataset.Dataset{Dim: 2}, rng.New(1))
	if err != nil {
		t.Fatal(err)
	}
	s.player.Load(st)
	return s
}

// With reduced motion, playback goes at most a step a second, whatever the
// speed slider says.
func TestReducedMotionCapsPlayback(t *testing.T) {
	for _, reduced := range []bool{false, true} {
		s := newStepScene(t, 100)
		a := NewApp(s)
		a.ReduceMotion(reduced)
		if err := a.Set(CtlSpeed, "10"); err != nil {
			t.Fatal(err)
		}
		a.Key("Space")
		for range 20 {
			a.Tick(0.1)
		}
		want := 20
		if reduced {
			want = 2
		}
		if got := s.player.Stepper().Pos(); got != want {
			t.Errorf("reduced motion %v: 2 s at 10 steps/s reached step %d, want %d", reduced, got, want)
		}
	}
}

// Playback reaching the end changes the bar (play, not pause) on the tick
// that finds it, so the front ends redraw it and speak the figure.
func TestPlaybackEndChangesTheBar(t *testing.T) {
	s := newStepScene(t, 2)
	a := NewApp(s)
	a.Key("Space")
	if !a.Busy() {
		t.Fatal("not busy while playing")
	}
	var changed []bool
	for range 4 {
		changed = append(changed, a.Tick(1/s.player.Speed()))
	}
	if want := []bool{true, true, true, false}; !slices.Equal(changed, want) || a.Busy() {
		t.Errorf("ticks changed %v, want %v (two steps, then the stop); busy %v", changed, want, a.Busy())
	}
}

// Escape puts a held item back where it was picked up; a setting changed
// while an item is held lets go of it first (the run under it may change).
func TestKeyboardEscapeAndSettings(t *testing.T) {
	s := newDragScene()
	a := NewApp(s)
	a.Frame(400, 300)
	for _, k := range []string{"ArrowDown", "Enter", "Shift+ArrowRight", "Escape"} {
		a.Key(k)
	}
	if got := s.pos[1]; got != (Point{100, 100}) || a.held {
		t.Errorf("after Escape the disc is at %v (held %v), want back at (100, 100)", got, a.held)
	}
	if last := s.events[len(s.events)-1]; last.Kind != PointerUp || last.X != 100 {
		t.Errorf("Escape ended with %+v", last)
	}
	a.Key("Enter")
	a.Key("ArrowRight")
	if err := a.Set("anything", "1"); err != nil {
		t.Fatal(err)
	}
	if a.held || s.events[len(s.events)-1].Kind != PointerUp {
		t.Errorf("a setting changed while held: held %v, last event %+v", a.held, s.events[len(s.events)-1])
	}
	if a.Release() {
		t.Error("Release let go of something twice")
	}
}

// actionScene's disc is clicked, not dragged, and its dots are only shown.
type actionScene struct{ *dragScene }

func (actionScene) ItemAction(id int) ItemAction {
	if id == 1 {
		return Clicks
	}
	return Shows
}

// shownScene's items are all only shown.
type shownScene struct{ *dragScene }

func (shownScene) ItemAction(int) ItemAction { return Shows }

// The keyboard offers only items a press acts on, and presses one that
// is clicked without holding it.
func TestKeyboardClicksAndShows(t *testing.T) {
	s := actionScene{newDragScene()}
	a := NewApp(s)
	a.Frame(400, 300)
	if got := a.choosable(); !slices.Equal(got, []int{1}) || !a.anyChoosable() {
		t.Fatalf("choosable %v, want the disc alone", got)
	}
	shown := NewApp(shownScene{newDragScene()})
	shown.Frame(400, 300)
	if shown.anyChoosable() || strings.Contains(shown.Label(), "↑ ↓") {
		t.Errorf("a figure of items only shown offers keys: %q", shown.Label())
	}
	a.Key("ArrowDown")
	if !strings.Contains(a.Selection(), "Enter presses it") {
		t.Errorf("selection %q", a.Selection())
	}
	a.Key("Enter")
	if a.held || len(s.events) != 2 || s.events[0].Kind != PointerDown || s.events[0].Target != 1 || s.events[1].Kind != PointerUp {
		t.Errorf("a press on a clicked item: held %v, events %+v", a.held, s.events)
	}
	if handled, _ := a.figureKey("ArrowRight"); handled {
		t.Error("→ after a click is taken by the figure, not the stepper")
	}
}

// workScene computes its run for a few ticks before its stepper has one.
type workScene struct {
	*stepScene
	left int // ticks until the run is there
	run  *Player
}

func (w *workScene) Player() *Player { return w.run }
func (w *workScene) Busy() bool      { return w.left > 0 }
func (w *workScene) Tick(float64) bool {
	if w.left == 0 {
		return false
	}
	if w.left--; w.left == 0 {
		w.run = &w.stepScene.player
	}
	return true
}

// End pressed while a lesson computes its first run acts when the run is
// there, as a student pressing it at once expects; nothing is queued once
// the lesson changes.
func TestStepperKeyWaitsForTheRun(t *testing.T) {
	w := &workScene{stepScene: newStepScene(t, 5), left: 3, run: &Player{}}
	a := NewApp(w, newDragScene())
	if !a.Key("End") {
		t.Fatal("End while computing was dropped")
	}
	for range 3 {
		a.Tick(1.0 / 60)
	}
	if got := w.stepScene.player.Stepper().Pos(); got != 5 {
		t.Errorf("after the run arrived the stepper is at %d, want its end (5)", got)
	}
	w2 := &workScene{stepScene: newStepScene(t, 5), left: 3, run: &Player{}}
	b := NewApp(w2, newDragScene())
	b.Key("End")
	if err := b.Switch(1); err != nil {
		t.Fatal(err)
	}
	if b.queued != "" {
		t.Errorf("a switch kept %q queued", b.queued)
	}
}

// failScene's run failed: its readouts say so.
type failScene struct{ *dragScene }

func (failScene) Readouts() []Readout { return FailedReadouts("cannot run", errors.New("boom")) }

// A figure whose run failed is described by its failure, not by a run.
func TestDescribeAFailedRun(t *testing.T) {
	a := NewApp(failScene{newDragScene()})
	if d := a.Describe(); !strings.HasPrefix(d, "cannot run: boom.") || strings.Contains(d, "the disc at") {
		t.Errorf("description %q", d)
	}
}
