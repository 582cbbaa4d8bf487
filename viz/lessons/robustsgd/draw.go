package robustsgd

import (
	"cmp"
	"math"
	"slices"
	"strconv"

	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/optim"
	"github.com/uldplab/uldp/core/robust"
	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/figure"
)

// Draw shows the batch's gradients with the robust estimate, the two
// trajectories in the domain, the scores against the test's threshold and
// the gap between the runs. A frame narrower than 640 px stacks them.
func (s *Scene) Draw(w, h float64) *viz.List {
	l := &s.list
	v := &s.view
	if !figure.Reset(l, w, h, v.err) {
		return l
	}
	a := v.at()
	if w < 640 {
		ph := math.Round(0.36 * h)
		dh := math.Round(0.27 * h)
		sh := math.Round(0.19 * h)
		s.drawBatch(l, figure.Box{X: 0, Y: 0, W: w, H: ph}, a)
		s.drawDomain(l, figure.Box{X: 0, Y: ph, W: w, H: dh}, a)
		s.drawScores(l, figure.Box{X: 0, Y: ph + dh, W: w, H: sh}, a)
		s.drawGap(l, figure.Box{X: 0, Y: ph + dh + sh, W: w, H: h - ph - dh - sh}, a)
		return l
	}
	split := math.Round(0.5 * w)
	s.drawBatch(l, figure.Box{X: 0, Y: 0, W: split, H: h}, a)
	rw := w - split
	dh := math.Round(math.Min(0.46*h, rw))
	sh := math.Round((h - dh) / 2)
	s.drawDomain(l, figure.Box{X: split, Y: 0, W: rw, H: dh}, a)
	s.drawScores(l, figure.Box{X: split, Y: dh, W: rw, H: sh}, a)
	s.drawGap(l, figure.Box{X: split, Y: dh + sh, W: rw, H: h - dh - sh}, a)
	return l
}

// shownStep is the step the batch panel shows: the last one taken, or the
// first one about to be.
func (v *robustView) shownStep(a robustAt) (*optim.RobustStep, int) {
	if a.step != nil {
		return a.step, a.phaseIdx - 1
	}
	if len(v.res.Phases[0].Steps) == 0 {
		return nil, 0
	}
	return &v.res.Phases[0].Steps[0], 0
}

