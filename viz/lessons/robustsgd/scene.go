// Package robustsgd is lesson 9, robust-statistics SGD (Ghazi et al. 2025):
// fresh batches of users, gradients clipped around their median, a private
// concentration test, and two neighbouring runs that stay ℓ∞-close.
package robustsgd

import (
	"math"
	"slices"
	"strconv"

	"github.com/uldplab/uldp/core/cancel"
	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/loss"
	"github.com/uldplab/uldp/core/mech"
	"github.com/uldplab/uldp/core/optim"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/core/robust"
	"github.com/uldplab/uldp/core/trace"
	"github.com/uldplab/uldp/viz"
)

// Scene is lesson 9: the robust-statistics SGD of Ghazi, Kumar, Liu &
// Manurangsi (2025). Each step takes a fresh batch of B users, averages
// their gradients clipped to a band of radius r around a robust statistic
// (the coordinate-wise median or trimmed mean), and a private
// concentration test on the batches decides whether the average of the
// iterates may be released, with Gaussian noise. Users' gradients are
// points to drag; a neighbouring copy runs beside it on the same batches
// and seed, and the ℓ∞ gap between the two trajectories is what the
// privacy proof bounds.
type Scene struct {
	cfg  robustConfig // the newest settings: those being computed, or shown
	view robustView   // the run shown
	bg   viz.Background[robustView]
	// refused is why the last change was refused once computed.
	refused error

	player viz.Player
	cam    viz.Camera // the batch's plane
	spot   float64    // the side of a pile's square in the plane (see drawBatch)
	dom    viz.Camera // the domain
	list   viz.List
	// The drag of a user (1-based), and the user's items when it began.
	grab      viz.Grab
	dragItems []float64
}

// robustConfig is everything a run is computed from.
type robustConfig struct {
	preset   string
	n, m     int
	batch    int
	radius   float64
	eta      float64
	eps      float64
	delta    float64
	lossName string
	stat     string
	thresh   string
	algo     string
	order    string
	mode     privacy.Mode
	seed     uint64
	// data is never changed once set: a drag sets an edited copy, so a
	// run being computed keeps the users it started with.
	data *dataset.Dataset
	// The neighbour: the same users but one (nbUser, 0-based; −1 none),
	// whose items are nbItems.
	nb      bool
	nbUser  int
	nbItems []float64
}

// robustView is one computed run and what it was computed from.
type robustView struct {
	cfg   robustConfig
	res   optim.RobustSGDResult
	nbRes optim.RobustSGDResult // the neighbour's run (Phases nil if off)
	st    *trace.Stepper
	mean  []float64 // every item's mean: the minimiser of the squared losses
	err   error
	stage string
}

// Choices of the lesson's own controls.
const (
	algoSGD = "a-sgd"
	algoLOC = "a-loc"

	statMedian  = "median"
	statTrimmed = "trimmed"

	threshPaper = "paper"
	threshSound = "sound"

	lossSquared = "squared"
	lossHuber   = "huber"
	lossCoupled = "coupled"
)

// robustThresholds are the threshold choices: the paper's v, sound
// mode's, or v as a share of B (teaching values: the guarantee prices
// them).
var robustThresholds = []string{threshPaper, threshSound, "0.95B", "0.8B", "0.5B"}

// robustPreset is a dataset and the settings that show one behaviour.
type robustPreset struct {
	name, what string
	apply      func(c *robustConfig)
	gen        func(r normal, c robustConfig) [][]float64 // each user's item offsets from the crowd's centre
}

type normal interface{ NormFloat64() float64 }

// crowdCentre is where the honest users' items sit; their gradients at x
// are x − (a user's mean item).
var crowdCentre = [2]float64{0.45, -0.3}

// crowd is n users whose centres spread by s around the crowd's centre,
// their m items by 2s around their centre: users agree far more closely
// than r, as the test demands.
//
// Each user's items are an allocation of their own: one of every item
// (16 MB at the sliders' maxima) was a single unit of work, zeroing memory
// the page had never touched, 80–250 ms with no pause for a frame.
func crowd(r normal, c robustConfig, s float64) [][]float64 {
	out := make([][]float64, c.n)
	for i := range out {
		u := [2]float64{s * r.NormFloat64(), s * r.NormFloat64()}
		pts := make([]float64, 0, 2*c.m)
		for range c.m {
			pts = append(pts, u[0]+2*s*r.NormFloat64(), u[1]+2*s*r.NormFloat64())
		}
		out[i] = pts
	}
	return out
}

