package ratesexplorer

import (
	"math"
	"strings"

	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/rates"
	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/figure"
)

// boundColours colour the bounds in legend order.
var boundColours = []viz.Colour{viz.Purple, viz.Blue, viz.Sky, viz.Yellow, viz.Green, viz.Vermillion, viz.Orange}

// logPlot maps sizes and errors to pixels on log axes.
type logPlot struct {
	x0, y0, w, h   float64
	lx, hx, ly, hy float64 // log10 of the ranges
}

func (p logPlot) at(x, y float64) viz.Point {
	return viz.Point{X: p.x0 + p.w*(math.Log10(x)-p.lx)/(p.hx-p.lx), Y: p.y0 + p.h*(p.hy-math.Log10(y))/(p.hy-p.ly)}
}

// Draw plots every bound across the axis's range, the sliders' value, and
// the simulated points with their error bars and the optimal bound's shape
// through them.
func (r *Scene) Draw(w, h float64) *viz.List {
	l := &r.list
	l.Reset(w, h)
	p := r.point()
	bs := rates.Bounds(r.family)
	lo, hi := r.axis.Range()
	const samples = 96
	xs := make([]float64, samples)
	for i := range xs {
		xs[i] = lo * math.Pow(hi/lo, float64(i)/(samples-1))
	}
	// The error range: every curve and point, in whole decades.
	ymin, ymax := math.Inf(1), math.Inf(-1)
	see := func(y float64) {
		if y > 0 && !math.IsInf(y, 0) {
			ymin, ymax = math.Min(ymin, y), math.Max(ymax, y)
		}
	}
	for _, b := range bs {
		for _, x := range xs {
			see(b.At(r.axis.With(p, x)))
		}
	}
	for _, m := range r.points {
		see(m.Lo)
		see(m.Hi)
	}
	ly, hy := math.Floor(math.Log10(ymin)), math.Ceil(math.Log10(ymax))
	ly = math.Max(ly, hy-12) // a curve plunging to 0 does not flatten the rest
	if hy <= ly {
		hy = ly + 1
	}
	cols := 1
	if w > 760 {
		cols = 2
	}
	colW := (w - 20) / float64(cols)
	// On a phone the full legend (formulas and notes) left the plot 120
	// px of 590: there it names the curves, whose formulas the readouts
	// give.
	entries := r.legend(bs, w < 480)
	heights := make([]float64, 0, len(entries)/cols+1) // per row
	for i, e := range entries {
		h := math.Max(17, l.TextHeight(viz.Point{X: 46 + colW*float64(i%cols), Y: 0}, colW-44, e.text, 11, viz.Left)+4)
		if i%cols == 0 {
			heights = append(heights, h)
		} else {
			heights[len(heights)-1] = math.Max(heights[len(heights)-1], h)
		}
	}
	var legendH float64
	for _, h := range heights {
		legendH += h
	}
	title := "error against " + axisSymbol(r.axis) + " (log–log; hidden constants set to 1, logarithms dropped)"
	if r.family == rates.SemiSensitive {
		title = "excess empirical risk against " + axisSymbol(r.axis) + " (log–log; constants set to 1)"
	}
	// The figure is live (Live): while it simulates, the title says how far
	// it has come. The plot starts below the title, which a phone wraps
	// onto two lines, and below the longer one whenever runs are
	// simulated, so that it does not move when a sweep ends.
	head := viz.Point{X: 62, Y: 14}
	room := l.TextHeight(head, w-72, title, 12, viz.Left)
	if r.family == rates.UserLevel && r.simulate {
		busy := title + format.Sprintf(" — simulating: %d of %d runs, points appear as they are done", r.simDone, len(r.sweep)*r.seeds)
		room = l.TextHeight(head, w-72, busy, 12, viz.Left)
		if r.Busy() {
			title = busy
		}
	}
	l.TextIn(head, w-72, title, 12, viz.Ink, viz.Left)
	top := math.Max(34, 14+room+4)
	pl := logPlot{x0: 62, y0: top, w: w - 84, h: math.Max(h-legendH-62-top, 120), lx: math.Log10(lo), hx: math.Log10(hi), ly: ly, hy: hy}
	// Decade grid and labels.
	for k := math.Ceil(pl.lx); k <= pl.hx; k++ {
		a := pl.at(math.Pow(10, k), math.Pow(10, pl.ly))
		l.Line(viz.Point{X: a.X, Y: pl.y0}, viz.Point{X: a.X, Y: pl.y0 + pl.h}, viz.Style{Stroke: viz.Grid, Width: 1})
		l.Text(viz.Point{X: a.X, Y: pl.y0 + pl.h + 14}, figure.Decade(int(k)), 11, viz.Muted, viz.Centre)
	}
	step := math.Max(1, math.Ceil((pl.hy-pl.ly)/8))
	for k := pl.ly; k <= pl.hy; k += step {
		a := pl.at(math.Pow(10, pl.lx), math.Pow(10, k))
		l.Line(viz.Point{X: pl.x0, Y: a.Y}, viz.Point{X: pl.x0 + pl.w, Y: a.Y}, viz.Style{Stroke: viz.Grid, Width: 1})
		l.Text(viz.Point{X: pl.x0 - 6, Y: a.Y}, figure.Decade(int(k)), 11, viz.Muted, viz.Right)
	}
	l.Text(viz.Point{X: pl.x0 + pl.w/2, Y: pl.y0 + pl.h + 30}, r.axisLabel(), 12, viz.Ink, viz.Centre)
	// The sliders' value of the axis.
	at := pl.at(r.axisValue(), math.Pow(10, pl.ly))
	l.Line(viz.Point{X: at.X, Y: pl.y0}, viz.Point{X: at.X, Y: pl.y0 + pl.h}, viz.Style{Stroke: viz.Ink, Width: 1, Dashed: true, Alpha: 0.6})
	l.Text(viz.Point{X: at.X + 4, Y: pl.y0 + 8}, format.Sprintf("%s = %s", axisSymbol(r.axis), viz.FormatNumber(r.axisValue())), 11, viz.Ink, viz.Left)
	if r.family == rates.SemiSensitive && r.axis == rates.AxisD {
		if d, ok := rates.Crossover(p); ok && d > lo && d < hi {
			c := pl.at(d, math.Pow(10, pl.ly))
			l.Line(viz.Point{X: c.X, Y: pl.y0}, viz.Point{X: c.X, Y: pl.y0 + pl.h}, viz.Style{Stroke: viz.Vermillion, Width: 1.5, Dashed: true})
			l.Text(viz.Point{X: c.X + 4, Y: pl.y0 + 24}, "d*: full DP better below", 11, viz.Vermillion, viz.Left)
		}
	}
	if x, ok := r.balance(); ok {
		// Where the optimal bound's terms are equal: past it the shared
		// statistical term dominates and the bounds' curves meet, which is
		// what the figure shows there, not a drawing fault (the legend
		// says so).
		c := pl.at(x, math.Pow(10, pl.ly))
		l.Line(viz.Point{X: c.X, Y: pl.y0}, viz.Point{X: c.X, Y: pl.y0 + pl.h}, viz.Style{Stroke: viz.Muted, Width: 1.5, Dashed: true})
	}
	clip := func(pt viz.Point) viz.Point {
		pt.Y = math.Max(pl.y0, math.Min(pl.y0+pl.h, pt.Y))
		return pt
	}
	// Lower bounds last: an upper bound that meets one (the optimal rate)
	// would hide its dashes.
	order := make([]int, 0, len(bs))
	for _, lower := range []bool{false, true} {
		for i, b := range bs {
			if (b.Kind == rates.Lower) == lower {
				order = append(order, i)
			}
		}
	}
	for _, i := range order {
		b := bs[i]
		st := viz.Style{Stroke: boundColours[i%len(boundColours)], Width: 2.5}
		if b.Kind == rates.Lower {
			st.Dashed, st.Width = true, 2
		}
		// A bound is drawn only where it applies: a lower bound proved on
		// a high-dimensional instance says nothing at a small d.
		pts := make([]viz.Point, 0, samples)
		for _, x := range xs {
			q := r.axis.With(p, x)
			if y := b.At(q); y > 0 && b.Holds(q) == nil {
				pts = append(pts, clip(pl.at(x, y)))
				continue
			}
			if len(pts) > 1 {
				l.Polyline(pts, st)
			}
			pts = pts[:0:0]
		}
		if len(pts) > 1 {
			l.Polyline(pts, st)
		}
	}
	// The simulated points, and the optimal shape through them.
	if len(r.points) > 0 {
		sx := r.sweep
		pts := make([]viz.Point, 0, samples)
		for _, x := range xs {
			if x >= sx[0] && x <= sx[len(sx)-1] {
				pts = append(pts, clip(pl.at(x, r.fitted(r.axis.With(p, x)))))
			}
		}
		l.Polyline(pts, viz.Style{Stroke: viz.Ink, Width: 1.5, Dashed: true})
	}
	for i, m := range r.points {
		if math.IsNaN(m.RMS) {
			continue // every run halted
		}
		c := pl.at(r.sweep[i], m.RMS)
		l.Line(clip(pl.at(r.sweep[i], m.Lo)), clip(pl.at(r.sweep[i], m.Hi)), viz.Style{Stroke: viz.Ink, Width: 1.5})
		st := viz.Style{Stroke: viz.Ink, Fill: viz.Ink, Width: 1.5}
		if m.Halted > 0 { // hollow: some runs halted at the gate
			st.Fill = viz.Paper
		}
		l.Circle(c, 4, st, i+1)
	}
	// The legend under the plot, row by row.
	y := pl.y0 + pl.h + 48
	for i, e := range entries {
		x := 10 + colW*float64(i%cols)
		ty := y + 5.5 // the first line's middle, 11 px text
		if e.dot {
			l.Circle(viz.Point{X: x + 14, Y: ty}, 4, e.style, 0)
		} else {
			l.Line(viz.Point{X: x, Y: ty}, viz.Point{X: x + 28, Y: ty}, e.style)
		}
		l.TextIn(viz.Point{X: x + 36, Y: ty}, colW-44, e.text, 11, viz.Ink, viz.Left)
		if i%cols == cols-1 || i == len(entries)-1 {
			y += heights[i/cols]
		}
	}
	return l
}

