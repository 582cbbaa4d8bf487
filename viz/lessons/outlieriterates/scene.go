// Package outlieriterates is lesson 10, outlier-iterate removal (Lowy, Liu &
// Asi 2024): groups of users run SGD side by side, a noisy score checks that
// their end points agree, strays are dropped and the rest averaged with
// noise; and its accelerated variant.
package outlieriterates

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
)

// Scene is lesson 10: the phased SGD with outlier-iterate removal of Lowy,
// Liu & Asi (2024), their Algorithm 1. Each phase splits fresh users into
// C groups; every group runs one pass of SGD over its users' items from
// the last phase's output; a noisy score asks whether the groups' end
// iterates agree; a keep ramp drops the groups whose iterate strays; the
// survivors' mean is released with Gaussian noise and starts the next
// phase, with a smaller step. Users' items are points to drag: the run
// reruns on the same seed, so only what the move changes changes.
type Scene struct {
	cfg oirConfig
	res optim.OIRResult
	err error
	// opt is the minimiser of the users' mean loss over the domain: for
	// the squared loss, every item's mean projected onto the ball.
	opt []float64
	// accel is the accelerated variant's schedule over as many phases,
	// for the gradients it would take.
	accel []optim.AccelRow
	// acc is the accelerated variant's run, when it is the one shown (the
	// stepper walks its trace; res is then outlier-iterate removal's run
	// on the same users and seed, for its cost).
	acc optim.AccelResult

	player viz.Player
	cam    viz.Camera // the plane
	inset  viz.Camera // the phase's end iterates magnified; W 0 when not shown
	list   viz.List
	// The drag of a user (1-based), and the user's items when it began.
	grab      viz.Grab
	dragItems []float64
}

// oirConfig is everything a run is computed from.
type oirConfig struct {
	preset          string
	n, m            int
	groups, phases  int
	tauScale        float64
	eta, pExp, qExp float64
	eps, delta      float64
	order           string
	mode            privacy.Mode
	seed            uint64
	users           [][]float64 // each user's m items, flat
	// The algorithm shown, and the accelerated variant's teaching
	// overrides: K users per step and the constant in σ_i.
	algo       string
	batch      int
	sigmaScale float64
}

// The algorithms the lesson shows.
const (
	algoOIR   = "oir"
	algoAccel = "accelerated"
)

// The lesson's fixed setting: the squared loss ½‖x − z‖² on the unit
// ball, whose item gradients are bounded by L = 2 there, from x₀.
var (
	oirRadius = 1.0
	oirL      = 2.0
	oirStart  = []float64{-0.6, 0.6}
)

// oirPreset is a dataset and the settings that show one behaviour.
type oirPreset struct {
	name, what string
	apply      func(c *oirConfig)
	// far says which users (0-based, given n and the first phase's group
	// size) sit away from the crowd.
	far func(c oirConfig, perGroup int) (from, to int)
}

func (p oirPreset) PresetName() string { return p.name }

func oirPresets() []oirPreset {
	none := func(oirConfig, int) (int, int) { return 0, 0 }
	return []oirPreset{
		{"far-group", "users in file order, so phase 1's group 1 is users 1…N₁; their items sit 1.1 away from the crowd: that group's iterate strays and the ramp drops it",
			func(c *oirConfig) { c.order = "given" },
			func(_ oirConfig, perGroup int) (int, int) { return 0, perGroup }},
		{"crowd", "every user's items near one centre, users split at random (the paper's way): every group agrees, the gate passes and every group is kept",
			func(c *oirConfig) {}, none},
		{"tau-too-small", "the same crowd with τ's scale 0.001: the end iterates' ordinary spread is wider than τ, the score collapses and the gate halts",
			func(c *oirConfig) { c.tauScale = 0.001 }, none},
		{"too-few-groups", "C = 4 groups: the gate's noise Lap(20/ε) is wider than 4C/5 itself, so even perfect agreement passes only 64% of the time at ε = 8",
			func(c *oirConfig) { c.groups = 4 }, none},
	}
}

