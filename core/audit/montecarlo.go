package audit

import (
	"cmp"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/uldplab/uldp/core/cancel"
	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/mech"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
)

// Sampler draws one output of a mechanism on a fixed dataset from streams;
// a nil output is ⊥ (or a halt). An audit reads or copies each output
// before the next draw, so a sampler may return the same buffer every time.
type Sampler func(streams *rng.Streams) ([]float64, error)

// LawSampler samples a DelOutputPert (or Gaussian mechanism) output law in
// dim dimensions, with TDLap at ε̄ = epsBar (built once: see
// mech.DelLaw.Sampler). A law that cannot be sampled gives a sampler that
// returns the reason.
func LawSampler(l mech.DelLaw, epsBar float64, dim int) Sampler {
	draw, err := l.Sampler(epsBar, dim)
	if err != nil {
		return func(*rng.Streams) ([]float64, error) { return nil, err }
	}
	return func(st *rng.Streams) ([]float64, error) {
		_, out := draw(st)
		return out, nil
	}
}

// MaxRuns bounds a Monte Carlo audit's runs per side, and so its memory
// (about 200 MB at the cap).
const MaxRuns = 10_000_000

// MCConfig sets up a Monte Carlo audit.
type MCConfig struct {
	// Runs per side (at least 10⁵ for the protocol).
	Runs int
	// Alpha is the probability of flagging a correct mechanism: it is split
	// (Bonferroni) over every event and both orders, and each event's
	// Clopper–Pearson intervals are two-sided at that level.
	Alpha float64
	// Seed of the audit's streams; the two sides use independent streams.
	Seed uint64
	// Direction to project outputs on; nil: the difference of the two
	// sides' mean outputs, estimated from a pilot of Runs/10 per side.
	Direction []float64
	// Memory, if set, lends the run its large arrays and keeps them for the
	// next run given the same Memory (see MCMemory).
	Memory *MCMemory
	// Thresholds is the number of threshold events {⟨o, u⟩ > t} and
	// {⟨o, u⟩ ≤ t}, at quantiles of the pilot's pooled projections
	// (default 31: odd, so the pooled median is one of them and two sides
	// that never overlap are split exactly). Outputs that take at most 32
	// values in the pilot also get the event {⟨o, u⟩ = v} for each value.
	Thresholds int
}

// MCMemory holds a Monte Carlo audit's large arrays (the pilot's outputs,
// the pooled projections being sorted, each side's projections) from one
// run to the next. A lesson that audits again and again then keeps its heap
// flat, and can reserve the memory ahead of time: in a browser, growing the
// WebAssembly memory by the megabytes an audit needs makes the page collect
// its own garbage, 10–20 ms that would otherwise fall in one of the audit's
// first frames. A run given an MCMemory must not be read once the next run
// given it has started. The zero MCMemory is ready to use.
type MCMemory struct {
	pilot        [2][]float64 // each side's released pilot outputs, flat
	pooled, sort []float64
	proj         [2][]float64
}

// Reserve grows m to hold a run of runs per side whose outputs have dim
// coordinates, so that run allocates nothing large.
func (m *MCMemory) Reserve(runs, dim int) {
	pilot := runs / 10
	for side := range 2 {
		m.pilot[side] = reserve(m.pilot[side], pilot*dim)
		m.proj[side] = reserve(m.proj[side], runs)
	}
	m.pooled, m.sort = reserve(m.pooled, 2*pilot), reserve(m.sort, 2*pilot)
}

// reserve returns a, emptied, with room for n values.
func reserve(a []float64, n int) []float64 {
	if cap(a) < n {
		return make([]float64, 0, n)
	}
	return a[:0]
}

// MCEvent is one event's frequencies and confidence bounds.
type MCEvent struct {
	Name     string  `json:"name"`
	PA       float64 `json:"p_a"`
	PB       float64 `json:"p_b"`
	LowerA   float64 `json:"lower_a"`
	UpperA   float64 `json:"upper_a"`
	LowerB   float64 `json:"lower_b"`
	UpperB   float64 `json:"upper_b"`
	EpsLower float64 `json:"eps_lower"` // ε this event proves, with the δ claimed
}

// Gloss says in words what the event's name abbreviates, for a reader who
// meets "⟨o,u⟩ > 0.3": "" for ⊥, which needs none.
func (e MCEvent) Gloss() string {
	if !strings.Contains(e.Name, "⟨o,u⟩") {
		return ""
	}
	return "⟨o,u⟩ is an output projected on the direction u from B's mean output to A's, compared with a threshold or a value"
}

