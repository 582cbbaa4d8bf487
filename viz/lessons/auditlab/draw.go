package auditlab

import (
	"math"

	"github.com/uldplab/uldp/core/audit"
	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/figure"
	"github.com/uldplab/uldp/viz/lessons/auditlab/internal/lab"
)

// atRange is the AboveThreshold rows' fixed value axis.
const atRange = 6.0

// Draw paints the pair, the exact profile, the verdict and the Monte Carlo
// audit's progress.
func (s *Scene) Draw(w, h float64) *viz.List {
	l := &s.list
	l.Reset(w, h)
	var y float64
	if queryMech(s.mech) {
		y = s.drawQueries(l, w)
	} else {
		y = s.drawUsersPair(l, w)
	}
	// The verdict and the hint stack by their measured heights (a phone
	// wraps them); the profile goes below them.
	y = math.Max(178, y+24)
	if s.err != nil {
		figure.DrawFailure(l, w, y+12, "Cannot audit: "+s.err.Error())
		return l
	}
	g := s.guarantee()
	if p, ok := s.verdictAt(); ok {
		text, col := format.Sprintf("✓ keeps its promise on this pair: δ(ε = %g) = %.3g, %.3g ≤ %g", g.Eps, p.DeltaAB, p.DeltaBA, g.Delta), viz.Green
		if p.Verdict == audit.Violation {
			text, col = format.Sprintf("✗ VIOLATION on this pair: δ(ε = %g) = %.3g, %.3g > %g", g.Eps, p.DeltaAB, p.DeltaBA, g.Delta), viz.Vermillion
			if s.mutant != audit.NoMutant {
				text += " — the audit catches “" + s.mutant + "”"
			}
		}
		y += l.Text(viz.Point{X: 20, Y: y}, text, 14, col, viz.Left)
	}
	if hint := s.hint(); hint != "" {
		y += l.Text(viz.Point{X: 20, Y: y}, hint, 11, viz.Muted, viz.Left)
	}
	caption := figure.ProfileCaption("A vs B", "B vs A")
	// The plot starts below its caption, however many lines it wraps to.
	area := s.MC.PlotBelow(l, w, h, y, caption, g.Eps, s.mutant)
	figure.Profile(l, area, s.points, g.Eps, g.Delta, caption)
	s.MC.Draw(l, w, area.Y0+area.H+40, g.Eps, s.mutant)
	return l
}

// drawUsersPair draws dataset A and its neighbour B on one number line and
// returns the y below them.
func (s *Scene) drawUsersPair(l *viz.List, w float64) float64 {
	s.users.Fit(&s.line, s.a, s.b, w)
	titles := [2]string{"dataset A (drag a user)", "neighbour B: one user of A replaced (drag it)"}
	if s.mech == lab.Gauss {
		titles = [2]string{"the query's answer on A (drag it)", "B: within sensitivity 1 of A's answer (drag it)"}
	}
	return lab.DrawPairRows(l, s.a, s.b, s.line, titles, 1, s.users.ID)
}

