// Package dpsgd is lesson 6, user-level DP-SGD: Paper B's DP-SGD with
// smoothed user gradients, one private outlier-removal mean per step and a
// projected step, beside a Gaussian baseline; and its strongly convex
// localisation, DP-SGD in phases on fresh groups of users, each from the
// last one's answer.
package dpsgd

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/uldplab/uldp/core/cancel"
	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/loss"
	"github.com/uldplab/uldp/core/optim"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/core/trace"
	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/internal/wire"
)

// Scene is lesson 6: Paper B's user-level DP-SGD (Alg. 3) finding the
// geometric median of users' items in the unit disk. Step through it: each
// step smooths every user's gradient, asks ORME for their private mean and
// moves; a Gaussian baseline runs beside it on the same seed.
type Scene struct {
	// Scratch for the inset's points, which List.Dots copies: kept so a
	// frame during playback allocates none.
	insetIn, insetOut []viz.Point
	insetKept         []bool
	heatPts           []viz.Point // the landscape's cells across Θ's edge

	n, m     int
	crowd    [2]float64 // where most users' items sit (drag it)
	outliers [2]float64 // where the outlying users' items sit (drag it)
	share    float64    // the outlying users' share
	params   optim.DPSGDParams
	tauX     float64 // τ as a multiple of Theorem 4.1's
	etaX     float64 // η as a multiple of Theorem 4.1's
	smooth   bool
	baseline string // "" for none
	algo     string // algoConvex or algoLocal
	seed     uint64

	data     *dataset.Dataset
	player   viz.Player
	res      optim.DPSGDResult
	base     optim.DPSGDResult
	sc       optim.DPSGDSCResult // the localisation's run (algoLocal)
	settings optim.DPSGDSettings
	best     []float64 // the loss's minimiser in Θ: the geometric median, or the localisation's items' mean
	heat     []float64 // the loss on the grid, per dataset
	excess   [2]float64
	err      error
	// opening: the run shown is the one the lesson opened on, which a
	// student who followed a link never asked for.
	opening bool
	// dragged: a handle held has moved (a run of the drag is under way,
	// which RemoteKey keeps here).
	dragged bool

	// After a change, job computes next a slice at a time (a run at the
	// sliders' maxima takes seconds in a browser); until it finishes the
	// figure shows this run under a banner, and the controls show
	// next's settings. newUsers: next's users changed (n, m, share, the
	// algorithm or a handle, dragged or typed), so their median and
	// landscape are computed too.
	job      *viz.Job
	next     *Scene
	newUsers bool
	stage    string // what the work on this state is doing, for the progress
	refused  error  // why the last change was refused after its first slice
	// What a computation another copy does for this one involves (Remote).
	remote wire.Handoff

	cam  viz.Camera
	list viz.List
	grab viz.Grab // of dpsgdCrowd or dpsgdOutliers
}

// Hit-test ids of the two handles.
const (
	dpsgdCrowd = 1 + iota
	dpsgdOutliers
)

// heatCells is the landscape grid's resolution per side.
const heatCells = 28

// computeSlice is how long a change, a drag or a frame computes at once: a
// small run finishes within the first slice, as if there were no job, and
// a large one leaves the page answering at about 25 frames a second (the
// slice and a frame's drawing) until it is handed out (viz.App.HandOut).
// In milliseconds; a variable so that tests can compute a step at a time.
// Slices of 8 ms were tried (2026-12-07): a drag at the defaults showed 8–9
// runs in 2 s instead of 14–16, and its last run settled 200–260 ms after
// the release instead of 5–24 ms, while the longest call stayed 20–31 ms
// (a step's unit and the collector overrun a slice).
var computeSlice = 30.0

// Where the handles start: the crowd's items and the outlying users'.
var startCrowd, startOutliers = [2]float64{0.35, -0.25}, [2]float64{-0.6, 0.6}

