package stability

import (
	"math"
	"slices"

	"github.com/uldplab/uldp/core/audit"
	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/mech"
	"github.com/uldplab/uldp/core/noise"
	"github.com/uldplab/uldp/core/trace"
	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/figure"
)

// lensID offsets the hit-test ids of the lens's users.
const lensID = 1000

// stabilityShown is what the run's steps revealed so far.
type stabilityShown struct {
	calibrated, certificate, stability, drawn, released bool
}

func (s *Scene) revealed() stabilityShown {
	if s.player.Stepper() == nil {
		return stabilityShown{}
	}
	shown := s.player.Stepper().Shown()
	return stabilityShown{
		calibrated:  trace.Has(shown, mech.KindDelCalibrate),
		certificate: trace.Has(shown, mech.KindDelCertificate),
		stability:   trace.Has(shown, mech.KindDelStability),
		drawn:       trace.Has(shown, mech.KindTDLapDraw),
		released:    trace.Has(shown, mech.KindNoiseAdd, mech.KindDelBottom),
	}
}

// Draw paints the users, the influence bars, the TDLap pmf, the search
// result, the release and, with the lens, the neighbour and δ(ε).
func (s *Scene) Draw(w, h float64) *viz.List {
	l := &viz.List{}
	s.last = l
	if !figure.Reset(l, w, h, s.err) {
		return l
	}
	v := s.revealed()
	// The users' number line; frozen while dragging.
	if s.drag == 0 {
		vals := s.values
		if s.lens {
			vals = append(slices.Clone(s.values), s.neighbour...)
		}
		s.axis = figure.FitLine(vals, 40, w-80)
	}
	s.axis.W = w - 80
	// Each row below the one above by its title's height and its dots'
	// stack.
	y := figure.RowBelow(l, 20, s.values, s.axis, s.rowTitle("data x"))
	s.drawUsers(l, s.values, s.axis, y, 1, v, "data x")
	if s.lens {
		y = figure.RowBelow(l, y+30, s.neighbour, s.axis, s.rowTitle("neighbour x′"))
		s.drawUsers(l, s.neighbour, s.axis, y, lensID+1, stabilityShown{}, "neighbour x′")
	}
	y += 48
	// Side by side, or stacked in a narrow frame (a phone), where each
	// block starts below the text above it.
	if w >= 640 {
		half := (w - 60) / 2
		// A title too long for its half wraps, and moves its plot down.
		y = math.Max(s.drawInfluence(l, figure.Plot{X0: 30, Y0: y + 30, W: half - 20, H: 110}),
			s.drawTDLap(l, figure.Plot{X0: 40 + half, Y0: y + 30, W: half - 20, H: 110}, v)) + 6
	} else {
		// The lens's row and profile take room the bars give up.
		ih, th := 70.0, 56.0
		if s.lens {
			ih, th = 50, 40
		}
		y = s.drawInfluence(l, figure.Plot{X0: 20, Y0: y + 30, W: w - 40, H: ih})
		y = s.drawTDLap(l, figure.Plot{X0: 20, Y0: y + 36, W: w - 40, H: th}, v)
		y += 6
	}
	y = s.drawSearch(l, y, v)
	if s.lens {
		y0 := y + 12 + l.TextHeight(viz.Point{X: 60}, 0, lensCaption, 12, viz.Left)
		if h-y0-22 >= 80 {
			s.drawProfile(l, figure.Plot{X0: 60, Y0: y0, W: w - 120, H: h - y0 - 22})
		} else { // a phone: the profile's verdict at the claimed ε, in words
			pt := s.lensAtEps()
			col := viz.Green
			if pt.Verdict == audit.Violation {
				col = viz.Vermillion
			}
			l.Text(viz.Point{X: 20, Y: y + 20}, format.Sprintf("exact δ at ε = %g: %.3g (x vs x′), %.3g (x′ vs x), promised %g: %s — the whole curve δ(ε) on a wider screen",
				s.params.Eps, pt.DeltaAB, pt.DeltaBA, s.params.Delta, pt.Verdict), 12, col, viz.Left)
		}
	} else {
		s.drawRelease(l, figure.Plot{X0: 40, Y0: y + 10, W: w - 80, H: math.Max(h-y-50, 60)}, v)
	}
	return l
}

// rowTitle is the title of the users' row called name.
func (s *Scene) rowTitle(name string) string {
	return name + " (drag a user)" + s.axis.ScaleNote()
}

