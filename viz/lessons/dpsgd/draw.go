package dpsgd

import (
	"math"
	"slices"

	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/optim"
	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/figure"
)

// shownStep is how many SGD steps the stepper has revealed (0: none).
func (s *Scene) shownStep() int {
	k := 0
	for _, st := range s.player.Stepper().Shown() {
		if st.Kind == optim.KindSGDStep {
			k++
		}
	}
	if k == 0 && s.res.Halted > 0 && s.player.Stepper().Pos() > 0 {
		k = s.res.Halted // the failed step itself
	}
	return k
}

// Draw shows the loss landscape on Θ, both trajectories up to the shown
// step, and the current step's ORME inset.
func (s *Scene) Draw(w, h float64) *viz.List {
	l := &s.list
	if !figure.Reset(l, w, h, s.err) {
		return l
	}
	// The header first, over the landscape's column (the step's ORME panel
	// has its own title on the right): the landscape is fitted below it.
	beside := w < 640
	split := math.Round(w * 0.62)
	hw := split - 18
	if beside {
		hw = w - 18
	}
	key := "blue: DP-SGD's iterates (faint), their running average (bold) ending at ◆ θ̂; orange dashed: the baseline"
	res, k := &s.res, 0
	var at localAt
	if s.algo == algoLocal {
		key = "blue: this phase's iterates (faint) and running average (bold), from the last phase's answer ◆; green dashed: radius R̂ around that start, the proof's bound on its root-mean-square distance to ★"
		at = s.localAt()
		res, k = &s.sc.Phases[at.phase].Run, at.step
	} else {
		k = s.shownStep()
	}
	y := 14 + l.TextIn(viz.Point{X: 14, Y: 14}, hw, "Θ, the unit disk: darker = lower loss, ★ its minimiser", 12, viz.Ink, viz.Left)
	y += l.TextIn(viz.Point{X: 14, Y: y}, hw, key, 11, viz.Muted, viz.Left)
	top := math.Max(40, y+4)
	// Below 640 px the step's ORME panel goes under the landscape, its
	// caption beside it.
	var inset figure.Plot
	if s.grab.ID == 0 {
		if beside {
			s.cam = viz.Fit(-1.05, 1.05, -1.05, 1.05, 0, top, w, math.Round(h*0.6)-top, 10)
		} else {
			s.cam = viz.Fit(-1.05, 1.05, -1.05, 1.05, 0, top, split, h-top-10, 10)
		}
	}
	// The localisation's strip of users by phase goes above the inset's
	// title, across the inset's column.
	strip, sx0, sx1 := 0.0, split+20, w-20
	if beside {
		sx0, sx1 = 14, w-14
	}
	if s.algo == algoLocal {
		strip = s.stripHeight(l, sx0, sx1, at) + 12
	}
	if beside {
		y0 := s.cam.Y0 + s.cam.H + 34 + strip
		inset = figure.Plot{X0: 14, Y0: y0, W: math.Min(w*0.45, h-y0-8)}
	} else {
		inset = figure.Plot{X0: split + 20, Y0: 60 + strip, W: math.Min(w-split-40, h-160-strip)}
	}
	s.drawLandscape(l)
	if s.algo == algoLocal {
		s.drawLocal(l, at)
		s.drawStrip(l, sx0, inset.Y0-26-strip, sx1, at)
	} else {
		s.drawPaths(l, k)
	}
	// ★ over the answers: a θ̂ that lands on it must not hide it.
	l.Text(s.cam.ToScreen(s.best[0], s.best[1]), "★", 16, viz.Ink, viz.Centre)
	s.drawHandles(l)
	s.drawInset(l, inset, res, k, beside)
	s.cam.DrawScaleBar(l)
	return l
}

