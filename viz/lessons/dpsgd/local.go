package dpsgd

import (
	"math"
	"strings"

	"github.com/uldplab/uldp/core/cancel"
	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/optim"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/core/trace"
	"github.com/uldplab/uldp/viz"
)

// The algorithms lesson 6 runs: Paper B's Algorithm 3 on the distance
// loss, or its Algorithm 4, the localisation for strongly convex losses.
const (
	algoConvex = "convex"
	algoLocal  = "localised"
)

// The localisation's loss is (μ/2)‖θ − z‖² with items in the disk of
// radius R_X: its gradients are bounded by G = μ(R + R_X) = 2 on Θ.
const (
	localMu = 1.0
	localRX = 1.0
)

// localParams are the localisation's settings: the lesson's ε, δ and mode,
// T capping each phase's steps, smoothing as the switch says.
func (s *Scene) localParams() optim.DPSGDSCParams {
	return optim.DPSGDSCParams{Eps: s.params.Eps, Delta: s.params.Delta, Mu: localMu, Radius: s.params.Radius, RX: localRX,
		Steps: s.params.Steps, Mode: s.params.Mode, Unsmoothed: !s.smooth, Record: true, KeepValues: true}
}

// localCheck refuses settings whose phases cannot run: too few users for
// the halving groups, or a phase's DP-SGD or ORME refusing its settings.
func (s *Scene) localCheck() error {
	_, err := s.localParams().Promise(s.n, s.m, 2)
	return err
}

// localCertified reports whether sound mode certifies every phase of the
// localisation on n users, the other settings as they are.
func (s *Scene) localCertified(n int) bool {
	p := s.localParams()
	p.Mode = privacy.Sound
	g, err := p.Promise(n, s.m, 2)
	return err == nil && g.Certified()
}

// itemMean is the squared loss's minimiser over the disk of radius r: the
// items' mean, projected.
func itemMean(d *dataset.Dataset, r float64) []float64 {
	x := mean(d)
	if h := math.Hypot(x[0], x[1]); h > r {
		x[0], x[1] = x[0]*r/h, x[1]*r/h
	}
	return x[:]
}

// mean is the items' mean.
func mean(d *dataset.Dataset) [2]float64 {
	var x [2]float64
	k := 0
	for i := range d.Users {
		for j := range d.Items(i) {
			it := d.Item(i, j)
			x[0], x[1], k = x[0]+it[0], x[1]+it[1], k+1
		}
	}
	return [2]float64{x[0] / float64(k), x[1] / float64(k)}
}

// runLocal runs the localisation (the stepper walks every phase's SGD
// steps, then the phase's answer); no baseline runs beside it.
func (s *Scene) runLocal(ctx cancel.Context, progress func(done, total int64)) {
	s.stage = "the localisation's phases"
	p := s.localParams()
	run := func(ctx cancel.Context, d *dataset.Dataset, st *rng.Streams) (*trace.Trace, error) {
		res, tr, err := optim.DPSGDSC(ctx, p, d, st, progress)
		if err != nil {
			return nil, err
		}
		s.sc = res
		return only(tr, optim.KindSGDStep, optim.KindSCPhase), nil
	}
	st, err := trace.NewStepper(ctx, run, s.data, rng.New(s.seed))
	if s.err = err; err != nil {
		return
	}
	s.res, s.base = optim.DPSGDResult{}, optim.DPSGDResult{}
	s.excess = [2]float64{s.risk(s.sc.Theta) - s.risk(s.best), math.NaN()}
	s.player.Replace(st)
}

// localAt is where the stepper stands in the localisation.
type localAt struct {
	phase int // the phase shown, an index into the run's phases
	step  int // its SGD steps shown (a halted phase's failed step once it ends)
	done  int // the phases finished
	// ended says the phase shown has just given its answer: the next step
	// starts the next phase.
	ended bool
}