// oirMaxUsers keeps the plane's items readable and a drag's rerun within
// a frame.
const oirMaxUsers = 5000

// defaultOIR is the settings every preset starts from: C = 20 groups,
// three phases and τ's scale 0.01 (the paper's C and 1000 need millions
// of users), sound mode, ε = 8.
func defaultOIR() oirConfig {
	return oirConfig{preset: "far-group", n: 1000, m: 3, groups: 20, phases: 3, tauScale: 0.01, eta: 0.5, pExp: 2.5, qExp: 0.5,
		eps: 8, delta: 1e-5, order: "shuffled", mode: privacy.Sound, seed: 5, algo: algoOIR, batch: 40, sigmaScale: 10}
}

// oirPresetConfig is the default settings with the preset applied and its
// users drawn.
func oirPresetConfig(name string) oirConfig {
	c := defaultOIR()
	c.preset = name
	viz.PresetByName(oirPresets(), name).apply(&c)
	c.draw()
	return c
}

// draw draws the preset's users from a fixed stream (the seed moves the
// algorithm's draws only): users' centres spread by 0.04 around the
// crowd's centre, their items by 0.06 around their centre, and the
// preset's far users 1.1 away.
func (c *oirConfig) draw() {
	// The crowd sits where robust SGD's does, so the two lessons' figures
	// look alike.
	crowdCentre := [2]float64{0.45, -0.3}
	r := rng.New(11).Get(rng.Data)
	perGroup := 1
	if rows := c.params().Schedule(c.n, c.m, 2); len(rows) > 0 {
		perGroup = rows[0].PerGroup
	}
	from, to := viz.PresetByName(oirPresets(), c.preset).far(*c, perGroup)
	c.users = make([][]float64, c.n)
	for u := range c.users {
		centre := [2]float64{crowdCentre[0] + 0.04*r.NormFloat64(), crowdCentre[1] + 0.04*r.NormFloat64()}
		if u >= from && u < to {
			centre[0], centre[1] = centre[0]-1, centre[1]-0.45
		}
		items := make([]float64, 2*c.m)
		for j := 0; j < len(items); j += 2 {
			items[j], items[j+1] = centre[0]+0.06*r.NormFloat64(), centre[1]+0.06*r.NormFloat64()
		}
		c.users[u] = items
	}
}

// params are the run's parameters: the printed constants in paper mode,
// the lesson's C, l and τ scale otherwise.
func (c oirConfig) params() optim.OIRParams {
	p := optim.OIRParams{Eps: c.eps, Delta: c.delta, Loss: loss.Squared{Mu: 1}, Lipschitz: oirL, Radius: oirRadius,
		Eta: c.eta, PExp: c.pExp, QExp: c.qExp, Theta0: oirStart, Mode: c.mode, Record: true, KeepPaths: true}
	if c.mode != privacy.Paper {
		p.Groups, p.Phases, p.TauScale = c.groups, c.phases, c.tauScale
	}
	if c.order == "given" {
		p.Order = optim.Given
	}
	return p
}

// accelParams are the accelerated variant's parameters on the same
// users: Theorem C.3's λ and p, the lesson's l, c_τ, K and σ constant
// outside paper mode.
func (c oirConfig) accelParams() optim.AccelParams {
	p := optim.AccelParams{Eps: c.eps, Delta: c.delta, Loss: loss.Squared{Mu: 1}, Lipschitz: oirL, Radius: oirRadius,
		PExp: optim.TheoremPExp(c.qExp, c.n, c.m), QExp: c.qExp, Theta0: oirStart, Mode: c.mode, Record: true}
	if c.mode != privacy.Paper {
		p.Phases, p.TauScale, p.Batch, p.SigmaScale = c.phases, c.tauScale, c.batch, c.sigmaScale
	}
	if c.order == "given" {
		p.Order = optim.Given
	}
	return p
}

