package stability

import (
	"math"

	"github.com/uldplab/uldp/core/privacy"
)

// Certify says why no setting of this lesson certifies its run: the lesson
// keeps κ = 3 on purpose (14 users, an exact search that keeps up with a
// drag), and κ = 3 needs ε ≥ 2.35, where the proof's Gaussian step
// (ε̄ = ε/2 < 1) no longer holds.
func (s *Scene) Certify() (why string, settings [][2]string, ok bool) {
	g := s.Guarantee()
	if g.Certified() || g.Mode == privacy.NonPrivate || math.IsInf(g.Eps, 1) {
		return "", nil, false
	}
	return "No setting of this lesson is certified, on purpose: it keeps ε ≥ 2.4 so that κ = 3, and 14 users suffice (a run needs n ≥ 4κ + 2) with an exact search over 12 deletions that keeps up as you drag. The proof's Gaussian step needs ε̄ = ε/2 < 1, that is ε < 2, where κ is 4 or more. The lesson shows how the stability test decides, not a release to trust.", nil, true
}
