package figure

import (
	"testing"

	"github.com/uldplab/uldp/viz"
)

// A kept user's disc carries no mark, one kept with a probability between
// 0 and 1 a bar, a dropped one a cross: the state shows without colour.
func TestRampMarkShapes(t *testing.T) {
	for _, c := range []struct {
		p     float64
		lines int
	}{{1, 0}, {0.5, 1}, {0, 2}} {
		var l viz.List
		RampMark(&l, viz.Point{X: 10, Y: 10}, 5, c.p)
		if len(l.Items) != c.lines {
			t.Errorf("p = %v: %d marks, want %d lines", c.p, len(l.Items), c.lines)
		}
		for _, it := range l.Items {
			if it.Kind != viz.Line || it.Style.Stroke != viz.Ink {
				t.Errorf("p = %v: a mark %+v, want an ink line", c.p, it)
			}
		}
	}
}

// A pile of users at either end of the ramp (every user counting every
// other, n = 263; every user alone, f = 1) is labelled inside the plot,
// not half past its edge.
func TestKeepRampLabelsPilesAtTheEndsInside(t *testing.T) {
	for _, f := range []int{263, 1} {
		counts := make([]int, 263)
		for i := range counts {
			counts[i] = f
		}
		var l viz.List
		p := Plot{X0: 40, Y0: 60, W: 200, H: 120}
		KeepRamp(&l, p, counts, 263, "n", "keep ramp")
		found := false
		for _, it := range l.Items {
			if it.Kind != viz.Text || it.Text != "×263" {
				continue
			}
			found = true
			w := viz.TextWidth(it.Text, it.Size)
			left := map[viz.Align]float64{viz.Left: it.P[0].X, viz.Centre: it.P[0].X - w/2, viz.Right: it.P[0].X - w}[it.Align]
			if left < p.X0 || left+w > p.X0+p.W {
				t.Errorf("f = %d: the pile's label spans x %.1f…%.1f, past the plot's %.1f…%.1f", f, left, left+w, p.X0, p.X0+p.W)
			}
		}
		if !found {
			t.Errorf("f = %d: the pile of 263 users is not labelled", f)
		}
	}
}