// drawUsers draws one row of users on the number line; removed users are
// crossed out once the stability step is shown.
func (s *Scene) drawUsers(l *viz.List, values []float64, ax figure.NumberLine, y float64, idBase int, v stabilityShown, title string) {
	changed := -1
	if idBase > lensID {
		for i := range values {
			if values[i] != s.values[i] {
				changed = i
			}
		}
	}
	drag := s.drag
	if drag < 0 {
		drag = -drag
	}
	at := figure.DrawValueRow(l, values, ax, y, idBase, changed, drag, s.rowTitle(title))
	if !v.stability {
		return
	}
	c := viz.Style{Stroke: viz.Vermillion, Width: 2.5}
	for _, i := range s.law.Removed {
		p := at[i]
		l.Line(viz.Point{X: p.X - 8, Y: p.Y - 8}, viz.Point{X: p.X + 8, Y: p.Y + 8}, c)
		l.Line(viz.Point{X: p.X - 8, Y: p.Y + 8}, viz.Point{X: p.X + 8, Y: p.Y - 8}, c)
	}
}

// drawInfluence shows each user's deletion influence against Δ: the first
// level of the deletion lattice.
func (s *Scene) drawInfluence(l *viz.List, p figure.Plot) (bottom float64) {
	inf := influence(s.values)
	p.Y0 += l.TextIn(viz.Point{X: p.X0, Y: p.Y0 - 14}, p.W, "deletion influence |f(x) − f(x₋ᵢ)| per user vs Δ (log scale)", 12, viz.Ink, viz.Left) - 15
	lo, hi := math.Log10(s.params.Sens)-3, math.Log10(s.params.Sens)+3
	yOf := func(x float64) float64 {
		t := (math.Log10(math.Max(x, 1e-300)) - lo) / (hi - lo)
		return p.Y0 + p.H*(1-math.Max(0, math.Min(1, t)))
	}
	// A decade axis on the left, so that a bar 15× another reads as such:
	// grid lines at every power of ten, labels as far apart as fit, and Δ's
	// own label on the axis where no bar can cover it.
	const axisW = 40.0
	x0, w := p.X0+axisW, p.W-axisW
	dy := yOf(s.params.Sens)
	decades := int(math.Floor(hi)) - int(math.Ceil(lo)) + 1
	stride := max(1, int(math.Ceil(float64(decades)*13/p.H)))
	for k := int(math.Ceil(lo)); k <= int(math.Floor(hi)); k++ {
		y := yOf(math.Pow(10, float64(k)))
		l.Line(viz.Point{X: x0, Y: y}, viz.Point{X: x0 + w, Y: y}, viz.Style{Stroke: viz.Grid, Width: 1})
		if (k-int(math.Ceil(lo)))%stride == 0 && math.Abs(y-dy) > 11 {
			l.Text(viz.Point{X: x0 - 4, Y: y}, figure.Decade(k), 10, viz.Muted, viz.Right)
		}
	}
	l.Line(viz.Point{X: x0, Y: p.Y0}, viz.Point{X: x0, Y: p.Y0 + p.H}, viz.Style{Stroke: viz.Muted, Width: 1})
	bw := w / float64(len(inf))
	for i, x := range inf {
		col := viz.Blue
		if x > s.params.Sens {
			col = viz.Vermillion
		}
		l.Rect(viz.Point{X: x0 + float64(i)*bw + 1, Y: p.Y0 + p.H}, viz.Point{X: x0 + float64(i+1)*bw - 1, Y: yOf(x)}, viz.Style{Fill: col}, 0)
	}
	l.Line(viz.Point{X: x0, Y: dy}, viz.Point{X: x0 + w, Y: dy}, viz.Style{Stroke: viz.Purple, Width: 2, Dashed: true})
	l.Text(viz.Point{X: x0 - 4, Y: dy}, format.Sprintf("Δ %g", s.params.Sens), 10, viz.Purple, viz.Right)
	return p.Y0 + p.H
}

