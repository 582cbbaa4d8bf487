// Package semisensitive is lesson 12, semi-sensitive features (Ghazi et al.
// 2024): only one feature is private; PVMW answers every gradient from
// beliefs over its k values and pays only when a private test says the
// beliefs are wrong.
package semisensitive

import (
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/uldplab/uldp/core/cancel"
	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/core/semisens"
	"github.com/uldplab/uldp/core/trace"
	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/internal/wire"
)

// Scene is the lesson on semi-sensitive features (Ghazi et al. 2024):
// logistic regression trained through PVMW. Each example has public
// features, a public label and one sensitive value of k; every gradient
// the training asks for is answered from per-example beliefs over the k
// values, tested privately, and the beliefs are reweighted (MWU) only
// when the test says they answer badly. Step through the queries.
type Scene struct {
	cfg semiConfig
	// view is the run shown; bg computes the next one between frames (a
	// run at the lesson's size takes about a second in a browser tab).
	view    semiView
	bg      viz.Background[semiView]
	pending bool // a run of cfg to start at the next tick
	refused error
	remote  wire.Handoff // a run another copy computes

	player viz.Player
	list   viz.List
}

// semiConfig is the lesson's settings.
type semiConfig struct {
	n, k, dpub int
	effect     float64
	eps, delta float64
	rule       string
	lmax       int
	eta, c     float64
	tau        float64
	steps      int
	mu         float64
	mode       privacy.Mode
	reveal     bool
	panel      string
	lower      string
	seed       uint64
	// moved holds the examples whose sensitive value was changed in the
	// figure (example → value): the neighbouring dataset.
	moved map[int]int
}

// semiView is a computed run.
type semiView struct {
	cfg semiConfig
	// data are the examples, nil in a view computed elsewhere: the figure
	// reads only their true values, and the model's dimension.
	data    *semisens.Dataset
	truth   []int
	dim     int
	params  semisens.TrainParams
	res     semisens.TrainResult
	st      *trace.Stepper
	run     *trace.Trace // PVMW's own trace, the one exported
	queries []semiQuery
	// rows are the examples the beliefs panel shows; snaps[u] their
	// beliefs after u updates, row-major (rows × k).
	rows  []int
	snaps [][]float64
	// seen[u] is update u+1 seen from outside: its scores, Condition 14.
	seen  []semiSeen
	game  semiGame
	stage string
	err   error
}

// semiQuery is one query's story: its tests, updates, answer and the
// descent step it served (nil for a query that failed).
type semiQuery struct {
	tests   []semisens.TestStep
	updates []semisens.UpdateStep
	before  int // updates before this query
	answer  *semisens.AnswerStep
	descent *semisens.DescentStep
	failed  bool
}

// semiSeen is what the lesson keeps of one update: the raw scores'
// histogram (bins over [−lim, lim], the outer ones holding everything
// beyond) and, for the instructor's view, Condition 14.
type semiSeen struct {
	hist []int
	lim  float64
	cond semisens.Condition
}

// semiBins is the scores histogram's number of bins.
const semiBins = 41

// semiGame is the lower-bound game played by k-ary randomized response at
// the lesson's ε on its n examples: which value each example's block
// points at, and how many point right.
type semiGame struct {
	pointed []int
	hits    int
}

// The second panel's views.
const (
	panelTests     = "tests"
	panelScores    = "scores"
	panelCondition = "condition-14"
	panelGame      = "lower-bound"
	panelNoise     = "noise"
)

// The third panel's views.
const (
	lowerPotential = "potential"
	lowerTraining  = "training"
)

// semiCurvePoints is about how many points each training curve has.
const semiCurvePoints = 25

// spent is how many updates the run had made by the end of query q (none
// before the first query, q nil).
func (q *semiQuery) spent() int {
	if q == nil {
		return 0
	}
	return q.before + len(q.updates)
}

// semiRows is how many examples the beliefs panel shows.
const semiRows = 12

