package outlieriterates

import (
	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/viz"
)

// maxGroups is the groups slider's top; minUsers and usersStep the n
// slider's bottom and step.
const maxGroups, minUsers, usersStep = 500, 40, 10

// Certify finds the fewest groups at which sound mode certifies the gate
// at this ε and δ, and the fewest users whose first phase gives each of
// them one, and moves to them from fewer. The lesson opens on 20 groups
// on purpose: groups of many users, whose iterates and strays can be seen.
func (s *Scene) Certify() (why string, settings [][2]string, ok bool) {
	if s.cfg.algo == algoAccel {
		return "The accelerated variant has no corrected calibration yet (erratum A40), so no setting certifies it: its guarantee says what is missing.", nil, true
	}
	c := s.cfg
	c.mode = privacy.Sound
	// More groups only widen the gap 2C/15 − Δ_s the gate's noise must
	// bridge to pass a bad phase (from C = 4 on; fewer never certify);
	// more users only fill the first phase.
	need, ok := viz.Least(2, maxGroups, func(groups int) bool {
		c.groups = groups
		p := c.params()
		return p.Validate(max(c.n, groups), 2) == nil && p.Guarantee(max(c.n, groups), c.m, 2).Certified()
	})
	if !ok {
		return format.Sprintf("Sound mode certifies the gate of no run of up to %d groups at this ε and δ: its Laplace noise would too often pass a phase whose iterates disagree. A larger ε or δ would.", maxGroups), nil, true
	}
	c.groups = max(need, s.cfg.groups)
	// Users enough to run as many of the phases asked for as the n slider
	// reaches, each group getting a user in each: a run of one phase of
	// lone users shows little. More users never shorten the schedule:
	// every phase's share grows.
	phases := func(k int) int { return len(c.params().Schedule(k*usersStep, c.m, 2)) }
	most := phases(oirMaxUsers / usersStep)
	k, ok := viz.Least(minUsers/usersStep, oirMaxUsers/usersStep, func(k int) bool { return phases(k) >= most })
	what := format.Sprintf("each one a user in each of %d phases", most)
	if most == 1 {
		what = "each one a user in the first phase"
	}
	if !ok || most == 0 {
		return format.Sprintf("Sound mode certifies the gate only from C = %d groups at this ε and δ, and %d users are too few to give each of %d groups one in the first phase.", need, oirMaxUsers, c.groups), nil, true
	}
	users := k * usersStep
	why = format.Sprintf("Sound mode certifies the gate only from C = %d groups at this ε and δ: its Laplace noise, of scale 20/ε, must almost never bridge the gap 2C/15 − Δ_s between the gate 4C/5 and the proof's 2C/3 + Δ_s. %d groups need at least %d users, to give %s: the lesson opens on 20 groups of many users, so that iterates and strays can be seen.",
		need, c.groups, users, what)
	return why, [][2]string{{"mode", "sound"}, {"n", format.Sprint(max(users, s.cfg.n))}, {"groups", format.Sprint(c.groups)}}, true
}
