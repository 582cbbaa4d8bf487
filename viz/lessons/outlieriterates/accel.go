package outlieriterates

import (
	"math"

	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/mech"
	"github.com/uldplab/uldp/core/optim"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/trace"
	"github.com/uldplab/uldp/viz"
)

// accelAt is the accelerated run as far as the stepper has revealed it.
type accelAt struct {
	phase *optim.AccelPhase // the phase under way (nil before the first)
	idx   int               // its number, 1-based
	// threshold says the phase's noisy threshold is drawn; compared that
	// step t's noisy score is; step the steps done (halted included).
	threshold bool
	compared  int
	step      int
	gradients int64
}

// accelAt reads the shown steps.
func (s *Scene) accelAt() accelAt {
	var a accelAt
	st := s.player.Stepper()
	if st == nil {
		return a
	}
	for _, step := range st.Shown() {
		switch step.Kind {
		case optim.KindAccelPhase:
			a.idx++
			a.phase = &s.acc.Phases[a.idx-1]
			a.threshold, a.compared, a.step = false, 0, 0
		case mech.KindATThreshold:
			a.threshold = true
		case mech.KindATCompare:
			a.compared++
		case optim.KindAccelStep, optim.KindAccelHalt:
			a.step++
			a.gradients += int64(a.phase.Batch * s.cfg.m)
		}
	}
	return a
}

// accelShown is the phase the figure shows: the one under way, or the
// first before the run starts.
func (s *Scene) accelShown(a accelAt) *optim.AccelPhase {
	if a.phase != nil {
		return a.phase
	}
	return &s.acc.Phases[0]
}

// current is the step last done, or nil.
func (a accelAt) current() *optim.AccelStep {
	if a.phase == nil || a.step == 0 {
		return nil
	}
	return &a.phase.Steps[a.step-1]
}

// accelReadouts lists the accelerated run's numbers at the stepper's
// position.
func (s *Scene) accelReadouts() []viz.Readout {
	a := s.accelAt()
	c := s.cfg
	ph := s.accelShown(a)
	r := []viz.Readout{
		{Name: "phase", Label: "phase", Value: float64(ph.I),
			Text: format.Sprintf("%d of %d: %d fresh users; %d AC-SA steps, each on K = %d of them; λ = %.3g pulls towards the start %s",
				ph.I, len(s.acc.Phases), ph.Users, ph.AccelRow.Steps, ph.Batch, ph.Lambda, trace.Vec(ph.Start))},
		{Name: "tau", Label: "radius τ", Value: ph.Tau, Text: format.Sprintf("%.4g", ph.Tau),
			Formula: format.Sprintf("%s·L·ln(ndm)/√m, the same in every phase", accelScale(c.mode, c.tauScale, "1"))},
	}
	if st := a.current(); st != nil {
		verdict := format.Sprintf("≥ Δ̂ = %.4g: the step goes on", st.Threshold)
		if !st.Passed {
			verdict = format.Sprintf("< Δ̂ = %.4g: the phase halts and returns 0", st.Threshold)
		}
		if c.mode == privacy.NonPrivate {
			verdict = "(non-private: no check)"
		}
		r = append(r,
			viz.Readout{Name: "score", Label: format.Sprintf("score of step %d", st.T), Value: st.Score, Warn: !st.Passed,
				Text:    format.Sprintf("%.4g of K = %d; noisy %.4g %s", st.Score, ph.Batch, st.NoisyScore, verdict),
				Formula: "(1/K)·#{(i, j): ‖q_i − q_j‖ ≤ 2τ} over the K users' gradients q_i; AboveThreshold at ε/2, one threshold draw per phase"})
		if st.Passed {
			r = append(r, viz.Readout{Name: "kept", Label: "users kept", Value: float64(len(st.Kept)),
				Text:    format.Sprintf("%d of %d", len(st.Kept), ph.Batch),
				Formula: "keep user i with p(h_i) on the ramp, h_i = gradients within 2τ of q_i"})
		}
	}
	r = append(r, viz.Readout{Name: "sigma", Label: "σ per step", Value: ph.Sigma, Text: format.Sprintf("%.4g (%.3g τ)", ph.Sigma, ph.Sigma/ph.Tau),
		Formula: accelSigmaFormula(c)})
	oir := format.Sprintf("outlier-iterate removal takes %d on the same users, one pass", s.res.Gradients)
	if len(s.res.Phases) == 0 {
		oir = "outlier-iterate removal cannot run these settings (" + s.res.Stop + ")"
	}
	r = append(r, viz.Readout{Name: "gradients", Label: "gradients", Value: float64(a.gradients),
		Text: format.Sprintf("%d item gradients so far (K·m a step); the whole run takes %d, n·m = %d; %s",
			a.gradients, s.acc.Gradients, c.n*c.m, oir)})
	if s.accelDone(a) {
		out := s.acc.Output
		d := math.Hypot(out[0]-s.opt[0], out[1]-s.opt[1])
		r = append(r, viz.Readout{Name: "output", Label: "output x̂", Value: d,
			Text: format.Sprintf("%s, %.3g from the minimiser x* = %s", trace.Vec(out), d, trace.Vec(s.opt))})
	}
	return r
}

// accelDone says the stepper has reached the run's end.
func (s *Scene) accelDone(a accelAt) bool {
	last := &s.acc.Phases[len(s.acc.Phases)-1]
	return a.idx == len(s.acc.Phases) && a.step == len(last.Steps)
}

// accelScale names a constant: the lesson's outside paper mode.
func accelScale(mode privacy.Mode, v float64, printed string) string {
	if mode == privacy.Paper {
		return printed
	}
	return format.Sprintf("%.3g", v)
}

// accelSigmaFormula derives the accelerated variant's σ_i.
func accelSigmaFormula(c oirConfig) string {
	if c.mode == privacy.NonPrivate {
		return "no noise (non-private)"
	}
	return format.Sprintf("%s·τ·√T_i·(ln(nd/δ) + ε)/(ε·n_i), the printed form (the paper's constant is 1000; its lemma gives only the order: erratum A40)",
		accelScale(c.mode, c.sigmaScale, "1000"))
}
