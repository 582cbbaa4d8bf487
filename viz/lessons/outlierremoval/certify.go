package outlierremoval

import (
	"math"

	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/privacy"
)

// Certify finds the fewest users, from today's, at which sound mode
// certifies the gate and the release at this ε, δ and τ. The lesson opens
// in paper mode on few users on purpose: the printed constants at work,
// and every user large enough to see and drag.
func (s *Scene) Certify() (why string, settings [][2]string, ok bool) {
	g := s.Guarantee()
	if g.Certified() || g.Mode == privacy.NonPrivate || math.IsInf(g.Eps, 1) {
		return "", nil, false
	}
	p := s.params
	p.Mode = privacy.Sound
	certifies := func(n int) bool {
		c, err := p.Calibrate(n)
		return err == nil && c.Guarantee().Certified()
	}
	// More users only widen the crowd's margin over the gate's noise, so
	// the fewest that certify are found by bisection.
	lo, hi := max(s.n, 4), outlierMaxUsers
	if !certifies(hi) {
		return format.Sprintf("Sound mode, with the corrected constants, certifies no crowd of up to %d users at this ε, δ and τ: a larger ε, δ or τ would.", hi), nil, true
	}
	for lo < hi {
		if mid := (lo + hi) / 2; certifies(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	why = format.Sprintf("This run is not certified: the lesson opens on %d users, few enough to see and drag each one. Sound mode, with the corrected constants, certifies only from %d users at this ε, δ and τ.", s.n, hi)
	if s.params.Mode == privacy.Paper {
		why = format.Sprintf("Paper mode runs the constants as printed, and their proof has a gap (erratum A13). Sound mode, with the corrected constants, certifies only from %d users at this ε, δ and τ: the lesson opens on %d, few enough to see and drag each one.", hi, s.n)
	}
	return why, [][2]string{{"mode", "sound"}, {"n", format.Sprint(hi)}}, true
}
