package scenes

import (
	"github.com/uldplab/uldp/core/cancel"
	"github.com/uldplab/uldp/viz"
)

// background is a lesson's next state, computed a slice at a time by a
// viz.Job while the figure goes on showing the last one: a run that takes
// a second in a browser tab must not freeze it.
type background[V any] struct {
	job  *viz.Job
	next *V
}

// frameSlice is how long a background lesson computes at once, in
// milliseconds: with the frame's own drawing it stays within the 16.7 ms
// of a frame at 60 Hz, so the page never stutters; a long run then takes
// up to 1.7 times its computing time. A variable so that tests can
// compute a step at a time.
var frameSlice = 10.0

// start replaces any computation under way by compute(next) and returns
// how long to compute at once now: a slice, or nothing when it replaced a
// computation (changes in quick succession — a slider or a drag over a
// large run — then cost one slice, not one each).
func (b *background[V]) start(next *V, compute func(ctx cancel.Context, progress func(done, total int64))) float64 {
	budget := frameSlice
	if b.job != nil {
		b.stop()
		budget = 0
	}
	b.next = next
	b.job = viz.StartJob(compute)
	return budget
}

// advance computes for about budget milliseconds and returns the finished
// state, or nil while there is more to do (or nothing under way).
func (b *background[V]) advance(budget float64) *V {
	if b.job == nil || !b.job.Run(budget) {
		return nil
	}
	next := b.next
	b.job, b.next = nil, nil
	return next
}

// busy reports whether a computation is under way.
func (b *background[V]) busy() bool { return b.job != nil }

// fraction is how much of the computation under way is done.
func (b *background[V]) fraction() float64 { return b.job.Fraction() }

// stop ends the computation under way, if any.
func (b *background[V]) stop() {
	if b.job != nil {
		b.job.Stop()
		b.job, b.next = nil, nil
	}
}
