package dpsgd

import (
	"encoding/binary"
	"errors"
	"math/bits"
	"strconv"

	"github.com/uldplab/uldp/core/cancel"
	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/optim"
	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/core/robust"
	"github.com/uldplab/uldp/core/trace"
	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/internal/wire"
)

// A run at the sliders' maxima takes seconds in a browser. The page hands
// it to its compute worker (viz.Remote): the worker's copy of the lesson,
// restored to the page's state, computes it on another core and sends the
// whole run, 9 MB at the maxima, in parts of outcomePart bytes (so that
// copying one into the page's Go takes a millisecond or two, not 40), which
// the page's copy gathers and then reads decodeSlice milliseconds a frame.

var _ viz.Remote = (*Scene)(nil)

// decodeSlice is how long a frame spends reading the gathered run, in
// milliseconds: shorter than a computing slice, as the point of handing
// the run out is a page that keeps its frames (a frame's drawing beside it
// stays within 16.7 ms).
const decodeSlice = 6.0

// outcomePart is the most bytes of the run one outcome carries; a
// variable so that tests can send a small run in several parts.
var outcomePart = wire.DefaultPart

// RemoteKey names the convex run under way by everything it depends on,
// the handles too (the link carries them). The localisation's phases
// compute here (tens of milliseconds), and so do the runs of a drag under
// way once a handle held has moved (a press alone leaves a run handed out
// where it is): each of them starts as the last is done (moves wait for
// the run under way), where a hand-out would add another copy's restore
// and the run's transfer to each, and the page's own slices keep a small
// run following the pointer. The run the drag ends on, if still under
// way at the release, may then be handed out (viz.App.HandOut: if it has
// long to go).
func (s *Scene) RemoteKey() string {
	n := s.next
	if s.job == nil || s.remote.Decoding || s.remote.FellBack || n.algo != algoConvex || s.dragged {
		return ""
	}
	return wire.Key("dp-sgd", []float64{float64(n.n), float64(n.m), n.share, n.params.Eps, n.params.Delta, float64(n.params.Steps),
		n.etaX, n.tauX, float64(n.seed), n.crowd[0], n.crowd[1], n.outliers[0], n.outliers[1]},
		strconv.FormatBool(n.smooth), n.baseline, strconv.Itoa(int(n.params.Mode)))
}

// Outcome is the run's progress while it computes; once done, the next
// part of the whole run (or of why it was refused), done with the last.
func (s *Scene) Outcome() (data []byte, done bool) {
	if s.job != nil {
		return wire.Progress(s.job.Fraction(), s.next.stage), false
	}
	s.remote.Send.Part = outcomePart
	return s.remote.Send.Next(s.refused, s.encodeRun)
}

// Adopt shows another copy's progress on the run under way, or gathers
// the parts of the run it finished; with the last, the run (read a slice
// per frame, Tick) or the refusal takes the place of computing it. A part
// missing (the run restarted while its parts came in) ends the hold with
// nothing read: the front end hands the run out again, or the page's own
// job computes it.
func (s *Scene) Adopt(key string, data []byte, done bool) error {
	if k := s.RemoteKey(); key != k {
		return errors.New("dp-sgd: an outcome for another run")
	}
	run, refused, err := s.remote.Got.Take(data, done)
	switch {
	case err != nil:
		return errors.New("dp-sgd: " + err.Error())
	case refused != nil:
		s.Stop()
		s.refused = refused
		return nil
	case run == nil:
		return nil
	}
	s.job.Stop()
	next, newUsers := s.next, s.newUsers
	s.remote = wire.Handoff{Decoding: true}
	s.job = viz.StartJob(func(ctx cancel.Context, progress func(done, total int64)) {
		err := next.decodeRun(ctx, run, progress)
		if err == nil || ctx.Err() != nil {
			return // read, or replaced by a newer change
		}
		// Not what this copy would have computed: compute it here,
		// in computing slices, and not hand it out again.
		s.remote.Decoding, s.remote.FellBack = false, true
		next.recompute(ctx, progress, newUsers)
	})
	return nil
}

// progress is the fraction of the change's work done and what it is
// doing, for the bar and the readout.
func (s *Scene) progress() (float64, string) {
	return s.remote.Progress(s.job.Fraction(), s.next.stage)
}

