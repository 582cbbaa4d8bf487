package dpsgd

import (
	"math"

	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/privacy"
)

// maxUsers and usersStep are the n slider's top and step.
const maxUsers, usersStep = 1000, 10

// Certify finds the fewest users, from today's and on the n slider's
// steps, at which sound mode certifies the run's ORME at this ε, δ and T.
// The lesson opens in paper mode on purpose: the printed constants at
// work, on users few enough to drag as crowds.
func (s *Scene) Certify() (why string, settings [][2]string, ok bool) {
	g := s.Guarantee()
	if g.Certified() || g.Mode == privacy.NonPrivate || math.IsInf(g.Eps, 1) {
		return "", nil, false
	}
	// More users only widen the crowd's margin over the gate's noise, so
	// the fewest that certify are found by bisection, in slider steps.
	lo, hi := (s.n+usersStep-1)/usersStep, maxUsers/usersStep
	if !s.certifies(hi * usersStep) {
		return format.Sprintf("Sound mode, with the corrected constants, certifies no run on up to %d users at this ε, δ and T: a larger ε or δ, or fewer steps, would.", maxUsers), nil, true
	}
	for lo < hi {
		if mid := (lo + hi) / 2; s.certifies(mid * usersStep) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	n := hi * usersStep
	why = format.Sprintf("This run is not certified: the lesson opens on %d users. Sound mode, with the corrected constants, certifies only from %d users at this ε, δ and T.", s.n, n)
	if s.params.Mode == privacy.Paper {
		why = format.Sprintf("Paper mode runs the constants as printed, and their proof has a gap (erratum A13). Sound mode, with the corrected constants, certifies only from %d users at this ε, δ and T: the lesson opens on %d.", n, s.n)
	}
	return why, [][2]string{{"mode", "sound"}, {"n", format.Sprint(n)}}, true
}

// certifies reports whether sound mode certifies the run on n users, the
// other settings as they are.
func (s *Scene) certifies(n int) bool {
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