// data is the users as a dataset; the stepper keeps its own copy.
func (c oirConfig) data() *dataset.Dataset {
	d := &dataset.Dataset{Dim: 2, Users: make([]dataset.User, len(c.users))}
	ids := dataset.NumberedIDs(len(c.users))
	for u, items := range c.users {
		d.Users[u] = dataset.User{ID: ids[u], Points: items}
	}
	return d
}

// check refuses settings the run would refuse.
func (c oirConfig) check() error {
	if c.algo == algoAccel {
		if err := c.accelParams().Validate(c.n, 2); err != nil {
			return err
		}
	}
	if err := c.params().Validate(c.n, 2); err != nil {
		return err
	}
	if c.mode != privacy.Paper && c.groups > c.n {
		return format.Errorf("C = %d groups with %d users: every group needs a user", c.groups, c.n)
	}
	return nil
}

// New opens on the far-group preset: 1,000 users of 3 items, C = 20,
// three phases, ε = 8, δ = 10⁻⁵, sound mode; on seed 5 every gate passes
// and the ramp drops the far group in phase 1.
func New() *Scene {
	s := &Scene{cfg: oirPresetConfig("far-group")}
	s.err = s.rerun()
	return s
}

// rerun computes the run of s.cfg on its seed, keeping the stepper's
// position. Outlier-iterate removal always runs (the accelerated view
// quotes its cost); the stepper walks the algorithm shown.
func (s *Scene) rerun() error {
	c := s.cfg
	p := c.params()
	var res optim.OIRResult
	var acc optim.AccelResult
	run := func(ctx cancel.Context, d *dataset.Dataset, st *rng.Streams) (*trace.Trace, error) {
		r, tr, err := optim.OutlierIterateRemoval(ctx, p, d, st, nil)
		res = r
		return tr, err
	}
	if c.algo == algoAccel {
		q := c.accelParams()
		run = func(ctx cancel.Context, d *dataset.Dataset, st *rng.Streams) (*trace.Trace, error) {
			r, tr, err := optim.Accelerated(ctx, q, d, st, nil)
			acc = r
			return tr, err
		}
	}
	// The stepper shares the users: a drag replaces a user's items, never
	// changes them.
	data := c.data()
	st, err := trace.NewStepperShared(cancel.Never, run, data, rng.New(c.seed))
	if err != nil {
		return err
	}
	if c.algo == algoAccel {
		p.Record = false
		if res, _, err = optim.OutlierIterateRemoval(cancel.Never, p, data, rng.New(c.seed), nil); err != nil {
			return err
		}
	}
	// The accelerated view only quotes outlier-iterate removal's cost, so
	// settings it cannot run (the printed C at a small n) do not block it.
	if len(res.Phases) == 0 && c.algo != algoAccel {
		return format.Errorf("%s, so no phase can run: bring more users, or choose sound or teaching mode to set C", res.Stop)
	}
	s.res, s.acc = res, acc
	s.opt = s.minimiser()
	s.accel = optim.AccelParams{Eps: c.eps, Delta: c.delta, Loss: p.Loss, Lipschitz: oirL, Radius: oirRadius,
		PExp: optim.TheoremPExp(c.qExp, c.n, c.m), QExp: c.qExp, Phases: len(res.Phases), Mode: privacy.Paper}.Schedule(c.n, c.m, 2)
	s.player.Replace(st)
	return nil
}

// minimiser is every item's mean projected onto the domain: the
// minimiser of the mean squared loss there.
func (s *Scene) minimiser() []float64 {
	mean := s.cfg.data().ItemMean()
	return loss.Ball{Centre: make([]float64, 2), Radius: oirRadius}.Project(mean, mean)
}

// Info names the scene.
func (s *Scene) Info() viz.Info {
	return viz.Info{Name: "outlier-iterates", Title: "Outlier-iterate removal",
		Summary: "Lowy, Liu & Asi 2024: groups of users run SGD side by side, a noisy score checks their end points agree, strays are dropped, the rest averaged with noise."}
}

// Player returns the stepper bar.
func (s *Scene) Player() *viz.Player { return &s.player }

