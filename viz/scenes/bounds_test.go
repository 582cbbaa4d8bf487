package scenes

import (
	"fmt"
	"testing"

	"github.com/uldplab/uldp/viz"
)

// figureSizes are the figure's size in the page at 1440 × 900, 1280 × 720
// and on a 390 × 844 phone.
var figureSizes = [][2]float64{{1060, 630}, {900, 504}, {358, 590}}

// outside lists the items of l that do not fit its frame: text (its width
// estimated from its length: 0.5 em a character, below most of DejaVu
// Sans's widths), and the corners of rectangles, polygons and lines.
func outside(l *viz.List) []string {
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
				bad = append(bad, fmt.Sprintf("text %q at (%.0f, %.0f), about %.0f px wide", it.Text, it.P[0].X, it.P[0].Y, w))
			}
		case viz.Rect, viz.Polygon, viz.Line, viz.Polyline:
			for _, p := range it.P {
				if !in(p) {
					bad = append(bad, fmt.Sprintf("kind %d (%s) point (%.0f, %.0f)", it.Kind, it.Text, p.X, p.Y))
					break
				}
			}
		}
	}
	return bad
}

// clashes lists the labels of l that leave its frame or overlap a label
// drawn before them, from the display list, at TextWidth's estimate.
func clashes(l *viz.List) []string {
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
			bad = append(bad, fmt.Sprintf("%q runs out of the %g×%g frame", b.text, l.Width, l.Height))
		}
		for _, o := range boxes {
			if b.x0 < o.x1 && o.x0 < b.x1 && b.y0 < o.y1 && o.y0 < b.y1 {
				bad = append(bad, fmt.Sprintf("%q overlaps %q", b.text, o.text))
			}
		}
		boxes = append(boxes, b)
	}
	return bad
}

// modules are every lesson's scenes, its parts' included: what the
// browser's modules show.
func modules() []Lesson {
	var out []Lesson
	for _, l := range Lessons() {
		out = append(out, l)
		for _, p := range l.Parts {
			out = append(out, p.Lesson)
		}
	}
	return out
}

// Every lesson's labels stay inside the figure and clear of each other at
// the page's three sizes, at every step of its default run.
func TestLabelsDoNotClash(t *testing.T) {
	for _, l := range modules() {
		for _, size := range figureSizes {
			a := viz.NewApp(l.New())
			name := a.Scene().Info().Name
			seen := map[string]bool{}
			for step := 0; ; step++ {
				a.Settle()
				fr, _ := a.Frame(size[0], size[1])
				for _, bad := range clashes(fr) {
					if !seen[bad] {
						seen[bad] = true
						t.Errorf("%s at %.0f × %.0f, step %d: %s", name, size[0], size[1], step, bad)
					}
				}
				if !a.Key("ArrowRight") {
					break
				}
			}
		}
	}
}

// Every lesson, at its defaults and in every choice and switch it offers
// (a mechanism, a preset, an algorithm, a lens), fits the page's three
// sizes when it opens and at the end of its run: nothing leaves the frame
// and no label covers another. -short checks the defaults only.
func TestFiguresFitInEveryChoice(t *testing.T) {
	for _, les := range modules() {
		settings := [][2]string{{}} // the defaults
		for _, c := range viz.NewApp(les.New()).Controls() {
			switch {
			case testing.Short():
			case c.Kind == viz.Choice:
				for _, v := range c.Choices {
					settings = append(settings, [2]string{c.Name, v})
				}
			case c.Kind == viz.Toggle:
				settings = append(settings, [2]string{c.Name, "true"}, [2]string{c.Name, "false"})
			}
		}
		for _, set := range settings {
			a := viz.NewApp(les.New())
			name := a.Scene().Info().Name
			if set[0] != "" {
				if err := a.Set(set[0], set[1]); err != nil {
					continue // refused where the lesson stands (its own tests cover that)
				}
				name += fmt.Sprintf(", %s = %s", set[0], set[1])
			}
			for _, when := range []string{"open", "end"} {
				if when == "end" && !a.Key("End") {
					continue
				}
				a.Settle()
				for _, size := range figureSizes {
					fr, _ := a.Frame(size[0], size[1])
					for _, bad := range append(outside(fr), clashes(fr)...) {
						t.Errorf("%s at %.0f × %.0f (%s): %s", name, size[0], size[1], when, bad)
					}
				}
			}
		}
	}
}