// drawQueries draws the two query vectors as paired bars and returns the y
// below them.
func (s *Scene) drawQueries(l *viz.List, w float64) float64 {
	caption := format.Sprintf("query values: A (blue) and B (orange, within the sensitivity 1 of A); threshold Δ = %g; drag the bars", s.at.Threshold)
	if s.mech == lab.Gate {
		caption = format.Sprintf("ORME's concentration scores minus 4n/5 = %d, %d users, T = %d queries: A (blue) and B (orange, within 2(n−1)/n ≈ %.3g of A); drag the bars",
			gateThreshold, gateUsers, labGateParams().Queries, s.querySens())
	}
	lines := viz.Wrap(caption, int((w-100)/6.5))
	for i, line := range lines {
		l.Text(viz.Point{X: 50, Y: 14 + 15*float64(i)}, line, 12, viz.Ink, viz.Left)
	}
	// The bars keep their bottom edge whatever the caption takes.
	top := 30 + 15*float64(len(lines)-1)
	p := figure.Plot{X0: 50, Y0: top, W: w - 100, H: 150 - top, Lo: -atRange, Hi: atRange, Slots: len(s.qa)}
	s.ax = p
	zero := p.YOf(0)
	l.Line(viz.Point{X: p.X0, Y: zero}, viz.Point{X: p.X0 + p.W, Y: zero}, viz.Style{Stroke: viz.Muted, Width: 1})
	thr := s.at.Threshold
	if s.mech == lab.Gate {
		thr = 0
	}
	l.Line(viz.Point{X: p.X0, Y: p.YOf(thr)}, viz.Point{X: p.X0 + p.W, Y: p.YOf(thr)}, viz.Style{Stroke: viz.Purple, Width: 2, Dashed: true})
	bw := math.Min(p.SlotW()*0.3, 24)
	for i := range s.qa {
		x := p.SlotX(i + 1)
		for side, v := range []float64{s.qa[i], s.qb[i]} {
			st := viz.Style{Fill: viz.Blue}
			id := 1 + i
			if side == 1 {
				st.Fill, id = viz.Orange, lab.RowB+1+i
			}
			if s.drag == id {
				st.Stroke, st.Width = viz.Yellow, 3
			}
			off := (float64(side) - 0.5) * (bw + 2)
			l.Rect(viz.Point{X: x + off - bw/2, Y: zero}, viz.Point{X: x + off + bw/2, Y: p.YOf(v)}, st, id)
		}
	}
	return p.Y0 + p.H
}

// Pointer drags users (DelOutputPert, the Gaussian mechanism, ORME) or
// query bars (AboveThreshold, the gate) in either dataset, keeping the
// pair neighbours.
func (s *Scene) Pointer(ev viz.Event) bool {
	switch ev.Kind {
	case viz.PointerDown:
		id := s.list.HitEvent(ev, 4)
		if !queryMech(s.mech) {
			return s.users.Down(id, ev, s.a, s.b, s.line)
		}
		i, inB := lab.Item(id)
		if id == 0 || i < 0 || i >= len(s.qa) {
			return false
		}
		s.drag = id
		v := s.qa[i]
		if inB {
			v = s.qb[i]
		}
		s.grab = v - s.ax.ValueAt(ev.Y)
		return true
	case viz.PointerMove:
		if !queryMech(s.mech) {
			within := 0.0
			if s.mech == lab.Gauss { // its answers stay within the sensitivity 1
				within = 1
			}
			if !s.users.Move(ev, s.a, s.b, s.line, within) {
				return false
			}
			s.recompute()
			return true
		}
		if s.drag == 0 {
			return false
		}
		i, inB := lab.Item(s.drag)
		v := math.Round((s.ax.ValueAt(ev.Y)+s.grab)*100) / 100
		v = math.Max(-atRange, math.Min(atRange, v))
		if inB {
			sens := s.querySens()
			s.qb[i] = math.Max(s.qa[i]-sens, math.Min(s.qa[i]+sens, v))
		} else {
			d := s.qb[i] - s.qa[i]
			s.qa[i], s.qb[i] = v, v+d
		}
		s.recompute()
		return true
	case viz.PointerUp:
		bar, user := viz.LetGo(&s.drag), s.users.Up()
		return bar || user
	}
	return false
}

// hint says what to try next on a preset pair.
func (s *Scene) hint() string {
	if s.mech == lab.Gauss && s.mutant == audit.GaussianClassical {
		if p, ok := s.verdictAt(); ok && p.Verdict != audit.Violation {
			return format.Sprintf("At ε = %g the classical σ still keeps its promise: its proof stops at ε < 1, the formula itself holds to about ε = 3–5. Raise the claimed ε to 10.", s.gaussEps)
		}
	}
	var elsewhere []lab.Catcher
	for _, m := range lab.Mechs {
		for _, p := range labPairs()[m] {
			if m != s.mech {
				elsewhere = append(elsewhere, lab.Catcher{Mech: m, Pair: p.Name, Mutant: p.Catches})
			}
		}
	}
	return lab.Hint(s.mutant, s.pair, labPairs()[s.mech], elsewhere, true)
}
