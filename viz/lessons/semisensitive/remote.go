package semisensitive

import (
	"errors"

	"github.com/uldplab/uldp/core/cancel"
	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/core/semisens"
	"github.com/uldplab/uldp/core/trace"
	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/internal/wire"
)

// A run takes seconds in a browser tab. The page hands it to its compute
// worker (viz.Remote): the worker's copy of the lesson, restored to the
// page's state, computes it on another core and sends what the figure
// shows of it (the trace, the beliefs of the rows shown, each update's
// scores and Condition 14, the models), which the page's copy reads
// decodeSlice milliseconds a frame. The examples themselves stay behind:
// the figure reads only their true values and the lower-bound game's.

var _ viz.Remote = (*Scene)(nil)

// decodeSlice is how long a frame spends reading a run computed
// elsewhere, in milliseconds: the point of handing the run out is a page
// that keeps its frames.
const decodeSlice = 6.0

// RemoteKey names the run under way by every setting it depends on; the
// views (reveal, the panels) only redraw.
func (s *Scene) RemoteKey() string {
	if !s.Busy() || s.remote.Decoding || s.remote.FellBack {
		return ""
	}
	c := s.cfg
	return wire.Key("semi-sensitive", []float64{float64(c.n), float64(c.k), float64(c.dpub), c.effect, c.eps, c.delta, float64(c.lmax),
		c.eta, c.c, c.tau, float64(c.steps), c.mu, float64(c.mode), float64(c.seed)}, c.rule, "moved", c.movedText())
}

// Outcome is the run's progress while it computes; once done, the next
// part of the run (or of why it was refused), done with the last.
func (s *Scene) Outcome() (data []byte, done bool) {
	if s.Busy() {
		frac, stage := s.progress()
		return wire.Progress(frac, stage), false
	}
	return s.remote.Send.Next(s.refused, s.view.encode)
}

// Adopt shows another copy's progress on the run under way, or gathers
// the parts of the run it finished; with the last, reading the run (a
// slice per frame, Tick) or the refusal takes the place of computing it.
// A part missing ends the hold with nothing read: the front end hands the
// run out again, or this copy computes it.
func (s *Scene) Adopt(key string, data []byte, done bool) error {
	if k := s.RemoteKey(); key != k {
		return errors.New("semi-sensitive: an outcome for another run")
	}
	run, refused, err := s.remote.Got.Take(data, done)
	switch {
	case err != nil:
		return errors.New("semi-sensitive: " + err.Error())
	case refused != nil:
		s.Stop()
		// As advance shows a run this copy refused.
		s.refused, s.cfg = refused, s.view.cfg
		return nil
	case run == nil:
		return nil
	}
	s.Stop()
	v := &semiView{cfg: s.cfg}
	s.remote.Decoding = true
	s.bg.Start(v, func(ctx cancel.Context, progress func(done, total int64)) {
		err := v.decode(ctx, run, progress)
		if err == nil || ctx.Err() != nil {
			return // read, or replaced by a newer change
		}
		// Not what this copy would have computed: compute it here,
		// and not hand it out again.
		s.remote.Decoding, s.remote.FellBack = false, true
		*v = semiView{cfg: v.cfg}
		v.compute(ctx, progress)
	})
	return nil
}

// progress is the share of the run under way done and what is being done,
// for the bar and the readout.
func (s *Scene) progress() (float64, string) {
	if !s.bg.Busy() {
		return s.remote.Progress(0, "starting")
	}
	return s.remote.Progress(s.bg.Fraction(), s.bg.Next().stage)
}

// encode writes what the figure shows of the run: the true values and the
// lower-bound game's guesses (one byte each: k ≤ 64), the trace, the
// beliefs of the rows shown, each update's scores and Condition 14, and
// the models. What follows from the settings (the calibration, the
// guarantee, the ledger) the reader derives.
func (v *semiView) encode(w *wire.Writer) {
	w.Int(len(v.truth))
	for i, y := range v.truth {
		w.B = append(w.B, byte(y), byte(v.game.pointed[i]))
	}
	w.Int(len(v.run.Steps))
	for _, st := range v.run.Steps {
		encodeStep(w, st)
	}
	w.Int(len(v.snaps))
	for _, sn := range v.snaps {
		w.Floats(sn)
	}
	w.Int(len(v.seen))
	for _, sn := range v.seen {
		encodeSeen(w, sn)
	}
	res := &v.res
	w.Int(res.Queries)
	w.Int(res.Updates)
	w.Bool(res.Failed)
	w.Floats(res.Psi)
	w.Float(res.MaxError)
	w.Int(len(res.Problems))
	for _, pr := range res.Problems {
		encodeProblem(w, pr)
	}
}