// drawBatch draws one step's batch: the users' gradients, the mean, the
// robust statistic with its band and the clipped estimate.
func (s *Scene) drawBatch(l *viz.List, b figure.Box, a robustAt) {
	v := &s.view
	st, p := v.shownStep(a)
	if st == nil {
		return
	}
	what := format.Sprintf("step %d's batch: %d users' gradients at x_%d (drag them)", st.T, len(st.Users), st.T-1)
	if a.step == nil {
		what = format.Sprintf("the first batch: %d users' gradients at x₀ (drag them)", len(st.Users))
	}
	if len(v.res.Phases) > 1 {
		what = format.Sprintf("phase %d, ", p+1) + what
	}
	top := b.Y + 14 + l.TextIn(viz.Point{X: b.X + 14, Y: b.Y + 14}, b.W-28, what, 12, viz.Ink, viz.Left)
	e := st.Estimate
	key := format.Sprintf("● mean  ✚ %s  ◆ estimate  ▢ band %s ± r", v.cfg.stat, v.cfg.stat)
	// Where the batch agrees the three marks are one spot: say so, and how
	// to pull them apart, rather than leave a reader looking for two.
	if agree := math.Max(linf(e.Mean, e.Stat), math.Max(linf(e.Mean, e.Est), linf(e.Stat, e.Est))); agree <= v.cfg.radius/20 {
		key += " — here all three lie within r/20: the batch agrees, nothing is clipped (drag a user out, or try the outliers preset)"
	}
	legend := b.Y + b.H - 6 - l.TextHeight(viz.Point{X: b.X + 14}, b.W-28, key, 11, viz.Left)
	bottom := legend - 8
	q := st.Q.Flat
	r := v.cfg.radius
	if s.grab.ID == 0 { // the view stays put while a user is dragged
		x0, x1, y0, y1 := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
		for i := 0; i < len(q); i += 2 {
			x0, x1 = math.Min(x0, q[i]), math.Max(x1, q[i])
			y0, y1 = math.Min(y0, q[i+1]), math.Max(y1, q[i+1])
		}
		for _, pt := range [][]float64{e.Mean, e.Est, e.Stat} {
			x0, x1 = math.Min(x0, pt[0]), math.Max(x1, pt[0])
			y0, y1 = math.Min(y0, pt[1]), math.Max(y1, pt[1])
		}
		// The band joins the view when it is not much larger than the
		// batch; otherwise it covers the whole view, and says so.
		if ext := math.Max(x1-x0, y1-y0); 2*r <= 4*ext {
			x0, x1 = math.Min(x0, e.Stat[0]-r), math.Max(x1, e.Stat[0]+r)
			y0, y1 = math.Min(y0, e.Stat[1]-r), math.Max(y1, e.Stat[1]+r)
		}
		ext := math.Max(math.Max(x1-x0, y1-y0), 1e-9)
		pad := 0.08 * ext
		s.cam = viz.Fit(x0-pad, x1+pad, y0-pad, y1+pad, b.X, top, b.W, bottom-top, 14)
		s.spot = (ext + 2*pad) / 300
	}
	c := s.cam
	// The band, as much of it as is in view.
	wx0, wy1 := c.ToWorld(viz.Point{X: c.X0, Y: c.Y0})
	wx1, wy0 := c.ToWorld(viz.Point{X: c.X0 + c.W, Y: c.Y0 + c.H})
	bx0, bx1 := math.Max(e.Stat[0]-r, wx0), math.Min(e.Stat[0]+r, wx1)
	by0, by1 := math.Max(e.Stat[1]-r, wy0), math.Min(e.Stat[1]+r, wy1)
	if bx0 < bx1 && by0 < by1 {
		l.Rect(c.ToScreen(bx0, by1), c.ToScreen(bx1, by0), viz.Style{Fill: viz.Sky, Alpha: 0.12}, 0)
		edge := viz.Style{Stroke: viz.Sky, Width: 1.5, Dashed: true}
		for _, x := range []float64{e.Stat[0] - r, e.Stat[0] + r} {
			if x > wx0 && x < wx1 {
				l.Line(c.ToScreen(x, by0), c.ToScreen(x, by1), edge)
			}
		}
		for _, y := range []float64{e.Stat[1] - r, e.Stat[1] + r} {
			if y > wy0 && y < wy1 {
				l.Line(c.ToScreen(bx0, y), c.ToScreen(bx1, y), edge)
			}
		}
	}
	rad := 4.0
	if len(st.Users) > 100 {
		rad = 3
	}
	// Users whose gradients land on one spot (a preset's crowd) would show
	// as one dot: a count above the pile says how many it holds. A spot is
	// a 300th of the batch's extent, whatever the screen (under a dot's
	// width on a wide one): on a phone's scale, dots that merely touch are
	// no pile.
	type pile struct {
		at viz.Point
		n  int
	}
	var piles []*pile
	onSpot := map[[2]int]*pile{}
	spot := s.spot
	for i, u := range st.Users {
		style := viz.Style{Fill: viz.Blue, Stroke: viz.Ink, Width: 0.5}
		if s.grab.ID == u+1 {
			style.Stroke, style.Width = viz.Yellow, 3
		}
		pt := c.ToScreen(q[2*i], q[2*i+1])
		l.Circle(pt, rad, style, u+1)
		key := [2]int{int(math.Floor(q[2*i] / spot)), int(math.Floor(q[2*i+1] / spot))}
		if pl := onSpot[key]; pl != nil {
			pl.n++
		} else {
			onSpot[key] = &pile{pt, 1}
			piles = append(piles, onSpot[key])
		}
	}
	slices.SortStableFunc(piles, func(a, b *pile) int { return cmp.Compare(b.n, a.n) })
	counts := figure.Labels{L: l}
	for _, pl := range piles {
		if pl.n > 1 {
			counts.Text(viz.Point{X: pl.at.X, Y: pl.at.Y - rad - 8}, format.Sprintf("×%d", pl.n), 10, viz.Ink, viz.Centre)
		}
	}
	// The neighbour's moved user, where its gradient is in the copy.
	if nu := v.cfg.nbUser; v.cfg.nb && nu >= 0 && p < len(v.nbRes.Phases) && st.T <= len(v.nbRes.Phases[p].Steps) {
		nst := v.nbRes.Phases[p].Steps[st.T-1]
		for i, u := range nst.Users {
			if u == nu {
				from := c.ToScreen(q[2*i], q[2*i+1])
				to := c.ToScreen(nst.Q.Flat[2*i], nst.Q.Flat[2*i+1])
				// Beyond the view, it waits at the edge.
				to = viz.Point{X: figure.Clamp(to.X, c.X0+8, c.X0+c.W-8), Y: figure.Clamp(to.Y, c.Y0+8, c.Y0+c.H-8)}
				l.Line(from, to, viz.Style{Stroke: viz.Purple, Width: 1.5, Dashed: true})
				l.Rect(viz.Point{X: to.X - 6, Y: to.Y - 6}, viz.Point{X: to.X + 6, Y: to.Y + 6}, viz.Style{Stroke: viz.Purple, Width: 2}, 0)
			}
		}
	}
	mean, stat, est := c.ToScreen(e.Mean[0], e.Mean[1]), c.ToScreen(e.Stat[0], e.Stat[1]), c.ToScreen(e.Est[0], e.Est[1])
	clipped := e.Clipped[0] || e.Clipped[1]
	if clipped {
		l.Arrow(mean, est, viz.Style{Stroke: viz.Vermillion, Width: 2})
	}
	estCol := viz.Green
	if clipped {
		estCol = viz.Vermillion
	}
	l.Polygon([]viz.Point{{X: est.X, Y: est.Y - 8}, {X: est.X + 8, Y: est.Y}, {X: est.X, Y: est.Y + 8}, {X: est.X - 8, Y: est.Y}}, viz.Style{Fill: estCol, Stroke: viz.Ink, Width: 1})
	l.Circle(mean, 4, viz.Style{Fill: viz.Ink}, 0)
	// The statistic on top: where the three agree, all three show.
	l.Line(viz.Point{X: stat.X - 11, Y: stat.Y}, viz.Point{X: stat.X + 11, Y: stat.Y}, viz.Style{Stroke: viz.Purple, Width: 2})
	l.Line(viz.Point{X: stat.X, Y: stat.Y - 11}, viz.Point{X: stat.X, Y: stat.Y + 11}, viz.Style{Stroke: viz.Purple, Width: 2})
	l.TextIn(viz.Point{X: b.X + 14, Y: legend}, b.W-28, key, 11, viz.Muted, viz.Left)
	if bx0 <= wx0 && bx1 >= wx1 && by0 <= wy0 && by1 >= wy1 {
		l.Text(viz.Point{X: c.X0 + c.W - 14, Y: c.Y0 + c.H - 12}, format.Sprintf("the band covers the view: r = %.3g", r), 11, viz.Sky, viz.Right)
	}
	c.DrawScaleBar(l)
}