// New opens on 300 users of 5 items at ε = 8, δ = 10⁻⁵, T = 100 steps
// with Theorem 4.1's η, r and τ (the gate passes every step there).
func New() *Scene {
	s := &Scene{n: 300, m: 5, crowd: startCrowd, outliers: startOutliers, share: 0.1,
		params: optim.DPSGDParams{Eps: 8, Delta: 1e-5, Loss: loss.Distance{}, Radius: 1, Steps: 100, Record: true, KeepValues: true},
		tauX:   1, etaX: 1, smooth: true, baseline: optim.BaselineUser, algo: algoConvex, seed: 1, opening: true}
	s.recompute(cancel.Never, viz.NoProgress, true)
	return s
}

// Info names the scene.
func (s *Scene) Info() viz.Info {
	return viz.Info{Name: "dp-sgd", Title: "User-level DP-SGD",
		Summary: "Paper B's DP-SGD: smoothed user gradients, one private outlier-removal mean per step, a projected step; a Gaussian baseline beside it."}
}

// Player returns the stepper bar.
func (s *Scene) Player() *viz.Player { return &s.player }

// recompute is the work a change asks for: with newUsers, the users (drawn
// when s.data is nil) and what depends on them alone (their geometric
// median and the loss landscape), then the run. Errors are left in s.err;
// a stopped job leaves ErrStopped there.
func (s *Scene) recompute(ctx cancel.Context, progress func(done, total int64), newUsers bool) {
	s.stage = "starting" // not the last run's last stage
	// Whatever the settings refuse is found before the long stages.
	var p optim.DPSGDParams
	if p, s.err = s.runParams(); s.err != nil {
		return
	}
	// The bar's shares, as the stages took at the sliders' maxima: the
	// users' median and the landscape a tenth and a twentieth, DP-SGD's
	// steps and the baseline's the rest, about 3 : 2.
	ran := 0.0
	if newUsers {
		if s.data == nil {
			// A change that replaced another computes up to here only (the
			// checks): at the maxima the drawing takes 10 ms in a browser,
			// and a link's settings would draw once per setting.
			progress(0, 1)
			if s.err = ctx.Err(); s.err != nil { // replaced at once: stopping draws nothing
				return
			}
			s.stage = "drawing the users"
			s.generate()
		}
		s.stage = "the users' geometric median"
		if s.algo == algoLocal {
			s.stage = "the items' mean"
			s.best = itemMean(s.data, s.params.Radius)
		} else if s.best, s.err = geometricMedian(ctx, s.data, s.params.Radius, viz.Stage(progress, 0, 0.1)); s.err != nil {
			return
		}
		s.stage = "the loss landscape"
		if s.heat, s.err = s.landscape(ctx, viz.Stage(progress, 0.1, 0.15)); s.err != nil {
			return
		}
		ran = 0.15
	}
	if s.algo == algoLocal {
		s.runLocal(ctx, viz.Stage(progress, ran, 1))
		return
	}
	s.rerun(ctx, p, progress, ran)
}

// generate draws the users around the two centres from a fixed stream (the
// seed moves the algorithm's draws only).
func (s *Scene) generate() {
	r := rng.New(11).Get(rng.Data)
	d := &dataset.Dataset{Dim: 2}
	out := int(math.Round(s.share * float64(s.n)))
	for i := range s.n {
		c := s.crowd
		if i >= s.n-out {
			c = s.outliers
		}
		// The localisation's phases take users in file order, the last
		// ones none: its outlying users are spread through the file.
		if s.algo == algoLocal {
			c = s.crowd
			if (i+1)*out/s.n > i*out/s.n {
				c = s.outliers
			}
		}
		u := []float64{c[0] + 0.12*r.NormFloat64(), c[1] + 0.12*r.NormFloat64()}
		pts := make([]float64, 0, 2*s.m)
		for range s.m {
			x, y := u[0]+0.35*r.NormFloat64(), u[1]+0.35*r.NormFloat64()
			if h := math.Hypot(x, y); s.algo == algoLocal && h > localRX {
				// The localisation's proof bounds the items' norms by R_X.
				x, y = x*localRX/h, y*localRX/h
			}
			pts = append(pts, x, y)
		}
		d.Users = append(d.Users, dataset.User{ID: strconv.Itoa(i + 1), Points: pts})
	}
	s.data = d
}