// crowdSpread is the default crowd's spread: about r/50, so that the
// kernel's mean value clears the paper's threshold of 0.9 and a bit.
const crowdSpread = 0.0003

func (p robustPreset) PresetName() string { return p.name }

func robustPresets() []robustPreset {
	plain := func(r normal, c robustConfig) [][]float64 { return crowd(r, c, crowdSpread) }
	return []robustPreset{
		{"crowd", "1,200 users agreeing to within r/50: every test passes and the average is released with noise", func(c *robustConfig) {}, plain},
		{"bad-batch", "users in file order; step 3's batch is two crowds 10r apart: its score is about B/2 and the test halts there",
			func(c *robustConfig) { c.order = "given" },
			func(r normal, c robustConfig) [][]float64 {
				out := crowd(r, c, crowdSpread)
				for u := 2 * c.batch; u < 3*c.batch && u < c.n; u++ {
					if (u-2*c.batch)%2 == 1 {
						for j := range c.m {
							out[u][2*j] += 10 * c.radius
						}
					}
				}
				return out
			}},
		{"r-too-small", "the same crowd with r below its spread: the kernel sees everyone as far apart, the score is small and the test halts at once",
			func(c *robustConfig) { c.radius = 0.0005 }, plain},
		{"too-few-users", "60 users, B = 20: the threshold 0.9B + 2 ln(T/δ)/ε is above B, so no score can pass",
			func(c *robustConfig) { c.n, c.batch = 60, 20 }, plain},
		{"outliers", "a third of each batch 4r away, non-private: the mean leaves the median's band and is clipped back",
			func(c *robustConfig) {
				c.n, c.batch, c.order, c.mode = 72, 12, "given", privacy.NonPrivate
			},
			func(r normal, c robustConfig) [][]float64 {
				out := crowd(r, c, crowdSpread)
				for u := range c.n {
					if u%3 == 2 {
						for j := range c.m {
							out[u][2*j] -= 4 * c.radius // the gradient x − z moves by +4r
						}
					}
				}
				return out
			}},
		{"coupled", "a loss whose Hessian [[1,2],[2,5]] is not diagonally dominant (teaching mode): the gap between the two runs grows after the jump",
			func(c *robustConfig) {
				c.n, c.batch, c.order, c.mode, c.lossName, c.eta, c.thresh = 400, 50, "given", privacy.Teaching, lossCoupled, 0.25, "0.5B"
				c.nb = true
			}, plain},
		{"localisation", "A-LOC on 6,400 users: halving phases, each with a smaller step and less noise, each starting where the last one's release landed",
			func(c *robustConfig) { c.n, c.algo = 6400, algoLOC }, plain},
	}
}

// robustMaxUsers is the users' slider's top: A-LOC at 10⁵ users of 10
// items takes about 50 ms natively, more in a browser, computed between
// frames.
const robustMaxUsers = 100000

// defaultRobust is the settings every preset starts from.
func defaultRobust() robustConfig {
	return robustConfig{preset: "crowd", n: 1200, m: 4, batch: 200, radius: 0.02, eta: 0.5, eps: 8, delta: 1e-5,
		lossName: lossSquared, stat: statMedian, thresh: threshPaper, algo: algoSGD, order: "shuffled",
		mode: privacy.Sound, seed: 1, nbUser: -1}
}

// New opens on the crowd preset: 1,200 users in 6 batches of 200,
// r = 0.02 (about fifty times the users' spread), η = 0.5, ε = 8, δ = 10⁻⁵,
// sound mode; every test passes on seed 1.
func New() *Scene {
	s := &Scene{}
	s.cfg = presetConfig("crowd")
	s.view = robustView{cfg: s.cfg}
	s.view.compute(cancel.Never, viz.NoProgress)
	s.cfg = s.view.cfg // with the users it drew
	s.show(s.view)
	return s
}

// presetConfig is the default settings with the preset applied, its
// users still to be drawn.
func presetConfig(name string) robustConfig {
	c := defaultRobust()
	c.preset = name
	viz.PresetByName(robustPresets(), name).apply(&c)
	c.redraw()
	return c
}