// drawTDLap shows R1's pmf, the ⊥ mass (R1 < r*) and the drawn R1.
func (s *Scene) drawTDLap(l *viz.List, p figure.Plot, v stabilityShown) (bottom float64) {
	pmf := s.tdlapPMF()
	p.Y0 += l.TextIn(viz.Point{X: p.X0, Y: p.Y0 - 14}, p.W, format.Sprintf("TDLap(ε̄, κ = %d): R1 on {0..2κ}; red: R1 < r* ⇒ ⊥", s.law.Kappa), 12, viz.Ink, viz.Left) - 15
	top := 0.0
	for _, x := range pmf {
		top = math.Max(top, x)
	}
	bw := p.W / float64(len(pmf))
	for r, x := range pmf {
		col := viz.Sky
		if v.stability && (s.law.RStar < 0 || r < s.law.RStar) {
			col = viz.Vermillion
		}
		x0 := p.X0 + float64(r)*bw
		// Square-root height so the e^{−ε̄}-small tails stay visible.
		yt := p.Y0 + p.H - p.H*math.Sqrt(x/top)
		l.Rect(viz.Point{X: x0 + 2, Y: p.Y0 + p.H}, viz.Point{X: x0 + bw - 2, Y: yt}, viz.Style{Fill: col}, 0)
		l.Text(viz.Point{X: x0 + bw/2, Y: p.Y0 + p.H + 10}, format.Sprint(r), 10, viz.Ink, viz.Centre)
	}
	if v.drawn {
		x := p.X0 + (float64(s.result.R1)+0.5)*bw
		l.Arrow(viz.Point{X: x, Y: p.Y0 - 4}, viz.Point{X: x, Y: p.Y0 + 14}, viz.Style{Stroke: viz.Ink, Width: 2})
		l.Text(viz.Point{X: x + 6, Y: p.Y0 + 4}, format.Sprintf("R1 = %d", s.result.R1), 11, viz.Ink, viz.Left)
	}
	l.Text(viz.Point{X: p.X0 + p.W, Y: p.Y0 + p.H + 24}, "bar height ∝ √pmf", 10, viz.Muted, viz.Right)
	return p.Y0 + p.H + 30
}

// drawSearch states the certificate and the search result from y, and
// returns where the release below may start.
func (s *Scene) drawSearch(l *viz.List, y float64, v stabilityShown) float64 {
	law := s.law
	second, height := y+20, 15.0 // the second line's place and height, taken or not
	if v.certificate {
		badge, col := format.Sprintf("✗ not certified: 2(4κ+1)γ_c/(n−4κ−1) = %.3g > Δ — exact search over subsets of ≤ 4κ = %d users", law.Bound, 4*law.Kappa), viz.Vermillion
		if law.Certified {
			badge, col = format.Sprintf("✓ certified stable: 2(4κ+1)γ_c/(n−4κ−1) = %.3g ≤ Δ — no search needed, r* = 0", law.Bound), viz.Green
		}
		second = y + l.Text(viz.Point{X: 30, Y: y}, badge, 12, col, viz.Left) + 5
	}
	if v.stability {
		text := format.Sprintf("r* = %d: removing %s leaves a dataset stable under %d more deletions; Pr[⊥] = Pr[R1 < %d] = %.4g",
			law.RStar, userList(law.Removed), 4*law.Kappa-law.RStar, law.RStar, law.PBottom)
		if law.RStar == 0 {
			text = format.Sprintf("r* = 0: x itself is stable under %d deletions; never ⊥", 4*law.Kappa)
		}
		if law.RStar < 0 {
			text = format.Sprintf("no set of ≤ 2κ = %d users leaves a stable dataset: ⊥ with probability 1", 2*law.Kappa)
		}
		height = l.Text(viz.Point{X: 30, Y: second}, text, 12, viz.Ink, viz.Left)
	}
	return math.Max(y+48, second+height+13)
}

