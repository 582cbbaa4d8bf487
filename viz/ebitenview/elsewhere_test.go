package ebitenview

import (
	"bytes"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/internal/scenetest"
	"github.com/uldplab/uldp/viz/lessons"
)

// window ticks app as the window does, with c beside it, until its
// computation is over (or the deadline, generous for a busy machine).
func window(t *testing.T, c *computer, app *viz.App) {
	t.Helper()
	for end := time.Now().Add(2 * time.Minute); app.Busy(); {
		if time.Now().After(end) {
			t.Fatalf("still computing after 2 minutes: %d handed out, %d adopted", c.offloads, c.adopted)
		}
		c.step(app)
		app.Tick(1.0 / 60)
		time.Sleep(time.Millisecond) // a window's frame, shortened
	}
}

// atOnce has every computation handed out as soon as it is under way: the
// tests of the hand-out itself. When it happens is
// TestComputedElsewhereAfterItsTicks's.
func atOnce(t *testing.T) {
	defer func(ms float64) { t.Cleanup(func() { viz.HandOutAfter = ms }) }(viz.HandOutAfter)
	viz.HandOutAfter = 0
}

// A computation is handed out once it has computed in the window for a
// few ticks, if its progress then foresees more than viz.HandOutAfter ms
// of them to go or it shows none, and at the latest once it has taken
// that long: a small one is done in the window, sooner than a copy would
// restore the lesson and answer.
func TestComputedElsewhereAfterItsTicks(t *testing.T) {
	defer func(clock func() float64) { viz.Clock = clock }(viz.Clock)
	var now float64
	viz.Clock = func() float64 { return now }
	const tickMs = 4.0                        // the window judges a run after 4 ticks (16 ms)
	short := int(viz.HandOutAfter/tickMs) - 1 // done within HandOutAfter
	latest := int(math.Ceil(viz.HandOutAfter / tickMs))
	for _, tc := range []struct {
		n        int
		progress progress
		handed   int
		ticked   int
	}{
		{short, even, 0, short},
		{short + 16, even, 1, 4}, // 16 ms done, 144 to go
		{200, even, 1, 4},
		{short, none, 1, 4},
		{200, early, 1, latest}, // its progress says under 100 ms to go until its 100 ms are spent
	} {
		c, _ := counter("", nil)
		s, app := counting(t, tc.n)
		s.now, s.tickMs, s.progress = &now, tickMs, tc.progress
		window(t, c, app)
		c.stop()
		if c.offloads != tc.handed || s.ticked != tc.ticked || c.finished != tc.handed {
			t.Errorf("a run of %d ticks of %g ms, progress shown as %d: %d handed out (%d finished), %d ticked in the window; want %d (%d), %d",
				tc.n, tickMs, tc.progress, c.offloads, c.finished, s.ticked, tc.handed, tc.handed, tc.ticked)
		}
	}
}

// Settings that come back to a computation handed out, after the copy was
// told to leave it, hand it out again at once: the window holds it and
// will not compute it, however young it is.
func TestComputedElsewhereBackToAHeldRun(t *testing.T) {
	defer func(clock func() float64) { viz.Clock = clock }(viz.Clock)
	var now float64
	viz.Clock = func() float64 { return now }
	c, _ := counter("", nil)
	defer c.stop()
	s, app := counting(t, 200)
	s.now, s.tickMs, s.progress = &now, 4, even
	for i := 0; c.offloads == 0; i++ {
		if i == 10 {
			t.Fatal("the run of 200 ticks was not handed out within 10 ticks")
		}
		c.step(app)
		app.Tick(1.0 / 60)
	}
	if err := app.Set("n", "150"); err != nil {
		t.Fatal(err)
	}
	c.step(app) // the copy leaves n = 200; n = 150 is young
	app.Tick(1.0 / 60)
	if err := app.Set("n", "200"); err != nil {
		t.Fatal(err)
	}
	window(t, c, app)
	if c.offloads != 2 || c.finished != 1 || s.ticked != 5 {
		t.Errorf("%d handed out (%d finished), %d ticked in the window; want 2 (1), 5", c.offloads, c.finished, s.ticked)
	}
}

func lessonApp() *viz.App {
	app := viz.NewApp(lessons.All()...)
	app.AddParts(lessons.Parts()...)
	return app
}

