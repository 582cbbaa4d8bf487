package figure

import (
	"math"

	"github.com/uldplab/uldp/core/audit"
	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/viz"
)

// ProfileCaption is a privacy profile's title: ab and ba name the two
// orders of the pair.
func ProfileCaption(ab, ba string) string {
	return format.Sprintf("exact privacy profile δ(ε), log scale: %s (blue), %s (orange); the promise (pink) holds from the claimed ε on", ab, ba)
}

// Profile plots an exact privacy profile δ(ε) (both orders, log scale)
// against the promise (ε₀, δ₀), which holds from ε₀ on.
func Profile(l *viz.List, p Plot, pts []audit.Point, eps0, delta0 float64, caption string) {
	l.TextAbove(viz.Point{X: p.X0, Y: p.Y0 - 8}, 0, caption, 12, viz.Ink, viz.Left)
	emax := pts[len(pts)-1].Eps
	const floor = -12.0 // log10 δ below 1e-12 sits on the axis
	xOf := func(e float64) float64 { return p.X0 + p.W*e/emax }
	yOf := func(d float64) float64 {
		ld := floor
		if d > 0 {
			ld = math.Max(math.Log10(d), floor)
		}
		return p.Y0 + p.H*ld/floor
	}
	l.Line(viz.Point{X: p.X0, Y: p.Y0 + p.H}, viz.Point{X: p.X0 + p.W, Y: p.Y0 + p.H}, viz.Style{Stroke: viz.Muted, Width: 1})
	l.Line(viz.Point{X: p.X0, Y: p.Y0}, viz.Point{X: p.X0, Y: p.Y0 + p.H}, viz.Style{Stroke: viz.Muted, Width: 1})
	for _, t := range viz.NiceTicks(0, emax, 6) {
		l.Text(viz.Point{X: xOf(t), Y: p.Y0 + p.H + 12}, viz.TickLabel(t), 10, viz.Muted, viz.Centre)
	}
	for e := 0; e >= int(floor); e -= 3 {
		l.Text(viz.Point{X: p.X0 - 6, Y: yOf(math.Pow(10, float64(e)))}, format.Sprintf("1e%d", e), 10, viz.Muted, viz.Right)
	}
	l.Text(viz.Point{X: p.X0 + p.W + 10, Y: p.Y0 + p.H + 12}, "ε", 11, viz.Muted, viz.Left) // beside the ticks
	for _, side := range []struct {
		col viz.Colour
		get func(audit.Point) float64
	}{{viz.Blue, func(pt audit.Point) float64 { return pt.DeltaAB }}, {viz.Orange, func(pt audit.Point) float64 { return pt.DeltaBA }}} {
		line := make([]viz.Point, len(pts))
		for i, pt := range pts {
			line[i] = viz.Point{X: xOf(pt.Eps), Y: yOf(side.get(pt))}
		}
		l.Polyline(line, viz.Style{Stroke: side.col, Width: 2})
	}
	l.Line(viz.Point{X: xOf(eps0), Y: yOf(delta0)}, viz.Point{X: xOf(emax), Y: yOf(delta0)}, viz.Style{Stroke: viz.Purple, Width: 2})
	l.Line(viz.Point{X: xOf(eps0), Y: yOf(0)}, viz.Point{X: xOf(eps0), Y: yOf(delta0)}, viz.Style{Stroke: viz.Purple, Width: 1, Dashed: true})
}
