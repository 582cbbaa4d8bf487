package outlieriterates

import (
	"math"
	"slices"

	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/optim"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/robust"
	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/figure"
)

// Draw shows the plane (users' items, the groups' SGD paths, their end
// iterates with the rings that score and count them, the phases' releases),
// and beside it the phases' schedule, the gate and the keep ramp — or the
// accelerated variant's view (drawAccel). A frame narrower than 640 px
// stacks the plane above the gate and the ramp.
func (s *Scene) Draw(w, h float64) *viz.List {
	l := &s.list
	if !figure.Reset(l, w, h, s.err) {
		return l
	}
	if s.cfg.algo == algoAccel {
		s.drawAccel(l, w, h)
		return l
	}
	a := s.at()
	if w < 640 {
		top := math.Round(h * 0.5)
		s.drawPlane(l, w, top, a)
		y := s.drawGate(l, figure.Plot{X0: 30, Y0: top + 14, W: w - 60}, a)
		s.drawRamp(l, figure.Plot{X0: 50, Y0: y + 48, W: w - 80, H: math.Min(150, h-y-80)}, a)
		return l
	}
	split := math.Round(w * 0.58)
	s.drawPlane(l, split, h, a)
	y := s.drawPhases(l, split+24, 14, w-split-40, a)
	y = s.drawGate(l, figure.Plot{X0: split + 30, Y0: y + 18, W: w - split - 60}, a)
	ramp := figure.Plot{X0: split + 50, Y0: y + 50, W: w - split - 80}
	ramp.H = math.Min(170, h-ramp.Y0-36)
	s.drawRamp(l, ramp, a)
	return l
}

// groupColour is group j's colour (0-based); the palette's seven hues
// repeat, and group numbers tell repeated ones apart.
func groupColour(j int) viz.Colour { return figure.UserColours[j%len(figure.UserColours)] }

// drawPlane draws the plane in the frame's w × h corner.
func (s *Scene) drawPlane(l *viz.List, w, h float64, a oirAt) {
	ph := s.shownPhase(a)
	what := "users' items (drag a user); before phase 1 every user is grey"
	if a.phase != nil {
		what = format.Sprintf("users' items (drag a user); phase %d's users coloured by group, the others grey", ph.I)
	}
	legend := "— a group's SGD path  ● its averaged iterate x̃_j  ■ the phase's start  ◆ kept mean  ● release  ◯ its σ and 2σ"
	if a.release && a.phase != nil && 2*ph.Sigma > oirRadius {
		// The first phases' noise is wider than the domain by design: say
		// so where the rings run off it, and how far the next one shrinks.
		legend += format.Sprintf("; phase %d's 2σ = %.3g is wider than the domain", ph.I, 2*ph.Sigma)
		if ph.I < len(s.res.Phases) {
			next := s.res.Phases[ph.I]
			legend += format.Sprintf(": it only localises, and phase %d's σ is %.3g, %.0f× smaller", next.I, next.Sigma, ph.Sigma/next.Sigma)
		}
	}
	top, bottom := s.planeHeader(l, w, h, what, legend)
	if s.grab.ID == 0 { // the views stay put while a user is dragged
		s.fitPlane(w, top, bottom, w)
		s.inset = viz.Camera{}
		if a.phase != nil && a.groups > 0 {
			centre, r := s.endsDisc(a)
			var beside bool
			s.inset, beside = figure.CornerInset(s.cam, w, top, bottom, centre, r, s.itemsAndDomain())
			if beside {
				s.fitPlane(w, top, bottom, s.inset.X0-6)
			}
		}
	}
	c := s.cam
	s.drawItems(l, s.groupColours(a))
	s.drawTrail(l, s.oirTrail(a))
	s.drawPhase(l, c, a, true)
	if in := s.inset; in.W > 0 {
		figure.DrawInsetFrame(l, c, in, format.Sprintf("phase %d's end iterates", ph.I))
		s.drawPhase(l, in, a, false)
		in.DrawScaleBar(l)
	}
	if a.stop && s.res.Halted {
		l.Text(viz.Point{X: w / 2, Y: h - 12}, "the run halted: it outputs 0", 13, viz.Vermillion, viz.Centre)
	}
	c.DrawScaleBar(l)
}

// planeHeader writes the plane's title and legend and returns the band
// left for the plane, top to bottom.
func (s *Scene) planeHeader(l *viz.List, w, h float64, what, legend string) (top, bottom float64) {
	top = 14 + l.TextIn(viz.Point{X: 14, Y: 14}, w-18, what, 12, viz.Ink, viz.Left)
	top += l.TextIn(viz.Point{X: 14, Y: top}, w-18, legend, 11, viz.Muted, viz.Left) + 4
	return top, h - 24
}