// redraw asks for the preset's users afresh: the run's computation
// draws them (draw), a slice at a time, since 10⁶ items take longer than a
// frame.
func (c *robustConfig) redraw() {
	c.data, c.nbUser, c.nbItems = nil, -1, nil
}

// draw draws the preset's users from a fixed stream (the seed moves the
// algorithm's draws only), and for the coupled preset moves user 1 in the
// neighbour. It reports progress in normal draws.
func (c *robustConfig) draw(ctx cancel.Context, progress func(done, total int64)) (err error) {
	p := viz.PresetByName(robustPresets(), c.preset)
	// Progress counts normal draws, then users named (a pause every 2¹³).
	draws := int64(2 * c.n * (c.m + 1))
	total := draws + int64(c.n)
	// A change that replaced another computes up to here only: the preset
	// allocates 16 MB of items at the maxima, and a link's settings would
	// each start their own.
	progress(0, total)
	if err := ctx.Err(); err != nil { // replaced at once: stopping allocates nothing
		return err
	}
	r := &countedNormal{r: rng.New(9).Get(rng.Data), ctx: ctx, total: total, progress: progress}
	defer func() {
		switch r := recover().(type) {
		case nil:
		case abandoned:
			err = r.err
		default:
			panic(r)
		}
	}()
	off := p.gen(r, *c)
	// Pauses between the larger pieces: the users' table (4 MB at the
	// maxima) and their names (2 MB).
	progress(draws, total)
	if err := ctx.Err(); err != nil {
		return err
	}
	d := &dataset.Dataset{Dim: 2, Users: make([]dataset.User, c.n)}
	progress(draws, total)
	if err := ctx.Err(); err != nil {
		return err
	}
	var ids []string // a block's: 10⁵ ids at once took 3–5 ms natively
	for u := range d.Users {
		if u&(1<<13-1) == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			progress(draws+int64(u), total)
			ids = dataset.AppendNumberedIDs(ids[:0], u, min(u+1<<13, c.n))
		}
		pts := off[u]
		for j := 0; j < len(pts); j += 2 {
			pts[j] += crowdCentre[0]
			pts[j+1] += crowdCentre[1]
		}
		d.Users[u] = dataset.User{ID: ids[u&(1<<13-1)], Points: pts}
	}
	c.data = d
	if c.nb && p.name == "coupled" {
		// User 1's gradient moves by (−0.5, 0.5) in the copy: the two runs
		// then differ along (1, −1), the direction the coupled Hessian
		// stretches.
		c.nbUser, c.nbItems = 0, c.shifted(d.Users[0].Points, [2]float64{-0.5, 0.5})
	}
	return nil
}

// countedNormal reports every 2¹⁴ draws, each a chance for the job to
// pause: 10⁵ users of 10 items are 2.2·10⁶ draws, about 25 ms natively.
// Its total is the drawing's, users included. An abandoned drawing unwinds
// at once (draw recovers): letting the presets' loops run out would cost
// 30 ms in a browser tab.
type countedNormal struct {
	r        normal
	ctx      cancel.Context
	n, total int64
	progress func(done, total int64)
}

// abandoned carries the context's error out of a preset's drawing.
type abandoned struct{ err error }

func (c *countedNormal) NormFloat64() float64 {
	if c.n++; c.n&(1<<14-1) == 0 {
		if err := c.ctx.Err(); err != nil {
			panic(abandoned{err})
		}
		c.progress(min(c.n, c.total), c.total)
	}
	return c.r.NormFloat64()
}

// loss is the chosen loss.
func (c robustConfig) loss() loss.Smooth {
	switch c.lossName {
	case lossHuber:
		return loss.Huber{H: 1}
	case lossCoupled:
		return loss.Coupled(2)
	}
	return loss.Squared{Mu: 1}
}

// shifted returns a user's items moved so that the user's gradient moves
// by dq: each item by −H⁻¹dq, H the loss's Hessian (exact for the
// quadratic losses; for Huber, while the items stay within 1 of x).
func (c robustConfig) shifted(items []float64, dq [2]float64) []float64 {
	dz := [2]float64{-dq[0], -dq[1]}
	if c.lossName == lossCoupled { // H = [[1, 2], [2, 5]], H⁻¹ = [[5, −2], [−2, 1]]
		dz = [2]float64{-(5*dq[0] - 2*dq[1]), -(-2*dq[0] + dq[1])}
	}
	pts := slices.Clone(items)
	for j := 0; j < len(pts); j += 2 {
		pts[j] += dz[0]
		pts[j+1] += dz[1]
	}
	return pts
}

