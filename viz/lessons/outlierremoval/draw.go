package outlierremoval

import (
	"math"
	"slices"

	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/mech"
	"github.com/uldplab/uldp/core/robust"
	"github.com/uldplab/uldp/core/trace"
	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/figure"
)

// outlierShown is what the run's steps revealed so far.
type outlierShown struct {
	score   bool
	gate    *mech.ATCompareStep
	halted  bool
	keep    bool
	release bool
}

func (s *Scene) revealed() outlierShown {
	shown := s.player.Stepper().Shown()
	return outlierShown{
		score:   trace.Has(shown, mech.KindORMEScore),
		gate:    trace.Last[mech.ATCompareStep](shown, mech.KindATCompare),
		halted:  trace.Has(shown, mech.KindORMEHalt),
		keep:    trace.Has(shown, mech.KindORMEKeep),
		release: trace.Has(shown, mech.KindORMERelease),
	}
}

// Draw shows the users in the plane, the score against the gate, the keep
// ramp, and the released mean. A frame narrower than 640 px stacks the
// plane above the gate and the ramp (or, with the neighbour on, its
// comparison).
func (s *Scene) Draw(w, h float64) *viz.List {
	l := &s.list
	if !figure.Reset(l, w, h, s.err) {
		return l
	}
	v := s.revealed()
	nb := s.nb && s.nbStep.Keep != nil && (v.keep || v.halted)
	if w < 640 {
		ph := math.Round(h * 0.5)
		s.drawPlane(l, w, ph, v)
		y := s.drawGate(l, figure.Plot{X0: 30, Y0: ph + 18, W: w - 60}, v) + 30
		if nb {
			s.drawNeighbour(l, figure.Plot{X0: 20, Y0: y + 4, W: w - 40, H: math.Max(h-y-30, 40)})
		} else {
			s.drawRamp(l, figure.Plot{X0: 50, Y0: y + 16, W: w - 80, H: math.Min(180, h-y-40)}, v)
		}
		return l
	}
	split := math.Round(w * 0.6)
	s.drawPlane(l, split, h, v)
	y := s.drawGate(l, figure.Plot{X0: split + 30, Y0: 40, W: w - split - 50}, v)
	ramp := figure.Plot{X0: split + 50, Y0: math.Max(214, y+50), W: w - split - 70}
	ramp.H = math.Min(180, h-ramp.Y0-60)
	s.drawRamp(l, ramp, v)
	if nb {
		s.drawNeighbour(l, figure.Plot{X0: split + 30, Y0: ramp.Y0 + ramp.H + 50, W: w - split - 50, H: math.Max(h-ramp.Y0-ramp.H-90, 40)})
	}
	return l
}

// drawPlane draws the users, their rings and, once released, the means and
// the noisy output, in the frame's w × h corner. When the crowd is a blob
// in this view, an inset shows it magnified.
func (s *Scene) drawPlane(l *viz.List, w, h float64, v outlierShown) {
	tau := s.params.Tau
	top := 14 + l.TextIn(viz.Point{X: 14, Y: 14}, w-18, "users' values (drag them); once the ramp is shown, colour = keep probability:", 12, viz.Ink, viz.Left)
	// The legend in the colours the figure uses.
	x := 14.0
	for _, e := range append(slices.Clone(figure.RampLegend), figure.Swatch{Text: "○ not kept", Colour: viz.Ink}) {
		l.Text(viz.Point{X: x, Y: top}, e.Text, 12, e.Colour, viz.Left)
		x += viz.TextWidth(e.Text, 12) + 12
	}
	top += 12
	bottom := h - 26    // the release's legend or the halt below the plane
	if s.grab.ID == 0 { // the views stay put while a user is dragged
		x0, x1, y0, y1 := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
		for _, u := range s.users {
			x0, x1 = math.Min(x0, u[0]), math.Max(x1, u[0])
			y0, y1 = math.Min(y0, u[1]), math.Max(y1, u[1])
		}
		pad := math.Min(2*tau, 2*math.Max(x1-x0, y1-y0)+0.1)
		s.cam = viz.Fit(x0-pad, x1+pad, y0-pad, y1+pad, 0, top, w, bottom-top, 16)
		var beside bool
		s.inset, beside = s.crowdInset(w, top, bottom, v.release)
		if beside { // no free corner: the plane makes room on its right
			s.cam = viz.Fit(x0-pad, x1+pad, y0-pad, y1+pad, 0, top, s.inset.X0-6, bottom-top, 16)
		}
	}
	s.drawUsers(l, s.cam, 6, v, 1)
	if in := s.inset; in.W > 0 {
		// Where the inset looks, in the main view, and the inset itself.
		figure.DrawInsetFrame(l, s.cam, in, "the crowd")
		s.drawUsers(l, in, 5, v, s.n+1)
	}
	if v.release {
		l.Text(viz.Point{X: 14, Y: h - 12}, "× every user's mean  ◆ kept users' mean  ● ĝ  ◯ σ, 2σ", 11, viz.Muted, viz.Left)
	}
	if v.halted {
		l.Text(viz.Point{X: w / 2, Y: h - 12}, "the gate failed: ORME outputs 0 and halts", 13, viz.Vermillion, viz.Centre)
	}
	s.cam.DrawScaleBar(l)
}