// The long runs of the lessons that can be computed elsewhere are computed
// by the copy, and what the window then shows is what it shows when it
// computes them itself.
func TestComputedElsewhereAsInTheWindow(t *testing.T) {
	atOnce(t)
	for _, state := range []string{
		"scene=dp-sgd&steps=200&eps=4",
		"scene=rates",
		"scene=semi-sensitive&n=2000",
	} {
		t.Run(state, func(t *testing.T) {
			c := newComputer(lessonApp)
			defer c.stop()
			app := lessonApp()
			if err := app.Restore(state); err != nil {
				t.Fatal(err)
			}
			if app.RemoteKey() == "" {
				t.Fatal("the run is over before it could be handed out: the test shows nothing")
			}
			window(t, c, app)
			// That the last outcome was read, not computed here after
			// all, the lessons' own tests hold: it looks the same.
			if c.offloads != 1 || c.adopted < 1 || c.finished != 1 || len(c.gaveUp) > 0 {
				t.Fatalf("%d handed out, %d adopted (%d finished), gave up %v: want 1, at least 1 (1), none", c.offloads, c.adopted, c.finished, c.gaveUp)
			}
			here := lessonApp()
			if err := here.Restore(state); err != nil {
				t.Fatal(err)
			}
			here.Settle()
			if got, want := scenetest.Seen(app), scenetest.Seen(here); !bytes.Equal(got, want) {
				t.Errorf("computed elsewhere, the window shows %d bytes that differ from its own run's %d", len(got), len(want))
			}
		})
	}
}

// A change of settings while the copy computes replaces its run: the
// window ends on the new run, computed elsewhere too, and adopts nothing
// of the old one after the change (the app refuses an outcome for another
// key, which would give the copy up).
func TestComputedElsewhereReplaced(t *testing.T) {
	atOnce(t)
	c := newComputer(lessonApp)
	defer c.stop()
	app := lessonApp()
	const long = "scene=dp-sgd&n=1000&m=50&steps=400&tau=10"
	if err := app.Restore(long); err != nil {
		t.Fatal(err)
	}
	old := app.RemoteKey()
	for end := time.Now().Add(time.Minute); c.adopted == 0; {
		if time.Now().After(end) || !app.Busy() {
			t.Fatalf("no outcome adopted while the run was under way (busy %v)", app.Busy())
		}
		c.step(app)
		app.Tick(1.0 / 60)
		time.Sleep(time.Millisecond)
	}
	if c.finished != 0 {
		t.Fatal("the run was done at its first answer: the test needs a longer run")
	}
	if err := app.Set("eps", "2"); err != nil {
		t.Fatal(err)
	}
	if app.RemoteKey() == old || app.RemoteKey() == "" {
		t.Fatalf("the change named no new computation (%q)", app.RemoteKey())
	}
	window(t, c, app)
	if c.offloads != 2 || c.finished != 1 || len(c.gaveUp) > 0 {
		t.Fatalf("%d handed out, %d finished, gave up %v: want 2, 1, none", c.offloads, c.finished, c.gaveUp)
	}
	here := lessonApp()
	if err := here.Restore(long + "&eps=2"); err != nil {
		t.Fatal(err)
	}
	here.Settle()
	if !bytes.Equal(scenetest.Seen(app), scenetest.Seen(here)) {
		t.Error("after the change, the window does not show the new run")
	}
}

// countScene counts down n ticks, a computation another copy can do: the
// tests' own Remote, which can be made to fail.
type countScene struct {
	scenetest.Blank
	n, left  int
	ticked   int    // ticks that computed
	fail     string // in the copy: "panic" in its ticks, "other" key
	copy     bool
	hang     chan struct{} // in the copy: a tick waits for it to close
	hung     chan struct{} // told when a tick waits
	now      *float64      // in the window: a tick moves this clock on
	tickMs   float64       // by so much
	progress progress      // what the computing readout shows
}

// progress is how a countScene shows how far it has come.
type progress int

const (
	none  progress = iota // no computing readout
	even                  // the share of its ticks done
	early                 // its 8th root: a sweep whose later points cost more
)

func (s *countScene) Readouts() []viz.Readout {
	if s.progress == none || s.left == 0 {
		return nil
	}
	f := float64(s.n-s.left) / float64(s.n)
	if s.progress == early {
		f = math.Pow(f, 1.0/8)
	}
	return []viz.Readout{viz.ComputingReadout("counting", f, viz.LastRunShown)}
}

func (s *countScene) Controls() []viz.Control {
	return []viz.Control{{Name: "n", Label: "n", Kind: viz.Number, Value: strconv.Itoa(s.n)}}
}

func (s *countScene) Set(name, v string) error {
	n, err := strconv.Atoi(v)
	if name != "n" || err != nil || n < 0 || n > 255 {
		return errors.New("n: a whole number from 0 to 255")
	}
	s.n, s.left = n, n
	return nil
}

func (s *countScene) Busy() bool { return s.left > 0 }

