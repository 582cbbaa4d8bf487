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
// watchdog, the window computes for itself from then on; a computation the
// copy cannot restore (settings more precise than a link carries) is
// computed in the window, and the next one handed out again.
type computer struct {
	fresh func() *viz.App // makes the copy, on the copy's goroutine
	warn  io.Writer       // why the window computes a run itself

	reqs    chan request  // to the copy: the newest computation only
	answers chan answer   // from the copy
	quit    chan struct{} // closed when the window gives the copy up
	latest  atomic.Int64  // the request the copy should be working on
	sent    int64         // requests made

	key    string    // handed out, awaiting answers
	local  string    // computed in the window: the copy could not restore it
	heard  time.Time // the last answer, or the request
	failed bool      // the copy failed: the window computes everything

	// offloads and adopted count the computations handed out and the
	// outcomes adopted, for the tests.
	offloads, adopted int
}

// watchdog is how long the window waits for the copy's next answer before
// computing for itself.
const watchdog = 15 * time.Second

// answerEvery is how long the copy computes between answers.
const answerEvery = 100 * time.Millisecond

type request struct {
	id         int64
	state, key string
}

type answer struct {
	id           int64
	key          string
	data         []byte
	done         bool
	err          error
	unrestorable bool // the copy, restored, names another computation
}

func newComputer(fresh func() *viz.App) *computer {
	return &computer{fresh: fresh, warn: os.Stderr}
}

// step is the computer's part of a window's tick, before the app's own:
// it adopts what the copy has sent and hands out a new computation.
func (c *computer) step(app *viz.App) {
	if c.failed {
		return
	}
	for c.reqs != nil {
		select {
		case a := <-c.answers:
			c.adopt(app, a)
			continue
		default:
		}
		break
	}
	if c.failed {
		return
	}
	if c.key != "" && time.Since(c.heard) > watchdog {
		c.fail(app, fmt.Errorf("no answer for %v", watchdog))
		return
	}
	key := app.RemoteKey()
	if c.key != "" && key != c.key {
		// The settings moved on: the copy leaves that run at its next slice.
		c.latest.Add(1)
		c.key = ""
	}
	if key == "" || key == c.key || key == c.local {
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
	c.reqs <- request{id: c.sent, state: app.State(), key: key}
	c.key, c.heard = key, time.Now()
	app.Hold(key)
	c.offloads++
}

// adopt shows an answer of the copy, if it is for the computation still
// under way. An answer that ends the copy's work on its key (done, or
// failed) ends the hand-out too, even when the settings have moved on
// meanwhile: should they come back to it, step hands it out again.
func (c *computer) adopt(app *viz.App, a answer) {
	if a.id != c.sent || a.key != c.key {
		return // a computation since replaced
	}
	c.heard = time.Now()
	if a.done || a.err != nil {
		c.key = ""
	}
	if a.key != app.RemoteKey() {
		return
	}
	switch {
	case a.unrestorable:
		fmt.Fprintf(c.warn, "desktop: computing elsewhere: %v; computing this one in the window\n", a.err)
		c.local = a.key
		app.Hold("")
	case a.err != nil:
		c.fail(app, a.err)
	default:
		if err := app.Adopt(a.key, a.data, a.done); err != nil {
			c.fail(app, err)
			return
		}
		c.adopted++
	}
}

// fail gives up the copy: the window computes for itself from now on. The
// copy's goroutine, if it still runs, ends at its next slice.
func (c *computer) fail(app *viz.App, err error) {
	fmt.Fprintf(c.warn, "desktop: computing elsewhere: %v; computing in the window instead\n", err)
	c.failed, c.key = true, ""
	c.stop()
	app.Hold("")
}

// stop ends the copy's goroutine at its next slice.
func (c *computer) stop() {
	c.latest.Store(-1)
	if c.quit != nil {
		close(c.quit)
		c.quit, c.reqs = nil, nil
	}
}

// run is the copy's goroutine: it makes the copy, then serves requests
// until the window gives it up.
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
		if app == nil {
			app = c.fresh()
		}
		if !c.serve(app, r, answers, quit) {
			return
		}
	}
}

// serve computes one request, answering every answerEvery until done, or
// until a newer request replaces it; false after a failure, which ends
// the copy.
func (c *computer) serve(app *viz.App, r request, answers chan<- answer, quit <-chan struct{}) (ok bool) {
	live := func() bool { return c.latest.Load() == r.id }
	send := func(a answer) {
		a.id, a.key = r.id, r.key
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
	if err := app.Restore(r.state); err != nil {
		send(answer{err: err})
		return false
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
