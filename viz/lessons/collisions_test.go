package lessons

import (
	"testing"

	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/internal/scenetest"
)

// No lesson prints two labels into each other ("0.00822halt at step 1",
// a table cell wrapped into the row below, a label under an inset), at
// any figure size from a phone's to a wide desktop's: opened, a step or
// two in, at the end, and in the settings the lessons' texts link to
// that change the figure most (the accelerated variant, the localisation,
// ε = 10). Heights start at the page's floor for the figure (see
// shortest); widths at 320, a 354 px viewport's figure (a 320 px phone's,
// 286, is not checked: its lessons crowd their tables).
func TestNoLabelsCollide(t *testing.T) {
	for _, s := range All() {
		a := viz.NewApp(s)
		a.Settle()
		name := s.Info().Name
		seen := map[[2]string]bool{}
		for _, set := range [][2]string{{}, {viz.CtlStep}, {viz.CtlStep}, {viz.CtlEnd}, {"algo", "accelerated"}, {"algo", "localised"}, {viz.CtlStep}, {viz.CtlEnd}, {"eps", "10"}} {
			if set[0] != "" {
				if a.Set(set[0], set[1]) != nil {
					continue // not this lesson's setting
				}
				a.Settle()
			}
			for w := 320.0; w <= 1400; w += 40 {
				for _, h := range []float64{shortest(w), 640, 1000} {
					l, _ := a.Frame(w, h)
					for _, c := range scenetest.Collisions(l) {
						if !seen[c] {
							seen[c] = true
							t.Errorf("%s after %v at %v×%v: %q runs into %q", name, set, w, h, c[0], c[1])
						}
					}
				}
			}
		}
	}
}

// shortest is the page's floor for the height of a figure w wide (the
// style sheet's canvas#figure), which the style sheet sets by the
// viewport's width: text zoomed to 200 % on a 1440 × 900 screen gets
// 480 px, not the 315 its 70vh would be; a viewport under 400 px, whose
// figure (34 px narrower: the page's padding and the border) wraps its
// texts onto more lines, 560. Figures that narrow come from such
// viewports only: a wider one puts the panel beside the figure from
// 900 px on, and that figure is wider still.
func shortest(w float64) float64 {
	if w+34 < 400 {
		return 560
	}
	return 480
}