// MCResult is a Monte Carlo audit's outcome.
type MCResult struct {
	Runs int `json:"runs"`
	// EpsLower is a lower bound on the ε the mechanism really has at the
	// claimed δ, holding with probability ≥ 1 − Alpha: the largest over
	// events and orders of ln((LB(p) − δ)/UB(p′)).
	EpsLower float64 `json:"eps_lower"`
	Alpha    float64 `json:"alpha"`
	// EpsReach is the largest ε any event could prove with this many runs
	// (one seen every time on one side, never on the other): a claimed ε
	// at or above it cannot be refuted by this audit, whatever the code
	// does. It grows like ln(Runs).
	EpsReach float64   `json:"eps_reach"`
	Worst    MCEvent   `json:"worst_event"`
	Events   []MCEvent `json:"events"`
	// Verdict is "pass" or "violation" (EpsLower > the claimed ε).
	Verdict string `json:"verdict"`
}

// MonteCarlo runs a and b Runs times each and bounds the privacy loss the
// outputs show, against g. progress (may be nil) gets done/total runs; ctx
// cancels.
func MonteCarlo(ctx cancel.Context, a, b Sampler, g privacy.Guarantee, cfg MCConfig, progress func(done, total int64)) (MCResult, error) {
	run, err := NewMCRun(a, b, g, cfg)
	if err != nil {
		return MCResult{}, err
	}
	for !run.Done() {
		if err := ctx.Err(); err != nil {
			return MCResult{}, err
		}
		if err := run.Step(1024); err != nil {
			return MCResult{}, err
		}
		if progress != nil {
			progress(run.Progress())
		}
	}
	return run.Result(), nil
}

// MCRun is a Monte Carlo audit advanced a slice at a time, so a browser
// lesson can sample between frames without freezing the page.
type MCRun struct {
	a, b   Sampler
	g      privacy.Guarantee
	cfg    MCConfig
	u      []float64
	pilot  [2]*rng.Streams
	main   [2]*rng.Streams
	pilotN int
	mem    *MCMemory
	aimed  bool // the events are fixed: direction and thresholds
	// pooled sorts the pilot's projections a bounded amount per Step
	// (2×10⁴ values sorted at once took 38 ms in a browser tick).
	pooled *stepSort
	cuts   []float64 // the thresholds t, from the pilot
	atoms  []float64 // the few values discrete outputs take, from the pilot
	// The pilot's released outputs, flat (dim values each, no pointer per
	// output for the garbage collector), and how many outputs each side
	// has drawn, ⊥ included.
	pilots [2][]float64
	drawn  [2]int
	dim    int
	// The main samples are counted as they arrive, once the pilot has fixed
	// the events: each side's released outputs projected on u (flat, no
	// pointer per sample for the garbage collector to mark), its ⊥ count,
	// how many projections fall between consecutive cuts (bucket i: i cuts
	// lie below), and how many equal each atom.
	proj    [2][]float64
	bottom  [2]int
	buckets [2][]int
	atomN   [2][]int
	done    int64
	// Once every sample is in, the events are bounded a few per Step
	// (see tally), then the result is set.
	tally  *tally
	result *MCResult
}

// tally is the finished sampling's events with their counts, bounded a few
// at a time: each needs two Clopper–Pearson intervals (tens of
// microseconds natively, several times that in the browser), and a lesson
// stepping between frames must not wait for all of them at once.
type tally struct {
	res    MCResult
	counts [][2]int // per event: A's and B's
	level  float64
	next   int
}

// eventCost is how many samples' worth of a Step's budget bounding one
// event takes.
const eventCost = 50