// form binds the scene's inputs to c.
func (c *oirConfig) form() viz.Form {
	return viz.Form{
		viz.Choose(&c.algo, viz.Control{Name: "algo", Label: "algorithm", Choices: []string{algoOIR, algoAccel}}).Described(map[string]string{
			algoOIR:   "outlier-iterate removal (Algorithm 1): C groups run SGD side by side; strays dropped, the rest averaged with noise",
			algoAccel: "the accelerated variant (Algorithm 3): AC-SA steps on K users' gradients each, strays among them dropped, noise on every step (no sound calibration: teaching mode)",
		}),
		viz.Choose(&c.preset, viz.Control{Name: "preset", Label: "users", Choices: viz.PresetNames(oirPresets()), Help: viz.PresetByName(oirPresets(), c.preset).what}),
		viz.Int(&c.n, viz.Control{Name: "n", Label: "users n", Kind: viz.Slider, Min: minUsers, Max: oirMaxUsers, Step: usersStep, Log: true}),
		viz.Int(&c.m, viz.Control{Name: "m", Label: "items per user m", Kind: viz.Slider, Min: 1, Max: 10}),
		viz.Int(&c.groups, viz.Control{Name: "groups", Label: "groups C", Kind: viz.Slider, Min: 2, Max: maxGroups, Log: true,
			Help: "outlier-iterate removal's groups in every phase (paper mode prints ⌈100 ln(20nme^ε/δ)/ε⌉); the accelerated variant has none"}),
		viz.Int(&c.phases, viz.Control{Name: "phases", Label: "phases l", Kind: viz.Slider, Min: 1, Max: 12,
			Help: "paper mode runs ⌊log₂ n⌋, stopping earlier when a phase's groups would be empty"}),
		viz.Float(&c.tauScale, viz.Control{Name: "tau", Label: "τ's scale", Kind: viz.Slider, Min: 1e-4, Max: 1000, Log: true,
			Help: "the c in τ_i = c·η_i·L·√T_i·ln(ndm): pairs within τ_i make the score, neighbours within 2τ_i the ramp (the paper's c is 1000)"}),
		viz.Int(&c.batch, viz.Control{Name: "batch", Label: "users per step K", Kind: viz.Slider, Min: 2, Max: 500, Log: true,
			Help: "the accelerated variant's minibatch, a subset of the phase's users (the printed K_i, in paper mode, exceeds a phase's users below millions of users and is capped)"}),
		viz.Float(&c.sigmaScale, viz.Control{Name: "sigma", Label: "σ's constant", Kind: viz.Slider, Min: 0.01, Max: 1000, Log: true,
			Help: "the accelerated variant's σ_i = c·τ·√T_i·(ln(nd/δ) + ε)/(ε·n_i): the paper's c is 1000"}),
		viz.Float(&c.eta, viz.Control{Name: "eta", Label: "step η", Kind: viz.Slider, Min: 0.01, Max: 2, Log: true,
			Help: "outlier-iterate removal's SGD step (the accelerated variant's AC-SA sets its own from β and λ_i)"}),
		viz.Float(&c.pExp, viz.Control{Name: "p", Label: "step decay p", Kind: viz.Slider, Min: 0.5, Max: 4, Step: 0.1,
			Help: "outlier-iterate removal's phase i steps with η/2^{p·i} (the paper's p is 2.5); the accelerated variant's λ_i grows by Theorem C.3's p"}),
		viz.Float(&c.qExp, viz.Control{Name: "q", Label: "phase sizes q", Kind: viz.Slider, Min: 0.1, Max: 2, Step: 0.1,
			Help: "phase i takes ⌊(1 − 2^{−q})·n/2^{q·i}⌋ fresh users (the paper's q is 1/2)"}),
		viz.Choose(&c.order, viz.Control{Name: "order", Label: "groups", Choices: []string{"shuffled", "given"}}).Described(map[string]string{
			"shuffled": "a random split of the users, items shuffled in each group (the paper's)",
			"given":    "users in file order: each group a consecutive run of users, items in file order",
		}),
		viz.Float(&c.eps, viz.Control{Name: "eps", Label: "ε", Kind: viz.Slider, Min: 0.1, Max: 50, Log: true}),
		viz.Float(&c.delta, viz.Control{Name: "delta", Label: "δ", Kind: viz.Slider, Min: 1e-12, Max: 0.1, Log: true}),
		viz.Mode(&c.mode, privacy.Paper, privacy.Sound, privacy.Teaching, privacy.NonPrivate).Labelled("constants"),
		viz.Seed(&c.seed),
	}
}

