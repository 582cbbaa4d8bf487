package outlierremoval

import (
	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/viz"
)

// Certify finds the fewest users at which sound mode certifies the gate
// and the release at this ε and δ (τ plays no part), and moves to them
// from fewer. The lesson opens in paper mode on few users on purpose: the
// printed constants at work, and every user large enough to see and drag.
func (s *Scene) Certify() (why string, settings [][2]string, ok bool) {
	p := s.params
	p.Mode = privacy.Sound
	// More users only widen the crowd's margin over the gate's noise.
	need, ok := viz.Least(4, outlierMaxUsers, func(n int) bool {
		c, err := p.Calibrate(n)
		return err == nil && c.Guarantee().Certified()
	})
	if !ok {
		return format.Sprintf("Sound mode, with the corrected constants, certifies no crowd of up to %d users at this ε and δ: a larger ε or δ would.", outlierMaxUsers), nil, true
	}
	why = viz.UsersNeeded(s.params.Mode == privacy.Paper, "erratum A13", need, s.n, "ε and δ")
	return why, [][2]string{{"mode", "sound"}, {"n", format.Sprint(max(need, s.n))}}, true
}
