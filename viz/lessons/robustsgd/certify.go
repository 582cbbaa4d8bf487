package robustsgd

import (
	"math"

	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/privacy"
)

// maxBatch is the batch slider's top.
const maxBatch = 500

// Certify finds the nearest settings sound mode certifies: the same users,
// ε and δ, the squared loss and the paper's threshold, the smallest batch
// B from today's whose bad batch passes its test with chance at most
// δ/(2e^ε), and the longest step the proof then allows, η = 1/(6βB). The
// lesson opens on a longer step on purpose: at η = 1/(6βB) a step moves
// the model 1/(6B) of the way to its batch's estimate, too little to see.
func (s *Scene) Certify() (why string, settings [][2]string, ok bool) {
	g := s.Guarantee()
	if g.Certified() || g.Mode == privacy.NonPrivate || math.IsInf(g.Eps, 1) {
		return "", nil, false
	}
	c := s.cfg
	c.mode, c.lossName, c.thresh = privacy.Sound, lossSquared, threshPaper
	beta := c.loss().Beta(2)
	certifies := func(b int) bool {
		c.batch, c.eta = b, roundDown(1/(6*beta*float64(b)))
		return c.params().Guarantee(c.n, c.m, 2, c.algo == algoLOC).Certified()
	}
	// A larger batch only widens the gap between a bad batch's score and
	// the threshold, so the smallest B that certifies is found by bisection
	// (Controls asks on every frame: a dozen guarantees, not hundreds).
	lo, hi := max(s.cfg.batch, 3), min(maxBatch, c.n)
	if lo > hi || !certifies(hi) {
		return format.Sprintf("No batch up to B = %d certifies %d users at this ε and δ in sound mode: more users, or a larger ε or δ, would.", hi, c.n), nil, true
	}
	for lo < hi {
		if mid := (lo + hi) / 2; certifies(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	certifies(hi)
	why = format.Sprintf("The lesson opens with steps long enough to see. Sound mode certifies these %d users at this ε and δ only with B ≥ %d users per step (so that a batch with no crowd passes its test with chance ≤ δ/(2e^ε)) and 6βηB ≤ 1, so η ≤ %.3g: each step then moves the model 1/%d of the way to its batch's estimate, too little to see.",
		c.n, hi, c.eta, 6*hi)
	return why, [][2]string{{"mode", "sound"}, {"loss", lossSquared}, {"threshold", threshPaper},
		{"batch", format.Sprint(hi)}, {"eta", format.Sprintf("%.3g", c.eta)}}, true
}

// roundDown rounds x down to three significant digits, so the step the
// button sets reads well and still meets 6βηB ≤ 1.
func roundDown(x float64) float64 {
	e := math.Pow(10, math.Floor(math.Log10(x))-2)
	return math.Floor(x/e) * e
}
