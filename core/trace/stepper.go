package trace

import (
	"bytes"
	"encoding/json"

	"github.com/uldplab/uldp/core/cancel"
	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/rng"
)

// Run executes an algorithm on data, drawing only from streams, and returns
// its trace. It must be deterministic given the streams' seed, and leave
// data as it found it: a stepper keeps the copy it runs on for rerolls.
type Run func(ctx cancel.Context, data *dataset.Dataset, streams *rng.Streams) (*Trace, error)

// Stepper shows a run one step at a time. Its position is the number of
// steps shown, from 0 (nothing yet) to Len() (the whole run). Steppers are
// immutable apart from the position: Branch and Reroll return new ones, so
// keeping the old one is how a front end undoes an edit.
type Stepper struct {
	run     Run
	data    *dataset.Dataset
	streams *rng.Streams
	trace   *Trace
	pos     int
}

// NewStepper runs the algorithm once, on a private copy of data, and
// positions the stepper before the first step.
func NewStepper(ctx cancel.Context, run Run, data *dataset.Dataset, streams *rng.Streams) (*Stepper, error) {
	return NewStepperShared(ctx, run, data.Clone(), streams)
}

// NewStepperShared is NewStepper without the copy: the stepper keeps data,
// which its caller must never change. For a front end that treats its
// users as immutable, where copying 10⁶ items would cost 10 ms a run.
func NewStepperShared(ctx cancel.Context, run Run, data *dataset.Dataset, streams *rng.Streams) (*Stepper, error) {
	s := &Stepper{run: run, data: data, streams: streams.Fresh()}
	t, err := run(ctx, s.data, s.streams.Fresh())
	if err != nil {
		return nil, err
	}
	if t == nil {
		return nil, format.Errorf("the run kept no trace to step through (it was run without recording)")
	}
	s.trace = t
	return s, nil
}

// Len returns the number of steps in the run.
func (s *Stepper) Len() int { return len(s.trace.Steps) }

// Pos returns how many steps are shown.
func (s *Stepper) Pos() int { return s.pos }

// Seek shows the first k steps.
func (s *Stepper) Seek(k int) error {
	if k < 0 || k > s.Len() {
		return format.Errorf("step %d is outside the run: choose 0 … %d", k, s.Len())
	}
	s.pos = k
	return nil
}

// Next shows one more step and returns it; false at the end.
func (s *Stepper) Next() (Step, bool) {
	if s.pos >= s.Len() {
		return Step{}, false
	}
	s.pos++
	return s.trace.Steps[s.pos-1], true
}

// Prev hides the last shown step; false at the start.
func (s *Stepper) Prev() bool {
	if s.pos == 0 {
		return false
	}
	s.pos--
	return true
}

// Current returns the last shown step; false before the first.
func (s *Stepper) Current() (Step, bool) {
	if s.pos == 0 {
		return Step{}, false
	}
	return s.trace.Steps[s.pos-1], true
}

// Shown returns the steps shown so far.
func (s *Stepper) Shown() []Step { return s.trace.Steps[:s.pos:s.pos] }

// Trace returns the whole run.
func (s *Stepper) Trace() *Trace { return s.trace }

// Data returns a copy of the dataset the run used.
func (s *Stepper) Data() *dataset.Dataset { return s.data.Clone() }

// Branch re-runs the algorithm on edited data with the same seed and
// re-rolls (common random numbers) and keeps the position, clamped to the
// new run's length.
func (s *Stepper) Branch(ctx cancel.Context, edited *dataset.Dataset) (*Stepper, error) {
	if !s.streams.Replayable() {
		return nil, format.Errorf("this run drew from %s: branch from a seeded run", s.streams)
	}
	b, err := NewStepper(ctx, s.run, edited, s.streams)
	if err != nil {
		return nil, err
	}
	b.pos = min(s.pos, b.Len())
	return b, nil
}

// Reroll re-runs on the same data with one stream re-rolled: "draw R1
// again, keep the Gaussian noise".
func (s *Stepper) Reroll(ctx cancel.Context, stream string) (*Stepper, error) {
	streams := s.streams.Fresh()
	streams.Reroll(stream)
	b, err := NewStepper(ctx, s.run, s.data, streams)
	if err != nil {
		return nil, err
	}
	b.pos = min(s.pos, b.Len())
	return b, nil
}

// Diverge returns the index of the first step where a and b differ (kind,
// text or payload), len of the shorter if one is a prefix of the other, or
// −1 if they are identical.
func Diverge(a, b *Trace) int {
	n := min(len(a.Steps), len(b.Steps))
	for i := 0; i < n; i++ {
		if !sameStep(a.Steps[i], b.Steps[i]) {
			return i
		}
	}
	if len(a.Steps) != len(b.Steps) {
		return n
	}
	return -1
}

func sameStep(x, y Step) bool {
	if x.Kind != y.Kind || x.Text != y.Text {
		return false
	}
	bx, errx := json.Marshal(x.Data)
	by, erry := json.Marshal(y.Data)
	return errx == nil && erry == nil && bytes.Equal(bx, by)
}
