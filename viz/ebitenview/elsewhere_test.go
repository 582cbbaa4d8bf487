package ebitenview

import (
	"bytes"
	"errors"
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

func lessonApp() *viz.App {
	app := viz.NewApp(lessons.All()...)
	app.AddParts(lessons.Parts()...)
	return app
}

// The long runs of the lessons that can be computed elsewhere are computed
// by the copy, and what the window then shows is what it shows when it
// computes them itself.
func TestComputedElsewhereAsInTheWindow(t *testing.T) {
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
			if c.offloads != 1 || c.adopted < 1 || c.failed {
				t.Fatalf("%d handed out, %d adopted, failed %v: want 1, at least 1, false", c.offloads, c.adopted, c.failed)
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
// of the old one after the change.
func TestComputedElsewhereReplaced(t *testing.T) {
	c := newComputer(lessonApp)
	defer c.stop()
	app := lessonApp()
	if err := app.Restore("scene=dp-sgd&steps=200&eps=4"); err != nil {
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
	if err := app.Set("eps", "2"); err != nil {
		t.Fatal(err)
	}
	if app.RemoteKey() == old || app.RemoteKey() == "" {
		t.Fatalf("the change named no new computation (%q)", app.RemoteKey())
	}
	window(t, c, app)
	if c.offloads != 2 || c.failed {
		t.Fatalf("%d handed out, failed %v: want 2, false", c.offloads, c.failed)
	}
	here := lessonApp()
	if err := here.Restore("scene=dp-sgd&steps=200&eps=2"); err != nil {
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
	n, left int
	ticked  int    // ticks that computed
	fail    string // in the copy: "panic" in its ticks, "other" key
	copy    bool
	hang    chan struct{} // in the copy: a tick waits for it to close
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
		switch s.fail {
		case "panic":
			panic("planted")
		}
		if s.hang != nil {
			<-s.hang
		}
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
	c := newComputer(func() *viz.App {
		if fail == "restore" {
			return viz.NewApp(scenetest.Blank{Name: "blank"})
		}
		return viz.NewApp(&countScene{Blank: scenetest.Blank{Name: "count"}, fail: fail, copy: true, hang: hang})
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
	c, warn := counter("", nil)
	defer c.stop()
	s, app := counting(t, 200)
	window(t, c, app)
	if c.offloads != 1 || c.adopted < 1 || s.ticked != 0 || warn.Len() > 0 {
		t.Errorf("%d handed out, %d adopted, %d ticks computed in the window, warned %q: want 1, at least 1, 0, nothing",
			c.offloads, c.adopted, s.ticked, warn)
	}
}

// However the copy fails, the window computes the run itself; only a run
// the copy cannot restore leaves the next one to be handed out again.
func TestComputedElsewhereFails(t *testing.T) {
	for _, fail := range []string{"panic", "other", "restore"} {
		t.Run(fail, func(t *testing.T) {
			c, warn := counter(fail, nil)
			defer c.stop()
			s, app := counting(t, 200)
			window(t, c, app)
			if c.offloads != 1 || c.adopted != 0 {
				t.Errorf("%d handed out, %d adopted: want 1, 0", c.offloads, c.adopted)
			}
			if c.failed == (fail == "other") {
				t.Errorf("failed %v after %s", c.failed, fail)
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
			if want := map[bool]int{true: 2, false: 1}[fail == "other"]; c.offloads != want {
				t.Errorf("the next run: %d handed out in all, want %d", c.offloads, want)
			}
		})
	}
}

// A copy that falls silent is given up after the watchdog.
func TestComputedElsewhereSilent(t *testing.T) {
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
	if !c.failed || !strings.Contains(warn.String(), "no answer for 15s") {
		t.Fatalf("a silent copy was not given up (warned %q)", warn)
	}
	window(t, c, app)
	if s := app.State(); !strings.Contains(s, "n=50") {
		t.Errorf("state %q", s)
	}
}