// fitPlane points the plane's camera at the domain and every item, in
// the band's left vw pixels.
func (s *Scene) fitPlane(w, top, bottom, vw float64) {
	x0, x1, y0, y1 := -oirRadius, oirRadius, -oirRadius, oirRadius
	for _, items := range s.cfg.users {
		for j := 0; j < len(items); j += 2 {
			x0, x1 = math.Min(x0, items[j]), math.Max(x1, items[j])
			y0, y1 = math.Min(y0, items[j+1]), math.Max(y1, items[j+1])
		}
	}
	s.cam = viz.Fit(x0, x1, y0, y1, 0, top, math.Min(vw, w), bottom-top, 18)
}

// items yields every item in the plane.
func (s *Scene) items() func(yield func([]float64) bool) {
	return func(yield func([]float64) bool) {
		for _, items := range s.cfg.users {
			for j := 0; j < len(items); j += 2 {
				if !yield(items[j : j+2]) {
					return
				}
			}
		}
	}
}

// itemsAndDomain yields every item, then points along the domain's
// circle: the inset is kept off both (on a phone a corner free of items
// still covered part of the domain, with room beside it to spare).
func (s *Scene) itemsAndDomain() func(yield func([]float64) bool) {
	return func(yield func([]float64) bool) {
		for p := range s.items() {
			if !yield(p) {
				return
			}
		}
		for k := range 48 {
			a := 2 * math.Pi * float64(k) / 48
			if !yield([]float64{oirRadius * math.Cos(a), oirRadius * math.Sin(a)}) {
				return
			}
		}
	}
}

// endsDisc is where the inset looks: around the revealed end iterates'
// coordinate median, wide enough for 4/5 of them and the rings in play.
func (s *Scene) endsDisc(a oirAt) ([]float64, float64) {
	ph := a.phase
	ends := make([][]float64, a.groups)
	for j := range ends {
		ends[j] = ph.Ends.At(j)
	}
	centre := robust.CoordMedian(ends, nil, nil)
	d := make([]float64, len(ends))
	for j, e := range ends {
		d[j] = math.Hypot(e[0]-centre[0], e[1]-centre[1])
	}
	slices.Sort(d)
	r := math.Max(1.3*d[(4*len(d)-1)/5], 1.2*ph.Tau)
	if a.keep {
		r = math.Max(r, 2.1*ph.Tau)
	}
	return centre, r
}

// groupColours colours the shown phase's users by group (None: grey).
func (s *Scene) groupColours(a oirAt) []viz.Colour {
	col := make([]viz.Colour, s.cfg.n)
	if a.phase != nil {
		for j, g := range a.phase.Groups {
			for _, u := range g {
				col[u] = groupColour(j)
			}
		}
	}
	return col
}

// drawItems draws the domain and every user's items, user u's in col[u]
// or grey (None), and x*; item k of user u has ID 1 + u·m + k.
func (s *Scene) drawItems(l *viz.List, col []viz.Colour) {
	l.Circle(s.cam.ToScreen(0, 0), oirRadius*s.cam.Scale, viz.Style{Stroke: viz.Grid, Width: 1.5}, 0)
	// The coloured users go on top, so that a press in the crowd grabs
	// one of them, whose move shows now.
	m := s.cfg.m
	pts := make([]viz.Point, m)
	for _, coloured := range []bool{false, true} {
		for u, items := range s.cfg.users {
			if (col[u] != viz.None) != coloured {
				continue
			}
			for k := range m {
				pts[k] = s.cam.ToScreen(items[2*k], items[2*k+1])
			}
			style, r := viz.Style{Fill: viz.Muted, Alpha: 0.3}, 1.8
			if coloured {
				style, r = viz.Style{Fill: col[u], Alpha: 0.75}, 2.4
			}
			l.Dots(pts, r, style, 1+u*m)
		}
	}
	if s.grab.ID > 0 {
		items := s.cfg.users[s.grab.ID-1]
		for k := 0; k < len(items); k += 2 {
			l.Circle(s.cam.ToScreen(items[k], items[k+1]), 5, viz.Style{Stroke: viz.Yellow, Width: 2.5}, 0)
		}
	}
	x := s.cam.ToScreen(s.opt[0], s.opt[1])
	l.Line(viz.Point{X: x.X - 6, Y: x.Y - 6}, viz.Point{X: x.X + 6, Y: x.Y + 6}, viz.Style{Stroke: viz.Ink, Width: 2})
	l.Line(viz.Point{X: x.X - 6, Y: x.Y + 6}, viz.Point{X: x.X + 6, Y: x.Y - 6}, viz.Style{Stroke: viz.Ink, Width: 2})
	l.Text(viz.Point{X: x.X + 9, Y: x.Y + 9}, "x*", 11, viz.Ink, viz.Left)
}