// landscape is the loss on a heatCells² grid over Θ's bounding square.
func (s *Scene) landscape(ctx cancel.Context, progress func(done, total int64)) ([]float64, error) {
	cell := 2.0 / heatCells
	heat := make([]float64, heatCells*heatCells)
	for i := range heatCells {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		progress(int64(i), heatCells)
		for j := range heatCells {
			heat[i*heatCells+j] = s.risk([]float64{-1 + (float64(i)+0.5)*cell, -1 + (float64(j)+0.5)*cell})
		}
	}
	return heat, nil
}

// rerun runs DP-SGD with p (the stepper walks its steps) and the
// baseline, the bar moving from ran to 1.
func (s *Scene) rerun(ctx cancel.Context, p optim.DPSGDParams, progress func(done, total int64), ran float64) {
	s.stage = "DP-SGD's steps"
	mid := 1.0
	if s.baseline != noBaseline {
		mid = ran + 0.6*(1-ran)
	}
	run := func(ctx cancel.Context, d *dataset.Dataset, st *rng.Streams) (*trace.Trace, error) {
		res, tr, err := optim.DPSGD(ctx, p, d, st, viz.Stage(progress, ran, mid))
		if err != nil {
			return nil, err
		}
		s.res = res
		return only(tr, optim.KindSGDStep, optim.KindSGDDone), nil
	}
	st, err := trace.NewStepper(ctx, run, s.data, rng.New(s.seed))
	s.err = err
	if err != nil {
		return
	}
	s.base = optim.DPSGDResult{}
	if s.baseline != noBaseline {
		s.stage = "the baseline's steps"
		q := p
		q.Record, q.KeepValues = false, false
		if s.base, _, err = optim.BaselineDPSGD(ctx, s.baseline, 1, q, s.data, rng.New(s.seed), viz.Stage(progress, mid, 1)); err != nil {
			s.err = err
			return
		}
	}
	best := s.risk(s.best)
	s.excess = [2]float64{s.risk(s.res.Theta) - best, math.NaN()}
	if s.base.Theta != nil {
		s.excess[1] = s.risk(s.base.Theta) - best
	}
	s.player.Replace(st)
}

// only keeps tr's steps of the given kinds: one stepper step per SGD step
// (and per phase), ORME's inner steps living in each step's story, shown
// in the inset.
func only(tr *trace.Trace, kinds ...trace.Kind) *trace.Trace {
	tr.Steps = slices.DeleteFunc(tr.Steps, func(x trace.Step) bool { return !slices.Contains(kinds, x.Kind) })
	return tr
}

// runParams sets s.settings from Theorem 4.1 and returns the run's
// parameters, checked as DP-SGD, its ORME and the baseline would check them
// (and the localisation's split, when it is the one shown).
func (s *Scene) runParams() (optim.DPSGDParams, error) {
	if s.algo == algoLocal {
		if err := s.localCheck(); err != nil {
			return optim.DPSGDParams{}, err
		}
	}
	s.settings = optim.Theorem41(s.params.Eps, s.params.Delta, 1, 2*s.params.Radius, s.n, s.m, 2, s.params.Steps)
	p := s.params
	p.Eta, p.Tau = s.etaX*s.settings.Eta, s.tauX*s.settings.Tau
	if s.smooth {
		p.Smoothing = s.settings.Smoothing
	}
	if err := p.Validate(2); err != nil {
		return p, err
	}
	if _, err := p.ORME(s.n, s.m, 2).Calibrate(s.n); err != nil {
		return p, err
	}
	if s.baseline != noBaseline && s.algo == algoConvex {
		if _, err := optim.BaselineSigma(s.baseline, p.Eps, p.Delta, 1, s.n, s.m, p.Steps); err != nil {
			return p, err
		}
	}
	return p, nil
}

// geometricMedian minimises the mean distance to every item over the disk
// of radius r: Weiszfeld's iteration, projected (a few hundred steps reach
// far below the figure's resolution).
func geometricMedian(ctx cancel.Context, d *dataset.Dataset, r float64, progress func(done, total int64)) ([]float64, error) {
	const iterations = 300
	x := mean(d)
	dom := loss.Ball{Centre: []float64{0, 0}, Radius: r}
	for k := range iterations {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		progress(int64(k), iterations)
		var num [2]float64
		var den float64
		for i := range d.Users {
			for j := range d.Items(i) {
				it := d.Item(i, j)
				w := 1 / math.Max(math.Hypot(x[0]-it[0], x[1]-it[1]), 1e-9)
				num[0], num[1], den = num[0]+w*it[0], num[1]+w*it[1], den+w
			}
		}
		x = [2]float64{num[0] / den, num[1] / den}
	}
	return dom.Project(x[:], make([]float64, 2)), nil
}

