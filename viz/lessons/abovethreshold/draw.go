package abovethreshold

import (
	"cmp"
	"math"
	"slices"

	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/mech"
	"github.com/uldplab/uldp/core/trace"
	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/figure"
)

// shown collects what the steps revealed so far.
type shown struct {
	threshold *mech.ATThresholdStep
	compares  []mech.ATCompareStep
	current   int // 1-based query of the last shown compare step, 0 if none
	halted    bool
}

func (s *Scene) revealed() shown {
	steps := s.player.Stepper().Shown()
	v := shown{threshold: trace.Last[mech.ATThresholdStep](steps, mech.KindATThreshold), halted: trace.Has(steps, mech.KindATHalt)}
	for _, st := range steps {
		if d, ok := st.Data.(mech.ATCompareStep); ok && st.Kind == mech.KindATCompare {
			v.compares = append(v.compares, d)
			v.current = d.T
		}
	}
	return v
}

// valueRange is the span the value axis covers: every query, both
// thresholds and every noisy value, with a margin.
func (s *Scene) valueRange(v shown) (float64, float64) {
	lo, hi := s.threshold, s.threshold
	for _, q := range s.queries {
		lo, hi = math.Min(lo, q), math.Max(hi, q)
	}
	if v.threshold != nil {
		lo, hi = math.Min(lo, v.threshold.NoisyThreshold), math.Max(hi, v.threshold.NoisyThreshold)
	}
	for _, c := range v.compares {
		lo, hi = math.Min(lo, c.NoisyQuery), math.Max(hi, c.NoisyQuery)
	}
	pad := math.Max(0.12*(hi-lo), 1)
	return math.Min(lo-pad, 0), hi + pad
}

// Draw paints the query bars, the thresholds, the revealed noisy values and
// the halting-time distribution.
func (s *Scene) Draw(w, h float64) *viz.List {
	l := &viz.List{Width: w, Height: h}
	v := s.revealed()
	y := 16 + l.Text(viz.Point{X: 56, Y: 16}, "query values q_t (drag a bar), noisy values q_t + ν_t, thresholds", 13, viz.Ink, viz.Left)
	top := figure.Plot{X0: 56, Y0: y + 4, W: math.Max(w-130, 60), H: math.Max(h*0.56-y+36, 60), Slots: len(s.queries)}
	if s.drag != 0 {
		top.Lo, top.Hi = s.plot.Lo, s.plot.Hi
	} else {
		top.Lo, top.Hi = s.valueRange(v)
	}
	s.plot = top
	s.drawQueries(l, top, v)
	s.drawHalting(l, top.X0, top.W, top.Y0+top.H+50, h)
	s.last = l
	return l
}

