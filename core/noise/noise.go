// Package noise holds the distributions ULDP Lab's mechanisms draw from:
// Laplace, Gaussian, the shifted truncated discrete Laplace TDLap of Ghazi et
// al. (2023, Def. 3.4), an integer-exact discrete Laplace and geometric, and
// the uniform distribution on a d-ball used for randomized smoothing.
//
// Each distribution is a small struct in the style of gonum's distuv: its
// parameters, a Src to draw from, and methods Rand, Prob or PMF, CDF, Mean and
// Variance. A nil Src is a programming error (it would silently fall back to
// an unseeded generator and break replay), so Rand panics on it.
package noise

import "math/rand/v2"

// uniform53 returns a uniform float64 in [0, 1) from the top 53 bits of one
// draw: every representable value k·2⁻⁵³ has probability exactly 2⁻⁵³.
func uniform53(src rand.Source) float64 {
	return float64(src.Uint64()>>11) * 0x1p-53
}

func mustSrc(src rand.Source) rand.Source {
	if src == nil {
		panic("noise: nil Src (take one from rng.Streams)")
	}
	return src
}

// randOf returns src as a generator: itself when it already is one (the
// streams rng hands out are), so a draw allocates no wrapper.
func randOf(src rand.Source) *rand.Rand {
	if r, ok := src.(*rand.Rand); ok {
		return r
	}
	return rand.New(mustSrc(src))
}