// drawRelease shows the output on its own axis: the centre, ±σ, ±2σ and
// the draw; the data's range is a small band (σ often dwarfs it).
func (s *Scene) drawRelease(l *viz.List, p figure.Plot, v stabilityShown) {
	law := s.law
	const title = "release: f(x₋S*) + N(0, σ²) — its own axis, ±3σ around the centre"
	th := l.Text(viz.Point{X: p.X0, Y: p.Y0}, title, 12, viz.Ink, viz.Left)
	note := format.Sprintf("σ = %.4g; grey band: the data's range", law.Sigma)
	if viz.TextWidth(title, 12)+viz.TextWidth(note, 11) > p.W {
		// No room beside the title: the note goes under it.
		l.Text(viz.Point{X: p.X0, Y: p.Y0 + th}, note, 11, viz.Muted, viz.Left)
		p.Y0 += th + 14
		p.H -= th + 14
	} else {
		l.Text(viz.Point{X: p.X0 + p.W, Y: p.Y0}, note, 11, viz.Muted, viz.Right)
	}
	if !v.stability || law.Centre == nil {
		return
	}
	c := law.Centre[0]
	ax := figure.Plot{X0: p.X0, W: p.W, Lo: c - 3.2*law.Sigma, Hi: c + 3.2*law.Sigma}
	base := p.Y0 + p.H - 16
	pts := make([]viz.Point, 0, 161)
	g := noise.Gaussian{Mu: c, Sigma: law.Sigma}
	peak := g.Prob(c)
	for i := 0; i <= 160; i++ {
		x := ax.Lo + (ax.Hi-ax.Lo)*float64(i)/160
		pts = append(pts, viz.Point{X: ax.XOf(x), Y: base - (p.H-40)*g.Prob(x)/peak})
	}
	dlo, dhi := figure.MinMax(s.values)
	l.Rect(viz.Point{X: ax.XOf(dlo), Y: base - (p.H - 40)}, viz.Point{X: math.Max(ax.XOf(dhi), ax.XOf(dlo)+1), Y: base}, viz.Style{Fill: viz.Grid}, 0)
	l.Polyline(pts, viz.Style{Stroke: viz.Orange, Width: 2})
	l.Line(viz.Point{X: p.X0, Y: base}, viz.Point{X: p.X0 + p.W, Y: base}, viz.Style{Stroke: viz.Muted, Width: 1})
	for k := -3; k <= 3; k++ {
		x := ax.XOf(c + float64(k)*law.Sigma)
		l.Line(viz.Point{X: x, Y: base}, viz.Point{X: x, Y: base + 4}, viz.Style{Stroke: viz.Muted, Width: 1})
		label := format.Sprintf("%+dσ", k)
		if k == 0 {
			label = format.Sprintf("c = %.3g", c)
		}
		l.Text(viz.Point{X: x, Y: base + 13}, label, 10, viz.Muted, viz.Centre)
	}
	if v.released {
		if s.result.Output == nil {
			l.Text(viz.Point{X: p.X0 + p.W/2, Y: base - p.H/2}, "⊥ — nothing released", 18, viz.Vermillion, viz.Centre)
		} else {
			o := viz.Point{X: ax.XOf(s.result.Output[0]), Y: base - 6}
			l.Circle(o, 7, viz.Style{Fill: viz.Orange, Stroke: viz.Ink, Width: 1.5}, 0)
			l.Text(viz.Point{X: o.X, Y: o.Y - 16}, format.Sprintf("output %.4g", s.result.Output[0]), 11, viz.Ink, viz.Centre)
		}
	}
}

// drawProfile plots the exact δ(ε) of both orders against the promise.
func (s *Scene) drawProfile(l *viz.List, p figure.Plot) {
	if s.lensErr != nil {
		l.Text(viz.Point{X: p.X0, Y: p.Y0}, "neighbour: "+s.lensErr.Error(), 12, viz.Vermillion, viz.Left)
		return
	}
	emax := 2 * s.params.Eps
	eps := make([]float64, 81)
	for i := range eps {
		eps[i] = emax * float64(i) / 80
	}
	figure.Profile(l, p, audit.Curve(s.law, s.lensLaw, s.result.Guarantee, eps), s.params.Eps, s.params.Delta, lensCaption)
}

// lensCaption is the title of the lens's privacy profile.
var lensCaption = figure.ProfileCaption("x vs x′", "x′ vs x")

// Pointer drags users along the line (in the data or, with the lens, in
// the neighbour; moving a second lens user puts the first one back, so the
// pair stays neighbours).
func (s *Scene) Pointer(ev viz.Event) bool {
	switch ev.Kind {
	case viz.PointerDown:
		id := s.last.HitEvent(ev, 4)
		switch {
		case id >= 1 && id <= len(s.values):
			s.drag = id
			s.grab = s.axis.XOf(s.values[id-1]) - ev.X // in pixels: the line may be logarithmic
		case s.lens && id > lensID && id <= lensID+len(s.values):
			i := id - lensID - 1
			for j := range s.neighbour {
				if j != i {
					s.neighbour[j] = s.values[j]
				}
			}
			s.drag = -id
			s.grab = s.axis.XOf(s.neighbour[i]) - ev.X
		default:
			return false
		}
		return true
	case viz.PointerMove:
		if s.drag == 0 {
			return false
		}
		x := math.Round(s.axis.ValueAtX(ev.X+s.grab)*1000) / 1000
		if s.drag > 0 {
			i := s.drag - 1
			// The lens follows the data, except in the one user it changes.
			if s.lens && s.neighbour[i] == s.values[i] {
				s.neighbour[i] = x
			}
			s.values[i] = x
		} else {
			s.neighbour[-s.drag-lensID-1] = x
		}
		s.rerun()
		return true
	case viz.PointerUp:
		return viz.LetGo(&s.drag)
	}
	return false
}