// NewMCRun checks the configuration and prepares the streams: independent
// ones for the two sides and for the pilot that chooses the events (the
// direction, unless given, and the thresholds), so the events do not depend
// on the samples they judge and each Clopper–Pearson interval is exact.
func NewMCRun(a, b Sampler, g privacy.Guarantee, cfg MCConfig) (*MCRun, error) {
	if cfg.Runs < 100 {
		return nil, format.Errorf("runs = %d: a Monte Carlo audit needs at least 100 runs per side (10⁵ for the full protocol)", cfg.Runs)
	}
	if cfg.Runs > MaxRuns {
		return nil, format.Errorf("runs = %d: at most %.0e runs per side (each keeps its projected output: 8 bytes a run and side, plus the pilot's)", cfg.Runs, float64(MaxRuns))
	}
	if !(cfg.Alpha > 0 && cfg.Alpha < 1) {
		return nil, format.Errorf("alpha = %v: the false-flag probability must be in (0, 1)", cfg.Alpha)
	}
	if cfg.Thresholds == 0 {
		cfg.Thresholds = 31
	}
	if cfg.Thresholds < 0 {
		return nil, format.Errorf("thresholds = %d: the number of threshold events cannot be negative", cfg.Thresholds)
	}
	root := rng.New(cfg.Seed)
	r := &MCRun{a: a, b: b, g: g, cfg: cfg, u: cfg.Direction, pilotN: cfg.Runs / 10, mem: cfg.Memory}
	if r.mem == nil {
		r.mem = new(MCMemory)
	}
	r.mem.Reserve(cfg.Runs, 0)
	r.pilots = [2][]float64{r.mem.pilot[0], r.mem.pilot[1]}
	r.main = [2]*rng.Streams{rng.New(root.Get("audit-a").Uint64()), rng.New(root.Get("audit-b").Uint64())}
	r.pilot = [2]*rng.Streams{rng.New(root.Get("pilot-a").Uint64()), rng.New(root.Get("pilot-b").Uint64())}
	return r, nil
}

// Progress returns samples drawn and the total to draw.
func (r *MCRun) Progress() (done, total int64) {
	return r.done, int64(2 * (r.pilotN + r.cfg.Runs))
}

// Done reports whether the result is ready.
func (r *MCRun) Done() bool { return r.result != nil }

// Result returns the audit's outcome (zero until Done).
func (r *MCRun) Result() MCResult {
	if r.result == nil {
		return MCResult{}
	}
	return *r.result
}

// Projections returns the outputs sampled so far on each side, projected
// on the audit's direction, and how many were ⊥ (nil before the pilot has
// chosen the direction): what a lesson draws as two histograms. The slices
// are the run's own, not copies: read them, do not keep or change them.
func (r *MCRun) Projections() (a, b []float64, bottomA, bottomB int) {
	if !r.aimed {
		return nil, nil, 0, 0
	}
	return r.proj[0], r.proj[1], r.bottom[0], r.bottom[1]
}

// Step draws up to n more samples, pilot first, then each side in turn;
// once every sample is in, it bounds the events (each counting as
// eventCost samples of n) and sets the result after the last.
func (r *MCRun) Step(n int) error {
	for n > 0 && r.result == nil {
		if r.tally != nil {
			r.bound()
			n -= eventCost
			continue
		}
		if !r.aimed && r.drawn[1] == r.pilotN {
			// Between the pilot and the main samples the events are fixed
			// in pieces of a few milliseconds in a browser each, one piece
			// a call, so a caller that reads its clock between calls keeps
			// its frame.
			if r.pooled == nil {
				r.pool()
			} else if r.pooled.step(sortUnit * n) {
				r.aim(r.pooled.a)
			}
			return nil
		}
		n--
		side, streams, pilot := r.next()
		if streams == nil {
			r.finish()
			continue
		}
		s := r.a
		if side == 1 {
			s = r.b
		}
		o, err := s(streams)
		if err != nil {
			return err
		}
		if pilot {
			if err := r.file(side, o); err != nil {
				return err
			}
		} else {
			r.count(side, o)
		}
		r.done++
	}
	return nil
}

// next returns which side and stream the next sample comes from, and
// whether it is a pilot sample.
func (r *MCRun) next() (side int, streams *rng.Streams, pilot bool) {
	if !r.aimed {
		for side := 0; side < 2; side++ {
			if r.drawn[side] < r.pilotN {
				return side, r.pilot[side], true
			}
		}
	}
	for side := 0; side < 2; side++ {
		if len(r.proj[side])+r.bottom[side] < r.cfg.Runs {
			return side, r.main[side], false
		}
	}
	return 0, nil, false
}

// file keeps one pilot output of side.
func (r *MCRun) file(side int, o []float64) error {
	r.drawn[side]++
	if o == nil {
		return nil
	}
	if r.dim == 0 {
		r.dim = len(o)
	}
	if len(o) != r.dim || r.dim == 0 {
		return format.Errorf("the mechanism released outputs of %d and %d coordinates: an audit compares outputs of one dimension", r.dim, len(o))
	}
	r.pilots[side] = append(r.pilots[side], o...)
	return nil
}