// Controls declares the scene's inputs.
func (s *Scene) Controls() []viz.Control { return s.cfg.form().Controls() }

// Set changes one control; a value the run refuses leaves the lesson as it
// was.
func (s *Scene) Set(name, value string) error {
	next := *s
	if err := next.cfg.form().Set(name, value); err != nil {
		return err
	}
	switch name {
	case "algo":
		// The accelerated variant has no sound calibration (erratum A40):
		// it opens in teaching mode, whose guarantee says what is missing.
		if next.cfg.algo == algoAccel && next.cfg.mode == privacy.Sound {
			next.cfg.mode = privacy.Teaching
		}
	case "preset":
		seed, algo, mode := next.cfg.seed, next.cfg.algo, next.cfg.mode
		next.cfg = oirPresetConfig(next.cfg.preset)
		next.cfg.seed, next.cfg.algo = seed, algo
		if algo == algoAccel {
			next.cfg.mode = mode
		}
	case "n", "m", "groups", "q":
		// The preset's far group is the first phase's first group, whose
		// size these set: the users are drawn again and drags undone.
		next.cfg.draw()
	}
	if err := next.cfg.check(); err != nil {
		return err
	}
	if err := next.rerun(); err != nil {
		return err
	}
	if name == "algo" {
		// The other algorithm's steps are other things: its run starts
		// at its beginning, not at the step number the last one was at.
		_ = next.player.Stepper().Seek(0)
	}
	*s = next
	return nil
}

// oirAt is the run as far as the stepper has revealed it.
type oirAt struct {
	phase  *optim.OIRPhase // the phase under way (nil before the first)
	idx    int             // its number, 1-based
	groups int             // its groups that have run
	gate, keep, release,
	stop bool
	gradients int64 // item gradients evaluated so far
}

// at reads the shown steps.
func (s *Scene) at() oirAt {
	var a oirAt
	st := s.player.Stepper()
	if st == nil {
		return a
	}
	for _, step := range st.Shown() {
		switch step.Kind {
		case optim.KindOIRPhase:
			a.idx++
			a.phase = &s.res.Phases[a.idx-1]
			a.groups, a.gate, a.keep, a.release = 0, false, false, false
		case optim.KindOIRGroup:
			a.groups++
			a.gradients += int64(a.phase.Steps)
		case optim.KindOIRGate:
			a.gate = true
		case optim.KindOIRKeep:
			a.keep = true
		case optim.KindOIRRelease:
			a.release = true
		case optim.KindOIRStop:
			a.stop = true
		}
	}
	return a
}

// shownPhase is the phase the figure shows: the one under way, or the
// first before the run starts.
func (s *Scene) shownPhase(a oirAt) *optim.OIRPhase {
	if a.phase != nil {
		return a.phase
	}
	return &s.res.Phases[0]
}