// drawTrail draws x₀ and the releases so far, each phase's start the last
// one's release; a point beyond the view waits at its edge. Labels go on
// from the newest, and one that would cover another is left out (later
// releases crowd, as the steps shrink).
func (s *Scene) drawTrail(l *viz.List, pts [][]float64) {
	c := s.cam
	place := &figure.Labels{L: l}
	if in := s.inset; in.W > 0 {
		place.Reserve(in.X0, in.Y0, in.X0+in.W, in.Y0+in.H) // the inset is drawn over the plane
	}
	at := make([]viz.Point, len(pts))
	beyond := make([]bool, len(pts))
	for i, x := range pts {
		p := c.ToScreen(x[0], x[1])
		if p.X < c.X0 || p.X > c.X0+c.W || p.Y < c.Y0 || p.Y > c.Y0+c.H {
			p, beyond[i] = viz.Point{X: figure.Clamp(p.X, c.X0+8, c.X0+c.W-8), Y: figure.Clamp(p.Y, c.Y0+8, c.Y0+c.H-8)}, true
		}
		at[i] = p
		if i > 0 {
			l.Arrow(at[i-1], p, viz.Style{Stroke: viz.Ink, Width: 1.5, Alpha: 0.7})
		}
		l.Circle(p, 4, viz.Style{Fill: viz.Ink}, 0)
	}
	for i := len(pts) - 1; i >= 0; i-- {
		label, p := "x"+figure.Subscript(i), at[i]
		if beyond[i] {
			label += " beyond the view"
		}
		if p.X > c.X0+c.W/2 {
			place.Text(viz.Point{X: p.X - 8, Y: p.Y - 10}, label, 11, viz.Ink, viz.Right)
		} else {
			place.Text(viz.Point{X: p.X + 8, Y: p.Y - 10}, label, 11, viz.Ink, viz.Left)
		}
	}
	// Below the domain's circle, right of the scale bar where a narrow
	// plane brings them together; above the circle where the inset
	// covers that.
	const domain = "the domain: the unit ball"
	below := c.ToScreen(0, -oirRadius)
	if _, y0, x1, y1 := c.ScaleBarBox(); below.Y+5 > y0 && below.Y-5 < y1 {
		below.X = math.Max(below.X, x1+4+viz.TextWidth(domain, 10)/2)
	}
	above := c.ToScreen(0, oirRadius)
	above.Y -= 8
	for _, at := range []viz.Point{below, above} {
		if s.clearOfItems(at, domain, 10) && place.Text(at, domain, 10, viz.Muted, viz.Centre) {
			return
		}
	}
	l.Text(above, domain, 10, viz.Muted, viz.Centre) // crowded everywhere: the top still names it
}

// clearOfItems reports whether a centred label at at keeps off the users'
// items, dots included: a group at the domain's edge sits where the
// domain's label would.
func (s *Scene) clearOfItems(at viz.Point, text string, size float64) bool {
	const r = 3 // an item's dot
	hw := viz.TextWidth(text, size)/2 + r
	for _, items := range s.cfg.users {
		for k := 0; k+1 < len(items); k += 2 {
			p := s.cam.ToScreen(items[k], items[k+1])
			if math.Abs(p.X-at.X) < hw && math.Abs(p.Y-at.Y) < size/2+r {
				return false
			}
		}
	}
	return true
}

// oirTrail is x₀ and the releases shown.
func (s *Scene) oirTrail(a oirAt) [][]float64 {
	pts := [][]float64{oirStart}
	for i := range a.idx {
		if i+1 < a.idx || a.release || a.stop {
			pts = append(pts, s.res.Phases[i].Output)
		}
	}
	return pts
}