func (s *Scene) drawQueries(l *viz.List, p figure.Plot, v shown) {
	axis := viz.Style{Stroke: viz.Muted, Width: 1}
	grid := viz.Style{Stroke: viz.Grid, Width: 1}
	for _, t := range viz.NiceTicks(p.Lo, p.Hi, 6) {
		y := p.YOf(t)
		l.Line(viz.Point{X: p.X0, Y: y}, viz.Point{X: p.X0 + p.W, Y: y}, grid)
		l.Text(viz.Point{X: p.X0 - 6, Y: y}, viz.TickLabel(t), 11, viz.Muted, viz.Right)
	}
	l.Line(viz.Point{X: p.X0, Y: p.Y0}, viz.Point{X: p.X0, Y: p.Y0 + p.H}, axis)
	// A slot too narrow for "p⊤ 0.72" names the row once, at the axis.
	// Narrower still (a phone), the figures alternate between two lines.
	pfmt, stagger := "p⊤ %.2f", false
	if viz.TextWidth("p⊤ 0.00", 10) > p.SlotW()-2 {
		pfmt = "%.2f"
		l.Text(viz.Point{X: p.X0 - 6, Y: p.Y0 + p.H + 28}, "p⊤", 10, viz.Muted, viz.Right)
		stagger = viz.NumberWidth("0.00", 10) > p.SlotW()-2
	}

	base := p.YOf(math.Max(p.Lo, math.Min(0, p.Hi)))
	bw := math.Min(p.SlotW()*0.55, 48)
	for i, q := range s.queries {
		t := i + 1
		x := p.SlotX(t)
		style := viz.Style{Fill: viz.Blue, Stroke: viz.Blue, Width: 1}
		if v.halted && t > v.current {
			style.Alpha = 0.25 // never asked
		}
		if s.drag == t {
			style.Stroke, style.Width = viz.Yellow, 3
		}
		l.Rect(viz.Point{X: x - bw/2, Y: base}, viz.Point{X: x + bw/2, Y: p.YOf(q)}, style, t)
		l.Text(viz.Point{X: x, Y: p.Y0 + p.H + 14}, format.Sprintf("q%d", t), 11, viz.Ink, viz.Centre)
		py := p.Y0 + p.H + 28
		if stagger && t%2 == 0 {
			py += 10
		}
		l.Text(viz.Point{X: x, Y: py}, format.Sprintf(pfmt, mech.ATPassProbability(s.params(), q)), 10, viz.Muted, viz.Centre)
	}

	right := p.X0 + p.W
	dashed := viz.Style{Stroke: viz.Purple, Width: 2, Dashed: true}
	l.Line(viz.Point{X: p.X0, Y: p.YOf(s.threshold)}, viz.Point{X: right, Y: p.YOf(s.threshold)}, dashed)
	l.Text(viz.Point{X: right + 6, Y: p.YOf(s.threshold)}, format.Sprintf("Δ = %s", viz.TickLabel(s.threshold)), 12, viz.Purple, viz.Left)
	if th := v.threshold; th != nil {
		y := p.YOf(th.NoisyThreshold)
		l.Line(viz.Point{X: p.X0, Y: y}, viz.Point{X: right, Y: y}, viz.Style{Stroke: viz.Purple, Width: 3})
		l.Text(viz.Point{X: right + 6, Y: y + 14}, format.Sprintf("Δ̂ = %.3g", th.NoisyThreshold), 12, viz.Purple, viz.Left)
		if th.Noise != 0 {
			l.Arrow(viz.Point{X: p.X0 + 8, Y: p.YOf(s.threshold)}, viz.Point{X: p.X0 + 8, Y: y}, viz.Style{Stroke: viz.Purple, Width: 2})
		}
	}
	for _, c := range v.compares {
		x := p.SlotX(c.T)
		from, to := viz.Point{X: x, Y: p.YOf(c.Query)}, viz.Point{X: x, Y: p.YOf(c.NoisyQuery)}
		if c.Noise != 0 {
			l.Arrow(from, to, viz.Style{Stroke: viz.Orange, Width: 2})
		}
		l.Circle(to, 6, viz.Style{Fill: viz.Orange, Stroke: viz.Ink, Width: 1}, 0)
		mark, col := "⊤", viz.Green
		if !c.Pass {
			mark, col = "⊥", viz.Vermillion
		}
		l.Text(viz.Point{X: x, Y: p.Y0 + 8}, mark, 18, col, viz.Centre)
	}
	if v.current > 0 {
		x := p.SlotX(v.current)
		l.Rect(viz.Point{X: x - p.SlotW()/2 + 2, Y: p.Y0}, viz.Point{X: x + p.SlotW()/2 - 2, Y: p.Y0 + p.H},
			viz.Style{Stroke: viz.Yellow, Width: 2, Alpha: 0.9}, 0)
	}
}