// The fewest bytes encodeStep, encodeSeen, encodePart and encodeProblem
// write (with no text, no slices and no curves): the reader refuses a
// count of them longer than the bytes left allow before allocating.
const (
	minStepBytes    = 4 + 1 + 4             // text, kind, the smallest data (FAIL's query)
	minSeenBytes    = 4 + 8 + 4 + 1 + 7*8   // histogram, bound, parts, holds, 7 numbers
	minPartBytes    = 4 + 4 + 8 + 8 + 4 + 1 // name, text, value, bound, relation, holds
	minProblemBytes = 8 + 4 + 4 + 4 + 4 + 1 + 4*4 + 4*8 + 1
)

// encodeSeen writes what the figure keeps of an update.
func encodeSeen(w *wire.Writer, sn semiSeen) {
	w.Ints(sn.hist)
	w.Float(sn.lim)
	c := &sn.cond
	w.Length(len(c.Parts), c.Parts == nil)
	for _, pt := range c.Parts {
		encodePart(w, pt)
	}
	w.Bool(c.Holds)
	for _, x := range []float64{c.Error, c.Noise, c.NoiseAlong, c.Drop, c.Lemma, c.Exact, c.Clipped} {
		w.Float(x)
	}
}

// encodePart writes a part of Condition 14.
func encodePart(w *wire.Writer, pt semisens.ConditionPart) {
	w.String(pt.Name)
	w.String(pt.Text)
	w.Float(pt.Value)
	w.Float(pt.Bound)
	w.String(pt.Asks)
	w.Bool(pt.Holds)
}

// encodeProblem writes a problem's models, their excess risks and curves.
func encodeProblem(w *wire.Writer, pr semisens.Problem) {
	w.Float(pr.Mu)
	w.String(pr.Method)
	w.Floats(pr.Private.W)
	w.Int(len(pr.Private.Iterates))
	for _, it := range pr.Private.Iterates {
		w.Floats(it)
	}
	w.Int(pr.Private.Answered)
	w.Bool(pr.Private.Failed)
	for _, m := range [][]float64{pr.NonPrivate, pr.Gaussian, pr.RR, pr.Optimum} {
		w.Floats(m)
	}
	for _, x := range []float64{pr.Excess, pr.ExcessNonPrivate, pr.ExcessGaussian, pr.ExcessRR} {
		w.Float(x)
	}
	w.Bool(pr.Curves != nil)
	if pr.Curves != nil {
		for _, c := range []*semisens.Curve{&pr.Curves.Private, &pr.Curves.NonPrivate, &pr.Curves.Gaussian, &pr.Curves.RR} {
			w.Ints(c.Steps)
			w.Floats(c.Excess)
		}
	}
}

// The trace's step kinds, by their byte.
var stepKinds = []trace.Kind{semisens.KindThreshold, semisens.KindTest, semisens.KindUpdate, semisens.KindAnswer,
	semisens.KindFail, semisens.KindDescent}

// encodeStep writes a PVMW trace step: its text, kind and data.
func encodeStep(w *wire.Writer, st trace.Step) {
	w.String(st.Text)
	for i, k := range stepKinds {
		if k == st.Kind {
			w.Byte(byte(i))
		}
	}
	switch d := st.Data.(type) {
	case semisens.ThresholdStep:
		w.Int(d.Instance)
		w.Float(d.Chi)
		w.Float(d.Scale)
	case semisens.TestStep:
		w.Int(d.Query)
		w.Int(d.Instance)
		w.Float(d.Error)
		w.Float(d.Nu)
		w.Float(d.Chi)
		w.Float(d.Tau)
		w.Bool(d.Top)
	case semisens.UpdateStep:
		w.Int(d.Query)
		w.Int(d.Instance)
		w.Floats(d.Before)
		w.Floats(d.V)
		for _, x := range []float64{d.Iota, d.IotaUsed, d.NoiseZ, d.Xi} {
			w.Float(x)
		}
		w.Floats(d.Phi)
		w.Int(d.Clipped)
	case semisens.AnswerStep:
		w.Int(d.Query)
		w.Floats(d.Answer)
		w.Float(d.Error)
	case int: // FAIL
		w.Int(d)
	case semisens.DescentStep:
		w.Int(d.Problem)
		w.Int(d.S)
		w.Floats(d.W)
		w.Floats(d.G)
		w.Floats(d.True)
		w.Float(d.Error)
	}
}

