package viz

import "github.com/uldplab/uldp/core/cancel"

// Background is a lesson's next state, computed a slice at a time by a
// Job while the figure goes on showing the last one: a run that takes
// a second in a browser tab must not freeze it.
type Background[V any] struct {
	job  *Job
	next *V
}

// FrameSlice is how long a background lesson computes at once, in
// milliseconds: with the frame's own drawing it stays within the 16.7 ms
// of a frame at 60 Hz, so the page never stutters; a long run then takes
// up to 1.7 times its computing time. A variable so that tests can
// compute a step at a time.
var FrameSlice = 10.0

// Start replaces any computation under way by compute(next) and returns
// how long to compute at once now: a slice, or nothing when it replaced a
// computation (changes in quick succession — a slider or a drag over a
// large run — then cost one slice, not one each).
func (b *Background[V]) Start(next *V, compute func(ctx cancel.Context, progress func(done, total int64))) float64 {
	budget := FrameSlice
	if b.job != nil {
		b.Stop()
		budget = 0
	}
	b.next = next
	b.job = StartJob(compute)
	return budget
}

// Advance computes for about budget milliseconds and returns the finished
// state, or nil while there is more to do (or nothing under way).
func (b *Background[V]) Advance(budget float64) *V {
	if b.job == nil || !b.job.Run(budget) {
		return nil
	}
	next := b.next
	b.job, b.next = nil, nil
	return next
}

// Busy reports whether a computation is under way.
func (b *Background[V]) Busy() bool { return b.job != nil }

// Fraction is how much of the computation under way is done.
func (b *Background[V]) Fraction() float64 { return b.job.Fraction() }

// Next is the state under computation (nil when none is): its settings
// can be shown while it is computed.
func (b *Background[V]) Next() *V { return b.next }

// Stop ends the computation under way, if any.
func (b *Background[V]) Stop() {
	if b.job != nil {
		b.job.Stop()
		b.job, b.next = nil, nil
	}
}

// NoProgress is a progress report that goes nowhere, for computations run
// to the end at once.
func NoProgress(done, total int64) {}

// Stage is the progress report of one stage of a computation whose bar
// runs once from 0 to 1 across several: the stage's own done of total
// moves the bar from from to to, so that the bar does not start over with
// each stage (a reader would take the second stage for a restart).
func Stage(progress func(done, total int64), from, to float64) func(done, total int64) {
	const whole = 1 << 20
	return func(done, total int64) {
		f := from
		if total > 0 {
			f += (to - from) * min(1, float64(done)/float64(total))
		}
		progress(int64(f*whole), whole)
	}
}