// risk is the mean loss over the items: the distance from θ, or for the
// localisation half its square.
func (s *Scene) risk(theta []float64) float64 {
	var sum float64
	k := 0
	for i := range s.data.Users {
		for j := range s.data.Items(i) {
			d := loss.Dist(theta, s.data.Item(i, j))
			if s.algo == algoLocal {
				d = localMu / 2 * d * d
			}
			sum += d
			k++
		}
	}
	return sum / float64(k)
}

// noBaseline is the "beside it" choice that runs no baseline.
const noBaseline = "none"

// form binds the scene's inputs; their help says which the localisation
// uses.
func (s *Scene) form() viz.Form {
	stepsHelp := format.Sprintf("Theorem 4.1 wants m²n² + mn√d = %.3g", float64(s.m*s.m*s.n*s.n)+float64(s.m*s.n)*math.Sqrt2)
	convexOnly, smoothHelp := "", "off: plain subgradients of the non-smooth loss"
	if s.algo == algoLocal {
		stepsHelp = "caps each phase's steps; Theorem 4.1 wants m²n_i² + mn_i√d for phase i's n_i users"
		convexOnly = " (the convex run's: the localisation takes Theorem 4.1's in each phase)"
		smoothHelp = "off: plain gradients, r = 0 (the squared loss is smooth already)"
	}
	return viz.Form{
		viz.Int(&s.n, viz.Control{Name: "n", Label: "users n", Kind: viz.Slider, Min: minUsers, Max: maxUsers, Step: usersStep, Log: true}),
		viz.Int(&s.m, viz.Control{Name: "m", Label: "items per user m", Kind: viz.Slider, Min: 1, Max: 50}),
		viz.Float(&s.share, viz.Control{Name: "share", Label: "outlying users' share", Kind: viz.Slider, Min: 0, Max: 0.5, Step: 0.01}),
		handle(&s.crowd, "crowd", "the crowd's handle", "where most users' items sit: drag it in the figure, or type x,y"),
		handle(&s.outliers, "outliers", "the outliers' handle", "where the outlying users' items sit"),
		viz.Float(&s.params.Eps, viz.Control{Name: "eps", Label: "ε", Kind: viz.Slider, Min: 0.5, Max: 20, Log: true}),
		viz.Int(&s.params.Steps, viz.Control{Name: "steps", Label: "steps T", Kind: viz.Slider, Min: 10, Max: 500, Step: 10,
			Help: stepsHelp}),
		viz.Float(&s.etaX, viz.Control{Name: "eta", Label: "η ÷ the theorem's", Kind: viz.Slider, Min: 0.01, Max: 100, Log: true,
			Help: "scales Theorem 4.1's step size" + convexOnly}),
		viz.Float(&s.tauX, viz.Control{Name: "tau", Label: "τ ÷ the theorem's", Kind: viz.Slider, Min: 0.001, Max: 10, Log: true,
			Help: "a smaller τ asks the users' mean gradients to cluster more tightly: the ramp drops users outside the cluster, and the gate halts when too few fit" + convexOnly}),
		viz.Bool(&s.smooth, viz.Control{Name: "smoothing", Label: "randomized smoothing",
			Help: smoothHelp}),
		viz.Choose(&s.algo, viz.Control{Name: "algo", Label: "algorithm",
			Choices: []string{algoConvex, algoLocal},
			ChoiceHelp: map[string]string{
				algoConvex: "Algorithm 3: one DP-SGD run on every user, the loss the distance to each item",
				algoLocal:  "Algorithm 4, for strongly convex losses (here ½‖θ − z‖², items in the disk): DP-SGD in phases on fresh groups of users, each from the last one's answer in the ball the proof bounds it to; T caps each phase's steps, and the phases take Theorem 4.1's η and τ",
			}}),
		viz.Choose(&s.baseline, viz.Control{Name: "baseline", Label: "beside it",
			Choices: []string{noBaseline, optim.BaselineUser, optim.BaselineItem},
			ChoiceHelp: map[string]string{
				noBaseline:         "DP-SGD alone (the localisation always runs alone)",
				optim.BaselineUser: "plain Gaussian DP-SGD on all gradients, noise for the worst case of one user (2G/n), however concentrated users are",
				optim.BaselineItem: "plain Gaussian DP-SGD with noise for one item (2G/(nm)): it covers a user only at about m·ε",
			}}),
		viz.Mode(&s.params.Mode, privacy.Paper, privacy.Sound, privacy.NonPrivate),
		viz.Seed(&s.seed),
	}
}

