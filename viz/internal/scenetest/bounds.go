package scenetest

import (
	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/viz"
)

// FigureSizes are the figure's size in the page: at 1440 × 900 (text,
// figure and controls side by side), at 1399 × 900 (the widest page with
// the text below the figure), at 1280 × 720 and on a 390 × 844 phone.
var FigureSizes = [][2]float64{{771, 630}, {1015, 630}, {896, 504}, {358, 590}}

// Outside lists the items of l that do not fit its frame: text (its width
// estimated from its length: 0.5 em a character, below most of DejaVu
// Sans's widths), and the corners of rectangles, polygons and lines.
func Outside(l *viz.List) []string {
	var bad []string
	const slack = 1
	in := func(p viz.Point) bool {
		return p.X >= -slack && p.X <= l.Width+slack && p.Y >= -slack && p.Y <= l.Height+slack
	}
	for _, it := range l.Items {
		switch it.Kind {
		case viz.Text:
			w := 0.5 * it.Size * float64(len([]rune(it.Text)))
			x0 := it.P[0].X - [...]float64{0, w / 2, w}[it.Align]
			if x0 < -slack || x0+w > l.Width+slack || it.P[0].Y-it.Size/2 < -slack || it.P[0].Y+it.Size/2 > l.Height+slack {
				bad = append(bad, format.Sprintf("text %q at (%.0f, %.0f), about %.0f px wide", it.Text, it.P[0].X, it.P[0].Y, w))
			}
		case viz.Rect, viz.Polygon, viz.Line, viz.Polyline:
			for _, p := range it.P {
				if !in(p) {
					bad = append(bad, format.Sprintf("kind %d (%s) point (%.0f, %.0f)", it.Kind, it.Text, p.X, p.Y))
					break
				}
			}
		}
	}
	return bad
}

// Clashes lists the labels of l that leave its frame or overlap a label
// drawn before them, from the display list, at TextWidth's estimate.
func Clashes(l *viz.List) []string {
	type box struct {
		x0, y0, x1, y1 float64
		text           string
	}
	var boxes []box
	var bad []string
	for _, it := range l.Items {
		if it.Kind != viz.Text || it.Text == "" {
			continue
		}
		tw := viz.TextWidth(it.Text, it.Size)
		x := it.P[0].X - [...]float64{0, tw / 2, tw}[it.Align]
		b := box{x, it.P[0].Y - it.Size/2, x + tw, it.P[0].Y + it.Size/2, it.Text}
		if b.x0 < -0.5 || b.x1 > l.Width+0.5 || b.y0 < -0.5 || b.y1 > l.Height+0.5 {
			bad = append(bad, format.Sprintf("%q runs out of the %g×%g frame", b.text, l.Width, l.Height))
		}
		for _, o := range boxes {
			if b.x0 < o.x1 && o.x0 < b.x1 && b.y0 < o.y1 && o.y0 < b.y1 {
				bad = append(bad, format.Sprintf("%q overlaps %q", b.text, o.text))
			}
		}
		boxes = append(boxes, b)
	}
	return bad
}