// kindSemiQuery is the lesson's stepper step: one query.
const kindSemiQuery trace.Kind = "semisens.query"

// New opens on the paper's demonstration scenario: 5,000 examples,
// k = 8, ε = 4, δ = 10⁻⁶, c = 1, η = 1, τ = 0.04, 100 queries. The run
// is computed at the first tick, a slice per frame.
func New() *Scene {
	s := &Scene{cfg: semiConfig{n: 5000, k: 8, dpub: 4, effect: 4, eps: 4, delta: 1e-6, rule: semisens.CalTight,
		lmax: semisens.DemoLMax, eta: semisens.DemoEta, c: semisens.DemoC, tau: semisens.DemoTau, steps: semisens.DemoSteps,
		mode: privacy.Teaching, reveal: true, panel: panelTests, lower: lowerPotential, seed: 1}}
	s.view = semiView{cfg: s.cfg, stage: "starting"}
	_ = s.start(s.cfg)
	return s
}

// Info names the lesson.
func (s *Scene) Info() viz.Info {
	return viz.Info{Name: "semi-sensitive", Title: "Semi-sensitive features",
		Summary: "Ghazi et al. 2024: only one feature is private; PVMW answers every gradient from beliefs over its k values, and pays only when a private test says the beliefs are wrong."}
}

// Player returns the stepper bar.
func (s *Scene) Player() *viz.Player { return &s.player }

func (c *semiConfig) form() viz.Form {
	return viz.Form{
		viz.Int(&c.n, viz.Control{Name: "n", Label: "examples n", Kind: viz.Slider, Min: 500, Max: 20000, Step: 100, Log: true}),
		viz.Int(&c.k, viz.Control{Name: "k", Label: "sensitive values k", Kind: viz.Slider, Min: 2, Max: 64, Log: true}),
		viz.Int(&c.dpub, viz.Control{Name: "dpub", Label: "public features d_pub", Kind: viz.Slider, Min: 1, Max: 100, Log: true,
			Help: "the model has d = d_pub + k + 1 parameters: the Gaussian's noise grows like √d, the part of it an update uses does not"}),
		viz.Float(&c.effect, viz.Control{Name: "effect", Label: "the value's effect on labels", Kind: viz.Slider, Min: 0, Max: 8, Step: 0.5,
			Help: "0: labels ignore the sensitive value, so the beliefs learn nothing and Ψ stays at ln k"}),
		viz.Float(&c.eps, viz.Control{Name: "eps", Label: "ε", Kind: viz.Slider, Min: 0.25, Max: 16, Log: true}),
		viz.Choose(&c.rule, viz.Control{Name: "calibration", Label: "calibration", Choices: []string{semisens.CalTight, semisens.CalPaper},
			ChoiceHelp: map[string]string{
				semisens.CalTight: "ρ* converts to exactly ε; the Gaussian's std σ/n spends exactly its share",
				semisens.CalPaper: "ρ = 0.1ε²/ln(1/δ) and the Gaussian's std 2σ/n, as printed: private, four times conservative",
			}}),
		viz.Int(&c.lmax, viz.Control{Name: "lmax", Label: "updates paid for L_max", Kind: viz.Slider, Min: 2, Max: 60,
			Help: "every noise scale grows like √L_max: more updates, each noisier"}),
		viz.Float(&c.c, viz.Control{Name: "c", Label: "truncation c", Kind: viz.Slider, Min: 0.5, Max: 3, Step: 0.5,
			Help: "caps each candidate's score; η must stay ≤ 1/c, and a larger c lowers it (the paper's c = 3: η ≤ 1/3)"}),
		viz.Float(&c.eta, viz.Control{Name: "eta", Label: "learning rate η", Kind: viz.Slider, Min: 0.05, Max: 2, Log: true,
			Help: "must be ≤ 1/c"}),
		viz.Float(&c.tau, viz.Control{Name: "tau", Label: "threshold τ", Kind: viz.Slider, Min: 0.005, Max: 0.3, Log: true,
			Help: "an update fires when the noisy error passes τ + χ: keep τ a few times the test noise"}),
		viz.Int(&c.steps, viz.Control{Name: "steps", Label: "gradient queries q", Kind: viz.Slider, Min: 10, Max: 300, Step: 10}),
		viz.Float(&c.mu, viz.Control{Name: "mu", Label: "regularisation μ", Kind: viz.Slider, Min: 0, Max: 0.5, Step: 0.05,
			Help: "0: the convex problem, by projected gradient descent averaged; above 0 it is μ-strongly convex and smooth, and the inexact-oracle method's last iterate converges geometrically until the oracle's error stops it"}),
		viz.Custom(viz.Control{Name: "moved", Label: "changed values", Kind: viz.TextField,
			Help: "example=value pairs, 1-based (3=5: example 3's sensitive value is 5): a neighbouring dataset; clicking a belief cell adds one"},
			c.movedText, c.setMoved),
		viz.Bool(&c.reveal, viz.Control{Name: "reveal", Label: "reveal sensitive values",
			Help: "instructor's view, only possible in a simulation: the true values, the errors, the potential Ψ"}),
		viz.Choose(&c.panel, viz.Control{Name: "panel", Label: "second panel", Choices: []string{panelTests, panelScores, panelNoise, panelCondition, panelGame},
			ChoiceHelp: map[string]string{
				panelTests:     "the query's private tests: the noisy error against the noisy threshold",
				panelScores:    "the update's scores ⟨φ, f(xᵢ, y)⟩ over every example and value, and how many the truncation at ±c cuts",
				panelNoise:     "instructor's view: the update's Gaussian noise in the plane of the error — long across it, short along it",
				panelCondition: "instructor's view: Condition 14 of the analysis, part by part, on the update, and how far Ψ fell against what it promises",
				panelGame:      "the lower bound: no private algorithm guesses the sensitive values better than randomized response",
			}}),
		viz.Choose(&c.lower, viz.Control{Name: "lower", Label: "third panel", Choices: []string{lowerPotential, lowerTraining},
			ChoiceHelp: map[string]string{
				lowerPotential: "the potential Ψ across the queries (instructor), or the updates spent",
				lowerTraining:  "instructor's view: every model's excess risk as training goes — PVMW, exact gradients, Gaussian noise, randomized response",
			}}),
		viz.Mode(&c.mode, privacy.Teaching, privacy.NonPrivate),
		viz.Seed(&c.seed),
	}
}