// params are the run's parameters.
func (c robustConfig) params() optim.RobustSGDParams {
	p := optim.RobustSGDParams{Eps: c.eps, Delta: c.delta, Loss: c.loss(), Domain: 1, Batch: c.batch, Radius: c.radius,
		Eta: c.eta, Theta0: []float64{-0.8, 0.7}, Mode: c.mode, Online: true, Record: true, KeepBatches: true}
	if c.stat == statTrimmed {
		p.Stat = robust.Stat{Trim: robust.MinTrim(c.batch)}
	}
	if c.order == "given" {
		p.Order = optim.Given
	}
	switch c.thresh {
	case threshPaper:
		p.PrintedV = true
	case threshSound:
		v := p.SoundThreshold() // in every mode, not only sound's
		p.Threshold = &v
	default:
		share, _ := strconv.ParseFloat(c.thresh[:len(c.thresh)-1], 64) // the choices are "0.95B", …
		v := share * float64(c.batch)
		p.Threshold = &v
	}
	return p
}

// check refuses settings the run would refuse, before anything is computed.
func (c robustConfig) check() error {
	if err := c.params().Validate(c.n, 2); err != nil {
		return err
	}
	if c.algo == algoLOC && len(optim.Phases(c.n, c.batch)) == 0 {
		return format.Errorf("%d users cannot fill one phase: A-LOC's first phase takes ⌊n/2⌋ users, which must be at least B = %d", c.n, c.batch)
	}
	return nil
}

// neighbour is the data with the neighbour's one change.
func (c robustConfig) neighbour() *dataset.Dataset {
	if c.nbUser < 0 {
		return c.data
	}
	return c.withItems(c.nbUser, c.nbItems)
}

// withItems is the data with user u's items replaced. Unlike
// Dataset.Replace it shares every other user's items (never changed once
// set), so a drag over 10⁵ users copies no items.
func (c robustConfig) withItems(u int, items []float64) *dataset.Dataset {
	d := &dataset.Dataset{Dim: 2, Users: slices.Clone(c.data.Users)}
	d.Users[u].Points = items
	return d
}

// compute runs the algorithm (and the neighbour, on the same seed and so
// the same batches) on v.cfg.
func (v *robustView) compute(ctx cancel.Context, progress func(done, total int64)) {
	c := v.cfg
	p := c.params()
	algorithm := optim.RobustSGD
	if c.algo == algoLOC {
		algorithm = optim.RobustLocalization
	}
	// One bar for the drawing and both runs.
	parts, first := int64(1), int64(0)
	if c.data == nil {
		parts, first = parts+1, 1
	}
	if c.nb {
		parts++
	}
	part := func(k int64) func(done, total int64) {
		return viz.Stage(progress, float64(k)/float64(parts), float64(k+1)/float64(parts))
	}
	if c.data == nil {
		v.stage = "drawing the users"
		if v.err = c.draw(ctx, part(0)); v.err != nil {
			return
		}
		v.cfg = c
	}
	v.stage = "the run's steps"
	run := func(ctx cancel.Context, d *dataset.Dataset, st *rng.Streams) (*trace.Trace, error) {
		res, tr, err := algorithm(ctx, p, d, st, part(first))
		v.res = res
		return tr, err
	}
	// The stepper shares the users: they are never changed once drawn.
	if v.st, v.err = trace.NewStepperShared(ctx, run, c.data, rng.New(c.seed)); v.err != nil {
		return
	}
	v.nbRes = optim.RobustSGDResult{}
	if c.nb {
		v.stage = "the neighbour's steps"
		q := p
		q.Record = false
		if v.nbRes, _, v.err = algorithm(ctx, q, c.neighbour(), rng.New(c.seed), part(first+1)); v.err != nil {
			return
		}
	}
	// 10⁶ items take 8 ms natively: pause between blocks of users.
	v.mean, v.err = c.data.ItemMeanWith(func() error {
		progress(parts*1000-1, parts*1000)
		return ctx.Err()
	})
}

