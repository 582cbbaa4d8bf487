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
	// More users only widen the crowd's margin over the gate's noise; the
	// localisation's first group, n/2^k, shrinks where k steps up, so it
	// tries every n, from the lesson's first: a run certified on fewer
	// users may not be on these.
	lo := minUsers / usersStep
	least := viz.Least
	if s.algo == algoLocal {
		lo, least = max(lo, s.n/usersStep), first
	}
	k, ok := least(lo, maxUsers/usersStep, func(k int) bool { return s.certifies(k * usersStep) })
	if !ok && s.algo == algoLocal {
		return format.Sprintf("Sound mode, with the corrected constants, certifies no localisation on up to %d users at this ε, δ, T and m: each phase's ORME is calibrated for its own group, and the first holds only n/2^k users (%d here).", maxUsers, s.localParams().Plan(s.n, s.m, 2)[0].Users), nil, true
	}
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

// first is the least k in [lo, hi] with ok(k), trying each in turn.
func first(lo, hi int, ok func(int) bool) (int, bool) {
	for k := lo; k <= hi; k++ {
		if ok(k) {
			return k, true
		}
	}
	return 0, false
}