// drawDomain draws the box [−1, 1]² with the trajectory, the neighbour's,
// every item's mean, and the releases.
func (s *Scene) drawDomain(l *viz.List, b figure.Box, a robustAt) {
	v := &s.view
	top := b.Y + 12 + l.TextIn(viz.Point{X: b.X + 14, Y: b.Y + 12}, b.W-28, "the domain [−1, 1]²: x_t (blue), the neighbour's y_t (pink), ★ every item's mean", 12, viz.Ink, viz.Left)
	c := viz.Fit(-1, 1, -1, 1, b.X, top, b.W, b.Y+b.H-top, 10)
	s.dom = c
	l.Rect(c.ToScreen(-1, 1), c.ToScreen(1, -1), viz.Style{Stroke: viz.Muted, Width: 1}, 0)
	place := figure.Labels{L: l}
	place.Text(c.ToScreen(v.mean[0], v.mean[1]), "★", 16, viz.Ink, viz.Centre)
	path := func(res *optim.RobustSGDResult, steps int) []viz.Point {
		var pts []viz.Point
		for _, ph := range res.Phases {
			pts = append(pts, c.ToScreen(ph.Start[0], ph.Start[1]))
			for _, st := range ph.Steps {
				if steps == 0 {
					return pts
				}
				steps--
				pts = append(pts, c.ToScreen(st.Next[0], st.Next[1]))
			}
		}
		return pts
	}
	x := path(&v.res, a.steps)
	if len(x) == 0 {
		return
	}
	l.Polyline(x, viz.Style{Stroke: viz.Blue, Width: 2})
	l.Circle(x[0], 4, viz.Style{Fill: viz.Paper, Stroke: viz.Blue, Width: 2}, 0)
	place.Text(viz.Point{X: x[0].X + 8, Y: x[0].Y - 8}, "x₀", 12, viz.Blue, viz.Left)
	if len(v.nbRes.Phases) > 0 {
		l.Polyline(path(&v.nbRes, a.steps), viz.Style{Stroke: viz.Purple, Width: 1.5, Dashed: true})
	}
	// Each release so far: the phase's answer, its noise rings, the result.
	for k := range a.phaseIdx {
		ph := &v.res.Phases[k]
		if k == a.phaseIdx-1 && !a.answered {
			break
		}
		centre := ph.Average
		if !ph.Passed {
			centre = ph.Start
		}
		at := c.ToScreen(centre[0], centre[1])
		l.Polygon([]viz.Point{{X: at.X, Y: at.Y - 6}, {X: at.X + 6, Y: at.Y}, {X: at.X, Y: at.Y + 6}, {X: at.X - 6, Y: at.Y}}, viz.Style{Fill: viz.Green, Stroke: viz.Ink, Width: 1})
		if k == a.phaseIdx-1 && !a.released {
			place.Text(viz.Point{X: at.X + 9, Y: at.Y + 10}, "x̄", 12, viz.Green, viz.Left)
			break
		}
		for i, alpha := range []float64{1, 0.5} {
			if rr := float64(i+1) * ph.Sigma * c.Scale; rr > 0 && rr < 4*c.W {
				l.Circle(at, rr, viz.Style{Stroke: viz.Orange, Width: 1.5, Alpha: alpha}, 0)
			}
		}
		out := c.ToScreen(ph.Output[0], ph.Output[1])
		label := "x̂"
		if len(v.res.Phases) > 1 {
			label = format.Sprintf("x̂_%d", k+1)
		}
		if !(out.X >= c.X0 && out.X <= c.X0+c.W && out.Y >= c.Y0 && out.Y <= c.Y0+c.H) {
			out = viz.Point{X: figure.Clamp(out.X, c.X0+8, c.X0+c.W-8), Y: figure.Clamp(out.Y, c.Y0+8, c.Y0+c.H-8)}
			label += " (beyond)"
		}
		l.Circle(out, 5, viz.Style{Fill: viz.Orange, Stroke: viz.Ink, Width: 1}, 0)
		if k == a.phaseIdx-1 {
			align, dx := viz.Left, 9.0
			if out.X > c.X0+c.W/2 {
				align, dx = viz.Right, -9
			}
			place.Text(viz.Point{X: out.X + dx, Y: out.Y - 10}, label, 12, viz.Ink, align)
		}
	}
}