// drawPhase draws the shown phase through camera c: its start, the paths
// and end iterates of the groups that have run, the rings in play, and
// once released the kept mean, the noise's σ and 2σ rings and the release.
// The main view (main) draws everything; the inset what falls inside it.
func (s *Scene) drawPhase(l *viz.List, c viz.Camera, a oirAt, main bool) {
	ph := a.phase
	if ph == nil {
		return
	}
	inView := func(p viz.Point) bool {
		return p.X >= c.X0 && p.X <= c.X0+c.W && p.Y >= c.Y0 && p.Y <= c.Y0+c.H
	}
	// The inset draws the rings that fit in it whole.
	ring := func(x []float64, r float64, st viz.Style) {
		p, rr := c.ToScreen(x[0], x[1]), r*c.Scale
		if main || inView(viz.Point{X: p.X - rr, Y: p.Y - rr}) && inView(viz.Point{X: p.X + rr, Y: p.Y + rr}) {
			l.Circle(p, rr, st, 0)
		}
	}
	st := c.ToScreen(ph.Start[0], ph.Start[1])
	if main || inView(st) {
		l.Rect(viz.Point{X: st.X - 5, Y: st.Y - 5}, viz.Point{X: st.X + 5, Y: st.Y + 5}, viz.Style{Fill: viz.Ink}, 0)
	}
	for j := range a.groups {
		path := ph.Paths[j]
		pts := make([]viz.Point, path.Len())
		for t := range pts {
			x := path.At(t)
			pts[t] = c.ToScreen(x[0], x[1])
		}
		style := viz.Style{Stroke: groupColour(j), Width: 1.2, Alpha: 0.8}
		if main {
			l.Polyline(pts, style)
		} else {
			clipPolyline(l, pts, inView, style)
		}
	}
	for j := range a.groups {
		e := ph.Ends.At(j)
		if a.keep {
			ring(e, 2*ph.Tau, viz.Style{Stroke: viz.Sky, Width: 1, Alpha: 0.3})
		} else if a.gate {
			ring(e, ph.Tau, viz.Style{Stroke: viz.Purple, Width: 1})
		}
	}
	kept := make([]bool, len(ph.Keep))
	for _, j := range ph.Kept {
		kept[j] = true
	}
	place := figure.Labels{L: l}
	for j := range a.groups {
		e := ph.Ends.At(j)
		p := c.ToScreen(e[0], e[1])
		if !main && !inView(p) {
			continue
		}
		style := viz.Style{Fill: groupColour(j), Stroke: viz.Ink, Width: 1}
		if a.keep {
			style.Fill = figure.RampColour(ph.Keep[j])
			if !kept[j] {
				style = viz.Style{Fill: viz.Paper, Stroke: figure.RampColour(ph.Keep[j]), Width: 2}
			}
		}
		l.Circle(p, 5, style, 0)
		if a.keep {
			figure.RampMark(l, p, 5, ph.Keep[j])
		}
		if a.keep && ph.Keep[j] < 1 {
			place.Text(viz.Point{X: p.X, Y: p.Y - 13}, format.Sprintf("group %d: h=%d", j+1, ph.Counts[j]), 10, viz.Ink, viz.Centre)
		}
	}
	if !a.release {
		return
	}
	mean := c.ToScreen(ph.Mean[0], ph.Mean[1])
	for k, alpha := range []float64{1, 0.5} {
		ring(ph.Mean, float64(k+1)*ph.Sigma, viz.Style{Stroke: viz.Orange, Width: 1.5, Alpha: alpha})
	}
	l.Polygon([]viz.Point{{X: mean.X, Y: mean.Y - 7}, {X: mean.X + 7, Y: mean.Y}, {X: mean.X, Y: mean.Y + 7}, {X: mean.X - 7, Y: mean.Y}}, viz.Style{Fill: viz.Green, Stroke: viz.Ink, Width: 1})
	if out := c.ToScreen(ph.Output[0], ph.Output[1]); main || inView(out) {
		l.Circle(out, 6, viz.Style{Fill: viz.Orange, Stroke: viz.Ink, Width: 1}, 0)
	}
}

// clipPolyline draws the runs of pts that lie in view.
func clipPolyline(l *viz.List, pts []viz.Point, in func(viz.Point) bool, style viz.Style) {
	start := -1
	for i := 0; i <= len(pts); i++ {
		switch {
		case i < len(pts) && in(pts[i]):
			if start < 0 {
				start = i
			}
		case start >= 0:
			if i-start > 1 {
				l.Polyline(pts[start:i], style)
			}
			start = -1
		}
	}
}

