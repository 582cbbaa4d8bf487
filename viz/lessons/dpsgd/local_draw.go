package dpsgd

import (
	"math"

	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/figure"
)

// drawLocal draws the localisation at a: each finished phase's running
// average and its answer θ̂_i; the phase shown with the circle of radius
// R̂_i around its start, its iterates and its step.
func (s *Scene) drawLocal(l *viz.List, a localAt) {
	c := s.cam
	labels := figure.Labels{L: l}
	ph := &s.sc.Phases[a.phase]
	// The circle first, under the paths: the proof bounds the expected
	// squared distance from the phase's start to θ* by R̂_i². Wider than
	// the figure, the strip says so instead.
	st := c.ToScreen(ph.Start[0], ph.Start[1])
	if r := ph.RHat * c.Scale; r < 1.5*math.Max(c.W, c.H) {
		l.Circle(st, r, viz.Style{Stroke: viz.Green, Width: 1.5, Dashed: true}, 0)
	}
	l.Circle(st, 4, viz.Style{Stroke: viz.Ink, Width: 1.5}, 0)
	for i := range a.done {
		p := &s.sc.Phases[i]
		// The phase shown is drawn below; a halted phase answered its
		// start, not the average its path would end at.
		if i == a.phase || p.Halted > 0 {
			continue
		}
		if len(p.Run.Iterates) > 0 {
			l.Polyline(s.runningAverage(p.Run.Iterates), viz.Style{Stroke: viz.Blue, Width: 1.5, Alpha: 0.5})
		}
	}
	s.trail(l, ph.Run.Iterates, a.step, viz.Blue, false)
	s.drawMove(l, &ph.Run, a.step, ph.Settings.Smoothing)
	// The answers last, on top; then their labels, the newest first,
	// leaving out those that would overlap a label or an answer (late
	// phases land close together).
	for i := range a.done {
		at := c.ToScreen(s.sc.Phases[i].Theta[0], s.sc.Phases[i].Theta[1])
		diamond(l, at, viz.Blue)
		labels.Reserve(at.X-8, at.Y-8, at.X+8, at.Y+8)
	}
	star := c.ToScreen(s.best[0], s.best[1]) // where Draw puts ★, over the answers
	labels.Reserve(star.X-8, star.Y-8, star.X+8, star.Y+8)
	for i := a.done - 1; i >= 0; i-- {
		p := &s.sc.Phases[i]
		at := c.ToScreen(p.Theta[0], p.Theta[1])
		name := format.Sprintf("θ̂%s", figure.Subscript(p.I))
		if i == len(s.sc.Phases)-1 {
			name = "θ̂ (the answer)"
		}
		labels.Text(viz.Point{X: at.X + 11, Y: at.Y}, name, 12, viz.Ink, viz.Left)
	}
	if h := ph.Halted; h > 0 && a.ended {
		l.Text(viz.Point{X: c.X0 + c.W/2, Y: c.Y0 + c.H - 8}, format.Sprintf("phase %d halted at step %d → its answer is its start", ph.I, h), 13, viz.Vermillion, viz.Centre)
	}
}

// stripBar is the strip's bar height; a strip is its title, a gap of 4
// and the bar.
const stripBar = 16.0

// stripTitle says which users the phase shown takes and how wide its ball is.
func (s *Scene) stripTitle(a localAt) string {
	ph := &s.sc.Phases[a.phase]
	title := format.Sprintf("users by phase: phase %d takes %d fresh ones", ph.I, ph.Users)
	if ph.RHat >= 2*s.params.Radius {
		return title + format.Sprintf("; R̂ = %.3g, wider than Θ", ph.RHat)
	}
	return title + format.Sprintf("; R̂ = %.3g", ph.RHat)
}

// stripHeight is the strip's height between x0 and x1, its title wrapped.
func (s *Scene) stripHeight(l *viz.List, x0, x1 float64, a localAt) float64 {
	return l.TextHeight(viz.Point{X: x0}, x1-x0, s.stripTitle(a), 12, viz.Left) + 4 + stripBar
}

// drawStrip draws the users in file order as a strip from x0 to x1 below
// y: one segment per phase's group, numbered, the phase shown filled and
// the users no phase takes grey, under a title saying what it is.
func (s *Scene) drawStrip(l *viz.List, x0, y, x1 float64, a localAt) {
	// Text items sit on their middle line: the title's first line at y + 6.
	top := y + l.TextIn(viz.Point{X: x0, Y: y + 6}, x1-x0, s.stripTitle(a), 12, viz.Ink, viz.Left) + 4
	per := (x1 - x0) / float64(s.n)
	x := x0
	for i, p := range s.sc.Phases {
		w := float64(p.Users) * per
		st := viz.Style{Fill: viz.Sky, Stroke: viz.Ink, Width: 1, Alpha: 0.5}
		ink := viz.Ink
		switch {
		case i == a.phase:
			st.Fill, st.Alpha, ink = viz.Blue, 1, viz.Paper
		case i < a.done:
			st.Alpha = 0.25
		}
		l.Rect(viz.Point{X: x, Y: top}, viz.Point{X: x + w, Y: top + stripBar}, st, 0)
		if w >= 12 {
			l.Text(viz.Point{X: x + w/2, Y: top + stripBar/2}, format.Sprint(p.I), 11, ink, viz.Centre)
		}
		x += w
	}
	if x < x1-0.5 {
		l.Rect(viz.Point{X: x, Y: top}, viz.Point{X: x1, Y: top + stripBar}, viz.Style{Fill: viz.Muted, Stroke: viz.Ink, Width: 1, Alpha: 0.3}, 0)
	}
}
