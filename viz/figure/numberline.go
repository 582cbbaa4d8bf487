package figure

import (
	"cmp"
	"math"
	"slices"

	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/viz"
)

// NumberLine places users' one-dimensional values along a row. When a far
// outlier would squeeze the crowd into a few pixels (the very picture these
// lessons are about) it switches to a symmetric log scale, linear within
// ±c and logarithmic beyond, so both the crowd and the outlier stay
// visible and grabbable.
type NumberLine struct {
	// X0 and W are the row's left end and width, in pixels.
	X0, W  float64
	lo, hi float64 // ends, in scale units
	c      float64 // symmetric-log knee; 0 means a linear scale
}

// FitLine frames values on a row from x0 of width w.
func FitLine(values []float64, x0, w float64) NumberLine {
	lo, hi := MinMax(values)
	n := NumberLine{X0: x0, W: w}
	s := slices.Clone(values)
	slices.Sort(s)
	iqr := s[3*len(s)/4] - s[len(s)/4]
	if iqr > 0 && hi-lo > 30*iqr {
		n.c = iqr / 4
	}
	a, b := n.scale(lo), n.scale(hi)
	pad := math.Max(0.08*(b-a), 0.05)
	n.lo, n.hi = a-pad, b+pad
	return n
}

func (n NumberLine) scale(v float64) float64 {
	if n.c == 0 {
		return v
	}
	return math.Asinh(v / n.c)
}

// XOf is value v's x pixel.
func (n NumberLine) XOf(v float64) float64 { return n.X0 + n.W*(n.scale(v)-n.lo)/(n.hi-n.lo) }

// ValueAtX is the value at x pixel x (a drag along the line).
func (n NumberLine) ValueAtX(x float64) float64 {
	t := n.lo + (x-n.X0)/n.W*(n.hi-n.lo)
	if n.c == 0 {
		return t
	}
	return n.c * math.Sinh(t)
}