// drawPhases is the schedule: every phase's users, step, τ and σ (all
// public before the run), and the gate's and coins' outcome of the phases
// shown. It returns the y below it.
func (s *Scene) drawPhases(l *viz.List, x, y, w float64, a oirAt) float64 {
	rows := make([][]string, len(s.res.Phases))
	for i := range s.res.Phases {
		ph := &s.res.Phases[i]
		outcome := ""
		switch {
		case ph.I > a.idx || ph.I == a.idx && !a.gate:
		case !ph.Passed:
			outcome = "gate: halt"
		case ph.I == a.idx && !a.keep:
			outcome = "gate: pass"
		case len(ph.Kept) == 0:
			outcome = "none kept: halt"
		default:
			outcome = format.Sprintf("kept %d of %d", len(ph.Kept), s.res.Groups)
		}
		rows[i] = []string{format.Sprintf("%d", ph.I), format.Sprintf("%d", ph.Users), format.Sprintf("%.3g", ph.Eta),
			format.Sprintf("%.3g", ph.Tau), s.sigmaCell(ph.Sigma), outcome}
	}
	y = drawPhaseTable(l, x, y, w, "phases: fresh users each, a smaller step and τ, less noise", []float64{0, 0.08, 0.22, 0.39, 0.56, 0.73},
		[]string{"i", "users", "η_i", "τ_i", "σ_i", "outcome"}, rows, a.idx)
	if s.res.Stop != "" {
		y += l.TextIn(viz.Point{X: x, Y: y}, w, "then "+s.res.Stop+": the run stops", 11, viz.Muted, viz.Left)
	}
	return y
}

// sigmaCell writes a phase's σ for a table: 0 when non-private.
func (s *Scene) sigmaCell(sigma float64) string {
	if s.cfg.mode == privacy.NonPrivate {
		return "0"
	}
	return format.Sprintf("%.3g", sigma)
}

// drawPhaseTable draws a title and one row of cells per phase, at column
// offsets cols (shares of w): the phases up to shown in ink, phase shown
// highlighted, the rest muted. It returns the y below it.
func drawPhaseTable(l *viz.List, x, y, w float64, title string, cols []float64, header []string, rows [][]string, shown int) float64 {
	y += l.TextIn(viz.Point{X: x, Y: y}, w, title, 12, viz.Ink, viz.Left) + 6
	size, xs := tableColumns(x, w, cols, append([][]string{header}, rows...))
	row := func(y float64, col viz.Colour, cells []string) {
		for k, t := range cells {
			l.Text(viz.Point{X: xs[k], Y: y}, t, size, col, viz.Left)
		}
	}
	row(y, viz.Muted, header)
	y += 15
	for i, cells := range rows {
		col := viz.Muted
		if i+1 <= shown {
			col = viz.Ink
		}
		if i+1 == shown {
			l.Rect(viz.Point{X: x - 4, Y: y - 8}, viz.Point{X: x + w, Y: y + 7}, viz.Style{Fill: viz.Yellow, Alpha: 0.35}, 0)
		}
		row(y, col, cells)
		y += 15
	}
	return y
}

// tableColumns places a table's columns in a width w from x: each at its
// share cols[k] of w, or further right if the column before holds wider
// text, and the type made smaller (11 px down to 8) until the widest row
// fits, so that no cell runs into the next or wraps into the row below.
func tableColumns(x, w float64, cols []float64, rows [][]string) (float64, []float64) {
	const gap = 6
	xs := make([]float64, len(cols))
	size := 11.0
	for ; ; size-- {
		for k := range cols {
			xs[k] = x + cols[k]*w
			if k == 0 {
				continue
			}
			widest := 0.0
			for _, r := range rows {
				if k-1 < len(r) {
					widest = max(widest, viz.NumberWidth(r[k-1], size))
				}
			}
			xs[k] = max(xs[k], xs[k-1]+widest+gap)
		}
		last := 0.0
		for _, r := range rows {
			if n := len(r); n > 0 {
				last = max(last, xs[n-1]+viz.NumberWidth(r[n-1], size))
			}
		}
		if last <= x+w || size <= 8 {
			return size, xs
		}
	}
}

