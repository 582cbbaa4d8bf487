package figure

import (
	"iter"
	"math"

	"github.com/uldplab/uldp/viz"
)

// CornerInset returns a view magnifying the disc of radius r around
// centre, for a plane seen through cam in the frame's w × (top…bottom)
// band, or a camera of width 0 when the disc is not small in cam's view.
// The inset goes in the first corner of the plane (bottom right, top
// right, bottom left, top left) that covers none of pts (points in the
// plane) — or, if every corner does, beside the plane on its right
// (beside true), where there is room for a larger one.
func CornerInset(cam viz.Camera, w, top, bottom float64, centre []float64, r float64, pts iter.Seq[[]float64]) (in viz.Camera, beside bool) {
	side := math.Min(math.Min(0.42*w, 0.55*(bottom-top)), 240)
	scale := (side/2 - 12) / math.Max(r, 1e-9)
	if side < 90 || scale < 3*cam.Scale {
		return viz.Camera{}, false
	}
	in = viz.Camera{CX: centre[0], CY: centre[1], Scale: scale, W: side, H: side}
	covers := func(x, y float64, p []float64) bool {
		q := cam.ToScreen(p[0], p[1])
		return q.X > x-8 && q.X < x+side+8 && q.Y > y-8 && q.Y < y+side+8
	}
	// The bottom corners stay above the plane's scale bar (30 px with its
	// label).
	for _, c := range [][2]float64{{w - side - 6, bottom - side - 34}, {w - side - 6, top + 4}, {6, bottom - side - 34}, {6, top + 4}} {
		free := !covers(c[0], c[1], centre)
		for p := range pts {
			if !free {
				break
			}
			free = !covers(c[0], c[1], p)
		}
		if free {
			in.X0, in.Y0 = c[0], c[1]
			return in, false
		}
	}
	side = math.Min(math.Min(0.5*w, bottom-top-8), 240)
	in.Scale = (side/2 - 12) / math.Max(r, 1e-9)
	in.W, in.H, in.X0, in.Y0 = side, side, w-side-6, top+(bottom-top-side)/2
	return in, true
}

// DrawInsetFrame draws where the inset in looks in the plane seen through
// cam, a square around its centre, then the inset's paper and border and
// its title followed by its zoom ("the crowd, ×12"); the caller draws the
// inset's contents over it.
func DrawInsetFrame(l *viz.List, cam, in viz.Camera, title string) {
	r := (in.W/2 - 4) / in.Scale * cam.Scale
	c := cam.ToScreen(in.CX, in.CY)
	l.Rect(viz.Point{X: c.X - r, Y: c.Y - r}, viz.Point{X: c.X + r, Y: c.Y + r}, viz.Style{Stroke: viz.Muted, Width: 1}, 0)
	l.Rect(viz.Point{X: in.X0, Y: in.Y0}, viz.Point{X: in.X0 + in.W, Y: in.Y0 + in.H}, viz.Style{Fill: viz.Paper, Stroke: viz.Muted, Width: 1}, 0)
	l.Text(viz.Point{X: in.X0 + 6, Y: in.Y0 + 10}, title+", "+ZoomLabel(in.Scale/cam.Scale), 11, viz.Muted, viz.Left)
}