// axisLabel names the swept size.
func (r *Scene) axisLabel() string {
	switch r.axis {
	case rates.AxisN:
		return "users n"
	case rates.AxisM:
		if r.family == rates.SemiSensitive {
			return "problems m, solved together from the same private answers"
		}
		return "items per user m"
	case rates.AxisD:
		return "dimension d"
	case rates.AxisEps:
		return "privacy ε"
	}
	return "sensitive values k"
}

// balance is where the figure draws the user-level optimal bound's
// balance line (rates.Balance), false where it has none in view.
func (r *Scene) balance() (float64, bool) {
	lo, hi := r.axis.Range()
	x, ok := rates.Balance(r.axis, r.point())
	return x, ok && r.family == rates.UserLevel && x > lo && x < hi
}

// balanceText says where the optimal bound's terms are equal along a and
// which side its statistical term, shared by the bounds, dominates; the
// other bounds' larger privacy terms give way further on (Levy et al.'s
// at n = d²/ε², for one).
func balanceText(a rates.Axis, x float64) string {
	switch a {
	case rates.AxisN:
		return format.Sprintf("n = d/ε² = %s: the optimal bound's two terms are equal; to the right its statistical one wins, the other bounds' further right, and the curves meet", viz.FormatNumber(x))
	case rates.AxisD:
		return format.Sprintf("d = nε² = %s: the optimal bound's two terms are equal; to the left its statistical one wins, the other bounds' further left, and the curves meet", viz.FormatNumber(x))
	}
	return format.Sprintf("ε = √(d/n) = %.3g: the optimal bound's two terms are equal; to the right its statistical one wins, the other bounds' further right, and the curves meet", x)
}

