package figure

import (
	"cmp"
	"maps"
	"math"
	"slices"

	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/robust"
	"github.com/uldplab/uldp/viz"
)

// RampColour is a user's colour by its keep probability.
func RampColour(p float64) viz.Colour {
	switch {
	case p == 0:
		return viz.Vermillion
	case p == 1:
		return viz.Green
	}
	return viz.Orange
}

// RampMark marks the disc of radius r at c by its keep probability p in
// shape as well as colour, so the state reads without telling hues
// apart: a bar across it between 0 and 1, a cross at 0, none at 1 (the
// legend's ●, ⊖ and ⊗).
func RampMark(l *viz.List, c viz.Point, r, p float64) {
	ink := viz.Style{Stroke: viz.Ink, Width: 1.5}
	switch {
	case p == 0:
		d := r * 0.8
		l.Line(viz.Point{X: c.X - d, Y: c.Y - d}, viz.Point{X: c.X + d, Y: c.Y + d}, ink)
		l.Line(viz.Point{X: c.X - d, Y: c.Y + d}, viz.Point{X: c.X + d, Y: c.Y - d}, ink)
	case p < 1:
		l.Line(viz.Point{X: c.X - r, Y: c.Y}, viz.Point{X: c.X + r, Y: c.Y}, ink)
	}
}

// Swatch is a legend's entry: its text, in the colour it names.
type Swatch struct {
	Text   string
	Colour viz.Colour
}

// RampLegend is the legend's entries for RampMark's states.
var RampLegend = []Swatch{{"● kept (1)", viz.Green}, {"⊖ between", viz.Orange}, {"⊗ dropped (0)", viz.Vermillion}}

// ScoreAxis draws a score's line from 0 to p.Hi (n, named sym) at
// height y, with the proof's 2n/3 (dashed) and the gate's 4n/5.
func ScoreAxis(l *viz.List, p Plot, sym string, y float64) {
	n := p.Hi
	l.Line(viz.Point{X: p.X0, Y: y}, viz.Point{X: p.X0 + p.W, Y: y}, viz.Style{Stroke: viz.Muted, Width: 1})
	for _, t := range []float64{0, n / 2, n} {
		l.Line(viz.Point{X: p.XOf(t), Y: y}, viz.Point{X: p.XOf(t), Y: y + 4}, viz.Style{Stroke: viz.Muted, Width: 1})
		l.Text(viz.Point{X: p.XOf(t), Y: y + 13}, viz.TickLabel(t), 10, viz.Muted, viz.Centre)
	}
	l.Line(viz.Point{X: p.XOf(2 * n / 3), Y: y - 12}, viz.Point{X: p.XOf(2 * n / 3), Y: y + 12}, viz.Style{Stroke: viz.Muted, Width: 1, Dashed: true})
	l.Text(viz.Point{X: p.XOf(2 * n / 3), Y: y + 24}, "2"+sym+"/3", 10, viz.Muted, viz.Centre)
	l.Line(viz.Point{X: p.XOf(0.8 * n), Y: y - 14}, viz.Point{X: p.XOf(0.8 * n), Y: y + 14}, viz.Style{Stroke: viz.Purple, Width: 2})
	l.Text(viz.Point{X: p.XOf(0.8 * n), Y: y - 20}, "4"+sym+"/5", 10, viz.Purple, viz.Centre)
}

// KeepRamp plots Asi & Liu's keep ramp over counts 0…n (n named sym
// on the axis) and places every count on it: one dot per count, sized and
// labelled by how many share it. counts nil draws the ramp alone.
func KeepRamp(l *viz.List, p Plot, counts []int, n int, sym, title string) {
	if p.H < 60 {
		return
	}
	// Above the count labels of the dots at p = 1: a title wrapped onto
	// more than one line (a narrow figure) moves the plot down below it.
	if extra := l.TextIn(viz.Point{X: p.X0 - 20, Y: p.Y0 - 34}, p.W+20, title, 12, viz.Ink, viz.Left) - 15; extra > 0 {
		p.Y0, p.H = p.Y0+extra, p.H-extra
	}
	nf := float64(n)
	xOf := func(f float64) float64 { return p.X0 + p.W*f/nf }
	yOf := func(q float64) float64 { return p.Y0 + p.H - p.H*q }
	l.Line(viz.Point{X: p.X0, Y: yOf(0)}, viz.Point{X: p.X0 + p.W, Y: yOf(0)}, viz.Style{Stroke: viz.Muted, Width: 1})
	l.Line(viz.Point{X: p.X0, Y: yOf(0)}, viz.Point{X: p.X0, Y: yOf(1)}, viz.Style{Stroke: viz.Muted, Width: 1})
	l.Text(viz.Point{X: p.X0 - 6, Y: yOf(1)}, "1", 10, viz.Muted, viz.Right)
	l.Text(viz.Point{X: p.X0 - 6, Y: yOf(0)}, "0", 10, viz.Muted, viz.Right)
	for _, t := range []struct {
		f     float64
		label string
	}{{nf / 2, sym + "/2"}, {2 * nf / 3, "2" + sym + "/3"}, {nf, sym}} {
		l.Text(viz.Point{X: xOf(t.f), Y: yOf(0) + 12}, t.label, 10, viz.Muted, viz.Centre)
	}
	l.Polyline([]viz.Point{{X: xOf(0), Y: yOf(0)}, {X: xOf(nf / 2), Y: yOf(0)}, {X: xOf(2 * nf / 3), Y: yOf(1)}, {X: xOf(nf), Y: yOf(1)}},
		viz.Style{Stroke: viz.Ink, Width: 2})
	users := map[int]int{}
	for _, f := range counts {
		users[f]++
	}
	// Labelled from the largest group down; one that would cover another
	// is left out (its dot's size still says how many).
	fs := slices.Collect(maps.Keys(users))
	slices.SortFunc(fs, func(a, b int) int { return cmp.Or(users[b]-users[a], a-b) })
	place := Labels{L: l}
	for _, f := range fs {
		k := users[f]
		q := robust.Keep(f, n)
		pt := viz.Point{X: xOf(float64(f)), Y: yOf(q)}
		l.Circle(pt, 3+math.Sqrt(float64(k)), viz.Style{Fill: RampColour(q), Stroke: viz.Ink, Width: 0.5}, 0)
		RampMark(l, pt, 3+math.Sqrt(float64(k)), q)
		if k > 1 {
			// A pile at either end is labelled inwards, inside the plot.
			label, x, al := format.Sprintf("×%d", k), pt.X, viz.Centre
			switch half := viz.TextWidth(label, 10) / 2; {
			case x+half > p.X0+p.W:
				x, al = p.X0+p.W, viz.Right
			case x-half < p.X0:
				x, al = p.X0, viz.Left
			}
			place.Text(viz.Point{X: x, Y: pt.Y - 10 - math.Sqrt(float64(k))}, label, 10, viz.Ink, al)
		}
	}
}