// Readouts lists the run's numbers at the stepper's position.
func (s *Scene) Readouts() []viz.Readout {
	if s.err != nil {
		return viz.FailedReadouts("cannot run", s.err)
	}
	if s.cfg.algo == algoAccel {
		return s.accelReadouts()
	}
	a := s.at()
	c := s.cfg
	ph := s.shownPhase(a)
	C := s.res.Groups
	r := []viz.Readout{
		{Name: "phase", Label: "phase", Value: float64(ph.I),
			Text: format.Sprintf("%d of %d: %d fresh users in C = %d groups of N = %d, so T = N·m = %d SGD steps per group with η = %.3g, from %s",
				ph.I, len(s.res.Phases), ph.Users, C, ph.PerGroup, ph.Steps, ph.Eta, trace.Vec(ph.Start))},
		{Name: "tau", Label: "radius τ", Value: ph.Tau, Text: format.Sprintf("%.4g", ph.Tau), Formula: oirTauFormula(c, ph)},
	}
	if a.gate {
		lap := ph.Score + ph.ScoreNoise
		verdict := "≥ 4C/5: pass"
		switch {
		case c.mode == privacy.NonPrivate:
			verdict = "— non-private: no gate is applied, the phase goes on"
		case !ph.Passed:
			verdict = "< 4C/5: halt, output 0"
		}
		r = append(r,
			viz.Readout{Name: "score", Label: "score s", Value: ph.Score,
				Text:    format.Sprintf("%.4g of C = %d (gate 4C/5 = %.4g; the proof needs 2C/3 = %.4g)", ph.Score, C, ph.Gate, 2*float64(C)/3),
				Formula: "(1/C)·#{(j, k): ‖x̃_j − x̃_k‖ ≤ τ}, pairs (j, j) included"},
			viz.Readout{Name: "gate", Label: "noisy score ŝ", Value: lap, Warn: !ph.Passed,
				Text:    format.Sprintf("%.4g %s (chance of passing at this score: %.3g)", lap, verdict, ph.PPass),
				Formula: oirGateFormula(c, s.res.Groups)})
	}
	if a.keep {
		r = append(r, viz.Readout{Name: "kept", Label: "groups kept", Value: float64(len(ph.Kept)), Warn: len(ph.Kept) == 0,
			Text:    format.Sprintf("%d of %d%s", len(ph.Kept), C, oirDropped(ph)),
			Formula: "keep group j with p(h_j): 0 below C/2, 1 from 2C/3, linear between; h_j = end iterates within 2τ of x̃_j"})
	}
	r = append(r, viz.Readout{Name: "sigma", Label: "σ of the release", Value: ph.Sigma, Text: format.Sprintf("%.4g (%.3g τ)", ph.Sigma, ph.Sigma/ph.Tau),
		Formula: oirSigmaFormula(c)})
	r = append(r, viz.Readout{Name: "gradients", Label: "gradients", Value: float64(a.gradients),
		Text: format.Sprintf("%d item gradients so far, of n·m = %d: every item is used at most once (linear time). %s", a.gradients, c.n*c.m, s.accelText())})
	if a.stop && !s.res.Halted || a.release && a.idx == len(s.res.Phases) {
		out := s.res.Output
		d := math.Hypot(out[0]-s.opt[0], out[1]-s.opt[1])
		r = append(r, viz.Readout{Name: "output", Label: "output x̂", Value: d,
			Text: format.Sprintf("%s, %.3g from the minimiser x* = %s", trace.Vec(out), d, trace.Vec(s.opt))})
	}
	if s.res.Stop != "" {
		r = append(r, viz.Readout{Name: "stop", Label: "phases end early", Text: s.res.Stop + ": the run outputs the last phase's point"})
	}
	return r
}

// accelText compares the accelerated variant's cost on these users.
func (s *Scene) accelText() string {
	capped := ""
	for _, r := range s.accel {
		if r.Capped {
			capped = "; its printed K_i exceeds n_i here and is capped"
			break
		}
	}
	return format.Sprintf("The accelerated variant (Algorithm 3) would take %d over as many phases: T_i steps of K_i users' m items%s",
		optim.AccelGradients(s.accel, s.cfg.m), capped)
}

// oirDropped names the groups the coins dropped.
func oirDropped(ph *optim.OIRPhase) string {
	var out []string
	k := 0
	for j := range ph.Keep {
		if k < len(ph.Kept) && ph.Kept[k] == j {
			k++
			continue
		}
		out = append(out, strconv.Itoa(j+1))
	}
	if len(out) == 0 {
		return ""
	}
	return "; dropped: group " + strings.Join(out, ", ")
}