// handleReach bounds a handle's coordinates, as a drag does.
const handleReach = 2

// handle binds a handle's position as "x,y", every digit kept, so that a
// link restores the very users shown (a copy restored to the page's
// state computes its run: Remote).
func handle(at *[2]float64, name, label, help string) viz.Field {
	text := func() string {
		return strconv.FormatFloat(at[0], 'g', -1, 64) + "," + strconv.FormatFloat(at[1], 'g', -1, 64)
	}
	set := func(v string) error {
		x, y, _ := strings.Cut(v, ",")
		var p [2]float64
		var errX, errY error
		p[0], errX = strconv.ParseFloat(strings.TrimSpace(x), 64)
		p[1], errY = strconv.ParseFloat(strings.TrimSpace(y), 64)
		if errX != nil || errY != nil || !(math.Abs(p[0]) <= handleReach && math.Abs(p[1]) <= handleReach) {
			return format.Errorf("%s %q: write x,y, each between −%d and %d (the disk Θ is the unit one), e.g. 0.35,-0.25", label, v, handleReach, handleReach)
		}
		*at = p
		return nil
	}
	return viz.Custom(viz.Control{Name: name, Label: label + " (x, y)", Kind: viz.TextField, Help: help}, text, set)
}

// Controls declares the scene's inputs: those of the run being computed,
// if there is one, so a slider stays where it was put.
func (s *Scene) Controls() []viz.Control { return s.latest().form().Controls() }

// Set changes one control; a value the run refuses leaves the lesson as it
// was. A run that needs more than a slice goes on between frames (Tick).
func (s *Scene) Set(name, value string) error {
	next := s.latest().copy()
	if err := next.form().Set(name, value); err != nil {
		return err
	}
	// Checked before the computation under way is replaced: a refused
	// value must not cancel an earlier change still being computed.
	if _, err := next.runParams(); err != nil {
		return err
	}
	if next.algo == algoLocal && (name == "eta" || name == "tau" || name == "baseline") {
		// The localisation does not use them: kept for the convex run,
		// nothing to compute.
		return s.latest().form().Set(name, value)
	}
	newUsers := name == "n" || name == "m" || name == "share" || name == "algo" || name == "crowd" || name == "outliers"
	if newUsers {
		next.data = nil // drawn by the computation
	}
	return s.start(next, newUsers)
}

// latest is the newest settings: those being computed, or those shown.
func (s *Scene) latest() *Scene {
	if s.next != nil {
		return s.next
	}
	return s
}

// copy is s without its job, to be changed and computed.
func (s *Scene) copy() *Scene {
	c := *s
	c.job, c.next, c.refused, c.remote = nil, nil, nil, wire.Handoff{}
	return &c
}

// start replaces any computation under way by one of next (whose users,
// with newUsers, are drawn but not yet surveyed), and computes
// for a slice: up to the first report of progress (the checks), and on for
// computeSlice unless it replaced a computation. Changes in quick
// succession (a link's settings, a slider or a handle dragged over a large
// run) then cost one slice, not one each.
func (s *Scene) start(next *Scene, newUsers bool) error {
	budget := computeSlice
	if s.job != nil {
		budget = 0
	}
	s.begin(next, newUsers)
	return s.advance(budget)
}