// crowdInset returns a magnified view of the crowd, or a camera of width 0
// when the crowd is not small in the plane's view: around the users'
// coordinate median, wide enough for the 4n/5 users nearest to it (and,
// once released, the means and ĝ), placed by figure.CornerInset.
func (s *Scene) crowdInset(w, top, bottom float64, release bool) (in viz.Camera, beside bool) {
	centre := robust.CoordMedian(s.users, nil, nil)
	d := make([]float64, len(s.users))
	for j, u := range s.users {
		d[j] = math.Hypot(u[0]-centre[0], u[1]-centre[1])
	}
	slices.Sort(d)
	r := 1.3 * d[(4*len(d)-1)/5]
	if release {
		for _, p := range [][]float64{s.step.Mean, s.step.AllMean, s.step.Output} {
			if len(p) == 2 {
				r = math.Max(r, 1.15*math.Hypot(p[0]-centre[0], p[1]-centre[1]))
			}
		}
	}
	return figure.CornerInset(s.cam, w, top, bottom, centre, r, slices.Values(s.users))
}

// drawUsers draws every user through camera c as a dot of radius rad with
// ID id0 + j, and, once released, the means, the σ rings and ĝ. The main
// view (id0 1) also labels counts and draws the neighbour's moved user.
func (s *Scene) drawUsers(l *viz.List, c viz.Camera, rad float64, v outlierShown, id0 int) {
	tau := s.params.Tau
	st := s.step
	main := id0 == 1
	inView := func(p viz.Point) bool {
		return p.X >= c.X0 && p.X <= c.X0+c.W && p.Y >= c.Y0 && p.Y <= c.Y0+c.H
	}
	if s.rings && main {
		for _, u := range s.users {
			l.Circle(c.ToScreen(u[0], u[1]), tau*c.Scale, viz.Style{Stroke: viz.Purple, Width: 1, Alpha: 0.25}, 0)
		}
	}
	if s.grab.ID > 0 && main { // the dragged user's two rings: τ for the score, 2τ for its count
		u := s.users[s.grab.ID-1]
		p := c.ToScreen(u[0], u[1])
		l.Circle(p, tau*c.Scale, viz.Style{Stroke: viz.Purple, Width: 1.5, Dashed: true}, 0)
		l.Circle(p, 2*tau*c.Scale, viz.Style{Stroke: viz.Sky, Width: 1.5}, 0)
	}
	kept := make([]bool, s.n)
	for _, j := range st.Kept {
		kept[j] = true
	}
	// Counts label the users the ramp does not simply keep (the crowd's
	// labels would overlap) and the one being dragged, which goes first;
	// a label that would cover another is left out.
	place := figure.Labels{L: l}
	count := func(j int) {
		if main && (v.keep || v.halted) && (st.Keep[j] < 1 || s.grab.ID == j+1) {
			p := c.ToScreen(s.users[j][0], s.users[j][1])
			place.Text(viz.Point{X: p.X, Y: p.Y - 13}, format.Sprintf("f=%d", st.Counts[j]), 10, viz.Ink, viz.Centre)
		}
	}
	if s.grab.ID > 0 {
		count(s.grab.ID - 1)
	}
	for j, u := range s.users {
		p := c.ToScreen(u[0], u[1])
		if !main && !inView(p) {
			continue
		}
		style := viz.Style{Fill: viz.Blue, Stroke: viz.Ink, Width: 1}
		if v.keep || v.halted {
			style.Fill = figure.RampColour(st.Keep[j])
		}
		if v.keep && !kept[j] {
			style = viz.Style{Stroke: figure.RampColour(st.Keep[j]), Width: 2}
		}
		if s.grab.ID == j+1 {
			style.Stroke, style.Width = viz.Yellow, 3
		}
		l.Circle(p, rad, style, id0+j)
		if v.keep || v.halted {
			figure.RampMark(l, p, rad, st.Keep[j])
		}
		if s.grab.ID != j+1 {
			count(j)
		}
	}
	if main && s.nb && s.nbUser >= 0 {
		from := c.ToScreen(s.users[s.nbUser][0], s.users[s.nbUser][1])
		to := c.ToScreen(s.nbAt[0], s.nbAt[1])
		l.Line(from, to, viz.Style{Stroke: viz.Purple, Width: 1.5, Dashed: true})
		l.Rect(viz.Point{X: to.X - 6, Y: to.Y - 6}, viz.Point{X: to.X + 6, Y: to.Y + 6}, viz.Style{Stroke: viz.Purple, Width: 2}, s.nbUser+1)
		// The label goes left of a user dragged near the plane's right
		// edge, where the gate's and the ramp's charts begin.
		label := format.Sprintf("user %d in the neighbour", s.nbUser+1)
		if to.X+9+viz.TextWidth(label, 11) > c.X0+c.W {
			l.Text(viz.Point{X: to.X - 9, Y: to.Y}, label, 11, viz.Purple, viz.Right)
		} else {
			l.Text(viz.Point{X: to.X + 9, Y: to.Y}, label, 11, viz.Purple, viz.Left)
		}
	}
	if !v.release {
		return
	}
	all := c.ToScreen(st.AllMean[0], st.AllMean[1])
	km := c.ToScreen(st.Mean[0], st.Mean[1])
	out := c.ToScreen(st.Output[0], st.Output[1])
	sig := s.cal.Sigma * c.Scale
	for k, a := range []float64{1, 0.5} {
		if rr := float64(k+1) * sig; main || rr < c.W/2 {
			l.Circle(km, math.Min(rr, 4*c.W), viz.Style{Stroke: viz.Orange, Width: 1.5, Alpha: a}, 0)
		}
	}
	l.Line(viz.Point{X: all.X - 6, Y: all.Y - 6}, viz.Point{X: all.X + 6, Y: all.Y + 6}, viz.Style{Stroke: viz.Ink, Width: 2})
	l.Line(viz.Point{X: all.X - 6, Y: all.Y + 6}, viz.Point{X: all.X + 6, Y: all.Y - 6}, viz.Style{Stroke: viz.Ink, Width: 2})
	l.Polygon([]viz.Point{{X: km.X, Y: km.Y - 7}, {X: km.X + 7, Y: km.Y}, {X: km.X, Y: km.Y + 7}, {X: km.X - 7, Y: km.Y}}, viz.Style{Fill: viz.Green, Stroke: viz.Ink, Width: 1})
	// ĝ beyond the view (sound mode's σ is wide) waits at its edge.
	label := "ĝ"
	if !inView(out) {
		out = viz.Point{X: figure.Clamp(out.X, c.X0+10, c.X0+c.W-30), Y: figure.Clamp(out.Y, c.Y0+10, c.Y0+c.H-10)}
		label = "ĝ, beyond the view"
		if out.X > c.X0+c.W/2 {
			label = "ĝ beyond →"
		}
	}
	l.Circle(out, 7, viz.Style{Fill: viz.Orange, Stroke: viz.Ink, Width: 1}, 0)
	if !main || s.inset.W == 0 {
		if out.X > c.X0+c.W/2 {
			l.Text(viz.Point{X: out.X - 10, Y: out.Y}, label, 12, viz.Ink, viz.Right)
		} else {
			l.Text(viz.Point{X: out.X + 10, Y: out.Y}, label, 12, viz.Ink, viz.Left)
		}
	}
}