// oirTauFormula says where τ_i comes from.
func oirTauFormula(c oirConfig, ph *optim.OIRPhase) string {
	scale := "1000"
	if c.mode != privacy.Paper {
		scale = format.Sprintf("%.3g", c.tauScale)
	}
	return format.Sprintf("%s·η_i·L·√T_i·ln(ndm) with η_i = %.3g, L = %.3g, T_i = %d", scale, ph.Eta, oirL, ph.Steps)
}

// oirGateFormula states the gate's noise.
func oirGateFormula(c oirConfig, groups int) string {
	if c.mode == privacy.NonPrivate {
		return "no noise (non-private): the gate passes"
	}
	return format.Sprintf("s + Lap(20/ε), 20/ε = %.3g; one group moves s by at most 2(C−1)/C = %.3g", 20/c.eps, 2*float64(groups-1)/float64(groups))
}

// oirSigmaFormula derives σ_i.
func oirSigmaFormula(c oirConfig) string {
	switch c.mode {
	case privacy.NonPrivate:
		return "no noise (non-private)"
	case privacy.Sound:
		return "the analytic Gaussian for the kept mean's sensitivity min(10τ, 30τ(2 + k)/C) at the ε left after the gate (erratum A30)"
	}
	return "100·τ_i·ln²(n/δ)/(ε·C), as printed"
}

// Guarantee is the run's.
func (s *Scene) Guarantee() privacy.Guarantee {
	if s.err != nil {
		return privacy.Guarantee{Eps: math.Inf(1), Mode: s.cfg.mode, Note: s.err.Error()}
	}
	if s.cfg.algo == algoAccel {
		return s.acc.Guarantee
	}
	return s.res.Guarantee
}

// Trace returns the run.
func (s *Scene) Trace() *trace.Trace {
	if st := s.player.Stepper(); st != nil {
		return st.Trace()
	}
	return nil
}

// Dataset returns the users' items, for reading only.
func (s *Scene) Dataset() *dataset.Dataset { return s.cfg.data() }

// LoadDataset replaces the users' items and reruns with the same seed.
func (s *Scene) LoadDataset(d *dataset.Dataset) error {
	if err := viz.Fits(d, s.cfg.n, s.cfg.m); err != nil {
		return err
	}
	next := *s
	next.cfg.users = make([][]float64, d.N())
	for u := range d.Users {
		next.cfg.users[u] = slices.Clone(d.Users[u].Points)
	}
	if err := next.rerun(); err != nil {
		return err
	}
	*s = next
	return nil
}

// Describe says what the figure shows: the users' items, the groups'
// iterates and, at a phase's end, which groups the ramp keeps.
func (s *Scene) Describe() string {
	c := s.cfg
	algo := map[string]string{algoOIR: "Outlier-iterate removal", algoAccel: "Outlier-iterate removal's accelerated variant"}[c.algo]
	return format.Sprintf("%s on %d users of %d items in the unit ball (a user's items are dragged together; the phase shown colours its users by group, the others grey): %d groups run SGD side by side for %d phases, and at each phase's end the iterates that stray from the others are dropped; x* marks the minimiser at (%.3f, %.3f). ",
		algo, c.n, c.m, c.groups, c.phases, s.opt[0], s.opt[1]) +
		viz.Recite(s.Readouts(), "phase", "tau", "score", "gate", "kept", "stop", "sigma", "output", "gradients")
}

// ItemName names one of a user's items (a drag moves them all).
func (s *Scene) ItemName(id int) string {
	m := s.cfg.m
	if id < 1 || id > s.cfg.n*m {
		return ""
	}
	u, k := (id-1)/m, (id-1)%m
	it := s.cfg.users[u][2*k:]
	return format.Sprintf("user %d's item %d at (%.3f, %.3f), which moves all %d of its items", u+1, k+1, it[0], it[1], m)
}