// show makes v the run on screen, keeping the stepper's position (its end,
// if it was there: viz.Player.Replace).
func (s *Scene) show(v robustView) {
	s.view = v
	if v.err == nil {
		s.player.Replace(v.st)
	}
}

// Info names the scene.
func (s *Scene) Info() viz.Info {
	return viz.Info{Name: "robust-sgd", Title: "Robust-statistics SGD",
		Summary: "Ghazi et al. 2025: fresh batches of users, gradients clipped around their median, a private concentration test, and two neighbouring runs that stay ℓ∞-close."}
}

// Player returns the stepper bar.
func (s *Scene) Player() *viz.Player { return &s.player }

// form binds the scene's inputs to c.
func (c *robustConfig) form() viz.Form {
	return viz.Form{
		viz.Choose(&c.preset, viz.Control{Name: "preset", Label: "users", Choices: viz.PresetNames(robustPresets()), Help: viz.PresetByName(robustPresets(), c.preset).what}),
		viz.Choose(&c.algo, viz.Control{Name: "algo", Label: "algorithm", Choices: []string{algoSGD, algoLOC}}).Described(map[string]string{
			algoSGD: "one phase (Alg. 1): ⌊n/B⌋ steps, the test, the average released with Gaussian noise",
			algoLOC: "localisation (Alg. 5): phases on ⌊n/2^s⌋ fresh users each, step η/b^s, each release the next start",
		}),
		viz.Int(&c.n, viz.Control{Name: "n", Label: "users n", Kind: viz.Slider, Min: 20, Max: robustMaxUsers, Step: 10, Log: true}),
		viz.Int(&c.m, viz.Control{Name: "m", Label: "items per user m", Kind: viz.Slider, Min: 1, Max: 10}),
		viz.Int(&c.batch, viz.Control{Name: "batch", Label: "users per step B", Kind: viz.Slider, Min: 3, Max: maxBatch, Log: true}),
		viz.Float(&c.radius, viz.Control{Name: "r", Label: "radius r", Kind: viz.Slider, Min: 1e-5, Max: 1, Log: true,
			Help: "the kernel's radius in the score, and the clip band's half-width around the robust statistic"}),
		viz.Float(&c.eta, viz.Control{Name: "eta", Label: "step η", Kind: viz.Slider, Min: 1e-4, Max: 2, Log: true}),
		viz.Choose(&c.stat, viz.Control{Name: "stat", Label: "robust statistic", Choices: []string{statMedian, statTrimmed}}).Described(map[string]string{
			statMedian:  "the coordinate-wise median",
			statTrimmed: "the coordinate-wise mean after dropping the ⌈B/3⌉ smallest and largest values",
		}),
		viz.Choose(&c.lossName, viz.Control{Name: "loss", Label: "loss", Choices: []string{lossSquared, lossHuber, lossCoupled}}).Described(map[string]string{
			lossSquared: "½‖x − z‖²: a user's gradient is x minus their mean item",
			lossHuber:   "separable Huber (h = 1): squared near the data, linear beyond",
			lossCoupled: "½(x − z)ᵀH(x − z) with H = [[1,2],[2,5]]: not diagonally dominant, refused outside teaching mode",
		}),
		viz.Choose(&c.thresh, viz.Control{Name: "threshold", Label: "test threshold v", Choices: robustThresholds}).Described(map[string]string{
			threshPaper: "the paper's v = 0.9B + 2 ln(T/δ)/ε, sized for the test noise as printed",
			threshSound: "v solved so that a batch with no crowd of 2B/3 passes with chance δ/(2e^ε) under the mode's test noise (see the errata, A28)",
			"0.95B":     "a teaching value: the guarantee prices it",
			"0.8B":      "a teaching value, near the bad batches' score of at most 0.79B: the guarantee prices it",
			"0.5B":      "a teaching value that lets bad batches through: the guarantee prices it",
		}),
		viz.Choose(&c.order, viz.Control{Name: "order", Label: "batches", Choices: []string{"shuffled", "given"}}).Described(map[string]string{
			"shuffled": "a random partition of the users (the paper's fresh batches)",
			"given":    "users in file order: step t takes users (t−1)B+1 … tB",
		}),
		viz.Float(&c.eps, viz.Control{Name: "eps", Label: "ε", Kind: viz.Slider, Min: 0.1, Max: 50, Log: true}),
		viz.Float(&c.delta, viz.Control{Name: "delta", Label: "δ", Kind: viz.Slider, Min: 1e-12, Max: 0.1, Log: true}),
		viz.Mode(&c.mode, privacy.Paper, privacy.Sound, privacy.Teaching, privacy.NonPrivate),
		viz.Bool(&c.nb, viz.Control{Name: "neighbour", Label: "neighbour", Key: "n",
			Help: "drag one user in a copy: both runs on the same batches and seed, and the ℓ∞ gap between them"}),
		viz.Seed(&c.seed),
	}
}