// legendEntry is a line of the legend: a line or a dot, and its text.
type legendEntry struct {
	style viz.Style
	dot   bool
	text  string
}

// legend lists the bounds and the simulated points; compact, their names
// and the notes' first clauses only.
func (r *Scene) legend(bs []rates.Bound, compact bool) []legendEntry {
	var out []legendEntry
	for i, b := range bs {
		st := viz.Style{Stroke: boundColours[i%len(boundColours)], Width: 2.5}
		if b.Kind == rates.Lower {
			st.Dashed = true
		}
		text := b.Label + ": " + b.Formula
		if compact {
			text = b.Label
		}
		if b.Conditional() {
			text += " — proved on a high-dimensional instance, drawn only where it applies"
			if compact {
				text = b.Label + ", drawn only where it applies"
			}
		}
		out = append(out, legendEntry{st, false, text})
	}
	// The balance line's note is a legend entry: inside the plot it lay
	// over the curves on one axis or the simulated points on another.
	if x, ok := r.balance(); ok {
		text := balanceText(r.axis, x)
		if compact {
			text, _, _ = strings.Cut(text, ";")
		}
		out = append(out, legendEntry{viz.Style{Stroke: viz.Muted, Width: 1.5, Dashed: true}, false, text})
	}
	if r.family == rates.UserLevel {
		text := "simulated: user-level DP-SGD with outlier removal, RMS distance to the optimum, 95% bars; dashed: the optimal shape with its constants"
		if compact {
			text = "simulated DP-SGD with outlier removal, 95% bars"
		}
		if r.simErr != nil || !r.simulate {
			text = "simulated runs: off (the simulate switch), or beyond what runs here (see the readouts)"
		}
		out = append(out, legendEntry{viz.Style{Stroke: viz.Ink, Fill: viz.Ink, Width: 1.5}, true, text})
		if r.simErr == nil && r.simulate {
			text := "hollow: some of the point's runs halted at the gate (too few users for outlier removal); the point is the rest"
			if compact {
				text = "hollow: some of its runs halted at the gate"
			}
			out = append(out, legendEntry{viz.Style{Stroke: viz.Ink, Fill: viz.Paper, Width: 1.5}, true, text})
		}
	}
	return out
}