// count files one main sample of side under the events.
func (r *MCRun) count(side int, o []float64) {
	if o == nil {
		r.bottom[side]++
		return
	}
	v := dot(o, r.u)
	r.proj[side] = append(r.proj[side], v)
	if v == v {
		r.buckets[side][sort.SearchFloat64s(r.cuts, v)]++ // the cuts below v
	} else {
		r.buckets[side][0]++ // NaN is above no cut
	}
	for k, a := range r.atoms {
		if v == a {
			r.atomN[side][k]++
		}
	}
}

// sortUnit is how many values a sort takes in place of one sample of a
// Step's budget: a few microseconds of merging, about one cheap sample.
const sortUnit = 256

// pool fixes the direction from the pilot (unless given) and starts
// sorting the pooled projections.
func (r *MCRun) pool() {
	if r.u == nil {
		r.u = meanDifference(r.pilots[0], r.pilots[1], r.dim)
	}
	pooled := r.mem.pooled
	for _, outs := range r.pilots {
		for k := 0; k < len(outs); k += r.dim {
			pooled = append(pooled, dot(outs[k:k+r.dim], r.u))
		}
	}
	r.pooled = &stepSort{a: pooled, buf: reserve(r.mem.sort, len(pooled))[:len(pooled)]}
}

// aim fixes the events from the sorted pooled pilot projections: the
// thresholds at their quantiles, and atoms if they take few values.
func (r *MCRun) aim(pooled []float64) {
	// Midway between neighbouring pooled values: a cut in a gap between
	// the sides (or between discrete outputs) splits the main samples the
	// way it split the pilot, not at a pilot sample's own value.
	for k := 1; k <= r.cfg.Thresholds && len(pooled) > 0; k++ {
		i := (len(pooled) - 1) * k / (r.cfg.Thresholds + 1)
		r.cuts = append(r.cuts, (pooled[i]+pooled[min(i+1, len(pooled)-1)])/2)
	}
	r.cuts = slices.Compact(r.cuts)
	// Discrete outputs (halting times, say) get an event per value too: a
	// single outcome can carry a privacy loss that every threshold event
	// dilutes with its neighbours.
	if atoms := slices.Compact(pooled); len(atoms) >= 2 && len(atoms) <= maxAtoms {
		r.atoms = atoms
	}
	for side := range 2 {
		r.buckets[side] = make([]int, len(r.cuts)+1)
		r.atomN[side] = make([]int, len(r.atoms))
		r.proj[side] = r.mem.proj[side]
		r.mem.pilot[side] = r.pilots[side][:0] // as grown, for the next run
	}
	r.mem.pooled, r.mem.sort = r.pooled.a[:0], r.pooled.buf[:0]
	r.pooled = nil
	r.aimed = true
}

// stepSort is a bottom-up merge sort that can stop after any amount of
// work and resume, so no single call sorts more than it is given.
type stepSort struct {
	a, buf []float64
	width  int // sorted run length; 0 while the first runs are being sorted
	lo     int // where the current pass has got to
}

// firstRun is the length of the runs sorted directly before merging.
const firstRun = 64

// step does about budget values' worth of sorting (one merge of two runs
// at least) and reports whether a is sorted (in cmp.Compare's order, NaN
// first, as slices.Sort).
func (m *stepSort) step(budget int) bool {
	for budget > 0 && m.width < len(m.a) {
		if m.width == 0 {
			hi := min(m.lo+firstRun, len(m.a))
			slices.Sort(m.a[m.lo:hi])
			budget -= hi - m.lo
			if m.lo = hi; m.lo == len(m.a) {
				m.width, m.lo = firstRun, 0
			}
			continue
		}
		mid, hi := min(m.lo+m.width, len(m.a)), min(m.lo+2*m.width, len(m.a))
		merge(m.buf[m.lo:hi], m.a[m.lo:mid], m.a[mid:hi])
		budget -= hi - m.lo
		if m.lo = hi; m.lo == len(m.a) {
			m.a, m.buf = m.buf, m.a
			m.width, m.lo = 2*m.width, 0
		}
	}
	return m.width >= len(m.a)
}

// merge writes the sorted runs x and y, in order, to dst (len(x)+len(y)),
// taking from x on ties.
func merge(dst, x, y []float64) {
	i, j := 0, 0
	for k := range dst {
		if j == len(y) || (i < len(x) && !cmp.Less(y[j], x[i])) {
			dst[k], i = x[i], i+1
		} else {
			dst[k], j = y[j], j+1
		}
	}
}