// localAt reads the shown steps.
func (s *Scene) localAt() localAt {
	var a localAt
	for _, st := range s.player.Stepper().Shown() {
		switch st.Kind {
		case optim.KindSGDStep:
			if a.ended {
				a.phase, a.step, a.ended = a.done, 0, false
			}
			a.step++
		case optim.KindSCPhase:
			if h := s.sc.Phases[a.done].Halted; h > 0 {
				a.step = h
			}
			a.phase, a.done, a.ended = a.done, a.done+1, true
		}
	}
	return a
}

// firstUser is the index of phase i's first user: the groups take the
// users in file order.
func (s *Scene) firstUser(i int) int {
	lo := 0
	for _, ph := range s.sc.Phases[:i] {
		lo += ph.Users
	}
	return lo
}

// localReadouts lists the localisation's numbers at the stepper's position.
func (s *Scene) localReadouts() []viz.Readout {
	a := s.localAt()
	ph := &s.sc.Phases[a.phase]
	lo := s.firstUser(a.phase)
	wide := ""
	if ph.RHat >= 2*s.params.Radius {
		wide = format.Sprintf(", wider than Θ's diameter %g: no localisation yet", 2*s.params.Radius)
	}
	set := ph.Settings
	end := ""
	if a.ended {
		end = format.Sprintf("; it answered %s", trace.Vec(ph.Theta))
	}
	r := []viz.Readout{
		{Name: "phase", Label: "phase", Value: float64(ph.I),
			Text: format.Sprintf("%d of %d: %d fresh users (%d to %d in file order), starting from %s, whose expected squared distance to θ* the proof bounds by R̂², R̂ = %.3g%s%s",
				ph.I, len(s.sc.Phases), ph.Users, lo+1, lo+ph.Users, trace.Vec(ph.Start), ph.RHat, wide, end),
			Formula: "n_i = ⌊n/2^(k+1−i)⌋, k = ⌈log₂ log₂(mn)⌉; R̂_i = √(2D_(i−1)/μ), D_i from Theorem 4.1's error bound E_i"},
		{Name: "settings", Label: "T, η, r, τ", Text: format.Sprintf("%d, %.3g, %.3g, %.3g", set.Steps, set.Eta, set.Smoothing, set.Tau),
			Formula: "Theorem 4.1 for the phase's R̂_i and n_i"},
		{Name: "sigma", Label: "ORME's σ per step", Value: ph.Run.ORME.Sigma, Text: format.Sprintf("%.3g", ph.Run.ORME.Sigma), Formula: ph.Run.ORME.SigmaFormula()},
	}
	var halted []string
	for _, p := range s.sc.Phases[:a.done] {
		if p.Halted > 0 {
			halted = append(halted, format.Sprintf("phase %d at step %d", p.I, p.Halted))
		}
	}
	if len(halted) > 0 {
		r = append(r, viz.Readout{Name: "halted", Label: "halted", Value: float64(len(halted)), Warn: true,
			Text: format.Sprintf("the gate failed in %s: a halted phase answers its start, which the next phase starts from", strings.Join(halted, ", "))})
	}
	sizes, radii := make([]string, len(s.sc.Phases)), make([]string, len(s.sc.Phases))
	used := 0
	for i, p := range s.sc.Phases {
		sizes[i], radii[i] = format.Sprint(p.Users), format.Sprintf("%.3g", p.RHat)
		used += p.Users
	}
	r = append(r,
		viz.Readout{Name: "phases", Label: "all phases", Value: float64(len(s.sc.Phases)),
			Text:    format.Sprintf("users %s of n = %d (the last %d unused); R̂ %s", strings.Join(sizes, ", "), s.n, s.n-used, strings.Join(radii, ", ")),
			Formula: "each phase at the full (ε, δ) on its own users: parallel composition"},
		viz.Readout{Name: "excess", Label: "excess risk of θ̂", Value: s.excess[0], Text: format.Sprintf("%.3g (at most %g on Θ)", s.excess[0], 2*s.params.Radius*s.params.Radius*localMu),
			Formula: "L(θ̂) − L(θ*), L the mean of ½‖θ − z‖² over the items"})
	return r
}
