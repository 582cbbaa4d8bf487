package outlieriterates

import (
	"math"

	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/optim"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/figure"
)

// drawAccel shows the accelerated variant: the plane with the phase's
// query path and, magnified, the step's users' gradients; beside it the
// phases, each step's check against the phase's one noisy threshold, and
// the keep ramp of the step's users.
func (s *Scene) drawAccel(l *viz.List, w, h float64) {
	a := s.accelAt()
	if w < 640 {
		top := math.Round(h * 0.5)
		s.drawAccelPlane(l, w, top, a)
		y := s.drawChecks(l, figure.Plot{X0: 40, Y0: top + 14, W: w - 70, H: 90}, a)
		s.drawAccelRamp(l, figure.Plot{X0: 50, Y0: y + 48, W: w - 80, H: math.Min(150, h-y-80)}, a)
		return
	}
	split := math.Round(w * 0.58)
	s.drawAccelPlane(l, split, h, a)
	y := s.drawAccelPhases(l, split+24, 14, w-split-40, a)
	y = s.drawChecks(l, figure.Plot{X0: split + 40, Y0: y + 18, W: w - split - 70, H: 110}, a)
	ramp := figure.Plot{X0: split + 50, Y0: y + 50, W: w - split - 80}
	ramp.H = math.Min(150, h-ramp.Y0-36)
	s.drawAccelRamp(l, ramp, a)
}

// drawAccelPlane draws the items (the step's users in colour: kept
// green, dropped vermillion), the releases so far, the phase's query
// path, and an inset of the step's users' gradients.
func (s *Scene) drawAccelPlane(l *viz.List, w, h float64, a accelAt) {
	st := a.current()
	what := "users' items (drag a user); before a step every user is grey"
	if st != nil {
		what = format.Sprintf("users' items (drag a user); step %d's K users in colour: green kept, vermillion dropped", st.T)
	}
	top, bottom := s.planeHeader(l, w, h, what, "— the phase's AC-SA query points x_md  ■ the phase's start  ● the step's query  ● release")
	if s.grab.ID == 0 {
		s.fitPlane(w, top, bottom, w)
	}
	col := make([]viz.Colour, s.cfg.n)
	if st != nil {
		kept := make([]bool, len(st.Users))
		for _, i := range st.Kept {
			kept[i] = true
		}
		for i, u := range st.Users {
			col[u] = viz.Blue
			if st.Passed {
				col[u] = viz.Green
				if !kept[i] {
					col[u] = viz.Vermillion
				}
			}
		}
	}
	s.drawItems(l, col)
	s.drawTrail(l, s.accelTrail(a))
	if a.phase == nil {
		return
	}
	c := s.cam
	p0 := c.ToScreen(a.phase.Start[0], a.phase.Start[1])
	l.Rect(viz.Point{X: p0.X - 5, Y: p0.Y - 5}, viz.Point{X: p0.X + 5, Y: p0.Y + 5}, viz.Style{Fill: viz.Ink}, 0)
	path := []viz.Point{p0}
	for _, q := range a.phase.Steps[:a.step] {
		path = append(path, c.ToScreen(q.Query[0], q.Query[1]))
	}
	l.Polyline(path, viz.Style{Stroke: viz.Blue, Width: 1.5, Alpha: 0.8})
	if st != nil {
		l.Circle(path[len(path)-1], 5, viz.Style{Fill: viz.Orange, Stroke: viz.Ink, Width: 1}, 0)
		s.drawGradients(l, a.phase, st, w, top, bottom)
	}
	if a.phase.Halted && a.step == len(a.phase.Steps) {
		l.Text(viz.Point{X: w / 2, Y: h - 12}, format.Sprintf("phase %d halted: it returns 0, and the next phase starts there", a.phase.I), 13, viz.Vermillion, viz.Centre)
	}
}

// accelTrail is x₀ and the outputs of the phases done.
func (s *Scene) accelTrail(a accelAt) [][]float64 {
	pts := [][]float64{oirStart}
	for i := range a.idx {
		if ph := &s.acc.Phases[i]; i+1 < a.idx || a.step == len(ph.Steps) {
			pts = append(pts, ph.Output)
		}
	}
	return pts
}