// movedText writes the changed values as example=value pairs, 1-based,
// in example order.
func (c *semiConfig) movedText() string {
	var parts []string
	for _, i := range slices.Sorted(maps.Keys(c.moved)) {
		parts = append(parts, strconv.Itoa(i+1)+"="+strconv.Itoa(c.moved[i]+1))
	}
	return strings.Join(parts, ",")
}

// setMoved reads example=value pairs; examples and values are checked
// against n and k when the run is computed.
func (c *semiConfig) setMoved(v string) error {
	moved := map[int]int{}
	for f := range strings.SplitSeq(v, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		is, ys, ok := strings.Cut(f, "=")
		i, err1 := strconv.Atoi(strings.TrimSpace(is))
		y, err2 := strconv.Atoi(strings.TrimSpace(ys))
		if !ok || err1 != nil || err2 != nil || i < 1 || y < 1 {
			return format.Errorf("changed values: %q is not example=value (two whole numbers from 1, e.g. 3=5)", f)
		}
		if len(moved) >= semiMaxMoved {
			return format.Errorf("changed values: at most %d examples", semiMaxMoved)
		}
		moved[i-1] = y - 1
	}
	c.moved = moved
	return nil
}

// semiMaxMoved bounds the changed values a link may hold.
const semiMaxMoved = 100

// Controls declares the inputs: the settings being computed, if any.
func (s *Scene) Controls() []viz.Control { return s.cfg.form().Controls() }

