package dpsgd

import (
	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/viz"
)

// minUsers, maxUsers and usersStep are the n slider's range and step.
const minUsers, maxUsers, usersStep = 20, 1000, 10

// Certify finds the fewest users, on the n slider's steps, at which sound
// mode certifies the run's ORME at this ε, δ, T and m, and moves to them
// from fewer. The lesson opens in paper mode on purpose: the printed
// constants at work, on users few enough to drag as crowds.
func (s *Scene) Certify() (why string, settings [][2]string, ok bool) {
	// More users only widen the crowd's margin over the gate's noise.
	k, ok := viz.Least(minUsers/usersStep, maxUsers/usersStep, func(k int) bool { return s.certifies(k * usersStep) })
	if !ok {
		return format.Sprintf("Sound mode, with the corrected constants, certifies no run on up to %d users at this ε, δ, T and m: a larger ε or δ, or fewer steps or items, would.", maxUsers), nil, true
	}
	need := k * usersStep
	why = viz.UsersNeeded(s.params.Mode == privacy.Paper, "erratum A13", need, s.n, "ε, δ, T and m")
	return why, [][2]string{{"mode", "sound"}, {"n", format.Sprint(max(need, s.n))}}, true
}

// certifies reports whether sound mode certifies the run on n users, the
// other settings as they are.
func (s *Scene) certifies(n int) bool {
	if s.algo == algoLocal {
		return s.localCertified(n)
	}
	mode, n0, set := s.params.Mode, s.n, s.settings
	defer func() { s.params.Mode, s.n, s.settings = mode, n0, set }()
	s.params.Mode, s.n = privacy.Sound, n
	p, err := s.runParams()
	if err != nil {
		return false
	}
	c, err := p.ORME(n, s.m, 2).Calibrate(n)
	return err == nil && p.Guarantee(c).Certified()
}
