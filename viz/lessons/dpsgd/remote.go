package dpsgd

import (
	"encoding/binary"
	"errors"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/uldplab/uldp/core/cancel"
	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/optim"
	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/core/robust"
	"github.com/uldplab/uldp/core/trace"
	"github.com/uldplab/uldp/viz"
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

// maxOutcome bounds a whole run's bytes (9 MB at the sliders' maxima), so
// that a corrupt total is refused before it is allocated.
const maxOutcome = 64 << 20

// outcomePart is the most bytes of the run one outcome carries; a
// variable so that tests can send a small run in several parts.
var outcomePart = 1 << 20

// remote is the state of a computation another copy does for this one:
// on the computing copy, the encoded run and how much of it was sent; on
// the page's, the computing copy's progress, the parts gathered, and
// whether the job reads them.
type remote struct {
	sent []byte
	at   int
	away remoteProgress
	got  []byte
	// lost: a part went missing (the run was restarted while its parts
	// came in), so the page computes the run itself once they end.
	lost     bool
	decoding bool
	// fellBack: the run read does not decode, and the job computes it.
	fellBack bool
}

// remoteProgress is what another copy last said of the run it computes.
type remoteProgress struct {
	frac  float64
	stage string
}

// RemoteKey names the convex run under way by everything it depends on.
// The localisation's phases compute here (tens of milliseconds), and so
// does a run whose users were dragged: a link does not carry the handles,
// so a copy restored to the page's state could not compute it, and handing
// it out would only hold the page's own work through the drag.
func (s *Scene) RemoteKey() string {
	n := s.next
	if s.job == nil || s.remote.decoding || s.remote.fellBack || n.algo != algoConvex || n.crowd != startCrowd || n.outliers != startOutliers {
		return ""
	}
	var b strings.Builder
	b.WriteString("dp-sgd")
	for _, v := range []float64{float64(n.n), float64(n.m), n.share, n.params.Eps, n.params.Delta, float64(n.params.Steps),
		n.etaX, n.tauX, float64(n.seed)} {
		b.WriteString(" " + strconv.FormatFloat(v, 'g', -1, 64))
	}
	b.WriteString(" " + strconv.FormatBool(n.smooth) + " " + n.baseline + " " + strconv.Itoa(int(n.params.Mode)))
	return b.String()
}

// Outcome kinds: progress while computing; a part of the finished
// outcome, which is the run, or why the settings were refused.
const (
	outProgress byte = iota
	outPart
	outRun
	outRefused
)

// Outcome is the run's progress while it computes; once done, the next
// part of the whole run (or of why it was refused), done with the last.
func (s *Scene) Outcome() (data []byte, done bool) {
	var e encoder
	if s.job != nil {
		e.byte(outProgress)
		e.float(s.job.Fraction())
		e.string(s.next.stage)
		return e.b, false
	}
	r := &s.remote
	if r.sent == nil {
		var all encoder
		if s.refused != nil {
			all.byte(outRefused)
			all.string(s.refused.Error())
		} else {
			all.byte(outRun)
			s.encodeRun(&all)
		}
		r.sent, r.at = all.b, 0
	}
	part := r.sent[r.at:min(len(r.sent), r.at+outcomePart)]
	e.byte(outPart)
	e.int(r.at)
	e.int(len(r.sent))
	e.b = append(e.b, part...)
	r.at += len(part)
	return e.b, r.at == len(r.sent)
}

// Adopt shows another copy's progress on the run under way, or gathers
// the parts of the run it finished; with the last, the run (read a slice
// per frame, Tick) or the refusal takes the place of computing it.
func (s *Scene) Adopt(key string, data []byte, done bool) error {
	if k := s.RemoteKey(); key != k {
		return errors.New("dp-sgd: an outcome for another run")
	}
	d := decoder{b: data}
	r := &s.remote
	switch d.byte() {
	case outProgress:
		frac, stage := d.float(), d.string()
		if done || d.err != nil || !(frac >= 0 && frac <= 1) || d.rest() != 0 {
			return errors.New("dp-sgd: a progress report that does not decode")
		}
		r.away = remoteProgress{frac, stage}
		return nil
	case outPart:
		at, total := d.int(), d.int()
		if d.err != nil || total > maxOutcome || total < at+d.rest() || done != (at+d.rest() == total) {
			return errors.New("dp-sgd: a part of a run that does not decode")
		}
		if at == 0 {
			// Room for the whole: appending by doubling would copy
			// megabytes within one call.
			r.got, r.lost = make([]byte, 0, total), false
		}
		if r.lost || at != len(r.got) {
			r.got, r.lost = nil, true
		} else {
			r.got = append(r.got, d.b...)
			r.away.frac = float64(len(r.got)) / float64(total)
			r.away.stage = "the run on another core"
		}
	default:
		return errors.New("dp-sgd: an outcome that does not decode")
	}
	if !done {
		return nil
	}
	if r.lost {
		// The hold ends with this part: the page's own job computes.
		r.got, r.lost, r.away = nil, false, remoteProgress{}
		return nil
	}
	all := decoder{b: r.got}
	r.got = nil
	switch all.byte() {
	case outRefused:
		msg := all.string()
		if all.err != nil || all.rest() != 0 {
			return errors.New("dp-sgd: a refusal that does not decode")
		}
		s.Stop()
		s.refused = errors.New(msg)
		return nil
	case outRun:
		s.job.Stop()
		next, newUsers := s.next, s.newUsers
		s.remote = remote{decoding: true}
		s.job = viz.StartJob(func(ctx cancel.Context, progress func(done, total int64)) {
			err := next.decodeRun(ctx, &all, progress)
			if err == nil || ctx.Err() != nil {
				return // read, or replaced by a newer change
			}
			// Not what this copy would have computed: compute it here,
			// in computing slices, and not hand it out again.
			s.remote.decoding, s.remote.fellBack = false, true
			next.recompute(ctx, progress, newUsers)
		})
		return nil
	}
	return errors.New("dp-sgd: a run that does not decode")
}

// progress is the fraction of the change's work done and what it is
// doing, for the bar and the readout.
func (s *Scene) progress() (float64, string) {
	switch {
	case s.remote.decoding:
		return s.job.Fraction(), "the figure of the run"
	case s.remote.away.stage != "":
		return s.remote.away.frac, s.remote.away.stage
	}
	return s.job.Fraction(), s.next.stage
}

// encodeRun writes the shown run: the users, θ*, the landscape, DP-SGD's
// steps with their texts, and the baseline's path. What follows from the
// settings alone (ORME's calibration, the guarantees) the reader derives.
func (s *Scene) encodeRun(e *encoder) {
	e.int(s.n)
	e.int(s.m)
	for _, u := range s.data.Users {
		e.floats(u.Points)
	}
	e.floats(s.best)
	e.floats(s.heat)
	e.float(s.excess[0])
	e.float(s.excess[1])
	encodeResult(e, &s.res, s.n, true)
	encodeResult(e, &s.base, s.n, false)
	steps := s.player.Stepper().Trace().Steps
	e.int(len(steps))
	for _, st := range steps {
		e.string(st.Text)
	}
}

// encodeResult writes a DP-SGD run on n users: its answer, iterates and
// halting step, and with story, each step's whole record.
func encodeResult(e *encoder, r *optim.DPSGDResult, n int, story bool) {
	e.floats(r.Theta)
	e.int(len(r.Iterates))
	for _, it := range r.Iterates {
		e.floats(it)
	}
	e.int(r.Halted)
	if !story {
		return
	}
	e.int(len(r.Steps))
	for i := range r.Steps {
		st := &r.Steps[i]
		e.int(st.T)
		e.floats(st.Theta)
		e.int(st.Values.Dim)
		e.floats(st.Values.Flat)
		o := &st.ORME
		e.int(o.I)
		e.float(o.Score)
		e.float(o.Threshold)
		e.float(o.PPass)
		e.bool(o.Passed)
		e.counts(o.Counts)
		e.kept(o.Kept, n)
		e.floats(o.Mean)
		e.floats(o.AllMean)
		e.floats(o.Output)
		e.floats(st.Next)
	}
}

// decodeRun reads a run encodeRun wrote for s's settings into s, as
// recompute would have computed it, reporting progress step by step.
func (s *Scene) decodeRun(ctx cancel.Context, d *decoder, progress func(done, total int64)) error {
	p, err := s.runParams()
	if err != nil {
		return err
	}
	if d.int() != s.n || d.int() != s.m || d.err != nil {
		return errors.New("dp-sgd: a run for other users")
	}
	data := &dataset.Dataset{Dim: 2, Users: make([]dataset.User, s.n)}
	for i := range data.Users {
		pts := d.floats()
		if len(pts) != 2*s.m {
			return errors.New("dp-sgd: a user of other items")
		}
		data.Users[i] = dataset.User{ID: strconv.Itoa(i + 1), Points: pts}
	}
	best, heat := d.floats(), d.floats()
	excess := [2]float64{d.float(), d.float()}
	if d.err != nil || len(best) != 2 || len(heat) != heatCells*heatCells {
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
	if d.rest() != 0 {
		return errors.New("dp-sgd: a run with more than its steps")
	}
	st, err := trace.NewStepper(cancel.Never, func(cancel.Context, *dataset.Dataset, *rng.Streams) (*trace.Trace, error) { return tr, nil }, data, rng.New(s.seed))
	if err != nil {
		return err
	}
	s.data, s.best, s.heat, s.excess, s.res, s.base, s.err = data, best, heat, excess, res, base, nil
	s.show(st)
	return nil
}

// decodeResult reads a run encodeResult wrote for n users and up to steps
// steps; it stops when ctx says the job was replaced, as Job.Stop waits
// for it.
func decodeResult(ctx cancel.Context, d *decoder, r *optim.DPSGDResult, story bool, n, steps int, progress func(done, total int64)) error {
	r.Theta = d.floats()
	its := d.int()
	if d.err != nil || its > steps || r.Theta != nil && len(r.Theta) != 2 {
		return errors.New("dp-sgd: a path that does not decode")
	}
	if its > 0 {
		r.Iterates = make([][]float64, its)
	}
	for i := range r.Iterates {
		if r.Iterates[i] = d.floats(); len(r.Iterates[i]) != 2 {
			return errors.New("dp-sgd: an iterate that does not decode")
		}
	}
	r.Halted = d.int()
	if !story {
		return d.err
	}
	k := d.int()
	if d.err != nil || k > steps {
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
		st.T, st.Theta = d.int(), d.floats()
		st.Values = optim.Vectors{Dim: d.int(), Flat: d.floats()}
		o := &st.ORME
		o.I, o.Score, o.Threshold, o.PPass, o.Passed = d.int(), d.float(), d.float(), d.float(), d.bool()
		o.Counts, o.Kept = d.counts(), d.kept(n)
		o.Mean, o.AllMean, o.Output, st.Next = d.floats(), d.floats(), d.floats(), d.floats()
		if d.err != nil || st.Values.Dim != 2 || len(st.Values.Flat) != 2*n || o.Counts != nil && len(o.Counts) != n ||
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
func (s *Scene) story(d *decoder, res *optim.DPSGDResult) (*trace.Trace, error) {
	k := d.int()
	passed := len(res.Steps)
	if res.Halted > 0 {
		passed--
	}
	if d.err != nil || k != passed+1 || passed < 0 {
		return nil, errors.New("dp-sgd: a story that does not decode")
	}
	tr := &trace.Trace{Schema: trace.Schema, Mechanism: "dp-sgd", Seed: s.seed, Steps: make([]trace.Step, k)}
	for i := range tr.Steps {
		tr.Steps[i] = trace.Step{Kind: optim.KindSGDStep, Text: d.string()}
		if i < passed {
			tr.Steps[i].Data = res.Steps[i]
		}
	}
	tr.Steps[passed].Kind, tr.Steps[passed].Data = optim.KindSGDDone, res.Theta
	return tr, d.err
}

// encoder writes an outcome: little-endian numbers, lengths before slices
// (all ones for nil, which the trace's JSON tells from empty).
type encoder struct{ b []byte }

const nilLen = math.MaxUint32

func (e *encoder) byte(v byte) { e.b = append(e.b, v) }
func (e *encoder) bool(v bool) {
	if v {
		e.byte(1)
	} else {
		e.byte(0)
	}
}
func (e *encoder) int(v int)       { e.b = binary.LittleEndian.AppendUint32(e.b, uint32(v)) }
func (e *encoder) float(v float64) { e.b = binary.LittleEndian.AppendUint64(e.b, math.Float64bits(v)) }
func (e *encoder) length(n int, isNil bool) {
	if isNil {
		n = nilLen
	}
	e.int(n)
}
func (e *encoder) floats(v []float64) {
	e.length(len(v), v == nil)
	for _, x := range v {
		e.float(x)
	}
}

// counts writes ORME's neighbour counts, each at most n, in two bytes.
func (e *encoder) counts(v []int) {
	e.length(len(v), v == nil)
	for _, x := range v {
		e.b = binary.LittleEndian.AppendUint16(e.b, uint16(x))
	}
}

// The counts' two bytes hold any n the lesson takes.
const _ uint16 = maxUsers

// kept writes the users ORME kept (ascending, none: nil) as n bits.
func (e *encoder) kept(v []int, n int) {
	set := make([]byte, (n+7)/8)
	for _, j := range v {
		set[j/8] |= 1 << (j % 8)
	}
	e.b = append(e.b, set...)
}

func (e *encoder) string(v string) {
	e.int(len(v))
	e.b = append(e.b, v...)
}

// decoder reads what encoder wrote; the first short or malformed read
// sets err, and every read after it gives zeros.
type decoder struct {
	b   []byte
	err error
}

var errShort = errors.New("dp-sgd: an outcome cut short")

func (d *decoder) take(n int) []byte {
	if d.err != nil || n < 0 || n > len(d.b) {
		d.err = errShort
		return nil
	}
	out := d.b[:n]
	d.b = d.b[n:]
	return out
}

func (d *decoder) rest() int { return len(d.b) }

func (d *decoder) byte() byte {
	if b := d.take(1); b != nil {
		return b[0]
	}
	return 0
}

func (d *decoder) bool() bool {
	switch d.byte() {
	case 0:
		return false
	case 1:
		return true
	}
	d.err = errShort
	return false
}

func (d *decoder) int() int {
	if b := d.take(4); b != nil {
		return int(binary.LittleEndian.Uint32(b))
	}
	return 0
}

func (d *decoder) float() float64 {
	if b := d.take(8); b != nil {
		return math.Float64frombits(binary.LittleEndian.Uint64(b))
	}
	return 0
}

// length reads a slice's length, -1 for nil; one longer than the bytes
// left (each element takes size of them) is refused before allocating.
func (d *decoder) length(size int) int {
	n := d.int()
	if d.err != nil || n == nilLen {
		return -1
	}
	if n > len(d.b)/size {
		d.err = errShort
		return -1
	}
	return n
}

func (d *decoder) floats() []float64 {
	n := d.length(8)
	if n < 0 {
		return nil
	}
	out := make([]float64, n)
	for i := range out {
		out[i] = d.float()
	}
	return out
}

func (d *decoder) counts() []int {
	n := d.length(2)
	if n < 0 {
		return nil
	}
	b := d.take(2 * n)
	if b == nil {
		return nil
	}
	out := make([]int, n)
	for i := range out {
		out[i] = int(binary.LittleEndian.Uint16(b[2*i:]))
	}
	return out
}

// kept reads n bits of kept users into their ascending indices, nil for
// none.
func (d *decoder) kept(n int) []int {
	var out []int
	for j, b := range d.take((n + 7) / 8) {
		for ; b != 0; b &= b - 1 {
			out = append(out, 8*j+bits.TrailingZeros8(b))
		}
	}
	if len(out) > 0 && out[len(out)-1] >= n {
		d.err = errShort
	}
	return out
}

func (d *decoder) string() string {
	b := d.take(d.int())
	if d.err == nil && !utf8.Valid(b) {
		d.err = errors.New("dp-sgd: a text that is not UTF-8")
	}
	return string(b)
}
