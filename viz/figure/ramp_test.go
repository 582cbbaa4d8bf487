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