// ticks are NiceTicks on a linear line; on a log line, 0 and the powers of
// ten (then 2× and 5× them) that keep labels at least 44 px apart.
func (n NumberLine) ticks() []float64 {
	if n.c == 0 {
		return viz.NiceTicks(n.lo, n.hi, 8)
	}
	lo, hi := n.ValueAtX(n.X0), n.ValueAtX(n.X0+n.W)
	var cand []float64
	if lo <= 0 && hi >= 0 {
		cand = append(cand, 0)
	}
	for _, m := range []float64{1, 2, 5} {
		for k := -6; k <= 9; k++ {
			v := m * math.Pow(10, float64(k))
			for _, x := range []float64{v, -v} {
				if x >= lo && x <= hi {
					cand = append(cand, x)
				}
			}
		}
	}
	var out []float64
	for _, v := range cand {
		if !slices.ContainsFunc(out, func(u float64) bool { return math.Abs(n.XOf(u)-n.XOf(v)) < 44 }) {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return out
}

// crowdDot is how many users at one value become a single ×k dot.
const crowdDot = 4

// ScaleNote is what a title adds to say the line is not linear.
func (ax NumberLine) ScaleNote() string {
	if ax.c != 0 {
		return " — symmetric log scale"
	}
	return ""
}

// valueRowDot is the radius of a user's dot on a value row.
const valueRowDot = 6

// swarm places users as dots on the line at y, stacked upward where they
// would overlap: a greedy beeswarm, each dot at the lowest level where it
// clears every dot already placed, so every user stays grabbable. A crowd
// of users at exactly one value (ORME's pairs hold hundreds) is one dot
// marked ×k instead: hidden marks the rest of it, crowds maps the dot's
// user to k. top is the highest y a dot or mark reaches.
func swarm(values []float64, ax NumberLine, y float64) (at []viz.Point, hidden []bool, crowds map[int]int, top float64) {
	const r = valueRowDot
	at = make([]viz.Point, len(values))
	hidden = make([]bool, len(values))
	crowds = map[int]int{}
	top = y - r
	order := make([]int, len(values))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int { return cmp.Compare(values[i], values[j]) })
	var levels []float64 // the rightmost x placed on each level
	for o := 0; o < len(order); o++ {
		i := order[o]
		x := ax.XOf(values[i])
		k := slices.IndexFunc(levels, func(last float64) bool { return x-last >= 2*r })
		if k < 0 {
			k = len(levels)
			levels = append(levels, x)
		}
		levels[k] = x
		at[i] = viz.Point{X: x, Y: float64(k)} // the level, for now
		same := o + 1
		for same < len(order) && values[order[same]] == values[i] {
			same++
		}
		if same-o >= crowdDot {
			for _, j := range order[o+1 : same] {
				at[j], hidden[j] = at[i], true
			}
			crowds[i] = same - o
			o = same - 1
		}
	}
	// A stack taller than maxStack levels is squeezed into their height:
	// the dots overlap a little, the row's height stays bounded.
	step := 2.0 * r
	if n := len(levels); n > maxStack {
		step = 2 * r * (maxStack - 1) / float64(n-1)
	}
	for i := range at {
		at[i].Y = y - step*at[i].Y
		top = math.Min(top, at[i].Y-r)
		if _, ok := crowds[i]; ok {
			top = math.Min(top, at[i].Y-19)
		}
	}
	return at, hidden, crowds, top
}

// maxStack is the most levels a value row stacks its dots on at full
// spacing.
const maxStack = 4

// RowBelow returns the y of the line of a value row whose title's first
// line is at y: below the title, and below where its dots stack.
func RowBelow(l *viz.List, y float64, values []float64, ax NumberLine, title string) float64 {
	_, _, _, top := swarm(values, ax, 0)
	return y + l.TextHeight(viz.Point{X: ax.X0}, 0, title, 12, viz.Left) - 15 + math.Max(24, 10-top)
}

// DrawValueRow draws users as dots on a number line (see swarm), under a
// title that ends just above the highest dot; the changed user is orange,
// the dragged one ringed. User i answers hit-tests as idBase + i, none
// with idBase 0. It returns where each user was drawn.
func DrawValueRow(l *viz.List, values []float64, ax NumberLine, y float64, idBase, changed, drag int, title string) []viz.Point {
	at, hidden, crowds, top := swarm(values, ax, y)
	l.TextAbove(viz.Point{X: ax.X0, Y: math.Min(y-24, top-10)}, 0, title, 12, viz.Ink, viz.Left)
	l.Line(viz.Point{X: ax.X0, Y: y}, viz.Point{X: ax.X0 + ax.W, Y: y}, viz.Style{Stroke: viz.Muted, Width: 1})
	for _, t := range ax.ticks() {
		l.Line(viz.Point{X: ax.XOf(t), Y: y}, viz.Point{X: ax.XOf(t), Y: y + 4}, viz.Style{Stroke: viz.Muted, Width: 1})
		l.Text(viz.Point{X: ax.XOf(t), Y: y + 13}, viz.TickLabel(t), 10, viz.Muted, viz.Centre)
	}
	for i := range at { // in user order: the list is the same every frame
		if k, ok := crowds[i]; ok {
			l.Text(viz.Point{X: at[i].X, Y: at[i].Y - 13}, format.Sprintf("×%d", k), 10, viz.Ink, viz.Centre)
		}
	}
	for i, p := range at {
		if hidden[i] {
			continue
		}
		st := viz.Style{Fill: viz.Blue, Stroke: viz.Ink, Width: 1, Alpha: 0.85}
		if i == changed {
			st.Fill = viz.Orange
		}
		id := 0 // idBase 0: the row is not for dragging
		if idBase > 0 {
			id = idBase + i
		}
		if drag != 0 && drag == id {
			st.Stroke, st.Width = viz.Yellow, 3
		}
		l.Circle(p, valueRowDot, st, id)
	}
	return at
}

// MinMax returns the least and the greatest of xs (+Inf and −Inf for
// none).
func MinMax(xs []float64) (float64, float64) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range xs {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	return lo, hi
}
