package viz

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/uldplab/uldp/core/cancel"
)

// withClock gives viz the clock a front end would, for one test.
func withClock(t *testing.T) {
	start := time.Now()
	Clock = func() float64 { return float64(time.Since(start)) / 1e6 }
	t.Cleanup(func() { Clock = nil })
}

// counting does five units of work, reporting after each, and checks its
// context before each.
func counting(units *[]int, err *error) func(cancel.Context, func(int64, int64)) {
	return func(ctx cancel.Context, progress func(int64, int64)) {
		for i := 1; i <= 5; i++ {
			if *err = ctx.Err(); *err != nil {
				return
			}
			*units = append(*units, i)
			progress(int64(i), 5)
		}
	}
}

// With no time to spend, each Run does one unit: the work hands control
// back at its first report past the deadline, and resumes where it was.
func TestJobRunsASliceAtATime(t *testing.T) {
	withClock(t)
	var units []int
	var err error
	j := StartJob(counting(&units, &err))
	if len(units) != 0 {
		t.Fatal("the work ran before the first Run")
	}
	for k := 1; k <= 5; k++ {
		if j.Run(0) {
			t.Fatalf("finished after %d slices", k)
		}
		if done, total := j.Progress(); len(units) != k || done != int64(k) || total != 5 {
			t.Fatalf("slice %d: units %v, progress %d of %d", k, units, done, total)
		}
	}
	finished := j.Run(0)
	again := j.Run(0) // a finished job stays finished
	if !finished || !again || err != nil || len(units) != 5 || j.Fraction() != 1 {
		t.Fatalf("end: units %v, err %v", units, err)
	}
	var all []int
	if !StartJob(counting(&all, &err)).Run(math.Inf(1)) || len(all) != 5 {
		t.Errorf("a generous budget did not finish in one Run: %v", all)
	}
	// Without a clock (the command line) there are no slices.
	Clock, all = nil, nil
	if !StartJob(counting(&all, &err)).Run(0) || len(all) != 5 {
		t.Errorf("without a clock, Run(0) did %v", all)
	}
}

// Stop ends the work at its next look at the context, and Stop returns
// only once it has.
func TestJobStop(t *testing.T) {
	withClock(t)
	var units []int
	var err error
	j := StartJob(counting(&units, &err))
	j.Run(0)
	j.Run(0)
	j.Stop()
	if !errors.Is(err, ErrStopped) || len(units) != 2 {
		t.Fatalf("after Stop: units %v, err %v", units, err)
	}
	if j.Run(math.Inf(1)) {
		t.Error("a stopped job reports that it finished")
	}
	never := StartJob(counting(&units, &err))
	never.Stop()
	if len(units) != 2 {
		t.Error("stopping a job that never ran ran it")
	}
}

// Within a call, slices share the call's deadline: a second change in the
// same call computes a unit, not another slice; once the call ends, a
// slice is timed from its own start again.
func TestJobSlicesShareTheCall(t *testing.T) {
	now := 0.0
	Clock = func() float64 { return now }
	t.Cleanup(func() { Clock = nil })
	ticking := func(units *int) func(cancel.Context, func(int64, int64)) {
		return func(_ cancel.Context, progress func(int64, int64)) {
			for i := 1; i <= 100; i++ {
				now += 4 // each unit takes 4 ms
				*units++
				progress(int64(i), 100)
			}
		}
	}
	var a, b, c int
	end := BeginCall()
	inner := BeginCall() // a call within the call changes nothing
	StartJob(ticking(&a)).Run(10)
	inner()
	StartJob(ticking(&b)).Run(10)
	end()
	StartJob(ticking(&c)).Run(10)
	if a != 3 || b != 1 || c != 3 {
		t.Errorf("units: %d in the call's slice, %d in a second job of the call (want 1), %d after the call (want 3 each for a slice)", a, b, c)
	}
}