// begin replaces any computation under way by one of next, computing
// nothing yet.
func (s *Scene) begin(next *Scene, newUsers bool) {
	key, parts := s.RemoteKey(), s.remote
	if s.job != nil {
		s.job.Stop()
		newUsers = newUsers || s.newUsers // next's users may not be surveyed yet
	}
	s.next, s.newUsers, s.remote = next, newUsers, wire.Handoff{}
	s.job = viz.StartJob(func(ctx cancel.Context, progress func(done, total int64)) {
		next.recompute(ctx, progress, newUsers)
	})
	if key != "" && s.RemoteKey() == key {
		// The same run again (a setting set to the value it has): the
		// copy computing it goes on sending its parts.
		s.remote.Got = parts.Got
	}
}

// runAt starts a run with the handle id at at; now computes its first
// slice too.
func (s *Scene) runAt(id int, at [2]float64, now bool) {
	next := s.latest().copy()
	next.place(id, at)
	next.data = nil // drawn by the computation
	if now {
		_ = s.start(next, true) // moving a handle cannot make a run invalid
		return
	}
	s.begin(next, true)
}

// handle is where the handle id is.
func (s *Scene) handle(id int) [2]float64 {
	if id == dpsgdOutliers {
		return s.outliers
	}
	return s.crowd
}

// place puts the handle id at at.
func (s *Scene) place(id int, at [2]float64) {
	if id == dpsgdOutliers {
		s.outliers = at
	} else {
		s.crowd = at
	}
}

// advance computes for about budget milliseconds; when the run is done it is shown, and
// if it failed the lesson stays as it was and the error is returned.
func (s *Scene) advance(budget float64) error {
	if s.job == nil || !s.job.Run(budget) {
		return nil
	}
	next := s.next
	s.Stop()
	if next.err != nil {
		s.refused = next.err
		return next.err
	}
	// The figure's state stays: the stepper's position and speed, a drag
	// under way, the camera.
	player, grab, dragged, cam, held := s.player, s.grab, s.dragged, s.cam, s.handle(s.grab.ID)
	st := next.player.Stepper()
	*s = *next
	s.grab, s.dragged, s.cam, s.opening = grab, dragged, cam, false
	s.player = player
	s.player.Replace(st)
	if grab.ID == 0 {
		return nil
	}
	// The handle held stays under the pointer; the other is the run's (a
	// position typed while the run computed is the run's, not the one
	// shown before it).
	s.place(grab.ID, held)
	if dragged && held != next.handle(grab.ID) {
		// The pointer moved on while the run computed: the next run is
		// where it is now, from the next slice on.
		s.runAt(grab.ID, held, false)
	}
	return nil
}

// Busy reports whether a run is being computed.
func (s *Scene) Busy() bool { return s.job != nil }

// Stop ends a run being computed, and forgets it; the lesson stays at the
// last one.
func (s *Scene) Stop() {
	if s.job != nil {
		s.job.Stop()
	}
	s.job, s.next, s.remote = nil, nil, wire.Handoff{}
}

// Tick continues the computation under way, a slice per frame, or reads
// on in the run another copy computed, a shorter one.
func (s *Scene) Tick(float64) bool {
	if s.job == nil {
		return false
	}
	slice := computeSlice
	if s.remote.Decoding {
		slice = decodeSlice
	}
	_ = s.advance(slice) // a refusal shows as a readout
	return true
}