func (s *countScene) Tick(float64) bool {
	if s.left == 0 {
		return false
	}
	if s.copy {
		if s.hang != nil {
			select {
			case s.hung <- struct{}{}:
			default:
			}
			<-s.hang
		}
		if s.fail == "panic" {
			panic("planted")
		}
	}
	if s.now != nil {
		*s.now += s.tickMs
	}
	s.left--
	s.ticked++
	return true
}

func (s *countScene) RemoteKey() string {
	if s.left == 0 {
		return ""
	}
	if s.copy && s.fail == "other" {
		return "other"
	}
	return "n=" + strconv.Itoa(s.n)
}

func (s *countScene) Outcome() ([]byte, bool) { return []byte{byte(s.left)}, s.left == 0 }

func (s *countScene) Adopt(key string, data []byte, done bool) error {
	s.left = int(data[0])
	if done {
		s.left = 0
	}
	return nil
}

// counter returns a computer whose copies count, the ones of fail failing
// so, and the buffer its warnings go to.
func counter(fail string, hang chan struct{}) (*computer, *bytes.Buffer) {
	return counterHung(fail, hang, nil)
}

// counterHung is counter whose copies tell hung when a tick waits.
func counterHung(fail string, hang, hung chan struct{}) (*computer, *bytes.Buffer) {
	c := newComputer(func() *viz.App {
		if fail == "restore" {
			return viz.NewApp(scenetest.Blank{Name: "blank"})
		}
		return viz.NewApp(&countScene{Blank: scenetest.Blank{Name: "count"}, fail: fail, copy: true, hang: hang, hung: hung},
			&countScene{Blank: scenetest.Blank{Name: "other lesson"}, copy: true})
	})
	var warn bytes.Buffer
	c.warn = &warn
	return c, &warn
}

// counting returns a window's app counting down n.
func counting(t *testing.T, n int) (*countScene, *viz.App) {
	t.Helper()
	s := &countScene{Blank: scenetest.Blank{Name: "count"}}
	app := viz.NewApp(s)
	if err := app.Set("n", strconv.Itoa(n)); err != nil {
		t.Fatal(err)
	}
	return s, app
}

// The window's own copy computes nothing of a run handed out: it shows
// the outcomes, and the last ends the run.
func TestComputedElsewhereHeld(t *testing.T) {
	atOnce(t)
	c, warn := counter("", nil)
	defer c.stop()
	s, app := counting(t, 200)
	window(t, c, app)
	if c.offloads != 1 || c.adopted < 1 || c.finished != 1 || s.ticked != 0 || warn.Len() > 0 {
		t.Errorf("%d handed out, %d adopted (%d finished), %d ticks computed in the window, warned %q: want 1, at least 1 (1), 0, nothing",
			c.offloads, c.adopted, c.finished, s.ticked, warn)
	}
}

// However the copy fails, the window computes the run itself; a run the
// copy cannot restore (it refuses the state, or names another run)
// leaves the next one to be handed out again.
func TestComputedElsewhereFails(t *testing.T) {
	atOnce(t)
	for _, fail := range []string{"panic", "other", "restore"} {
		t.Run(fail, func(t *testing.T) {
			c, warn := counter(fail, nil)
			defer c.stop()
			s, app := counting(t, 200)
			window(t, c, app)
			if c.offloads != 1 || c.adopted != 0 {
				t.Errorf("%d handed out, %d adopted: want 1, 0", c.offloads, c.adopted)
			}
			unrestorable := fail == "other" || fail == "restore"
			if c.gaveUp["count"] == unrestorable {
				t.Errorf("gave up %v after %s", c.gaveUp, fail)
			}
			if why := map[string]string{"panic": "panicked: planted", "other": "computes something else", "restore": `scene "count"`}[fail]; !strings.Contains(warn.String(), why) {
				t.Errorf("warned %q, want a line with %q", warn, why)
			}
			if s.ticked != 200 {
				t.Errorf("the window computed %d ticks of 200 itself", s.ticked)
			}
			if err := app.Set("n", "100"); err != nil {
				t.Fatal(err)
			}
			window(t, c, app)
			if want := map[bool]int{true: 2, false: 1}[unrestorable]; c.offloads != want {
				t.Errorf("the next run: %d handed out in all, want %d", c.offloads, want)
			}
		})
	}
}

// A copy that falls silent is given up after the watchdog.
func TestComputedElsewhereSilent(t *testing.T) {
	atOnce(t)
	hang := make(chan struct{})
	defer close(hang)
	c, warn := counter("", hang)
	defer c.stop()
	_, app := counting(t, 50)
	c.step(app)
	app.Tick(1.0 / 60)
	if !app.Busy() || c.offloads != 1 {
		t.Fatalf("not handed out: busy %v, %d handed out", app.Busy(), c.offloads)
	}
	c.heard = c.heard.Add(-watchdog) // as if the copy had been stuck since
	c.step(app)
	if !c.gaveUp["count"] || !strings.Contains(warn.String(), "no answer for 15s") {
		t.Fatalf("a silent copy was not given up (warned %q)", warn)
	}
	window(t, c, app)
	if s := app.State(); !strings.Contains(s, "n=50") {
		t.Errorf("state %q", s)
	}
}