// drawScores plots the current phase's scores against the threshold v,
// the noisy threshold, B and the bad batches' ceiling.
func (s *Scene) drawScores(l *viz.List, b figure.Box, a robustAt) {
	v := &s.view
	ph := a.phase
	if ph == nil {
		ph = &v.res.Phases[0]
	}
	bb := float64(v.cfg.batch)
	steps := ph.Users / v.cfg.batch
	top := b.Y + 10 + l.TextIn(viz.Point{X: b.X + 14, Y: b.Y + 10}, b.W-28, "scores s_t (blue) and s_t + noise (orange) against the noisy threshold", 12, viz.Ink, viz.Left)
	p := figure.Plot{X0: b.X + 44, Y0: top + 4, W: b.W - 124, H: b.Y + b.H - top - 22, Slots: max(steps, 1)}
	if p.H < 30 || p.W < 60 {
		return
	}
	p.Lo, p.Hi = math.Min(0.9*robust.BadScore(v.cfg.batch), ph.Threshold-2*ph.ThresholdScale), math.Max(1.02*bb, ph.Threshold+ph.ThresholdScale)
	var shown []*optim.RobustStep
	if a.phase != nil {
		for k := range ph.Steps {
			if k < len(a.compares) || (a.step != nil && k < a.step.T) {
				shown = append(shown, &ph.Steps[k])
			}
		}
	}
	for _, st := range shown {
		p.Lo = math.Min(p.Lo, st.Score)
	}
	for _, q := range a.compares {
		p.Lo, p.Hi = math.Min(p.Lo, q), math.Max(p.Hi, q)
	}
	yClamp := func(y float64) float64 { return figure.Clamp(p.YOf(y), p.Y0, p.Y0+p.H) }
	l.Line(viz.Point{X: p.X0, Y: p.Y0 + p.H}, viz.Point{X: p.X0 + p.W, Y: p.Y0 + p.H}, viz.Style{Stroke: viz.Muted, Width: 1})
	l.Text(viz.Point{X: p.X0 - 6, Y: p.Y0 + p.H}, viz.TickLabel(p.Lo), 10, viz.Muted, viz.Right)
	place := figure.Labels{L: l}
	line := func(y float64, label string, st viz.Style, col viz.Colour) {
		yy := yClamp(y)
		l.Line(viz.Point{X: p.X0, Y: yy}, viz.Point{X: p.X0 + p.W, Y: yy}, st)
		place.Text(viz.Point{X: p.X0 + p.W + 6, Y: yy}, label, 10, col, viz.Left)
	}
	if a.threshold {
		line(ph.NoisyThreshold, "v̂ (noisy)", viz.Style{Stroke: viz.Purple, Width: 1.5, Dashed: true}, viz.Purple)
	}
	line(ph.Threshold, "v", viz.Style{Stroke: viz.Purple, Width: 1}, viz.Purple)
	line(bb, "B", viz.Style{Stroke: viz.Muted, Width: 1}, viz.Muted)
	line(robust.BadScore(v.cfg.batch), "bad ≤ 0.79B", viz.Style{Stroke: viz.Vermillion, Width: 1, Dashed: true}, viz.Vermillion)
	for k, st := range shown {
		x := p.SlotX(k + 1)
		l.Circle(viz.Point{X: x, Y: yClamp(st.Score)}, 4, viz.Style{Fill: viz.Blue, Stroke: viz.Ink, Width: 0.5}, 0)
		if k < len(a.compares) {
			col := viz.Orange
			if !a.passes[k] {
				col = viz.Vermillion
			}
			l.Circle(viz.Point{X: x, Y: yClamp(a.compares[k])}, 4, viz.Style{Fill: col, Stroke: viz.Ink, Width: 0.5}, 0)
		}
	}
	if ph.FailedAt > 0 && len(a.compares) >= ph.FailedAt {
		x := p.SlotX(ph.FailedAt)
		place.Text(viz.Point{X: figure.Clamp(x, p.X0+20, p.X0+p.W-20), Y: p.Y0 + p.H + 12}, format.Sprintf("⊥ at step %d", ph.FailedAt), 11, viz.Vermillion, viz.Centre)
	} else {
		place.Text(viz.Point{X: p.X0, Y: p.Y0 + p.H + 12}, format.Sprintf("step 1 … %d", steps), 10, viz.Muted, viz.Left)
	}
}

