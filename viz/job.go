package viz

import (
	"errors"
	"iter"
	"math"
	"sync/atomic"

	"github.com/uldplab/uldp/core/cancel"
)

// Clock returns a monotonic time in milliseconds: what work done a slice at
// a time measures its slices with. The front ends set it, the browser's
// bridge from performance.now and the desktop's from package time; left
// nil (the command line, an export), there are no slices and work runs to
// its end. viz does not import time itself: its initialisation alone adds
// about 75 KB to a lesson's WebAssembly module.
var Clock func() float64

// The call into Go under way, if any (BeginCall): when it began, as the
// complement of its Clock time's bits (0, a NaN's complement, outside a
// call). Atomic because the desktop computes with a copy of the app on a
// goroutine of its own: that copy's slices are timed from the window's
// call while one is under way (shorter slices, never longer), and from
// their own start otherwise.
var callStart atomic.Uint64

// BeginCall marks the start of a call from the page into Go and returns
// the function that marks its end. Within a call, slices are timed from
// the call's start: a call that makes several changes (a link's settings,
// restored one at a time, each starting a computation) then blocks the
// page no longer than a call that makes one, a slice and a unit per
// change. Outside a call, or without a Clock, nothing changes.
func BeginCall() (end func()) {
	if Clock == nil || !callStart.CompareAndSwap(0, ^math.Float64bits(Clock())) {
		return func() {}
	}
	return func() { callStart.Store(0) }
}

// Deadline returns a test that turns true ms milliseconds from now (from
// the start of the call under way, in one), or never without a Clock.
func Deadline(ms float64) func() bool {
	if Clock == nil {
		return func() bool { return false }
	}
	start := Clock()
	if c := callStart.Load(); c != 0 {
		start = math.Float64frombits(^c)
	}
	end := start + ms
	return func() bool { return Clock() >= end }
}

// ErrStopped is what a Job's context reports once the job is stopped.
var ErrStopped = errors.New("stopped: a newer change replaced this computation")

// Job is a long computation done a slice at a time, so that no call into a
// lesson blocks the page: a browser tab runs Go on its only thread, and a
// run of several seconds would freeze it. The work reports its progress
// through a callback; when the slice's time is up, that callback hands
// control back to the caller of Run (a coroutine switch, not a thread) and
// the work resumes from there on the next Run.
//
// Work that reports progress often enough (every few milliseconds) keeps
// each Run close to its budget.
type Job struct {
	next     func() (struct{}, bool)
	stop     func()
	over     func() bool // the slice's deadline has passed
	done     int64
	total    int64
	stopped  bool
	finished bool
}

// StartJob prepares work; nothing runs until the first Run. The work reads
// ctx to learn that it was stopped (ErrStopped), and calls progress with
// how much of how much is done.
func StartJob(work func(ctx cancel.Context, progress func(done, total int64))) *Job {
	j := &Job{}
	seq := func(yield func(struct{}) bool) {
		progress := func(done, total int64) {
			j.done, j.total = done, total
			if j.stopped || !j.over() {
				return
			}
			if !yield(struct{}{}) {
				j.stopped = true
			}
		}
		work(jobContext{j}, progress)
	}
	j.next, j.stop = iter.Pull(seq)
	return j
}

type jobContext struct{ j *Job }

func (c jobContext) Err() error {
	if c.j.stopped {
		return ErrStopped
	}
	return nil
}

// Run works for about ms milliseconds (to the end without a Clock) and
// reports whether the work has finished. With ms = 0 it does one unit:
// the work up to its first report of progress.
func (j *Job) Run(ms float64) bool {
	if j.finished || j.stopped {
		return j.finished
	}
	j.over = Deadline(ms)
	if _, more := j.next(); !more {
		j.finished = true
	}
	return j.finished
}

// Stop abandons the work: its context reports ErrStopped, and Stop returns
// once the work has returned.
func (j *Job) Stop() {
	j.stopped = true
	j.stop()
}

// Progress returns the work's last report: done of total (0, 0 before any).
func (j *Job) Progress() (done, total int64) { return j.done, j.total }

// Fraction is Progress as a share in [0, 1].
func (j *Job) Fraction() float64 {
	if j.total <= 0 {
		return 0
	}
	return min(1, float64(j.done)/float64(j.total))
}