// Controls declares the scene's inputs: the newest settings, so a slider
// stays where it was put while its run is computed.
func (s *Scene) Controls() []viz.Control { return s.cfg.form().Controls() }

// Set changes one control; a value the run refuses leaves the lesson as it
// was. A run that needs more than a slice goes on between frames (Tick).
func (s *Scene) Set(name, value string) error {
	next := s.cfg
	if err := next.form().Set(name, value); err != nil {
		return err
	}
	switch name {
	case "preset":
		next = presetConfig(next.preset)
		next.seed = s.cfg.seed
		next.nb = next.nb || s.cfg.nb // the neighbour stays on
	case "n", "m", "batch", "r":
		// The preset's users are drawn for these (a batch split in two, a
		// share far away, the crowd's spread against r): drags are undone.
		next.redraw()
	case "neighbour":
		if !next.nb {
			next.nbUser, next.nbItems = -1, nil
		}
	}
	if err := next.check(); err != nil {
		return err
	}
	return s.start(next)
}

// Stop ends a run being computed.
func (s *Scene) Stop() { s.bg.Stop() }

// start computes a run of c (in the background if it takes long).
func (s *Scene) start(c robustConfig) error {
	s.cfg, s.refused = c, nil
	v := &robustView{cfg: c}
	return s.advance(s.bg.Start(v, v.compute))
}

// advance computes for about budget milliseconds and shows the run when
// it is done; a failed run leaves the lesson as it was and is returned.
func (s *Scene) advance(budget float64) error {
	v := s.bg.Advance(budget)
	if v == nil {
		return nil
	}
	if v.err != nil {
		s.refused, s.cfg = v.err, s.view.cfg
		return v.err
	}
	// Every change starts a computation from s.cfg, so this one's settings
	// are s.cfg's, now with the users it drew.
	s.cfg = v.cfg
	s.show(*v)
	return nil
}

// Busy reports whether a run is being computed.
func (s *Scene) Busy() bool { return s.bg.Busy() }

// Tick continues the computation under way, a slice per frame.
func (s *Scene) Tick(float64) bool {
	if !s.bg.Busy() {
		return false
	}
	_ = s.advance(viz.FrameSlice) // a refusal shows as a readout
	return true
}

// robustAt is the run as far as the stepper has revealed it.
type robustAt struct {
	phase    *optim.RobustPhase // the phase under way (nil before the first)
	phaseIdx int
	step     *optim.RobustStep // the last step taken (nil before the first)
	steps    int               // steps taken, every phase
	compares []float64         // the current phase's noisy scores so far
	passes   []bool
	// The current phase's noisy threshold is drawn, its answer known, its
	// noisy release drawn.
	threshold, answered, released bool
}

// at reads the shown steps.
func (v *robustView) at() robustAt {
	var a robustAt
	if v.st == nil {
		return a
	}
	for _, st := range v.st.Shown() {
		switch st.Kind {
		case optim.KindRobustPhase:
			a.phaseIdx++
			a.phase = &v.res.Phases[a.phaseIdx-1]
			a.compares, a.passes, a.threshold, a.answered, a.released = a.compares[:0], a.passes[:0], false, false, false
		case optim.KindRobustStep:
			a.steps++
			t := st.Data.(optim.RobustStep).T
			a.step = &a.phase.Steps[t-1]
		case mech.KindATThreshold:
			a.threshold = true
		case mech.KindATCompare:
			c := st.Data.(mech.ATCompareStep)
			a.compares, a.passes = append(a.compares, c.NoisyQuery), append(a.passes, c.Pass)
		case optim.KindRobustAnswer:
			a.answered = true
		case optim.KindRobustNoise:
			a.released = true
		}
	}
	return a
}