// drawGap plots ‖x_t − y_t‖∞ over every step against the bound 6ηr.
func (s *Scene) drawGap(l *viz.List, b figure.Box, a robustAt) {
	v := &s.view
	title := "the gap ‖x_t − y_t‖∞ between the runs, against 6ηr"
	if len(v.nbRes.Phases) == 0 {
		title = "turn on the neighbour (N) and drag a user: a second run on the same batches and seed, and the ℓ∞ gap between the two"
	}
	top := b.Y + 10 + l.TextIn(viz.Point{X: b.X + 14, Y: b.Y + 10}, b.W-28, title, 12, viz.Ink, viz.Left)
	if len(v.nbRes.Phases) == 0 {
		return
	}
	g := v.gapSeries(a.steps)
	total := 0
	for _, ph := range v.res.Phases {
		total += len(ph.Steps)
	}
	p := figure.Plot{X0: b.X + 44, Y0: top + 4, W: b.W - 124, H: b.Y + b.H - top - 22, Slots: max(total, 1)}
	if p.H < 30 || p.W < 60 {
		return
	}
	// The gap at its own scale: a bound far above it goes into words.
	hi := 1.25 * g.max
	bound := 0.0
	for _, x := range g.bounds {
		bound = math.Max(bound, x)
	}
	showBound := g.max == 0 || bound <= 3*g.max
	if showBound {
		hi = math.Max(hi, 1.15*bound)
	}
	p.Lo, p.Hi = 0, hi
	l.Line(viz.Point{X: p.X0, Y: p.Y0 + p.H}, viz.Point{X: p.X0 + p.W, Y: p.Y0 + p.H}, viz.Style{Stroke: viz.Muted, Width: 1})
	l.Text(viz.Point{X: p.X0 - 6, Y: p.Y0 + p.H}, "0", 10, viz.Muted, viz.Right)
	l.Text(viz.Point{X: p.X0 - 6, Y: p.Y0}, viz.TickLabel(p.Hi), 10, viz.Muted, viz.Right)
	// The bound, phase by phase.
	for k, bd := range g.bounds {
		if !showBound {
			break
		}
		y := p.YOf(bd)
		l.Line(viz.Point{X: p.X0 + p.SlotW()*float64(g.first[k]), Y: y}, viz.Point{X: p.X0 + p.SlotW()*float64(g.first[k]+g.len[k]), Y: y}, viz.Style{Stroke: viz.Vermillion, Width: 1, Dashed: true})
	}
	if showBound {
		l.Text(viz.Point{X: p.X0 + p.W + 6, Y: p.YOf(g.bounds[0])}, "6ηr", 10, viz.Vermillion, viz.Left)
	} else {
		l.TextIn(viz.Point{X: p.X0 + 8, Y: p.Y0 + 4}, p.W-8, format.Sprintf("6ηr = %.3g is off the top: %s× the largest gap", bound, strconv.FormatFloat(bound/g.max, 'f', 0, 64)), 10, viz.Vermillion, viz.Left)
	}
	var pts []viz.Point
	for k, x := range g.gap {
		pts = append(pts, viz.Point{X: p.SlotX(k + 1), Y: p.YOf(x)})
	}
	if len(pts) > 0 {
		l.Polyline(pts, viz.Style{Stroke: viz.Purple, Width: 2})
	}
	for k, pt := range pts {
		if k == g.grewAt-1 {
			l.Circle(pt, 5, viz.Style{Fill: viz.Vermillion, Stroke: viz.Ink, Width: 0.5}, 0)
		} else if len(pts) <= 60 {
			l.Circle(pt, 2.5, viz.Style{Fill: viz.Purple}, 0)
		}
	}
	if g.grewAt > 0 {
		l.Text(viz.Point{X: p.X0, Y: p.Y0 + p.H + 12}, format.Sprintf("grew at step %d: the loss breaks the contraction", g.grewAt), 11, viz.Vermillion, viz.Left)
	} else {
		l.Text(viz.Point{X: p.X0, Y: p.Y0 + p.H + 12}, format.Sprintf("steps 1 … %d of the whole run", total), 10, viz.Muted, viz.Left)
	}
}