// drawGate is the score's number line: s, the gate at 4n/5, the proof's
// 2n/3 and, once the gate runs, the noisy score against the noisy
// threshold.
func (s *Scene) drawGate(l *viz.List, p figure.Plot, v outlierShown) float64 {
	n := float64(s.n)
	p.Lo, p.Hi = 0, n
	y := p.Y0 + l.TextIn(viz.Point{X: p.X0, Y: p.Y0}, p.W, "the gate: AboveThreshold at ε/2 on the score", 12, viz.Ink, viz.Left) + 25
	figure.ScoreAxis(l, p, "n", y)
	if !v.score {
		return y + 30
	}
	clamp := func(x float64) float64 { return math.Max(p.X0-8, math.Min(p.X0+p.W+8, p.XOf(x))) }
	l.Circle(viz.Point{X: p.XOf(s.step.Score), Y: y}, 6, viz.Style{Fill: viz.Blue, Stroke: viz.Ink, Width: 1}, 0)
	l.Text(viz.Point{X: p.XOf(s.step.Score), Y: y + 24}, "s", 11, viz.Blue, viz.Centre)
	if g := v.gate; g != nil {
		l.Line(viz.Point{X: clamp(g.NoisyThreshold), Y: y - 18}, viz.Point{X: clamp(g.NoisyThreshold), Y: y + 18}, viz.Style{Stroke: viz.Purple, Width: 1.5, Dashed: true})
		l.Circle(viz.Point{X: clamp(g.NoisyQuery), Y: y}, 5, viz.Style{Fill: viz.Orange, Stroke: viz.Ink, Width: 1}, 0)
		verdict, col := "≥ Δ̂: ⊤, continue", viz.Green
		if !g.Pass {
			verdict, col = "< Δ̂: ⊥, halt", viz.Vermillion
		}
		y += 42
		y += l.TextIn(viz.Point{X: p.X0, Y: y}, p.W, format.Sprintf("noisy score s + ν = %.3g (orange)", g.NoisyQuery), 11, viz.Ink, viz.Left) + 2
		y += l.TextIn(viz.Point{X: p.X0, Y: y}, p.W, format.Sprintf("noisy threshold Δ̂ = %.3g (dashed)", g.NoisyThreshold), 11, viz.Ink, viz.Left) + 4
		return y + l.TextIn(viz.Point{X: p.X0, Y: y}, p.W, "s + ν "+verdict, 12, col, viz.Left)
	}
	return y + 30
}

