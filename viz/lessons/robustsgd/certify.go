package robustsgd

import (
	"math"

	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/optim"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/viz"
)

// maxBatch is the batch slider's top.
const maxBatch = 500

// Certify finds the nearest settings sound mode certifies: the same users,
// ε and δ; a loss whose steps never stretch the gap (squared, for the
// coupled one); today's teaching threshold if it certifies, else sound
// mode's own v, else the paper's; the smallest batch B whose bad batch
// passes its test with chance at most δ/(2e^ε) — and, at sound mode's v,
// whose crowd can still pass (v ≤ 0.95B) — or today's if larger; and the
// longest step the proof then allows, the one with 6βηB = 1 in the first
// phase. The lesson opens on longer steps on purpose: at that step the
// model moves 1/(6B) of the way towards a batch's items, too little to
// see.
func (s *Scene) Certify() (why string, settings [][2]string, ok bool) {
	c := s.cfg
	c.mode = privacy.Sound
	if c.lossName == lossCoupled {
		c.lossName = lossSquared
		settings = append(settings, [2]string{"loss", lossSquared})
	}
	beta := c.loss().Beta(2)
	// A-LOC's first phase steps η/b, on n/2 users.
	base, most := 1.0, min(maxBatch, c.n)
	if c.algo == algoLOC {
		base, most = optim.EtaBase(c.m), min(maxBatch, c.n/2)
	}
	eta := func(b int) float64 { return roundDown(base / (6 * beta * float64(b))) }
	// A larger batch widens the gap between a bad batch's score and the
	// threshold (but for dips of a few hundredths where ⌊n/B⌋ drops).
	least := func() (int, bool) {
		return viz.Least(3, most, func(b int) bool {
			c.batch, c.eta = b, eta(b)
			if c.thresh == threshSound && c.params().SoundThreshold() > 0.95*float64(b) {
				return false // private, but no crowd would pass
			}
			return c.check() == nil && c.params().Guarantee(c.n, c.m, 2, c.algo == algoLOC).Certified()
		})
	}
	tries := []string{threshSound, threshPaper}
	if c.thresh != threshPaper && c.thresh != threshSound {
		tries = append([]string{c.thresh}, tries...) // a teaching share first
	}
	need, ok := 0, false
	for _, th := range tries {
		c.thresh = th
		if need, ok = least(); ok {
			if th != s.cfg.thresh {
				settings = append(settings, [2]string{"threshold", th})
			}
			break
		}
	}
	if !ok {
		return format.Sprintf("No batch up to B = %d gives %d users at this ε and δ a run sound mode certifies in which a crowd can pass its test (sound mode's own threshold stays above 0.95B, the printed one lets a batch with no crowd through too often): more users, or a larger ε or δ, would.", most, c.n), nil, true
	}
	b := max(need, s.cfg.batch)
	step := min(s.cfg.eta, eta(b))
	batchWhy := "so that a batch with no crowd passes its test with chance ≤ δ/(2e^ε)"
	if c.thresh == threshSound {
		batchWhy = "the least at which a crowd can still clear sound mode's threshold, v ≤ 0.95B; a batch with no crowd passes it with chance δ/(2e^ε) at any B"
	}
	why = format.Sprintf("Sound mode certifies these %d users at this ε and δ with B ≥ %d users per step (%s) and with 6βηB ≤ 1 in the first phase, here η ≤ %.3g: a step then moves the model at most 1/%d of the way towards its batch's items, too little to see, which is why the lesson opens on longer steps.",
		c.n, need, batchWhy, eta(b), 6*b)
	settings = append(settings, [2]string{"mode", "sound"}, [2]string{"batch", format.Sprint(b)}, [2]string{"eta", format.Sprintf("%.3g", step)})
	return why, settings, true
}

// roundDown rounds x down to three significant digits, so the step the
// button sets reads well and still meets 6βηB ≤ 1.
func roundDown(x float64) float64 {
	e := math.Pow(10, math.Floor(math.Log10(x))-2)
	return math.Floor(x/e) * e
}