// Readouts lists the run's numbers.
func (s *Scene) Readouts() []viz.Readout {
	if s.err != nil {
		return viz.FailedReadouts("cannot run", s.err)
	}
	set := s.settings
	var r []viz.Readout
	switch {
	case s.job != nil:
		f, stage := s.progress()
		shown := viz.LastRunShown
		if s.opening {
			shown = "until it is done, the figure and the guarantee show the run the lesson opens on, at its own settings"
		}
		r = append(r, viz.ComputingReadout(stage, f, shown))
	case s.refused != nil:
		r = append(r, viz.Readout{Name: "refused", Label: "last change refused", Text: s.refused.Error(), Warn: true})
	}
	if s.algo == algoLocal {
		return append(r, s.localReadouts()...)
	}
	r = append(r, []viz.Readout{
		{Name: "settings", Label: "T, η, r, τ", Text: format.Sprintf("%d, %.3g, %.3g, %.3g", s.params.Steps, s.etaX*set.Eta, map[bool]float64{true: set.Smoothing, false: 0}[s.smooth], s.tauX*set.Tau),
			Formula: "Theorem 4.1 (η, τ scaled by the sliders)"},
		{Name: "sigma", Label: "ORME's σ per step", Value: s.res.ORME.Sigma, Text: format.Sprintf("%.3g", s.res.ORME.Sigma), Formula: s.res.ORME.SigmaFormula()},
	}...)
	if s.res.Halted > 0 {
		r = append(r, viz.Readout{Name: "halted", Label: "halted", Value: float64(s.res.Halted), Warn: true,
			Text: format.Sprintf("the gate failed at step %d: the answer is θ₀", s.res.Halted)})
	}
	ex := s.excess[0]
	r = append(r, viz.Readout{Name: "excess", Label: "excess risk of θ̂", Value: ex, Text: format.Sprintf("%.3g (the domain allows at most G·R = %g)", ex, 2*s.params.Radius),
		Formula: "L(θ̂) − L(θ*), L the mean distance to the items"})
	if s.baseline != noBaseline && s.base.Theta != nil {
		bx := s.excess[1]
		r = append(r, viz.Readout{Name: "baseline", Label: s.baseline, Value: bx,
			Text: format.Sprintf("σ = %.3g per step, excess %.3g — %s", s.base.ORME.Sigma, bx, s.base.Guarantee.Note)})
	}
	return r
}

// Guarantee is DP-SGD's.
func (s *Scene) Guarantee() privacy.Guarantee {
	if s.err != nil {
		return privacy.Guarantee{Eps: math.Inf(1), Mode: s.params.Mode, Note: s.err.Error()}
	}
	if s.algo == algoLocal {
		return s.sc.Guarantee
	}
	return s.res.Guarantee
}

// Trace returns the run (one step per SGD step).
func (s *Scene) Trace() *trace.Trace {
	if st := s.player.Stepper(); st != nil {
		return st.Trace()
	}
	return nil
}

// Dataset returns the users' items, for reading only.
func (s *Scene) Dataset() *dataset.Dataset { return s.data }

// LoadDataset replaces the users' items and reruns with the same seed.
func (s *Scene) LoadDataset(d *dataset.Dataset) error {
	if err := viz.Fits(d, s.n, s.m); err != nil {
		return err
	}
	s.Stop()
	s.data, s.opening = d.Clone(), false
	// The export module rebuilds a run here once, for a download: it may
	// take as long as it needs.
	s.recompute(cancel.Never, viz.NoProgress, true)
	return s.err
}

// Describe says what the figure shows: the two groups of users over the
// loss landscape, the path of θ and where it ends against θ*.
func (s *Scene) Describe() string {
	out := int(math.Round(s.share * float64(s.n)))
	theta, best, path := s.res.Theta, "the users' geometric median", "the line is θ's path up to the current step"
	if s.algo == algoLocal {
		theta, best = s.sc.Theta, "the items' mean"
		path = "the localisation runs DP-SGD in phases on fresh groups of users; the line is the current phase's path from the last phase's answer, and the dashed circle around that start has the radius R̂ by whose square the proof bounds its expected squared distance to θ*"
	}
	var end string
	if len(theta) == 2 && len(s.best) == 2 {
		end = format.Sprintf(" The run ends at θ̂ = (%.3f, %.3f); %s θ* is at (%.3f, %.3f).", theta[0], theta[1], best, s.best[0], s.best[1])
	}
	return format.Sprintf("%d users of %d items over the shaded loss on the unit disk Θ: %d around the crowd's handle at (%.2f, %.2f), %d around the outliers' handle at (%.2f, %.2f); %s.%s ",
		s.n, s.m, s.n-out, s.crowd[0], s.crowd[1], out, s.outliers[0], s.outliers[1], path, end) +
		viz.Recite(s.Readouts(), "computing", "refused", "phase", "settings", "sigma", "halted", "excess", "baseline")
}

// ItemName names the two handles.
func (s *Scene) ItemName(id int) string {
	switch id {
	case dpsgdCrowd:
		return format.Sprintf("the crowd's handle at (%.2f, %.2f)", s.crowd[0], s.crowd[1])
	case dpsgdOutliers:
		return format.Sprintf("the outliers' handle at (%.2f, %.2f)", s.outliers[0], s.outliers[1])
	}
	return ""
}
