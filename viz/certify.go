package viz

import (
	"math"

	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/privacy"
)

// uncertified reports whether g claims privacy its proof does not cover:
// the runs a Certifier speaks of. A certified run needs no word, and a
// non-private one claims nothing.
func uncertified(g privacy.Guarantee) bool {
	return !g.Certified() && g.Mode != privacy.NonPrivate && !math.IsInf(g.Eps, 1)
}

// Least returns the least x in [lo, hi] at which ok holds, for an ok that
// stays true as x grows once it holds (more users, a larger batch, more
// groups: a wider margin), by bisection; false when ok(hi) fails.
func Least(lo, hi int, ok func(int) bool) (int, bool) {
	if lo > hi || !ok(hi) {
		return 0, false
	}
	for lo < hi {
		if mid := lo + (hi-lo)/2; ok(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return hi, true
}

// UsersNeeded is the line of a Certifier whose run sound mode certifies
// only from need users at the settings named by at ("ε and δ"), where
// the lesson has have. In paper mode it first names the gap in the printed
// constants' proof (gap: "erratum A13").
func UsersNeeded(paper bool, gap string, need, have int, at string) string {
	lead := "This run is not certified."
	if paper {
		lead = format.Sprintf("Paper mode runs the constants as printed, and their proof has a gap (%s).", gap)
	}
	if have >= need {
		return format.Sprintf("%s Sound mode, with the corrected constants, certifies it from %d users at this %s: these %d suffice.", lead, need, at, have)
	}
	return format.Sprintf("%s Sound mode, with the corrected constants, certifies it only from %d users at this %s: the lesson opens on %d, few enough to see and drag each one.", lead, need, at, have)
}
