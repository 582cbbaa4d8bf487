package viz

import (
	"math"

	"github.com/uldplab/uldp/core/format"
)

// Camera maps world coordinates (y up) to screen pixels (y down) inside a
// viewport, with pan and zoom that keep a world point under the cursor.
type Camera struct {
	// Centre is the world point at the viewport's centre.
	CX, CY float64
	// Scale is pixels per world unit.
	Scale float64
	// Viewport in pixels.
	X0, Y0, W, H float64
}

// Fit returns a camera showing the world box [x0, x1] × [y0, y1] inside the
// viewport with a margin of pad pixels, equal scale on both axes.
func Fit(x0, x1, y0, y1 float64, vx, vy, vw, vh, pad float64) Camera {
	w, h := math.Max(x1-x0, 1e-12), math.Max(y1-y0, 1e-12)
	s := math.Min((vw-2*pad)/w, (vh-2*pad)/h)
	if !(s > 0) || math.IsInf(s, 0) {
		s = 1
	}
	return Camera{CX: (x0 + x1) / 2, CY: (y0 + y1) / 2, Scale: s, X0: vx, Y0: vy, W: vw, H: vh}
}

// ToScreen maps a world point to pixels.
func (c Camera) ToScreen(x, y float64) Point {
	return Point{c.X0 + c.W/2 + (x-c.CX)*c.Scale, c.Y0 + c.H/2 - (y-c.CY)*c.Scale}
}

// ToWorld maps a pixel to the world.
func (c Camera) ToWorld(p Point) (x, y float64) {
	return c.CX + (p.X-c.X0-c.W/2)/c.Scale, c.CY - (p.Y-c.Y0-c.H/2)/c.Scale
}

// Pan moves the view by a pixel offset (dragging the background).
func (c *Camera) Pan(dx, dy float64) {
	c.CX -= dx / c.Scale
	c.CY += dy / c.Scale
}

// Zoom scales by factor about the pixel p, which stays over the same world
// point. The scale stays within [1e-9, 1e12] pixels per unit.
func (c *Camera) Zoom(factor float64, p Point) {
	wx, wy := c.ToWorld(p)
	c.Scale = math.Min(math.Max(c.Scale*factor, 1e-9), 1e12)
	c.CX = wx - (p.X-c.X0-c.W/2)/c.Scale
	c.CY = wy + (p.Y-c.Y0-c.H/2)/c.Scale
}

// ScaleBar returns a round world length (1, 2 or 5 × 10^k) whose on-screen
// length is at most maxPx pixels, and its label.
func (c Camera) ScaleBar(maxPx float64) (world float64, label string) {
	raw := maxPx / c.Scale
	e := math.Floor(math.Log10(raw))
	base := math.Pow(10, e)
	for _, m := range []float64{5, 2, 1} {
		if m*base <= raw {
			world = m * base
			break
		}
	}
	if world == 0 {
		world = base
	}
	return world, format.Sprintf("%g", world)
}

// scaleBar is where DrawScaleBar draws: the bar's left end (x, y), its
// length in pixels and its label.
func (c Camera) scaleBar() (x, y, px float64, label string) {
	world, label := c.ScaleBar(math.Min(120, c.W/3))
	return c.X0 + 14, c.Y0 + c.H - 14, world * c.Scale, label
}

// ScaleBarBox is the box DrawScaleBar draws in, its bar and its label:
// labels placed with care keep off it.
func (c Camera) ScaleBarBox() (x0, y0, x1, y1 float64) {
	x, y, px, label := c.scaleBar()
	half := TextWidth(label, 12) / 2
	return math.Min(x, x+px/2-half) - 2, y - 16, math.Max(x+px, x+px/2+half) + 2, y + 4
}

// DrawScaleBar adds a scale bar in the bottom-left corner of the viewport.
func (c Camera) DrawScaleBar(l *List) {
	x, y, px, label := c.scaleBar()
	s := Style{Stroke: Ink, Width: 2}
	l.Line(Point{x, y}, Point{x + px, y}, s)
	l.Line(Point{x, y - 4}, Point{x, y + 4}, s)
	l.Line(Point{x + px, y - 4}, Point{x + px, y + 4}, s)
	l.Text(Point{x + px/2, y - 10}, label, 12, Ink, Centre)
}