// check refuses settings before anything is computed.
func (c semiConfig) check() error {
	for i, y := range c.moved {
		if i >= c.n || y >= c.k {
			return format.Errorf("changed values: example %d's value %d is outside n = %d examples of k = %d values", i+1, y+1, c.n, c.k)
		}
	}
	_, err := c.params()
	return err
}

// params are the training parameters of c.
func (c semiConfig) params() (semisens.TrainParams, error) {
	rho, err := semisens.Rho(c.eps, c.delta, c.rule)
	if err != nil {
		return semisens.TrainParams{}, err
	}
	p := semisens.TrainParams{PVMW: semisens.Params{Rho: rho, Delta: c.delta, LMax: c.lmax, Calibration: c.rule, Eta: c.eta, C: c.c, Tau: c.tau, Mode: c.mode},
		Steps: c.steps, Radius: semisens.DemoRadius, Mus: []float64{c.mu}}
	return p, p.Validate(c.n)
}

// Set changes one setting; the reveal switch and the panels' views only
// redraw.
func (s *Scene) Set(name, value string) error {
	next := s.cfg
	next.moved = s.cfg.moved
	if err := next.form().Set(name, value); err != nil {
		return err
	}
	switch name {
	case "reveal", "panel", "lower":
		s.cfg.reveal, s.view.cfg.reveal = next.reveal, next.reveal
		s.cfg.panel, s.view.cfg.panel = next.panel, next.panel
		s.cfg.lower, s.view.cfg.lower = next.lower, next.lower
		return nil
	}
	switch name {
	case "n", "k", "dpub", "effect":
		next.moved = nil // other examples: the changed values no longer apply
	case "c":
		// η ≤ 1/c: a larger c takes η down with it, to a value a link
		// carries (1/3 would come back as 0.333333, another run).
		next.eta = math.Min(next.eta, viz.NumberAtMost(1/next.c))
	}
	if err := next.check(); err != nil {
		return err
	}
	return s.start(next)
}

// start asks for a run of c, computed between frames from the next tick
// on. Nothing runs before: settings changed in quick succession (a link, a
// slider dragged) start one run, not one each, and the run's coroutine is
// made on the thread that resumes it (the desktop's ticks run on the
// window's locked thread, which a lesson opened by a link precedes).
func (s *Scene) start(c semiConfig) error {
	key, got := s.RemoteKey(), s.remote.Got
	s.cfg, s.refused = c, nil
	s.bg.Stop()
	s.pending, s.remote = true, wire.Handoff{}
	if key != "" && s.RemoteKey() == key {
		// The same run again (a setting set to the value it has): the
		// copy computing it goes on sending its parts.
		s.remote.Got = got
	}
	return nil
}

// advance computes for about budget milliseconds and shows the run when it
// is done; a failed run leaves the lesson as it was.
func (s *Scene) advance(budget float64) error {
	v := s.bg.Advance(budget)
	if v == nil {
		return nil
	}
	if v.err != nil {
		s.refused, s.cfg = v.err, s.view.cfg
		return v.err
	}
	// The views chosen while the run computed (they only redraw).
	v.cfg.reveal, v.cfg.panel, v.cfg.lower = s.cfg.reveal, s.cfg.panel, s.cfg.lower
	s.view = *v
	s.player.Replace(v.st)
	return nil
}

// Busy reports whether a run is asked for or being computed.
func (s *Scene) Busy() bool { return s.pending || s.bg.Busy() }

// Stop ends a run being computed.
func (s *Scene) Stop() {
	s.pending, s.remote = false, wire.Handoff{}
	s.bg.Stop()
}

// Tick computes a slice per frame (the app plays the stepper).
func (s *Scene) Tick(float64) bool {
	if s.pending {
		s.pending = false
		v := &semiView{cfg: s.cfg}
		s.bg.Start(v, v.compute)
	}
	if !s.bg.Busy() {
		return false
	}
	slice := viz.FrameSlice
	if s.remote.Decoding {
		slice = decodeSlice
	}
	_ = s.advance(slice) // a refusal shows as a readout
	return true
}