// drawGate is the shown phase's gate: the score's line from 0 to C, the
// density of the noisy score ŝ = s + Lap(20/ε) with its passing side
// shaded, and once drawn ŝ and the verdict. It returns the y below it.
func (s *Scene) drawGate(l *viz.List, p figure.Plot, a oirAt) float64 {
	ph := s.shownPhase(a)
	C := float64(s.res.Groups)
	p.Lo, p.Hi = 0, C
	title := format.Sprintf("the gate of phase %d: the score s plus Lap(20/ε) must reach 4C/5", ph.I)
	y := p.Y0 + l.TextIn(viz.Point{X: p.X0, Y: p.Y0}, p.W, title, 12, viz.Ink, viz.Left) + 44
	figure.ScoreAxis(l, p, "C", y)
	if !a.gate {
		return y + 30
	}
	xOf := func(v float64) float64 { return figure.Clamp(p.XOf(v), p.X0-8, p.X0+p.W+8) }
	if s.cfg.mode != privacy.NonPrivate {
		b := optim.OIRParams{Eps: s.cfg.eps}.GateScale()
		density := func(v float64) float64 { return y - 34*math.Exp(-math.Abs(v-ph.Score)/b) }
		var curve, shade []viz.Point
		shade = append(shade, viz.Point{X: p.XOf(ph.Gate), Y: y}, viz.Point{X: p.XOf(ph.Gate), Y: density(ph.Gate)})
		for k := range 121 {
			v := p.Lo + (p.Hi-p.Lo)*float64(k)/120
			pt := viz.Point{X: p.XOf(v), Y: density(v)}
			curve = append(curve, pt)
			if v > ph.Gate {
				shade = append(shade, pt)
			}
		}
		shade = append(shade, viz.Point{X: p.XOf(p.Hi), Y: y})
		l.Polygon(shade, viz.Style{Fill: viz.Green, Alpha: 0.25})
		l.Polyline(curve, viz.Style{Stroke: viz.Orange, Width: 1.5})
	}
	l.Circle(viz.Point{X: p.XOf(ph.Score), Y: y}, 6, viz.Style{Fill: viz.Blue, Stroke: viz.Ink, Width: 1}, 0)
	l.Text(viz.Point{X: p.XOf(ph.Score), Y: y + 24}, "s", 11, viz.Blue, viz.Centre)
	noisy := ph.Score + ph.ScoreNoise
	l.Circle(viz.Point{X: xOf(noisy), Y: y}, 5, viz.Style{Fill: viz.Orange, Stroke: viz.Ink, Width: 1}, 0)
	y += 36
	y += l.TextIn(viz.Point{X: p.X0, Y: y}, p.W, format.Sprintf("s = %.3g; density of ŝ above the line, shaded where it passes: Pr = %.3g", ph.Score, ph.PPass), 11, viz.Ink, viz.Left) + 2
	verdict, col := format.Sprintf("ŝ = %.3g ≥ 4C/5 = %.3g: pass", noisy, ph.Gate), viz.Green
	switch {
	case s.cfg.mode == privacy.NonPrivate:
		// No noise and no gate: s is shown against 4C/5, never judged by it.
		verdict, col = format.Sprintf("s = %.3g against 4C/5 = %.3g: non-private, so no gate is applied and the phase goes on", ph.Score, ph.Gate), viz.Ink
	case !ph.Passed:
		verdict, col = format.Sprintf("ŝ = %.3g < 4C/5 = %.3g: halt, output 0", noisy, ph.Gate), viz.Vermillion
	}
	return y + l.TextIn(viz.Point{X: p.X0, Y: y}, p.W, verdict, 12, col, viz.Left)
}

// drawRamp places the shown phase's groups on the keep ramp once the
// coins are flipped.
func (s *Scene) drawRamp(l *viz.List, p figure.Plot, a oirAt) {
	var counts []int
	if a.keep {
		counts = s.shownPhase(a).Counts
	}
	figure.KeepRamp(l, p, counts, s.res.Groups, "C", "keep ramp p(h_j), h_j = end iterates within 2τ of group j's")
}

// Pointer drags a user's items together; the run reruns on the same seed.
func (s *Scene) Pointer(ev viz.Event) bool {
	switch ev.Kind {
	case viz.PointerDown:
		id := s.list.HitEvent(ev, 4)
		if id < 1 || id > s.cfg.n*s.cfg.m {
			return false
		}
		u := (id - 1) / s.cfg.m
		s.grab.Start(u+1, s.cam, ev, [2]float64{})
		s.dragItems = s.cfg.users[u]
		return true
	case viz.PointerMove:
		if s.grab.ID == 0 {
			return false
		}
		d := s.grab.Moved(ev)
		items := slices.Clone(s.dragItems)
		for k := 0; k < len(items); k += 2 {
			items[k] += d[0]
			items[k+1] += d[1]
		}
		// A new slice: the stepper shares the old one.
		s.cfg.users[s.grab.ID-1] = items
		s.err = s.rerun()
		return true
	case viz.PointerUp:
		return s.grab.End()
	}
	return false
}
