package ebitenview

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"time"

	"github.com/uldplab/uldp/viz"
)

// A computer computes on a goroutine of its own what the shown lesson
// would otherwise compute a slice per frame (viz.Remote), as the browser's
// compute worker does on another core: its copy of the app, restored to
// the window's state, computes the run, and the window's app holds its own
// work and adopts the outcomes, sent a tenth of a second at a time. The
// window's ticks stay short, so keys are answered at once, and the run has
// a core to itself.
//
// A change of settings names a new computation, which replaces the one
// under way. Should the copy fail (an error, a panic) or fall silent for
// watchdog, the window computes that lesson's runs itself from then on,
// and a fresh copy takes the other lessons' (as the browser gives up the
// worker of the module that failed); a computation the copy cannot restore
// (settings more precise than a link carries) is computed in the window,
// and the next one handed out again.
type computer struct {
	fresh func() *viz.App // makes the copy, on the copy's goroutine
	warn  io.Writer       // why the window computes a run itself

	reqs    chan request            // to the copy: the newest computation only
	answers chan answer             // from the copy
	quit    chan struct{}           // closed when the window gives the copy up
	latest  atomic.Int64            // the request the copy should be working on
	serving atomic.Pointer[request] // the request the copy took last
	sent    int64                   // requests made

	key    string          // handed out, awaiting answers
	lesson string          // the lesson whose computation key names
	local  [2]string       // the lesson and key computed in the window: the copy could not restore it
	heard  time.Time       // the last answer, or the request
	gaveUp map[string]bool // lessons whose copy failed: the window computes their runs

	// offloads and adopted count the computations handed out and the
	// outcomes adopted, finished those that ended a computation, for the
	// tests.
	offloads, adopted, finished int
}

// watchdog is how long the window waits for the copy's next answer before
// computing for itself.
const watchdog = 15 * time.Second

// answerEvery is how long the copy computes between answers.
const answerEvery = 100 * time.Millisecond

type request struct {
	id                 int64
	state, key, lesson string
}

type answer struct {
	id           int64
	key, lesson  string
	data         []byte
	done         bool
	err          error
	unrestorable bool // the copy refuses the state or, restored, names another computation
}

func newComputer(fresh func() *viz.App) *computer {
	return &computer{fresh: fresh, warn: os.Stderr, gaveUp: map[string]bool{}}
}

// step is the computer's part of a window's tick, before the app's own:
// it adopts what the copy has sent and hands out a new computation once
// the app offers it (viz.App.HandOut: a small one is done in the window).
func (c *computer) step(app *viz.App) {
	for c.answers != nil {
		select {
		case a := <-c.answers:
			c.adopt(app, a)
			continue
		default:
		}
		break
	}
	if c.key != "" && time.Since(c.heard) > watchdog {
		// The copy is stuck in the run it took, which may be another
		// lesson's than the one last handed out.
		stuck := c.lesson
		if r := c.serving.Load(); r != nil {
			stuck = r.lesson
		}
		c.fail(app, stuck, fmt.Errorf("no answer for %v", watchdog))
	}
	key, lesson := app.RemoteKey(), app.Scene().Info().Name
	if c.key != "" && (key != c.key || lesson != c.lesson) {
		// The settings moved on: the copy leaves that run at its next slice.
		c.latest.Add(1)
		c.key = ""
	}
	if key == "" || key == c.key && lesson == c.lesson || c.local == [2]string{lesson, key} || c.gaveUp[lesson] || app.HandOut() != key {
		return
	}
	if c.reqs == nil {
		c.reqs, c.answers, c.quit = make(chan request, 1), make(chan answer, 4), make(chan struct{})
		go c.run(c.reqs, c.answers, c.quit)
	}
	c.sent++
	c.latest.Store(c.sent)
	select { // the copy has not taken an older request: it never will
	case <-c.reqs:
	default:
	}
	c.reqs <- request{id: c.sent, state: app.State(), key: key, lesson: lesson}
	c.key, c.lesson, c.heard = key, lesson, time.Now()
	app.Hold(key)
	c.offloads++
}