// compute draws the data, trains through PVMW, and replays the beliefs
// of the examples shown.
func (v *semiView) compute(ctx cancel.Context, progress func(done, total int64)) {
	c := v.cfg
	if v.params, v.err = c.params(); v.err != nil {
		return
	}
	v.stage = "drawing the examples"
	if v.data, v.err = semisens.Generate(semisens.Spec{N: c.n, K: c.k, DimPub: c.dpub, Effect: c.effect}, rng.New(7).Get(rng.Data)); v.err != nil {
		return
	}
	for i, y := range c.moved {
		if v.data, v.err = v.data.Neighbour(i, y); v.err != nil {
			return
		}
	}
	v.truth = v.data.Reveal()
	v.dim = semisens.Logistic{}.Dim(&v.data.Public)
	v.rows = make([]int, min(semiRows, c.n))
	for i := range v.rows {
		v.rows[i] = i
	}
	v.snaps = [][]float64{v.snapshot(semisens.Uniform(c.n, c.k))}
	v.params.CurveEvery = max(1, c.steps/semiCurvePoints)
	v.params.Inspect = func(in semisens.Inspection) {
		v.snaps = append(v.snaps, v.snapshot(in.After))
		v.seen = append(v.seen, v.see(in))
	}
	v.game = playGame(v.truth, c.k, v.params.PVMW.Guarantee().Eps, rng.New(c.seed).Get("lower-bound"))
	v.stage = "PVMW's training"
	var tr *trace.Trace
	if v.res, tr, v.err = semisens.Train(ctx, v.data, v.params, rng.New(c.seed), progress); v.err != nil {
		return
	}
	v.params.Inspect = nil // done: a view computed elsewhere has none
	v.run = tr
	v.story(tr)
	v.err = v.stepper(ctx, tr)
}

// stepper makes the stepper's trace: one step per query of the run tr.
func (v *semiView) stepper(ctx cancel.Context, tr *trace.Trace) (err error) {
	steps := make([]trace.Step, len(v.queries))
	for i, q := range v.queries {
		steps[i] = trace.Step{Kind: kindSemiQuery, Text: q.text(i + 1), Data: i}
	}
	full := &trace.Trace{Schema: tr.Schema, Mechanism: tr.Mechanism, Seed: tr.Seed, Steps: steps}
	v.st, err = trace.NewStepperShared(ctx, func(cancel.Context, *dataset.Dataset, *rng.Streams) (*trace.Trace, error) { return full, nil }, nil, rng.New(v.cfg.seed))
	return err
}

// snapshot copies the shown examples' beliefs.
func (v *semiView) snapshot(b *semisens.Beliefs) []float64 {
	out := make([]float64, 0, len(v.rows)*b.K())
	for _, i := range v.rows {
		for y := range b.K() {
			out = append(out, b.P(i, y))
		}
	}
	return out
}

// see keeps what the panels show of an update. The lesson is a
// simulation: it reads the true values to check Condition 14, and shows
// the check only in the instructor's view.
func (v *semiView) see(in semisens.Inspection) semiSeen {
	p := semisens.MWUParams{Eta: v.cfg.eta, C: v.cfg.c}
	cond, err := in.Condition(v.truth, p)
	if err != nil {
		return semiSeen{} // the update itself ran with these inputs
	}
	top := 0.0
	for _, x := range cond.Scores {
		top = math.Max(top, math.Abs(x))
	}
	// Wide enough to show ±c with room beyond; the outer bins take the
	// rare wild scores of a tiny ι.
	seen := semiSeen{hist: make([]int, semiBins), lim: math.Min(math.Max(1.5*p.C, top), 4*p.C)}
	for _, x := range cond.Scores {
		b := int(math.Floor((x + seen.lim) / (2 * seen.lim) * semiBins))
		seen.hist[max(0, min(semiBins-1, b))]++
	}
	cond.Scores = nil // n·k numbers per update: the histogram is all the figure needs
	seen.cond = cond
	return seen
}

