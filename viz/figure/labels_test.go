package figure

import (
	"testing"

	"github.com/uldplab/uldp/viz"
)

// A reserved box keeps labels off it; others still go beside it.
func TestLabelsReserve(t *testing.T) {
	l := &viz.List{Width: 400, Height: 300}
	p := Labels{L: l}
	p.Reserve(100, 100, 200, 200)
	if p.Text(viz.Point{X: 150, Y: 150}, "under", 10, viz.Ink, viz.Centre) {
		t.Error("a label was placed in the reserved box")
	}
	if !p.Text(viz.Point{X: 150, Y: 220}, "below", 10, viz.Ink, viz.Centre) || len(l.Items) != 1 {
		t.Errorf("a label below the box was refused (%d items)", len(l.Items))
	}
}