// finish forms the events from the counts; bound then bounds them.
func (r *MCRun) finish() {
	cfg, g := r.cfg, r.g
	t := &tally{res: MCResult{Runs: cfg.Runs, Alpha: cfg.Alpha, Verdict: "pass"}}
	events := 1 + 2*cfg.Thresholds + len(r.atoms)
	t.level = cfg.Alpha / float64(2*events) // Bonferroni over events and the two orders
	add := func(name string, ka, kb int) {
		t.res.Events = append(t.res.Events, MCEvent{Name: name, PA: float64(ka) / float64(cfg.Runs), PB: float64(kb) / float64(cfg.Runs)})
		t.counts = append(t.counts, [2]int{ka, kb})
	}
	always, _ := ClopperPearson(cfg.Runs, cfg.Runs, t.level)
	_, never := ClopperPearson(0, cfg.Runs, t.level)
	t.res.EpsReach = epsBound(always, never, g.Delta)
	add("⊥", r.bottom[0], r.bottom[1])
	// Above cut j are the projections in buckets j+1 and up.
	ga, gb := len(r.proj[0]), len(r.proj[1])
	for j, c := range r.cuts {
		ga, gb = ga-r.buckets[0][j], gb-r.buckets[1][j]
		add(format.Sprintf("⟨o,u⟩ > %.4g", c), ga, gb)
		// Complements within the released outputs: ⟨o,u⟩ ≤ t.
		add(format.Sprintf("⟨o,u⟩ ≤ %.4g", c), len(r.proj[0])-ga, len(r.proj[1])-gb)
	}
	for k, v := range r.atoms {
		add(format.Sprintf("⟨o,u⟩ = %.4g", v), r.atomN[0][k], r.atomN[1][k])
	}
	r.tally = t
}

// bound bounds the next event, and sets the result after the last.
func (r *MCRun) bound() {
	t, cfg := r.tally, r.cfg
	e := &t.res.Events[t.next]
	k := t.counts[t.next]
	e.LowerA, e.UpperA = ClopperPearson(k[0], cfg.Runs, t.level)
	e.LowerB, e.UpperB = ClopperPearson(k[1], cfg.Runs, t.level)
	e.EpsLower = math.Max(epsBound(e.LowerA, e.UpperB, r.g.Delta), epsBound(e.LowerB, e.UpperA, r.g.Delta))
	if e.EpsLower > t.res.EpsLower || t.res.Worst.Name == "" {
		t.res.EpsLower, t.res.Worst = e.EpsLower, *e
	}
	if t.next++; t.next == len(t.res.Events) {
		if t.res.EpsLower > r.g.Eps {
			t.res.Verdict = "violation"
		}
		r.result, r.tally = &t.res, nil
	}
}

// maxAtoms is how many distinct pilot values still count as a discrete
// output, each value its own event.
const maxAtoms = 32

// epsBound is the ε an event proves at δ: ln((LB(p) − δ)/UB(p′)), never
// below the trivial bound ε ≥ 0.
func epsBound(lower, upper, delta float64) float64 {
	if lower-delta <= 0 || upper <= 0 {
		return 0
	}
	return math.Max(0, math.Log((lower-delta)/upper))
}

// ClopperPearson returns the exact two-sided binomial confidence interval
// for k successes in n trials at level alpha (each tail alpha/2).
func ClopperPearson(k, n int, alpha float64) (lower, upper float64) {
	if k > 0 {
		lower = invRegIncBeta(float64(k), float64(n-k+1), alpha/2) // the Beta(k, n−k+1) quantile
	}
	upper = 1
	if k < n {
		upper = invRegIncBeta(float64(k+1), float64(n-k), 1-alpha/2)
	}
	return lower, upper
}

// meanDifference is the difference of the mean outputs of a and b, flat
// outputs of dim values each; nil if a side has none.
func meanDifference(a, b []float64, dim int) []float64 {
	if dim == 0 || len(a) == 0 || len(b) == 0 {
		return nil
	}
	ma, mb := mean(a, dim), mean(b, dim)
	for k := range ma {
		ma[k] -= mb[k]
	}
	return ma
}

// mean is the mean of the flat outputs of dim values each in outs.
func mean(outs []float64, dim int) []float64 {
	m := make([]float64, dim)
	for i, v := range outs {
		m[i%dim] += v
	}
	n := float64(len(outs) / dim)
	for k := range m {
		m[k] /= n
	}
	return m
}

// dot is ⟨o, u⟩; with no direction (identical means) it is o's first
// coordinate.
func dot(o, u []float64) float64 {
	if len(u) != len(o) {
		return o[0]
	}
	var v float64
	for k := range o {
		v += o[k] * u[k]
	}
	return v
}