// playGame plays the lower-bound game with k-ary randomized response at ε:
// each example's block points at its value reported by k-RR.
func playGame(truth []int, k int, eps float64, r *rand.Rand) semiGame {
	g := semiGame{pointed: make([]int, len(truth))}
	for i, y := range truth {
		g.pointed[i] = semisens.RR(r, y, k, eps)
		if g.pointed[i] == y {
			g.hits++
		}
	}
	return g
}

// story splits the run's trace into queries.
func (v *semiView) story(tr *trace.Trace) {
	v.queries = v.queries[:0]
	cur := semiQuery{}
	updates := 0
	for _, st := range tr.Steps {
		switch d := st.Data.(type) {
		case semisens.TestStep:
			cur.tests = append(cur.tests, d)
		case semisens.UpdateStep:
			cur.updates = append(cur.updates, d)
		case semisens.AnswerStep:
			cur.answer = &d
		case semisens.DescentStep:
			cur.descent = &d
			cur.before = updates
			updates += len(cur.updates)
			v.queries = append(v.queries, cur)
			cur = semiQuery{}
		case int: // FAIL: the query the updates ran out on
			cur.failed, cur.before = true, updates
			v.queries = append(v.queries, cur)
			cur = semiQuery{}
		}
	}
}

// text is the stepper's line for query t.
func (q semiQuery) text(t int) string {
	switch {
	case q.failed:
		return format.Sprintf("query %d: %s, %s, and no update left: FAIL — PVMW answers nothing more", t, trace.Count(len(q.tests), "test"), trace.Count(len(q.updates), "update"))
	case len(q.updates) == 0:
		return format.Sprintf("query %d: the test says ⊥ — answered from the beliefs, for free", t)
	}
	return format.Sprintf("query %d: %s ⊤, then ⊥ — the beliefs were updated and the query asked again", t, trace.Count(len(q.updates), "test"))
}

// at returns the query the stepper shows (nil before the first) and its
// position.
func (s *Scene) at() (*semiQuery, int) {
	st := s.player.Stepper()
	if st == nil || st.Pos() == 0 || s.view.queries == nil {
		return nil, 0
	}
	return &s.view.queries[st.Pos()-1], st.Pos()
}