// drawRamp plots p(f) with every user placed on it.
func (s *Scene) drawRamp(l *viz.List, p figure.Plot, v outlierShown) {
	var counts []int
	if v.keep || v.halted {
		counts = s.step.Counts
	}
	figure.KeepRamp(l, p, counts, s.n, "n", "keep ramp p(f_j), f_j = users within 2τ of user j")
}

// Pointer drags a user; the query reruns with the same seed, so only what
// the move changes changes.
func (s *Scene) Pointer(ev viz.Event) bool {
	switch ev.Kind {
	case viz.PointerDown:
		id := s.list.HitEvent(ev, 4)
		cam := s.cam
		if id > s.n && id <= 2*s.n && s.inset.W > 0 { // a user in the crowd's inset
			id -= s.n
			cam = s.inset
		}
		if id < 1 || id > s.n {
			return false
		}
		u := s.users[id-1]
		if s.nb && s.nbUser == id-1 {
			u = s.nbAt
		}
		s.grab.Start(id, cam, ev, [2]float64{u[0], u[1]})
		s.inInset = cam == s.inset
		return true
	case viz.PointerMove:
		if s.grab.ID == 0 {
			return false
		}
		// In the plane a user stays in it, not over the keep-ramp chart
		// beside it; from the crowd's inset, which lies in the plane, it
		// may be dragged out of the crowd.
		to := s.grab.At(ev)
		if !s.inInset {
			to = s.grab.Within(ev)
		}
		at := []float64{to[0], to[1]}
		if s.nb { // the copy changes, in one user only
			s.nbUser, s.nbAt = s.grab.ID-1, at
		} else {
			s.users[s.grab.ID-1] = at
		}
		s.rerun()
		return true
	case viz.PointerUp:
		return s.grab.End()
	}
	return false
}

// drawNeighbour compares the two keep ramps: a bar pair for every user
// whose p changed, ‖p − p′‖₁ against the lemma's 2 and the slope's bound,
// and how many of the shared coins now fall differently.
func (s *Scene) drawNeighbour(l *viz.List, p figure.Plot) {
	l1, diff := s.keepDistance()
	n := float64(s.n)
	col := viz.Ink
	if l1 > 2 {
		col = viz.Vermillion
	}
	p.Y0 += l.TextIn(viz.Point{X: p.X0, Y: p.Y0 - 14}, p.W, format.Sprintf("neighbour: ‖p − p′‖₁ = %.3g (lemma: ≤ 2; slope bound 1 + 6(n−1)/n = %.3g); coins falling differently: %d", l1, 1+6*(n-1)/n, diff), 11, col, viz.Left) - 14
	p.H = math.Max(p.H-14, 20)
	var changed []int
	for j, q := range s.step.Keep {
		if q != s.nbStep.Keep[j] {
			changed = append(changed, j)
		}
	}
	if len(changed) == 0 {
		l.TextIn(viz.Point{X: p.X0, Y: p.Y0 + 10}, p.W, "no user's keep probability changed (drag a user: it moves in the copy only)", 11, viz.Muted, viz.Left)
		return
	}
	bw := math.Min(p.W/float64(len(changed))/2.5, 10)
	base := p.Y0 + p.H
	for k, j := range changed {
		x := p.X0 + float64(k)*2.5*bw
		for side, q := range []float64{s.step.Keep[j], s.nbStep.Keep[j]} {
			st := viz.Style{Fill: viz.Blue}
			if side == 1 {
				st.Fill = viz.Purple
			}
			l.Rect(viz.Point{X: x + float64(side)*bw, Y: base - p.H*q}, viz.Point{X: x + float64(side+1)*bw, Y: base}, st, 0)
		}
	}
	l.Text(viz.Point{X: p.X0, Y: base + 12}, "p (blue) and p′ (pink) for each user whose keep probability changed", 10, viz.Muted, viz.Left)
}