// gapSeries is ‖x_t − y_t‖∞ over the run's steps and what it did.
type gapSeries struct {
	gap         []float64 // per step of the run (NaN where the neighbour stopped earlier)
	bounds      []float64 // 6η_s·r per phase
	first, len  []int     // each phase's first step (0-based, over the run) and its steps
	jump, bound float64   // the first non-zero gap and its phase's bound
	jumpAt      int       // its step (1-based, over the run), 0 for none
	max         float64   // the largest gap
	grewAt      int       // the first step after the jump where it grew within a phase, 0 for none
}

// gapSeries compares the run and its neighbour over their first steps
// steps (the stepper's reveal).
func (v *robustView) gapSeries(steps int) gapSeries {
	var g gapSeries
	k := 0
	for i, ph := range v.res.Phases {
		g.first, g.len = append(g.first, k), append(g.len, len(ph.Steps))
		g.bounds = append(g.bounds, 6*ph.Eta*v.cfg.radius)
		var nb []optim.RobustStep
		if i < len(v.nbRes.Phases) {
			nb = v.nbRes.Phases[i].Steps
		}
		prev := math.NaN()
		for t, st := range ph.Steps {
			if k >= steps {
				return g
			}
			k++
			if t >= len(nb) {
				g.gap = append(g.gap, math.NaN())
				continue
			}
			d := linf(st.Next, nb[t].Next)
			g.gap = append(g.gap, d)
			g.max = math.Max(g.max, d)
			if g.jumpAt == 0 && d > 0 {
				g.jump, g.jumpAt, g.bound = d, k, g.bounds[i]
			} else if g.jumpAt > 0 && g.grewAt == 0 && d > prev*(1+1e-9)+1e-15 {
				g.grewAt = k
			}
			prev = d
		}
	}
	return g
}