// drawGradients is the step's inset, in the plane's top right corner: the
// K users' gradients at the query (filled if kept, hollow if dropped, by
// the ramp's colours), their kept mean ◆ with the 2τ that counts
// neighbours and the noise's σ around it, and the noisy mean ĝ.
func (s *Scene) drawGradients(l *viz.List, ph *optim.AccelPhase, st *optim.AccelStep, w, top, bottom float64) {
	side := math.Min(math.Min(0.45*w, 0.55*(bottom-top)), 250)
	if side < 90 {
		return
	}
	q := make([][]float64, st.UserGradients.Len())
	for i := range q {
		q[i] = st.UserGradients.At(i)
	}
	x0, x1, y0, y1 := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, g := range q {
		x0, x1, y0, y1 = math.Min(x0, g[0]), math.Max(x1, g[0]), math.Min(y0, g[1]), math.Max(y1, g[1])
	}
	pad := ph.Tau
	box := viz.Point{X: w - side - 6, Y: top + 4}
	c := viz.Fit(x0-pad, x1+pad, y0-pad, y1+pad, box.X, box.Y+14, side, side-14, 10)
	l.Rect(box, viz.Point{X: box.X + side, Y: box.Y + side}, viz.Style{Fill: viz.Paper, Stroke: viz.Muted, Width: 1}, 0)
	l.Text(viz.Point{X: box.X + 6, Y: box.Y + 10}, format.Sprintf("step %d: the K users' gradients", st.T), 11, viz.Muted, viz.Left)
	in := func(p viz.Point, r float64) bool {
		return p.X-r >= c.X0 && p.X+r <= c.X0+c.W && p.Y-r >= c.Y0 && p.Y+r <= c.Y0+c.H
	}
	kept := make([]bool, len(q))
	for _, i := range st.Kept {
		kept[i] = true
	}
	for i, g := range q {
		style := viz.Style{Fill: viz.Blue, Stroke: viz.Ink, Width: 0.5}
		if st.Passed {
			style.Fill = figure.RampColour(st.Keep[i])
			if !kept[i] {
				style = viz.Style{Fill: viz.Paper, Stroke: figure.RampColour(st.Keep[i]), Width: 1.5}
			}
		}
		l.Circle(c.ToScreen(g[0], g[1]), 3.5, style, 0)
		if st.Passed {
			figure.RampMark(l, c.ToScreen(g[0], g[1]), 3.5, st.Keep[i])
		}
	}
	if st.Passed && len(st.Kept) > 0 {
		m := c.ToScreen(st.Mean[0], st.Mean[1])
		if r := 2 * ph.Tau * c.Scale; in(m, r) {
			l.Circle(m, r, viz.Style{Stroke: viz.Sky, Width: 1, Dashed: true}, 0)
		}
		if r := ph.Sigma * c.Scale; r > 1 && in(m, r) {
			l.Circle(m, r, viz.Style{Stroke: viz.Orange, Width: 1.5}, 0)
		}
		l.Polygon([]viz.Point{{X: m.X, Y: m.Y - 6}, {X: m.X + 6, Y: m.Y}, {X: m.X, Y: m.Y + 6}, {X: m.X - 6, Y: m.Y}}, viz.Style{Fill: viz.Green, Stroke: viz.Ink, Width: 1})
		// ĝ = G − λ(x_q − x₀): the noisy mean, before the pull to the start.
		gh := []float64{st.Gradient[0] - ph.Lambda*(st.Query[0]-ph.Start[0]), st.Gradient[1] - ph.Lambda*(st.Query[1]-ph.Start[1])}
		if p := c.ToScreen(gh[0], gh[1]); in(p, 0) {
			l.Circle(p, 4.5, viz.Style{Fill: viz.Orange, Stroke: viz.Ink, Width: 1}, 0)
		} else {
			l.Text(viz.Point{X: box.X + 6, Y: box.Y + side - 8}, "ĝ, the noisy mean, is beyond the box", 10, viz.Orange, viz.Left)
		}
	}
	c.DrawScaleBar(l)
}

// drawAccelPhases is the accelerated schedule with the outcome of the
// phases shown; it returns the y below it.
func (s *Scene) drawAccelPhases(l *viz.List, x, y, w float64, a accelAt) float64 {
	rows := make([][]string, len(s.acc.Phases))
	for i := range s.acc.Phases {
		ph := &s.acc.Phases[i]
		outcome := ""
		switch {
		case ph.I > a.idx:
		case ph.I == a.idx && a.step < len(ph.Steps):
			outcome = format.Sprintf("step %d", a.step)
		case ph.Halted:
			outcome = format.Sprintf("halt at step %d", len(ph.Steps))
		default:
			outcome = "done"
		}
		rows[i] = []string{format.Sprintf("%d", ph.I), format.Sprintf("%d", ph.Users), format.Sprintf("%.3g", ph.Lambda),
			format.Sprintf("%d", ph.AccelRow.Steps), format.Sprintf("%d", ph.Batch), s.sigmaCell(ph.Sigma), outcome}
	}
	return drawPhaseTable(l, x, y, w, "phases: fresh users each, a stronger pull λ to the start", []float64{0, 0.08, 0.22, 0.38, 0.48, 0.58, 0.74},
		[]string{"i", "users", "λ_i", "T_i", "K_i", "σ_i", "outcome"}, rows, a.idx)
}

