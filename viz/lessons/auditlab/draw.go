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
	} else if s.mech == lab.SGD {
		text := format.Sprintf("No closed form for DP-SGD's answer; exact: Pr[the gate halts a run] is %s on A, %s on B (it then answers θ₀).",
			audit.FormatProbability(s.sgd[0].Halt), audit.FormatProbability(s.sgd[1].Halt))
		y += l.Text(viz.Point{X: 20, Y: y}, text, 13, viz.Ink, viz.Left)
	} else if s.mech == lab.RSGD {
		y += s.drawRSGDTest(l, y)
	}
	if hint := s.hint(); hint != "" {
		y += l.Text(viz.Point{X: 20, Y: y}, hint, 11, viz.Muted, viz.Left)
	}
	caption := figure.ProfileCaption("A vs B", "B vs A")
	switch {
	case s.mech == lab.RSGD:
		caption = "sampled answers: A (blue bars), B (orange outline); a halted run answers x₀ plus the same noise, so it is among them"
	case sampled(s.mech):
		caption = "sampled answers, projected on the audit's direction u: A (blue bars), B (orange outline); halted runs (θ₀) at the left"
	}
	// The plot starts below its caption, however many lines it wraps to.
	area := s.MC.PlotBelow(l, w, h, y, caption, g.Eps, s.mutant)
	if sampled(s.mech) {
		s.MC.DrawSampled(l, area, caption)
	} else {
		figure.Profile(l, area, s.points, g.Eps, g.Delta, caption)
	}
	s.MC.Draw(l, w, area.Y0+area.H+40, g.Eps, s.mutant)
	return l
}

// drawRSGDTest states robust SGD's exact part, its test's law, with the
// verdict on it, and returns the height used.
func (s *Scene) drawRSGDTest(l *viz.List, y float64) float64 {
	t := s.rtest
	lossName := "squared loss"
	if s.pair == "huber-edge" {
		lossName = "Huber loss"
	}
	intro := format.Sprintf("No closed form for the answer (%s, B = %d, 2 steps in file order); exact: Pr[the test halts a run] is %s on A, %s on B.",
		lossName, rsgdBatch, audit.FormatProbability(s.rsgd[0].Halt), audit.FormatProbability(s.rsgd[1].Halt))
	dy := l.Text(viz.Point{X: 20, Y: y}, intro, 13, viz.Ink, viz.Left)
	text, col := format.Sprintf("✓ the test keeps its ε/2 = %g: its halting step loses %.3g on this pair, %.3g against the proof's worst neighbour", t.Budget, t.Loss, t.WorstLoss), viz.Green
	if t.Violated() {
		text, col = format.Sprintf("✗ VIOLATION of the test's ε/2 = %g: its halting step loses %.3g on this pair, %.3g against the proof's worst neighbour", t.Budget, t.Loss, t.WorstLoss), viz.Vermillion
		if s.mutant != audit.NoMutant {
			text += " — the audit catches “" + s.mutant + "”"
		}
	}
	return dy + l.Text(viz.Point{X: 20, Y: y + dy}, text, 14, col, viz.Left)
}

// drawUsersPair draws dataset A and its neighbour B on one number line and
// returns the y below them.
func (s *Scene) drawUsersPair(l *viz.List, w float64) float64 {
	if s.drag == 0 { // frozen while dragging
		s.line = figure.FitLine(append(append([]float64(nil), s.a...), s.b...), 40, w-80)
	}
	s.line.W = w - 80
	titles := [2]string{"dataset A (drag a user)", "neighbour B: one user of A replaced (drag it)"}
	if s.mech == lab.Gauss {
		titles = [2]string{"the query's answer on A (drag it)", "B: within sensitivity 1 of A's answer (drag it)"}
	}
	return lab.DrawPairRows(l, s.a, s.b, s.line, titles, 1, s.drag)
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

// Pointer drags users (DelOutputPert) or query bars (AboveThreshold) in
// either dataset, keeping the pair neighbours.
func (s *Scene) Pointer(ev viz.Event) bool {
	switch ev.Kind {
	case viz.PointerDown:
		id := s.list.HitEvent(ev, 4)
		n := len(s.a)
		if queryMech(s.mech) {
			n = len(s.qa)
		}
		i, inB := id-1, false
		if id > lab.RowB {
			i, inB = id-lab.RowB-1, true
		}
		if id == 0 || i < 0 || i >= n {
			return false
		}
		s.drag = id
		if queryMech(s.mech) {
			v := s.qa[i]
			if inB {
				v = s.qb[i]
			}
			s.grab = v - s.ax.ValueAt(ev.Y)
		} else {
			v := s.a[i]
			if inB {
				v = s.b[i]
				for j := range s.b { // B stays a neighbour: one user differs
					if j != i {
						s.b[j] = s.a[j]
					}
				}
			}
			s.grab = s.line.XOf(v) - ev.X // in pixels: the line may be logarithmic
		}
		return true
	case viz.PointerMove:
		if s.drag == 0 {
			return false
		}
		i, inB := s.drag-1, false
		if s.drag > lab.RowB {
			i, inB = s.drag-lab.RowB-1, true
		}
		if queryMech(s.mech) {
			v := math.Round((s.ax.ValueAt(ev.Y)+s.grab)*100) / 100
			v = math.Max(-atRange, math.Min(atRange, v))
			if inB {
				sens := s.querySens()
				s.qb[i] = math.Max(s.qa[i]-sens, math.Min(s.qa[i]+sens, v))
			} else {
				d := s.qb[i] - s.qa[i]
				s.qa[i], s.qb[i] = v, v+d
			}
		} else {
			v := math.Round(s.line.ValueAtX(ev.X+s.grab)*1000) / 1000
			gauss := s.mech == lab.Gauss // its answers stay within the sensitivity 1
			switch {
			case inB && gauss:
				s.b[i] = math.Max(s.a[i]-1, math.Min(s.a[i]+1, v))
			case inB:
				s.b[i] = v
			case gauss: // B keeps its offset
				s.a[i], s.b[i] = v, s.b[i]+v-s.a[i]
			default: // a user B shares moves in both
				if s.b[i] == s.a[i] {
					s.b[i] = v
				}
				s.a[i] = v
			}
		}
		s.recompute()
		return true
	case viz.PointerUp:
		return viz.LetGo(&s.drag)
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
	if s.mech == lab.RSGD && s.mutant == audit.RSGDPaperNoise {
		return format.Sprintf("The printed noise leaks on long phases: over T = 2 steps its halting step loses at most %.2g, within ε/2 = %g, even against the proof's worst neighbour. Over 30 steps it loses ε.",
			s.rtest.WorstLoss, s.rtest.Budget)
	}
	for _, p := range labPairs()[s.mech] {
		if p.Name != s.pair {
			continue
		}
		if s.mutant == audit.NoMutant {
			return "Try the broken variant “" + p.Catches + "” on this pair, or drag a user to make your own pair."
		}
		if s.mutant == p.Catches {
			return ""
		}
	}
	for _, p := range labPairs()[s.mech] {
		if p.Catches == s.mutant {
			return "The preset pair “" + p.Name + "” catches “" + s.mutant + "”."
		}
	}
	for _, m := range lab.Mechs {
		for _, p := range labPairs()[m] {
			if p.Catches == s.mutant && m != s.mech {
				return "This audit cannot see “" + s.mutant + "”; mechanism “" + m + "” with the pair “" + p.Name + "” catches it."
			}
		}
	}
	return "No preset pair catches “" + s.mutant + "”: an audit only shows a violation that some pair exposes, and at these settings this variant may be safe on every pair."
}
