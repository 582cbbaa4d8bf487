package stability

import (
	"slices"

	"github.com/uldplab/uldp/core/robust"
	"github.com/uldplab/uldp/viz"
)

// Certified settings: the proof's Gaussian step needs ε̄ = ε/2 < 1, and
// below ε = 2 κ is 4 at best (δ = 1/2, from ε ≈ 1.39), so a run needs
// 4κ + 2 = 18 users and searches 16 deletions, the most the lesson drags.
const (
	certifiedEps   = "1.9"
	certifiedDelta = "0.5"
	certifiedUsers = 18
)

// Certify says why the lesson opens outside its proof — at ε = 8, κ = 3
// and 14 users show the whole search — and
// offers the nearest run the proof covers: ε = 1.9, δ = 1/2 (κ = 4), with
// users added next to the median until there are 18.
func (s *Scene) Certify() (why string, settings [][2]string, ok bool) {
	values := slices.Clone(s.values)
	if len(values) < certifiedUsers {
		med := robust.Median(slices.Clone(values)) // the lesson runs on 14 users or more
		for k := 1; len(values) < certifiedUsers; k++ {
			values = append(values, med+0.01*float64((k+1)/2)*float64(1-2*(k%2)))
		}
	}
	return "This run is not certified: the proof's Gaussian step needs ε̄ = ε/2 < 1, that is ε < 2, and the lesson opens at ε = 8, where κ = 3 and 14 users show the whole search. Below ε = 2, κ is 4 at best, at δ = 1/2: the run then needs 18 users (n ≥ 4κ + 2) and searches 16 deletions. The button moves there — ε = 1.9, δ = 0.5, users added next to the median — a certified run whose δ = 1/2 promises little.",
		[][2]string{{"values", viz.FormatNumbers(values)}, {"delta", certifiedDelta}, {"eps", certifiedEps}}, true
}