// decodeStep reads a step encodeStep wrote.
func decodeStep(r *wire.Reader) (trace.Step, error) {
	text := r.String()
	b := int(r.Byte())
	if r.Err != nil || b >= len(stepKinds) {
		return trace.Step{}, errors.New("semi-sensitive: a step of no known kind")
	}
	st := trace.Step{Kind: stepKinds[b], Text: text}
	switch st.Kind {
	case semisens.KindThreshold:
		st.Data = semisens.ThresholdStep{Instance: r.Int(), Chi: r.Float(), Scale: r.Float()}
	case semisens.KindTest:
		st.Data = semisens.TestStep{Query: r.Int(), Instance: r.Int(), Error: r.Float(), Nu: r.Float(), Chi: r.Float(), Tau: r.Float(), Top: r.Bool()}
	case semisens.KindUpdate:
		st.Data = semisens.UpdateStep{Query: r.Int(), Instance: r.Int(), Before: r.Floats(), V: r.Floats(),
			Iota: r.Float(), IotaUsed: r.Float(), NoiseZ: r.Float(), Xi: r.Float(), Phi: r.Floats(), Clipped: r.Int()}
	case semisens.KindAnswer:
		st.Data = semisens.AnswerStep{Query: r.Int(), Answer: r.Floats(), Error: r.Float()}
	case semisens.KindFail:
		st.Data = r.Int()
	case semisens.KindDescent:
		st.Data = semisens.DescentStep{Problem: r.Int(), S: r.Int(), W: r.Floats(), G: r.Floats(), True: r.Floats(), Error: r.Float()}
	}
	return st, r.Err
}