// encodeRun writes the shown run: the users, θ*, the landscape, DP-SGD's
// steps with their texts, and the baseline's path. What follows from the
// settings alone (ORME's calibration, the guarantees) the reader derives.
func (s *Scene) encodeRun(e *wire.Writer) {
	e.Int(s.n)
	e.Int(s.m)
	for _, u := range s.data.Users {
		e.Floats(u.Points)
	}
	e.Floats(s.best)
	e.Floats(s.heat)
	e.Float(s.excess[0])
	e.Float(s.excess[1])
	encodeResult(e, &s.res, s.n, true)
	encodeResult(e, &s.base, s.n, false)
	steps := s.player.Stepper().Trace().Steps
	e.Int(len(steps))
	for _, st := range steps {
		e.String(st.Text)
	}
}

// encodeResult writes a DP-SGD run on n users: its answer, iterates and
// halting step, and with story, each step's whole record.
func encodeResult(e *wire.Writer, r *optim.DPSGDResult, n int, story bool) {
	e.Floats(r.Theta)
	e.Int(len(r.Iterates))
	for _, it := range r.Iterates {
		e.Floats(it)
	}
	e.Int(r.Halted)
	if !story {
		return
	}
	e.Int(len(r.Steps))
	for i := range r.Steps {
		st := &r.Steps[i]
		e.Int(st.T)
		e.Floats(st.Theta)
		e.Int(st.Values.Dim)
		e.Floats(st.Values.Flat)
		o := &st.ORME
		e.Int(o.I)
		e.Float(o.Score)
		e.Float(o.Threshold)
		e.Float(o.PPass)
		e.Bool(o.Passed)
		counts(e, o.Counts)
		kept(e, o.Kept, n)
		e.Floats(o.Mean)
		e.Floats(o.AllMean)
		e.Floats(o.Output)
		e.Floats(st.Next)
	}
}

// decodeRun reads a run encodeRun wrote for s's settings into s, as
// recompute would have computed it, reporting progress step by step.
func (s *Scene) decodeRun(ctx cancel.Context, d *wire.Reader, progress func(done, total int64)) error {
	p, err := s.runParams()
	if err != nil {
		return err
	}
	if d.Int() != s.n || d.Int() != s.m || d.Err != nil {
		return errors.New("dp-sgd: a run for other users")
	}
	data := &dataset.Dataset{Dim: 2, Users: make([]dataset.User, s.n)}
	for i := range data.Users {
		pts := d.Floats()
		if len(pts) != 2*s.m {
			return errors.New("dp-sgd: a user of other items")
		}
		data.Users[i] = dataset.User{ID: strconv.Itoa(i + 1), Points: pts}
	}
	best, heat := d.Floats(), d.Floats()
	excess := [2]float64{d.Float(), d.Float()}
	if d.Err != nil || len(best) != 2 || len(heat) != heatCells*heatCells {
		return errors.New("dp-sgd: a landscape that does not decode")
	}
	var res, base optim.DPSGDResult
	if err := decodeResult(ctx, d, &res, true, s.n, p.Steps, progress); err != nil {
		return err
	}
	if err := decodeResult(ctx, d, &base, false, s.n, p.Steps, nil); err != nil {
		return err
	}
	// What the settings alone give, as DP-SGD and its baseline derive it.
	cal, err := p.ORME(s.n, s.m, 2).Calibrate(s.n)
	if err != nil {
		return err
	}
	res.ORME, res.Guarantee = cal, p.Guarantee(cal)
	if s.baseline != noBaseline {
		if base.ORME.Sigma, base.Guarantee, err = optim.BaselineGuarantee(s.baseline, 1, p, s.n, s.m); err != nil {
			return err
		}
	} else if base.Theta != nil {
		return errors.New("dp-sgd: a baseline that was not asked for")
	}
	tr, err := s.story(d, &res)
	if err != nil {
		return err
	}
	if d.Rest() != 0 {
		return errors.New("dp-sgd: a run with more than its steps")
	}
	st, err := trace.NewStepper(cancel.Never, func(cancel.Context, *dataset.Dataset, *rng.Streams) (*trace.Trace, error) { return tr, nil }, data, rng.New(s.seed))
	if err != nil {
		return err
	}
	s.data, s.best, s.heat, s.excess, s.res, s.base, s.err = data, best, heat, excess, res, base, nil
	s.player.Replace(st)
	return nil
}