// Readouts lists the run's numbers at the stepper's position.
func (s *Scene) Readouts() []viz.Readout {
	v := &s.view
	if v.err != nil {
		return viz.FailedReadouts("cannot run", v.err)
	}
	var r []viz.Readout
	switch {
	case s.bg.Busy():
		f := s.bg.Fraction()
		r = append(r, viz.ComputingReadout(s.bg.Next().stage, f, viz.LastRunShown))
	case s.refused != nil:
		r = append(r, viz.Readout{Name: "refused", Label: "last change refused", Text: s.refused.Error(), Warn: true})
	}
	a := v.at()
	c := v.cfg
	ph := a.phase
	if ph == nil {
		ph = &v.res.Phases[0]
	}
	steps := ph.Users / c.batch
	r = append(r, viz.Readout{Name: "phase", Label: "phase", Value: float64(ph.S),
		Text: format.Sprintf("%d of %d: %d users, T = ⌊%d/%d⌋ = %d steps of η = %.3g", ph.S, len(v.res.Phases), ph.Users, ph.Users, c.batch, steps, ph.Eta)})
	r = append(r, viz.Readout{Name: "threshold", Label: "test threshold v", Value: ph.Threshold,
		Text:    format.Sprintf("%.4g of B = %d; noise Lap(%.3g) on v, Lap(%.3g) on each score", ph.Threshold, c.batch, ph.ThresholdScale, ph.ScoreScale),
		Formula: thresholdFormula(c)})
	if st := a.step; st != nil {
		e := st.Estimate
		note := "no coordinate clipped: the estimate is the mean"
		if e.Clipped[0] || e.Clipped[1] {
			note = "clipped to the band in " + clippedCoords(e.Clipped)
		}
		r = append(r,
			viz.Readout{Name: "score", Label: format.Sprintf("score s_%d", st.T), Value: st.Score,
				Text:    format.Sprintf("%.4g of B = %d (a batch with no ℓ∞ box of radius r holding 2B/3 users scores below %.4g)", st.Score, c.batch, robust.BadScore(c.batch)),
				Formula: "(1/B)·Σᵢ Σⱼ exp(−‖Qᵢ − Qⱼ‖∞ / r)"},
			viz.Readout{Name: "estimate", Label: format.Sprintf("estimate g_%d", st.T-1), Text: format.Sprintf("%s: %s", trace.Vec(e.Est), note),
				Formula: format.Sprintf("the mean clipped to %s ± r per coordinate", c.stat)})
	}
	if a.answered {
		if ph.Passed {
			r = append(r, viz.Readout{Name: "outcome", Label: "test", Text: format.Sprintf("every step passed: the phase answers the average x̄ = %s", trace.Vec(ph.Average))})
		} else {
			r = append(r, viz.Readout{Name: "outcome", Label: "test", Warn: true, Value: float64(ph.FailedAt),
				Text: format.Sprintf("⊥ at step %d: the phase answers its start %s", ph.FailedAt, trace.Vec(ph.Start))})
		}
	}
	r = append(r, viz.Readout{Name: "sigma", Label: "σ of the release", Value: ph.Sigma, Text: format.Sprintf("%.4g", ph.Sigma),
		Formula: sigmaText(c, ph)})
	if len(v.nbRes.Phases) > 0 {
		g := v.gapSeries(a.steps)
		text := "no difference yet: drag a user (it moves in the copy only)"
		warn := false
		if g.jump > 0 {
			text = format.Sprintf("jumps to %.3g at step %d (bound 6ηr = %.3g), largest after the jump %.3g", g.jump, g.jumpAt, g.bound, g.max)
			if g.grewAt > 0 {
				warn = true
				text += format.Sprintf(": it grew at step %d", g.grewAt)
			} else {
				text += ": it never grew"
			}
		}
		r = append(r, viz.Readout{Name: "gap", Label: "‖x_t − y_t‖∞", Value: g.max, Warn: warn, Text: text})
	}
	if a.released && a.phaseIdx == len(v.res.Phases) {
		out := v.res.Output
		r = append(r, viz.Readout{Name: "output", Label: "released x̂", Text: format.Sprintf("%s, ‖x̂ − z̄‖∞ = %.3g (z̄ every item's mean)", trace.Vec(out), linf(out, v.mean))})
	}
	return r
}