// drawHalting compares the exact halting-time law with simulated
// frequencies, in the column x0…x0+w from y (its title) down to bottom.
func (s *Scene) drawHalting(l *viz.List, x0, w, y, bottom float64) {
	title := "when does it halt? exact probability (outline)"
	if s.sim != nil {
		title += format.Sprintf(" vs %d simulated runs (filled)", simRuns)
	} else {
		title += " — press “simulate” to compare with runs"
	}
	y += l.Text(viz.Point{X: x0, Y: y}, title, 12, viz.Ink, viz.Left) + 8
	p := figure.Plot{X0: x0, Y0: y, W: w, H: math.Max(bottom-y-24, 30), Slots: len(s.queries) + 1}
	// Scale to the tallest bar so small probabilities stay readable.
	p.Lo, p.Hi = 0, 0.05
	for k, pr := range s.exact {
		p.Hi = math.Max(p.Hi, pr)
		if s.sim != nil {
			p.Hi = math.Max(p.Hi, float64(s.sim[k])/simRuns)
		}
	}
	p.Hi *= 1.2
	l.Line(viz.Point{X: p.X0, Y: p.Y0 + p.H}, viz.Point{X: p.X0 + p.W, Y: p.Y0 + p.H}, viz.Style{Stroke: viz.Muted, Width: 1})
	bw := math.Min(p.SlotW()*0.6, 40)
	// A slot too narrow for "⊥@8" names the row once, at the axis.
	short := 1.4*viz.TextWidth("all ⊤", 10) > p.SlotW()
	if short {
		l.Text(viz.Point{X: p.X0 - 6, Y: p.Y0 + p.H + 12}, "⊥ at", 10, viz.Ink, viz.Right)
	}
	for k, pr := range s.exact {
		x := p.SlotX(k + 1)
		if s.sim != nil {
			f := float64(s.sim[k]) / simRuns
			l.Rect(viz.Point{X: x - bw/2, Y: p.YOf(0)}, viz.Point{X: x + bw/2, Y: p.YOf(f)}, viz.Style{Fill: viz.Sky}, 0)
		}
		l.Rect(viz.Point{X: x - bw/2, Y: p.YOf(0)}, viz.Point{X: x + bw/2, Y: p.YOf(pr)}, viz.Style{Stroke: viz.Ink, Width: 1.5}, 0)
		label := format.Sprintf("⊥@%d", k+1)
		switch {
		case short && k == len(s.queries):
			label = "none"
		case short:
			label = format.Sprint(k + 1)
		case k == len(s.queries):
			label = "all ⊤"
		}
		l.Text(viz.Point{X: x, Y: p.Y0 + p.H + 12}, label, 10, viz.Ink, viz.Centre)
	}
	// Over the bars (a simulated one may reach above its exact one), the
	// probabilities are labelled from the likeliest down; on a narrow
	// figure one that would print into a neighbour's is left out.
	place := figure.Labels{L: l}
	order := make([]int, len(s.exact))
	for k := range order {
		order[k] = k
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(s.exact[b], s.exact[a]) })
	for _, k := range order {
		place.Text(viz.Point{X: p.SlotX(k + 1), Y: p.YOf(s.exact[k]) - 8}, format.Sprintf("%.2f", s.exact[k]), 10, viz.Muted, viz.Centre)
	}
}

// Pointer drags query bars; the noise stays fixed while the value moves.
func (s *Scene) Pointer(ev viz.Event) bool {
	switch ev.Kind {
	case viz.PointerDown:
		id := s.last.HitEvent(ev, 6)
		if id >= 1 && id <= len(s.queries) {
			s.drag = id
			s.grab = s.queries[id-1] - s.plot.ValueAt(ev.Y)
			return true
		}
	case viz.PointerMove:
		if s.drag == 0 {
			return false
		}
		q := math.Round((s.plot.ValueAt(ev.Y)+s.grab)*100) / 100
		q = math.Max(math.Min(q, 1e6), -1e6)
		if q == s.queries[s.drag-1] {
			return false
		}
		s.queries[s.drag-1] = q
		return s.rerun() == nil
	case viz.PointerUp:
		return viz.LetGo(&s.drag)
	}
	return false
}