// A copy that fails on a run while a newer one waits for it is given up
// at once (it has ended: nothing would answer the newer run but the
// watchdog); the window computes that lesson's runs itself, and a fresh
// copy takes another lesson's.
func TestComputedElsewhereFailsForOneLesson(t *testing.T) {
	atOnce(t)
	hang, hung := make(chan struct{}), make(chan struct{}, 1)
	c, warn := counterHung("panic", hang, hung)
	defer c.stop()
	s := &countScene{Blank: scenetest.Blank{Name: "count"}}
	other := &countScene{Blank: scenetest.Blank{Name: "other lesson"}}
	app := viz.NewApp(s, other)
	if err := app.Set("n", "200"); err != nil {
		t.Fatal(err)
	}
	c.step(app)
	select { // the copy computes the first run
	case <-hung:
	case <-time.After(time.Minute):
		t.Fatal("the copy never ticked")
	}
	if err := app.Set("n", "150"); err != nil {
		t.Fatal(err)
	}
	c.step(app)
	close(hang) // and fails on it, the second handed out
	start := time.Now()
	window(t, c, app)
	if took := time.Since(start); took > watchdog/2 || !c.gaveUp["count"] || s.left != 0 {
		t.Fatalf("after %v: gave up %v, %d left to count", took, c.gaveUp, s.left)
	}
	if !strings.Contains(warn.String(), "panicked: planted") {
		t.Errorf("warned %q", warn)
	}
	// Another lesson's run goes to a fresh copy.
	if err := app.SwitchTo("other lesson"); err != nil {
		t.Fatal(err)
	}
	if err := app.Set("n", "100"); err != nil {
		t.Fatal(err)
	}
	window(t, c, app)
	if c.offloads != 3 || c.finished != 1 || other.ticked != 0 {
		t.Errorf("%d handed out, %d finished, %d ticks computed in the window: want 3, 1, 0", c.offloads, c.finished, other.ticked)
	}
	// The failed lesson's next run is computed in the window.
	if err := app.SwitchTo("count"); err != nil {
		t.Fatal(err)
	}
	if err := app.Set("n", "20"); err != nil {
		t.Fatal(err)
	}
	window(t, c, app)
	// The run of 200 was held, never ticked here; the run of 150 was.
	if c.offloads != 3 || s.ticked != 150+20 {
		t.Errorf("%d handed out, %d ticks computed in the window", c.offloads, s.ticked)
	}
}

// A copy that panics as it is made is given up, and the app goes on.
func TestComputedElsewhereCopyPanics(t *testing.T) {
	atOnce(t)
	c := newComputer(func() *viz.App { panic("no copy") })
	var warn bytes.Buffer
	c.warn = &warn
	defer c.stop()
	_, app := counting(t, 30)
	window(t, c, app)
	if !c.gaveUp["count"] || !strings.Contains(warn.String(), "no copy") {
		t.Errorf("gave up %v, warned %q", c.gaveUp, warn.String())
	}
}

// A copy stuck in one lesson's run while another lesson's waits is given
// up for the lesson it is stuck in.
func TestComputedElsewhereWatchdogBlamesTheStuckLesson(t *testing.T) {
	atOnce(t)
	hang, hung := make(chan struct{}), make(chan struct{}, 1)
	defer close(hang)
	c, warn := counterHung("", hang, hung)
	defer c.stop()
	s := &countScene{Blank: scenetest.Blank{Name: "count"}}
	other := &countScene{Blank: scenetest.Blank{Name: "other lesson"}}
	app := viz.NewApp(s, other)
	if err := app.Set("n", "50"); err != nil {
		t.Fatal(err)
	}
	c.step(app)
	select {
	case <-hung:
	case <-time.After(time.Minute):
		t.Fatal("the copy never ticked")
	}
	if err := app.SwitchTo("other lesson"); err != nil {
		t.Fatal(err)
	}
	if err := app.Set("n", "40"); err != nil {
		t.Fatal(err)
	}
	c.step(app)
	if c.offloads != 2 {
		t.Fatalf("%d handed out, want 2", c.offloads)
	}
	c.heard = c.heard.Add(-watchdog) // as if stuck since
	c.step(app)
	if !c.gaveUp["count"] || c.gaveUp["other lesson"] {
		t.Errorf("gave up %v, want count's only (warned %q)", c.gaveUp, warn)
	}
}