// thresholdFormula says where v comes from.
func thresholdFormula(c robustConfig) string {
	switch c.thresh {
	case threshPaper:
		return "v = 0.9B + 2 ln(T/δ)/ε"
	case threshSound:
		return "v = (2/3 + 1/(3e))B + 2 + w, w solving Pr[ν − ρ ≥ w] = δ/(2e^ε) for the test's noises ν and ρ"
	}
	return "v = " + c.thresh + " (a teaching value)"
}

// sigmaText derives σ.
func sigmaText(c robustConfig, ph *optim.RobustPhase) string {
	if c.mode == privacy.NonPrivate {
		return "no noise (non-private)"
	}
	return format.Sprintf("6ηr√d·√(2 ln(1.25/δ′))/(ε/2), δ′ = δ/(2e^ε): the Gaussian at (ε/2, δ′) for the averages' ℓ∞ sensitivity 6ηr = %.3g", 6*ph.Eta*c.radius)
}

func clippedCoords(c []bool) string {
	switch {
	case c[0] && c[1]:
		return "both coordinates"
	case c[0]:
		return "coordinate 1"
	}
	return "coordinate 2"
}

// Guarantee is the run's.
func (s *Scene) Guarantee() privacy.Guarantee {
	if s.view.err != nil {
		return privacy.Guarantee{Eps: math.Inf(1), Mode: s.view.cfg.mode, Note: s.view.err.Error()}
	}
	return s.view.res.Guarantee
}

// Trace returns the run.
func (s *Scene) Trace() *trace.Trace {
	if st := s.player.Stepper(); st != nil {
		return st.Trace()
	}
	return nil
}

// Dataset returns the users' items, for reading only.
func (s *Scene) Dataset() *dataset.Dataset { return s.view.cfg.data }

// LoadDataset replaces the users' items and reruns with the same seed.
func (s *Scene) LoadDataset(d *dataset.Dataset) error {
	if err := viz.Fits(d, s.view.cfg.n, s.view.cfg.m); err != nil {
		return err
	}
	c := s.view.cfg
	c.data, c.nbUser, c.nbItems = d.Clone(), -1, nil
	// The export module rebuilds a run here once, for a download: it may
	// take as long as it needs.
	s.cfg = c
	v := robustView{cfg: c}
	v.compute(cancel.Never, viz.NoProgress)
	if v.err != nil {
		return v.err
	}
	s.show(v)
	return nil
}

// Describe says what the figure shows: the current step's batch of user
// gradients and its robust statistic, and the domain with the iterate's
// path.
func (s *Scene) Describe() string {
	c := s.view.cfg
	algo := map[string]string{algoSGD: "Robust-statistics SGD (one phase)", algoLOC: "Robust-statistics SGD's localisation (phases on fresh users)"}[c.algo]
	stat := map[string]string{statMedian: "coordinate-wise median", statTrimmed: "trimmed mean"}[c.stat]
	return format.Sprintf("%s with the %s on %d users of %d items, batches of %d, in panels: the current step's users' gradients, their %s and its clip band of radius %.3g; the domain with the iterate's path; each step's score against the noisy threshold; and, with a neighbour, the gap between the two runs. ",
		algo, stat, c.n, c.m, c.batch, stat, c.radius) +
		viz.Recite(s.Readouts(), "computing", "refused", "phase", "score", "threshold", "outcome", "estimate", "gap", "sigma", "output")
}

// ItemName names a user's gradient in the current step's batch, by where
// the user's items are (a drag moves them all).
func (s *Scene) ItemName(id int) string {
	c := s.cfg
	if id < 1 || id > c.n || c.data == nil {
		return ""
	}
	pts := c.data.Users[id-1].Points
	if c.nb && c.nbUser == id-1 {
		pts = c.nbItems
	}
	var x, y float64
	for k := 0; k+1 < len(pts); k += 2 {
		x, y = x+pts[k], y+pts[k+1]
	}
	m := float64(len(pts) / 2)
	return format.Sprintf("user %d's gradient (its items' mean at (%.3f, %.3f))", id, x/m, y/m)
}