// Readouts are the calibration, the run's use of its budget and, in the
// instructor's view, its errors and excess risks.
func (s *Scene) Readouts() []viz.Readout {
	v := &s.view
	var r []viz.Readout
	meanwhile := viz.LastRunShown
	if v.st == nil {
		meanwhile = "the figure appears when it is done"
	}
	switch {
	case s.pending && s.remote.Got.Stage == "":
		r = append(r, viz.Readout{Name: "computing", Label: "computing", Warn: true, Text: "starting — " + meanwhile})
	case s.Busy():
		f, stage := s.progress()
		r = append(r, viz.ComputingReadout(stage, f, meanwhile))
	case s.refused != nil:
		r = append(r, viz.Readout{Name: "refused", Label: "last change refused", Text: s.refused.Error(), Warn: true})
	}
	if v.err != nil {
		return append(r, viz.FailedReadouts("cannot run", v.err)...)
	}
	if v.st == nil {
		return r
	}
	c := v.res.Calibration
	r = append(r,
		viz.Readout{Name: "rho", Label: "budget ρ", Value: c.Rho, Text: format.Sprintf("%.4g zCDP over L_max = %d updates", c.Rho, c.LMax),
			Formula: format.Sprintf("%s: converts to ε = %.3g at δ = %.0e", c.Rule, s.Guarantee().Eps, v.cfg.delta)},
		viz.Readout{Name: "eps-prime", Label: "ε′ per update", Value: c.EpsPrime, Text: format.Sprintf("%.4g", c.EpsPrime), Formula: "√(ζ·ρ/L_max), ζ = ½"},
		viz.Readout{Name: "noise", Label: "test noise", Value: c.BQuery,
			Text:    format.Sprintf("ν ~ Lap(%.3g), χ ~ Lap(%.3g); τ is %.2f× the test noise", c.BQuery, c.BThr, v.cfg.tau/c.BQuery),
			Formula: "8/(ε′n) and 4/(ε′n): a test's sensitivity is 2/n", Warn: v.cfg.tau < c.BQuery},
		viz.Readout{Name: "gaussian", Label: "Gaussian std", Value: c.SG, Text: format.Sprintf("%.3g per coordinate", c.SG),
			Formula: map[string]string{semisens.CalTight: "σ/n, σ = √(2/ρ_G)", semisens.CalPaper: "2σ/n, σ = √(2/ρ_G): as printed"}[c.Rule]},
	)
	if tp, err := semisens.Theory(v.cfg.n, v.cfg.k, c.Rho, float64(v.cfg.steps), 1/float64(v.cfg.n)); err == nil {
		text := format.Sprintf("η = %.3g, τ = 16η = %.3g, L_max = %d", tp.Eta, tp.Tau, tp.LMax)
		if tp.Trivial {
			text += ": an error bound 18η ≥ 1 says nothing (answers lie in the unit ball)"
		}
		r = append(r, viz.Readout{Name: "theory", Label: "the paper's constants", Value: tp.Eta, Text: text, Warn: tp.Trivial,
			Formula: "Theorem 13's η fixed point at this n, k, ρ, T = q, β = 1/n; the lesson runs chosen ones (erratum A46)"})
	}
	answered := format.Sprintf("all %d", v.res.Queries)
	if v.res.Failed {
		answered = format.Sprintf("%d of %d, then FAIL: every paid update spent", v.res.Queries, v.cfg.steps)
	}
	r = append(r, viz.Readout{Name: "answered", Label: "queries answered", Value: float64(v.res.Queries), Text: answered, Warn: v.res.Failed,
		Formula: "the whole run's; FAIL stops the training where it is"})
	bound := s.guessBound()
	share := float64(v.game.hits) / float64(v.cfg.n)
	text := format.Sprintf("no (ε, δ) algorithm names an example's value right more than %.4g of the time on average (guessing: %.4g); randomized response names %.4g of these %d right",
		bound, 1/float64(v.cfg.k), share, v.cfg.n)
	if share > bound {
		text += format.Sprintf(", above the bound by chance: the bound is on the average, and a share of %d examples varies by about ±%.2g (one standard error)",
			v.cfg.n, math.Sqrt(bound*(1-bound)/float64(v.cfg.n)))
	}
	r = append(r, viz.Readout{Name: "guess-bound", Label: "best guess of a value", Value: bound, Text: text,
		Formula: "e^ε/(e^ε + k − 1) + δ, which k-ary randomized response reaches: the lower-bound game"})
	q, t := s.at()
	used := q.spent()
	state := format.Sprintf("%d of %d paid for, after query %d of %d", used, c.LMax, t, len(v.queries))
	if v.res.Failed && t == len(v.queries) {
		state += ": FAIL"
	}
	r = append(r, viz.Readout{Name: "updates", Label: "updates", Value: float64(used), Text: state, Warn: v.res.Failed,
		Formula: "only an update spends budget; a ⊥ answer is free"})
	if v.cfg.reveal {
		k := float64(v.cfg.k)
		psi := v.res.Psi[min(t, len(v.res.Psi)-1)]
		r = append(r, viz.Readout{Name: "psi", Label: "Ψ (instructor)", Value: psi,
			Text:    format.Sprintf("%.4f, from ln k = %.4f", psi, math.Log(k)),
			Formula: "(1/n) Σᵢ −ln pᵢ(true value): falls as the beliefs learn"})
		if u, _ := s.shownUpdate(q); u > 0 && len(q.updates) > 0 && u <= len(v.seen) {
			c := v.seen[u-1].cond
			d := v.dim
			r = append(r, viz.Readout{Name: "noise-along", Label: "the update's noise (instructor)", Value: math.Abs(c.NoiseAlong),
				Text:    format.Sprintf("‖z‖ = %.3g in d = %d, but along the error only |⟨z, u⟩| = %.3g", c.Noise, d, math.Abs(c.NoiseAlong)),
				Formula: "z = v − f(D); u = (f(D) − f(p))/E: the update moves by ⟨φ, ·⟩, so only z's part along the error matters, and it does not grow with d"})
		}
		for i, pr := range v.res.Problems {
			r = append(r, viz.Readout{Name: format.Sprintf("excess-%d", i+1), Label: "excess risk (instructor)", Value: pr.Excess,
				Text:    format.Sprintf("PVMW %.4f, non-private %.4f, Gaussian noise %.4f, randomized response then ERM %.4f", pr.Excess, pr.ExcessNonPrivate, pr.ExcessGaussian, pr.ExcessRR),
				Formula: format.Sprintf("𝓛(w) − 𝓛(w*), %d steps of %s", v.cfg.steps, pr.Method)})
		}
	}
	return r
}

