package outlieriterates

import (
	"math"

	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/privacy"
)

// maxGroups is the groups slider's top, usersStep the n slider's step.
const maxGroups, usersStep = 500, 10

// Certify finds the fewest groups, from today's, at which sound mode
// certifies the gate at this ε and δ. The lesson opens on 20 groups on
// purpose: groups of many users, whose iterates and strays can be seen.
func (s *Scene) Certify() (why string, settings [][2]string, ok bool) {
	g := s.Guarantee()
	if g.Certified() || g.Mode == privacy.NonPrivate || math.IsInf(g.Eps, 1) {
		return "", nil, false
	}
	if s.cfg.algo == algoAccel {
		return "The accelerated variant has no corrected calibration yet (erratum A40), so no setting certifies it: its guarantee says what is missing.", nil, true
	}
	c := s.cfg
	c.mode = privacy.Sound
	certifies := func(groups int) bool {
		c.groups = groups
		p := c.params()
		return p.Validate(max(c.n, groups), 2) == nil && p.Guarantee(max(c.n, groups), c.m, 2).Certified()
	}
	// More groups only widen the gap 2C/15 − Δ_s the gate's noise must
	// bridge to pass a bad phase, so the fewest are found by bisection;
	// then the fewest users (in the n slider's steps) whose first phase
	// gives each group one.
	lo, hi := max(s.cfg.groups, 2), maxGroups
	if !certifies(hi) {
		return format.Sprintf("Sound mode certifies the gate of no run of up to %d groups at this ε and δ: its Laplace noise would too often pass a phase whose iterates disagree. A larger ε or δ would.", hi), nil, true
	}
	for lo < hi {
		if mid := (lo + hi) / 2; certifies(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	c.groups = hi
	runs := func(n int) bool { c.n = n; return len(c.params().Schedule(n, c.m, 2)) > 0 }
	nLo, nHi := (s.cfg.n+usersStep-1)/usersStep, oirMaxUsers/usersStep
	if !runs(nHi * usersStep) {
		return format.Sprintf("Sound mode certifies the gate only from C = %d groups at this ε and δ, and %d users are too few to give each group one in the first phase.", hi, oirMaxUsers), nil, true
	}
	for nLo < nHi {
		if mid := (nLo + nHi) / 2; runs(mid * usersStep) {
			nHi = mid
		} else {
			nLo = mid + 1
		}
	}
	n := nHi * usersStep
	why = format.Sprintf("The lesson opens on %d groups of many users, so that iterates and strays can be seen. Sound mode certifies the gate only from C = %d groups at this ε and δ: its Laplace noise, of scale 20/ε, must almost never bridge the gap 2C/15 − Δ_s between the gate 4C/5 and the proof's 2C/3 + Δ_s. With %d users, its first phase gives each group a single user.",
		s.cfg.groups, hi, n)
	return why, [][2]string{{"mode", "sound"}, {"n", format.Sprint(n)}, {"groups", format.Sprint(hi)}}, true
}