// drawChecks is the phase's AboveThreshold strip: each step's score and
// noisy score against 4K/5 and the phase's one noisy threshold Δ̂; it
// returns the y below it.
func (s *Scene) drawChecks(l *viz.List, p figure.Plot, a accelAt) float64 {
	ph := s.accelShown(a)
	k := float64(ph.Batch)
	title := format.Sprintf("phase %d's check: each step's score (blue) plus Lap(16/ε) (orange) against one noisy threshold Δ̂ (pink)", ph.I)
	if s.cfg.mode == privacy.NonPrivate {
		title = format.Sprintf("phase %d's check: non-private, every step passes; the scores (blue) against 4K/5", ph.I)
	}
	p.Y0 += l.TextIn(viz.Point{X: p.X0 - 10, Y: p.Y0}, p.W+10, title, 12, viz.Ink, viz.Left) + 6
	p.Lo, p.Hi = 0, k
	slot := p.W / float64(max(ph.AccelRow.Steps, 1))
	xOf := func(t int) float64 { return p.X0 + (float64(t)-0.5)*slot }
	yOf := func(v float64) float64 { return figure.Clamp(p.YOf(v), p.Y0-4, p.Y0+p.H+4) }
	l.Line(viz.Point{X: p.X0, Y: p.Y0 + p.H}, viz.Point{X: p.X0 + p.W, Y: p.Y0 + p.H}, viz.Style{Stroke: viz.Muted, Width: 1})
	l.Line(viz.Point{X: p.X0, Y: p.Y0}, viz.Point{X: p.X0, Y: p.Y0 + p.H}, viz.Style{Stroke: viz.Muted, Width: 1})
	l.Text(viz.Point{X: p.X0 - 6, Y: p.Y0}, "K", 10, viz.Muted, viz.Right)
	l.Text(viz.Point{X: p.X0 - 6, Y: p.Y0 + p.H}, "0", 10, viz.Muted, viz.Right)
	l.Line(viz.Point{X: p.X0, Y: p.YOf(0.8 * k)}, viz.Point{X: p.X0 + p.W, Y: p.YOf(0.8 * k)}, viz.Style{Stroke: viz.Muted, Width: 1, Dashed: true})
	l.Text(viz.Point{X: p.X0 + p.W + 4, Y: p.YOf(0.8 * k)}, "4K/5", 10, viz.Muted, viz.Left)
	l.Text(viz.Point{X: p.X0 + p.W/2, Y: p.Y0 + p.H + 12}, format.Sprintf("steps 1…%d", ph.AccelRow.Steps), 10, viz.Muted, viz.Centre)
	if a.phase == nil {
		return p.Y0 + p.H + 16
	}
	if a.threshold {
		thr := ph.Steps[0].Threshold
		l.Line(viz.Point{X: p.X0, Y: yOf(thr)}, viz.Point{X: p.X0 + p.W, Y: yOf(thr)}, viz.Style{Stroke: viz.Purple, Width: 2})
	}
	for t := range max(a.compared, a.step) { // non-private: no comparisons
		st := &ph.Steps[t]
		x := xOf(st.T)
		l.Circle(viz.Point{X: x, Y: yOf(st.Score)}, math.Min(3, slot/2), viz.Style{Fill: viz.Blue}, 0)
		if s.cfg.mode == privacy.NonPrivate {
			continue
		}
		col := viz.Orange
		if !st.Passed {
			col = viz.Vermillion
		}
		l.Circle(viz.Point{X: x, Y: yOf(st.NoisyScore)}, math.Min(3.5, slot/2), viz.Style{Fill: col, Stroke: viz.Ink, Width: 0.5}, 0)
	}
	return p.Y0 + p.H + 16
}

// drawAccelRamp places the step's users on the keep ramp once it passed.
func (s *Scene) drawAccelRamp(l *viz.List, p figure.Plot, a accelAt) {
	var counts []int
	if st := a.current(); st != nil && st.Passed {
		counts = st.Counts
	}
	figure.KeepRamp(l, p, counts, s.accelShown(a).Batch, "K", "keep ramp p(h_i), h_i = the step's gradients within 2τ of user i's")
}