// Trace is the run's PVMW trace, every threshold, test, update, answer and
// descent step (nil before a run is shown): the trace export.
func (s *Scene) Trace() *trace.Trace {
	if s.view.st == nil {
		return nil
	}
	return s.view.run
}

// Dataset is nil: the examples are not users with items, and the seed and
// the changed values in the lesson's state rebuild them.
func (s *Scene) Dataset() *dataset.Dataset { return nil }

// guessBound is the lower-bound game's bound at the run's guarantee: no
// (ε, δ) algorithm names an example's value right more often on average
// than e^ε/(e^ε + k − 1) + δ.
func (s *Scene) guessBound() float64 {
	g := s.Guarantee()
	return math.Min(1, semisens.RRKeep(g.Eps, s.view.cfg.k)+g.Delta)
}

// Guarantee is PVMW's: ρ-zCDP for the sensitive feature, converted.
func (s *Scene) Guarantee() privacy.Guarantee {
	if s.view.err != nil || s.view.st == nil {
		p, _ := s.cfg.params()
		return p.PVMW.Guarantee()
	}
	return s.view.res.Guarantee
}

// Describe says what the figure shows: the run's setting and the panel's
// numbers.
func (s *Scene) Describe() string {
	c := s.view.cfg
	moved := ""
	if len(c.moved) > 0 {
		moved = format.Sprintf(" %d examples' sensitive values are changed (the neighbouring dataset).", len(c.moved))
	}
	return format.Sprintf("PVMW on %d examples with %d public features and a sensitive value among k = %d, at ε = %g, δ = %g, in four panels: the shown examples' beliefs over their sensitive values; the current query's %s; the potential Ψ across the queries; and the privacy ledger.%s ",
		c.n, c.dpub, c.k, c.eps, c.delta, c.panel, moved) +
		viz.Recite(s.Readouts(), "computing", "refused", "updates", "answered", "psi", "eps-prime", "noise", "noise-along", "gaussian", "rho", "theory", "guess-bound")
}

// ItemAction: a cell of the beliefs' heatmap is clicked, not dragged (in
// the instructor's view, it gives its example that value).
func (s *Scene) ItemAction(int) viz.ItemAction { return viz.Clicks }

// ItemName names a cell of the beliefs' heatmap.
func (s *Scene) ItemName(id int) string {
	v := &s.view
	k := v.cfg.k
	if k == 0 || id < 1 || id > len(v.rows)*k {
		return ""
	}
	r, y := (id-1)/k, (id-1)%k
	i := v.rows[r]
	what := "press to give it this value (a neighbouring dataset)"
	if v.truth[i] == y {
		what = "its true value"
	}
	return format.Sprintf("example %d's belief in value %d: %s", i+1, y+1, what)
}