// decode reads a run encode wrote for v's settings into v, as compute
// would have computed it, reporting progress step by step; it stops when
// ctx says the job was replaced.
func (v *semiView) decode(ctx cancel.Context, r *wire.Reader, progress func(done, total int64)) error {
	c := v.cfg
	var err error
	if v.params, err = c.params(); err != nil {
		return err
	}
	v.params.CurveEvery = max(1, c.steps/semiCurvePoints)
	v.dim = c.dpub + c.k + 1
	if n := r.Int(); r.Err != nil || n != c.n {
		return errors.New("semi-sensitive: a run of other examples")
	}
	pair := r.Take(2 * c.n)
	if pair == nil {
		return r.Err
	}
	v.truth, v.game.pointed = make([]int, c.n), make([]int, c.n)
	for i := range v.truth {
		v.truth[i], v.game.pointed[i] = int(pair[2*i]), int(pair[2*i+1])
		if v.truth[i] >= c.k || v.game.pointed[i] >= c.k {
			return errors.New("semi-sensitive: a value beyond k")
		}
		if v.truth[i] == v.game.pointed[i] {
			v.game.hits++
		}
	}
	v.rows = make([]int, min(semiRows, c.n))
	for i := range v.rows {
		v.rows[i] = i
	}
	steps := r.Length(minStepBytes)
	if steps < 0 {
		return errors.New("semi-sensitive: a trace that does not decode")
	}
	tr := &trace.Trace{Schema: trace.Schema, Mechanism: "pvmw", Seed: rng.New(c.seed).Seed(), Steps: make([]trace.Step, steps)}
	for i := range tr.Steps {
		if i%64 == 0 {
			progress(int64(i), int64(steps))
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if tr.Steps[i], err = decodeStep(r); err != nil {
			return err
		}
	}
	rows := len(v.rows) * c.k
	snaps := r.Length(8 * rows)
	if snaps < 1 {
		return errors.New("semi-sensitive: beliefs that do not decode")
	}
	v.snaps = make([][]float64, snaps)
	for i := range v.snaps {
		if v.snaps[i] = r.Floats(); len(v.snaps[i]) != rows {
			return errors.New("semi-sensitive: beliefs of other rows")
		}
	}
	if seen := r.Length(minSeenBytes); seen >= 0 {
		v.seen = make([]semiSeen, seen)
	}
	for i := range v.seen {
		sn := &v.seen[i]
		sn.hist, sn.lim = r.Ints(), r.Float()
		if sn.hist != nil && len(sn.hist) != semiBins {
			return errors.New("semi-sensitive: a histogram of other bins")
		}
		cd := &sn.cond
		if parts := r.Length(minPartBytes); parts >= 0 {
			cd.Parts = make([]semisens.ConditionPart, parts)
		}
		for j := range cd.Parts {
			cd.Parts[j] = semisens.ConditionPart{Name: r.String(), Text: r.String(), Value: r.Float(), Bound: r.Float(), Asks: r.String(), Holds: r.Bool()}
		}
		cd.Holds = r.Bool()
		cd.Error, cd.Noise, cd.NoiseAlong, cd.Drop, cd.Lemma, cd.Exact, cd.Clipped = r.Float(), r.Float(), r.Float(), r.Float(), r.Float(), r.Float(), r.Float()
	}
	res := &v.res
	res.Queries, res.Updates, res.Failed, res.Psi, res.MaxError = r.Int(), r.Int(), r.Bool(), r.Floats(), r.Float()
	if problems := r.Length(minProblemBytes); problems >= 0 {
		res.Problems = make([]semisens.Problem, problems)
	}
	for i := range res.Problems {
		pr := &res.Problems[i]
		pr.Mu, pr.Method = r.Float(), r.String()
		pr.Private.W = r.Floats()
		if its := r.Length(4); its > 0 {
			pr.Private.Iterates = make([][]float64, its)
		}
		for j := range pr.Private.Iterates {
			pr.Private.Iterates[j] = r.Floats()
		}
		pr.Private.Answered, pr.Private.Failed = r.Int(), r.Bool()
		pr.NonPrivate, pr.Gaussian, pr.RR, pr.Optimum = r.Floats(), r.Floats(), r.Floats(), r.Floats()
		pr.Excess, pr.ExcessNonPrivate, pr.ExcessGaussian, pr.ExcessRR = r.Float(), r.Float(), r.Float(), r.Float()
		if r.Bool() {
			pr.Curves = &semisens.Curves{}
			for _, cv := range []*semisens.Curve{&pr.Curves.Private, &pr.Curves.NonPrivate, &pr.Curves.Gaussian, &pr.Curves.RR} {
				cv.Steps, cv.Excess = r.Ints(), r.Floats()
			}
		}
	}
	if r.Err != nil || r.Rest() != 0 || len(res.Problems) != 1 || len(res.Psi) == 0 || res.Updates > c.lmax {
		return errors.New("semi-sensitive: a run that does not decode")
	}
	if !v.sound(tr) {
		return errors.New("semi-sensitive: a run the figure cannot read")
	}
	v.params.Accounts(res, c.n)
	v.run = tr
	v.story(tr)
	return v.stepper(ctx, tr)
}

// sound reports whether the figure can read the run decoded into v with
// its trace tr: every vector of the model's dimension, one beliefs'
// snapshot before the updates and one after each, one histogram per
// update, and every curve a point per step.
func (v *semiView) sound(tr *trace.Trace) bool {
	d := v.dim
	vec := func(x []float64) bool { return len(x) == d }
	for _, st := range tr.Steps {
		switch x := st.Data.(type) {
		case semisens.UpdateStep:
			if !vec(x.Before) || !vec(x.V) || !vec(x.Phi) {
				return false
			}
		case semisens.AnswerStep:
			if !vec(x.Answer) {
				return false
			}
		case semisens.DescentStep:
			if !vec(x.W) || !vec(x.G) || !vec(x.True) {
				return false
			}
		}
	}
	res := &v.res
	pr := &res.Problems[0]
	if len(v.snaps) != res.Updates+1 || len(v.seen) != res.Updates || pr.Curves == nil || !vec(pr.Private.W) {
		return false
	}
	for _, c := range []semisens.Curve{pr.Curves.Private, pr.Curves.NonPrivate, pr.Curves.Gaussian, pr.Curves.RR} {
		if len(c.Steps) != len(c.Excess) {
			return false
		}
	}
	return true
}