// decodeResult reads a run encodeResult wrote for n users and up to steps
// steps; it stops when ctx says the job was replaced, as Job.Stop waits
// for it.
func decodeResult(ctx cancel.Context, d *wire.Reader, r *optim.DPSGDResult, story bool, n, steps int, progress func(done, total int64)) error {
	r.Theta = d.Floats()
	its := d.Int()
	if d.Err != nil || its > steps || r.Theta != nil && len(r.Theta) != 2 {
		return errors.New("dp-sgd: a path that does not decode")
	}
	if its > 0 {
		r.Iterates = make([][]float64, its)
	}
	for i := range r.Iterates {
		if r.Iterates[i] = d.Floats(); len(r.Iterates[i]) != 2 {
			return errors.New("dp-sgd: an iterate that does not decode")
		}
	}
	r.Halted = d.Int()
	if !story {
		return d.Err
	}
	k := d.Int()
	if d.Err != nil || k > steps {
		return errors.New("dp-sgd: steps that do not decode")
	}
	if k > 0 {
		r.Steps = make([]optim.SGDStep, k)
	}
	for i := range r.Steps {
		if progress != nil && i%8 == 0 {
			progress(int64(i), int64(k))
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		st := &r.Steps[i]
		st.T, st.Theta = d.Int(), d.Floats()
		st.Values = optim.Vectors{Dim: d.Int(), Flat: d.Floats()}
		o := &st.ORME
		o.I, o.Score, o.Threshold, o.PPass, o.Passed = d.Int(), d.Float(), d.Float(), d.Float(), d.Bool()
		o.Counts, o.Kept = readCounts(d), readKept(d, n)
		o.Mean, o.AllMean, o.Output, st.Next = d.Floats(), d.Floats(), d.Floats(), d.Floats()
		if d.Err != nil || st.Values.Dim != 2 || len(st.Values.Flat) != 2*n || o.Counts != nil && len(o.Counts) != n ||
			!pair(st.Theta, false) || !pair(o.AllMean, false) || !pair(o.Mean, true) || !pair(o.Output, true) || !pair(st.Next, true) {
			return errors.New("dp-sgd: a step that does not decode")
		}
		if o.Counts != nil {
			// The ramp's p_j follow from the counts, as ORME computes them.
			o.Keep = make([]float64, n)
			for j, f := range o.Counts {
				o.Keep[j] = robust.Keep(f, n)
			}
		}
	}
	return nil
}

// pair reports a point of the plane, or with orNil none: the figure reads
// every point's two coordinates.
func pair(v []float64, orNil bool) bool { return len(v) == 2 || orNil && v == nil }

// story rebuilds the stepper's trace from the steps and their texts: one
// stepper step per SGD step that passed the gate, then the answer.
func (s *Scene) story(d *wire.Reader, res *optim.DPSGDResult) (*trace.Trace, error) {
	k := d.Int()
	passed := len(res.Steps)
	if res.Halted > 0 {
		passed--
	}
	if d.Err != nil || k != passed+1 || passed < 0 {
		return nil, errors.New("dp-sgd: a story that does not decode")
	}
	tr := &trace.Trace{Schema: trace.Schema, Mechanism: "dp-sgd", Seed: s.seed, Steps: make([]trace.Step, k)}
	for i := range tr.Steps {
		tr.Steps[i] = trace.Step{Kind: optim.KindSGDStep, Text: d.String()}
		if i < passed {
			tr.Steps[i].Data = res.Steps[i]
		}
	}
	tr.Steps[passed].Kind, tr.Steps[passed].Data = optim.KindSGDDone, res.Theta
	return tr, d.Err
}

// counts writes ORME's neighbour counts, each at most n, in two bytes.
func counts(w *wire.Writer, v []int) {
	w.Length(len(v), v == nil)
	for _, x := range v {
		w.B = binary.LittleEndian.AppendUint16(w.B, uint16(x))
	}
}

// The counts' two bytes hold any n the lesson takes.
const _ uint16 = maxUsers

// readCounts reads what counts wrote.
func readCounts(r *wire.Reader) []int {
	n := r.Length(2)
	if n < 0 {
		return nil
	}
	b := r.Take(2 * n)
	if b == nil {
		return nil
	}
	out := make([]int, n)
	for i := range out {
		out[i] = int(binary.LittleEndian.Uint16(b[2*i:]))
	}
	return out
}

// kept writes the users ORME kept (ascending, none: nil) as n bits.
func kept(w *wire.Writer, v []int, n int) {
	set := make([]byte, (n+7)/8)
	for _, j := range v {
		set[j/8] |= 1 << (j % 8)
	}
	w.B = append(w.B, set...)
}

// readKept reads n bits of kept users into their ascending indices, nil
// for none.
func readKept(r *wire.Reader, n int) []int {
	var out []int
	for j, b := range r.Take((n + 7) / 8) {
		for ; b != 0; b &= b - 1 {
			out = append(out, 8*j+bits.TrailingZeros8(b))
		}
	}
	if len(out) > 0 && out[len(out)-1] >= n {
		r.Err = wire.ErrShort
	}
	return out
}