// drawLandscape shades the loss on a grid over Θ.
func (s *Scene) drawLandscape(l *viz.List) {
	c := s.cam
	// The landscape changes with the run and the view, not as the steps
	// play: one layer, painted once per run.
	l.Layer()
	defer l.EndLayer()
	cell := 2.0 / heatCells
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range s.heat {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	pts := s.heatPts[:0]
	for i := range heatCells {
		for j := range heatCells {
			x, y := -1+float64(i)*cell, -1+float64(j)*cell
			near := math.Hypot(figure.Clamp(0, x, x+cell), figure.Clamp(0, y, y+cell))
			far := math.Hypot(math.Max(math.Abs(x), math.Abs(x+cell)), math.Max(math.Abs(y), math.Abs(y+cell)))
			if near >= 1 {
				continue // the cell lies outside Θ
			}
			a := 0.55 * (1 - (s.heat[i*heatCells+j]-lo)/math.Max(hi-lo, 1e-12))
			st := viz.Style{Fill: viz.Sky, Alpha: a + 0.02}
			if far <= 1 {
				l.Rect(c.ToScreen(x, y+cell), c.ToScreen(x+cell, y), st, 0)
				continue
			}
			// A cell across Θ's edge is shaded only inside it: its outline,
			// sampled, with the points outside pulled onto the circle.
			start := len(pts)
			pts = diskCell(pts, c, x, y, cell)
			l.Polygon(pts[start:len(pts):len(pts)], st)
		}
	}
	s.heatPts = pts
	o := c.ToScreen(0, 0)
	l.Circle(o, s.params.Radius*c.Scale, viz.Style{Stroke: viz.Ink, Width: 1.5}, 0)
}

// diskCell appends the cell [x, x+w]×[y, y+w] clipped to the unit disk,
// in screen points: six samples per side, those outside the disk moved
// radially onto its circle.
func diskCell(dst []viz.Point, c viz.Camera, x, y, w float64) []viz.Point {
	const k = 6
	corners := [5][2]float64{{x, y}, {x + w, y}, {x + w, y + w}, {x, y + w}, {x, y}}
	for e := range 4 {
		a, b := corners[e], corners[e+1]
		for i := range k {
			t := float64(i) / k
			px, py := a[0]+t*(b[0]-a[0]), a[1]+t*(b[1]-a[1])
			if r := math.Hypot(px, py); r > 1 {
				px, py = px/r, py/r
			}
			dst = append(dst, c.ToScreen(px, py))
		}
	}
	return dst
}

// drawPaths draws DP-SGD's iterates up to step k and the baseline's, with
// the current step's smoothing ball and move.
func (s *Scene) drawPaths(l *viz.List, k int) {
	if s.baseline != noBaseline && s.base.Iterates != nil {
		s.trail(l, s.base.Iterates, k, viz.Orange, true)
	}
	s.trail(l, s.res.Iterates, k, viz.Blue, false)
	end := k >= len(s.res.Iterates) || s.res.Halted > 0 && k >= s.res.Halted
	s.drawMove(l, &s.res, k, s.settings.Smoothing)
	if end && s.player.Stepper().Pos() == s.player.Stepper().Len() {
		for _, r := range []struct {
			theta []float64
			col   viz.Colour
		}{{s.res.Theta, viz.Blue}, {s.base.Theta, viz.Orange}} {
			if r.theta == nil || (r.col == viz.Orange && s.baseline == noBaseline) {
				continue
			}
			diamond(l, s.cam.ToScreen(r.theta[0], r.theta[1]), r.col)
		}
		if s.res.Halted > 0 {
			l.Text(viz.Point{X: s.cam.X0 + s.cam.W/2, Y: s.cam.Y0 + s.cam.H - 8}, format.Sprintf("halted at step %d → θ̂ = θ₀", s.res.Halted), 13, viz.Vermillion, viz.Centre)
		}
	}
}

// trail draws the iterates up to step upto, faint: with each step's noise
// they scribble over the disk. Bold, their running average θ̄_t, which is
// what the run answers at the end (θ̂ = θ̄_T): the noise averages out
// along it.
func (s *Scene) trail(l *viz.List, its [][]float64, upto int, col viz.Colour, dashed bool) {
	if upto < 1 || len(its) == 0 {
		return
	}
	c := s.cam
	its = its[:min(upto, len(its))]
	pts := make([]viz.Point, 0, len(its))
	for _, it := range its {
		pts = append(pts, c.ToScreen(it[0], it[1]))
	}
	l.Polyline(pts, viz.Style{Stroke: col, Width: 1, Alpha: 0.35, Dashed: dashed})
	l.Circle(pts[len(pts)-1], 3, viz.Style{Fill: col, Stroke: viz.Ink, Width: 1, Alpha: 0.6}, 0)
	l.Polyline(s.runningAverage(its), viz.Style{Stroke: col, Width: 2.5, Dashed: dashed})
}

// runningAverage is θ̄_1, θ̄_2, … of the iterates, on screen.
func (s *Scene) runningAverage(its [][]float64) []viz.Point {
	avg := make([]viz.Point, 0, len(its))
	var sx, sy float64
	for i, it := range its {
		sx, sy = sx+it[0], sy+it[1]
		avg = append(avg, s.cam.ToScreen(sx/float64(i+1), sy/float64(i+1)))
	}
	return avg
}

// drawMove draws step k of res: the smoothing ball of radius r around θ_k
// and the step to θ_(k+1).
func (s *Scene) drawMove(l *viz.List, res *optim.DPSGDResult, k int, r float64) {
	if k < 1 || k > len(res.Steps) {
		return
	}
	c := s.cam
	st := res.Steps[k-1]
	at := c.ToScreen(st.Theta[0], st.Theta[1])
	if s.smooth {
		l.Circle(at, r*c.Scale, viz.Style{Stroke: viz.Purple, Width: 1, Dashed: true}, 0)
	}
	if st.Next != nil {
		l.Arrow(at, c.ToScreen(st.Next[0], st.Next[1]), viz.Style{Stroke: viz.Ink, Width: 1.5})
	}
}

// diamond marks an answer at p.
func diamond(l *viz.List, p viz.Point, col viz.Colour) {
	l.Polygon([]viz.Point{{X: p.X, Y: p.Y - 8}, {X: p.X + 8, Y: p.Y}, {X: p.X, Y: p.Y + 8}, {X: p.X - 8, Y: p.Y}}, viz.Style{Fill: col, Stroke: viz.Ink, Width: 1})
}

// drawHandles draws the two draggable centres of the users' items.
func (s *Scene) drawHandles(l *viz.List) {
	for _, h := range []struct {
		id    int
		at    [2]float64
		label string
	}{{dpsgdCrowd, s.crowd, "most users (drag)"}, {dpsgdOutliers, s.outliers, "outlying users (drag)"}} {
		if h.id == dpsgdOutliers && s.share == 0 {
			continue
		}
		p := s.cam.ToScreen(h.at[0], h.at[1])
		st := viz.Style{Fill: viz.Paper, Stroke: viz.Ink, Width: 1.5}
		if s.grab.ID == h.id {
			st.Stroke, st.Width = viz.Yellow, 3
		}
		l.Circle(p, 7, st, h.id)
		l.Text(viz.Point{X: p.X + 10, Y: p.Y}, h.label, 11, viz.Ink, viz.Left)
	}
}

// drawInset is the current step's ORME in gradient space: every user's
// smoothed mean gradient (the disk of radius G, the loss's Lipschitz
// bound, holds them all), kept or not, the kept mean and the released ĝ
// with its σ ring; p.w is the panel's side. The caption goes below the
// panel, or beside it.
func (s *Scene) drawInset(l *viz.List, p figure.Plot, res *optim.DPSGDResult, k int, beside bool) {
	l.Text(viz.Point{X: p.X0, Y: p.Y0 - 20}, "this step's users' gradients and ORME's answer", 12, viz.Ink, viz.Left)
	cx, cy, cw := p.X0, p.Y0+p.W+16, p.W
	if beside {
		cx, cy = p.X0+p.W+12, p.Y0+6
		cw = l.Width - cx - 6
	}
	if k < 1 || k > len(res.Steps) {
		l.Text(viz.Point{X: p.X0, Y: p.Y0 + 14}, "step with → to see them", 11, viz.Muted, viz.Left)
		return
	}
	st := res.Steps[k-1]
	g := 1.0 // the distance loss's gradients are unit vectors
	if s.algo == algoLocal {
		g = localMu * (s.params.Radius + localRX)
	}
	cam := viz.Fit(-1.1*g, 1.1*g, -1.1*g, 1.1*g, p.X0, p.Y0, p.W, p.W, 4)
	l.Circle(cam.ToScreen(0, 0), g*cam.Scale, viz.Style{Stroke: viz.Muted, Width: 1}, 0)
	kept := slices.Grow(s.insetKept[:0], st.Values.Len())[:st.Values.Len()]
	clear(kept)
	for _, j := range st.ORME.Kept {
		kept[j] = true
	}
	in, out := s.insetIn[:0], s.insetOut[:0]
	defer func() { s.insetIn, s.insetOut, s.insetKept = in, out, kept }()
	for j := range st.Values.Len() {
		v := st.Values.At(j)
		pt := cam.ToScreen(v[0], v[1])
		if kept[j] || !st.ORME.Passed {
			in = append(in, pt)
		} else {
			out = append(out, pt)
		}
	}
	l.Dots(in, 2, viz.Style{Fill: viz.Blue, Alpha: 0.6}, 0)
	l.Dots(out, 2.5, viz.Style{Fill: viz.Vermillion}, 0)
	if !st.ORME.Passed {
		l.TextIn(viz.Point{X: cx, Y: cy}, cw, format.Sprintf("score %.3g < the noisy gate: ORME halts", st.ORME.Score), 12, viz.Vermillion, viz.Left)
		return
	}
	m := cam.ToScreen(st.ORME.Mean[0], st.ORME.Mean[1])
	// The σ ring only while it fits the panel: at the theorem's settings σ
	// dwarfs the gradients, and the caption says so instead.
	ringNote := "orange ring: σ"
	if ring := res.ORME.Sigma * cam.Scale; ring <= p.W/2 {
		l.Circle(m, ring, viz.Style{Stroke: viz.Orange, Width: 1, Alpha: 0.7}, 0)
	} else {
		ringNote = "σ is wider than this panel"
	}
	l.Polygon([]viz.Point{{X: m.X, Y: m.Y - 6}, {X: m.X + 6, Y: m.Y}, {X: m.X, Y: m.Y + 6}, {X: m.X - 6, Y: m.Y}}, viz.Style{Fill: viz.Green, Stroke: viz.Ink, Width: 1})
	// ĝ beyond the panel's circle is drawn on its rim, pointing out.
	gx, gy := st.ORME.Output[0], st.ORME.Output[1]
	gNote := ""
	if r := math.Hypot(gx, gy); r > 1.06*g {
		ux, uy := gx/r, gy/r
		l.Arrow(cam.ToScreen(0.9*g*ux, 0.9*g*uy), cam.ToScreen(1.08*g*ux, 1.08*g*uy), viz.Style{Stroke: viz.Orange, Width: 2.5})
		gNote = format.Sprintf(" (off the panel: ‖ĝ‖ = %.3g, arrow on the rim)", r)
	} else {
		l.Circle(cam.ToScreen(gx, gy), 5, viz.Style{Fill: viz.Orange, Stroke: viz.Ink, Width: 1}, 0)
	}
	caption := format.Sprintf("step %d: s = %.4g of n = %d, kept %d; ◆ kept mean, ● ĝ%s (σ = %.3g); ‖ĝ − kept mean‖ = %.3g; %s; red: users the ramp dropped",
		k, st.ORME.Score, st.Values.Len(), len(st.ORME.Kept), gNote, res.ORME.Sigma,
		math.Hypot(gx-st.ORME.Mean[0], gy-st.ORME.Mean[1]), ringNote)
	l.TextIn(viz.Point{X: cx, Y: cy}, cw, caption, 11, viz.Ink, viz.Left)
}

// Pointer drags the crowd's or the outlying users' centre; the users are
// redrawn around it from the same stream and everything reruns.
func (s *Scene) Pointer(ev viz.Event) bool {
	switch ev.Kind {
	case viz.PointerDown:
		id := s.list.HitEvent(ev, 4)
		if id != dpsgdCrowd && id != dpsgdOutliers {
			return false
		}
		s.grab.Start(id, s.cam, ev, s.handle(id))
		s.dragged = false
		return true
	case viz.PointerMove:
		if s.grab.ID == 0 {
			return false
		}
		// To the thousandth (well under a pixel): a link carries it in
		// a few digits, exactly.
		at := s.grab.At(ev)
		at = [2]float64{math.Round(figure.Clamp(at[0], -handleReach, handleReach)*1000) / 1000,
			math.Round(figure.Clamp(at[1], -handleReach, handleReach)*1000) / 1000}
		// The handle follows the pointer at once; the users and the run
		// around it follow when computed. The drag's first move replaces
		// whatever computes; later moves wait for the drag's run under
		// way, which, done, starts the next where the pointer is then
		// (advance): a run longer than a slice is seen to its end, and
		// the figure follows the pointer a run at a time, where replacing
		// it at each move would show nothing until the pointer rested.
		first := !s.dragged
		s.dragged = true
		s.place(s.grab.ID, at)
		if first || s.job == nil {
			s.runAt(s.grab.ID, at, true)
		}
		return true
	case viz.PointerUp:
		// The run of where the drag ends, if not the one under way,
		// replaces it; no longer a drag's, it may be handed out.
		if at := s.handle(s.grab.ID); s.dragged && s.job != nil && at != s.next.handle(s.grab.ID) {
			s.runAt(s.grab.ID, at, true)
		}
		s.dragged = false
		return s.grab.End()
	}
	return false
}