// adopt shows an answer of the copy, if it is for the computation still
// under way. An answer that ends the copy's work on its key (done, or
// failed) ends the hand-out too: should the settings come back to that
// key, step hands it out again. A copy that failed has ended, whatever
// computation it failed on: the window gives it up.
func (c *computer) adopt(app *viz.App, a answer) {
	if a.err != nil && !a.unrestorable {
		c.fail(app, a.lesson, a.err)
		return
	}
	if a.id != c.sent || a.key != c.key || a.lesson != c.lesson {
		return // a computation since replaced
	}
	c.heard = time.Now()
	if a.done || a.unrestorable {
		c.key = ""
	}
	if a.key != app.RemoteKey() || a.lesson != app.Scene().Info().Name {
		return
	}
	if a.unrestorable {
		fmt.Fprintf(c.warn, "desktop: computing elsewhere: %v; computing this one in the window\n", a.err)
		c.local = [2]string{a.lesson, a.key}
		app.Hold("")
		return
	}
	if err := app.Adopt(a.key, a.data, a.done); err != nil {
		c.fail(app, a.lesson, err)
		return
	}
	c.adopted++
	if a.done {
		c.finished++
	}
}

// fail gives up the copy, which failed on a run of lesson: the window
// computes that lesson's runs itself from now on, and a fresh copy takes
// the other lessons'. The copy's goroutine, if it still runs, ends at its
// next slice.
func (c *computer) fail(app *viz.App, lesson string, err error) {
	fmt.Fprintf(c.warn, "desktop: computing elsewhere: %v; computing %s's runs in the window instead\n", err, lesson)
	c.gaveUp[lesson], c.key = true, ""
	c.stop()
	c.serving.Store(nil) // a fresh copy has taken nothing yet
	app.Hold("")
}

// stop ends the copy's goroutine at its next slice.
func (c *computer) stop() {
	c.latest.Store(-1)
	if c.quit != nil {
		close(c.quit)
		c.quit, c.reqs, c.answers = nil, nil, nil
	}
}

// run is the copy's goroutine: it serves requests until the window gives
// it up, or the copy fails. It makes the copy at the first.
func (c *computer) run(reqs <-chan request, answers chan<- answer, quit <-chan struct{}) {
	var app *viz.App
	for {
		var r request
		select {
		case r = <-reqs:
		case <-quit:
			return
		}
		if c.latest.Load() != r.id {
			continue
		}
		c.serving.Store(&r)
		if !c.serve(&app, r, answers, quit) {
			return
		}
	}
}

// serve computes one request with the copy *app (made first if nil),
// answering every answerEvery until done, or until a newer request
// replaces it; false after a failure, which ends the copy.
func (c *computer) serve(copy **viz.App, r request, answers chan<- answer, quit <-chan struct{}) (ok bool) {
	live := func() bool { return c.latest.Load() == r.id }
	send := func(a answer) {
		a.id, a.key, a.lesson = r.id, r.key, r.lesson
		select {
		case answers <- a:
		case <-quit:
		}
	}
	defer func() {
		if p := recover(); p != nil {
			send(answer{err: fmt.Errorf("the copy panicked: %v", p)})
			ok = false
		}
	}()
	if *copy == nil {
		*copy = c.fresh()
	}
	app := *copy
	if err := app.Restore(r.state); err != nil {
		// A setting the link cannot carry exactly: the window computes
		// this run, and the copy stays for the next.
		send(answer{err: fmt.Errorf("restoring the window's state: %w", err), unrestorable: true})
		return true
	}
	if app.RemoteKey() != r.key {
		send(answer{err: fmt.Errorf("restored to the window's state, the copy computes something else"), unrestorable: true})
		return true
	}
	for live() {
		start := time.Now()
		for live() && app.RemoteKey() == r.key && time.Since(start) < answerEvery {
			app.Tick(0)
		}
		if !live() {
			return true
		}
		data, done := app.Outcome()
		if data == nil {
			send(answer{err: fmt.Errorf("the lesson has no outcome to send")})
			return false
		}
		// The copy may reuse its buffer for its next outcome.
		send(answer{data: bytes.Clone(data), done: done})
		if done {
			return true
		}
	}
	return true
}