// Pointer drags a user's gradient in the batch panel: its items move so
// that the gradient follows the pointer, and the run is computed again on
// the same seed (in the neighbour's copy only, with the neighbour on).
func (s *Scene) Pointer(ev viz.Event) bool {
	c := s.cfg
	switch ev.Kind {
	case viz.PointerDown:
		id := s.list.HitEvent(ev, 4)
		if id < 1 || id > c.n || c.data == nil { // nil: new users are being drawn
			return false
		}
		s.grab.Start(id, s.cam, ev, [2]float64{})
		s.dragItems = c.data.Users[id-1].Points
		if c.nb && c.nbUser == id-1 {
			s.dragItems = c.nbItems
		}
		return true
	case viz.PointerMove:
		if s.grab.ID == 0 {
			return false
		}
		items := c.shifted(s.dragItems, s.grab.Moved(ev))
		if c.nb {
			c.nbUser, c.nbItems = s.grab.ID-1, items
		} else {
			c.data = c.withItems(s.grab.ID-1, items)
		}
		_ = s.start(c) // moving a user cannot make the settings invalid
		return true
	case viz.PointerUp:
		return s.grab.End()
	}
	return false
}

// linf is the ℓ∞ distance between two points of the plane.
func linf(a, b []float64) float64 { return math.Max(math.Abs(a[0]-b[0]), math.Abs(a[1]-b[1])) }
