package scenes

import (
	"github.com/uldplab/uldp/core/format"
	"math"

	"github.com/uldplab/uldp/core/mech"
	"github.com/uldplab/uldp/viz"
)

// plotArea maps query slots and values to pixels.
type plotArea struct {
	x0, y0, w, h float64
	lo, hi       float64
	slots        int
}

func (p plotArea) yOf(v float64) float64 { return p.y0 + p.h*(p.hi-v)/(p.hi-p.lo) }

func (p plotArea) valueAt(y float64) float64 { return p.hi - (y-p.y0)/p.h*(p.hi-p.lo) }

func (p plotArea) slotW() float64 { return p.w / float64(p.slots) }

func (p plotArea) slotX(t int) float64 { return p.x0 + (float64(t)-0.5)*p.slotW() } // t is 1-based

// shown collects what the steps revealed so far.
type shown struct {
	threshold *mech.ATThresholdStep
	compares  []mech.ATCompareStep
	current   int // 1-based query of the last shown compare step, 0 if none
	halted    bool
}

func (s *AboveThreshold) revealed() shown {
	var v shown
	for _, st := range s.player.Stepper().Shown() {
		switch st.Kind {
		case mech.KindATThreshold:
			d := st.Data.(mech.ATThresholdStep)
			v.threshold = &d
		case mech.KindATCompare:
			d := st.Data.(mech.ATCompareStep)
			v.compares = append(v.compares, d)
			v.current = d.T
		case mech.KindATHalt:
			v.halted = true
		}
	}
	return v
}

// valueRange is the span the value axis covers: every query, both
// thresholds and every noisy value, with a margin.
func (s *AboveThreshold) valueRange(v shown) (float64, float64) {
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
func (s *AboveThreshold) Draw(w, h float64) *viz.List {
	l := &viz.List{Width: w, Height: h}
	v := s.revealed()
	y := 16 + l.Text(viz.Point{X: 56, Y: 16}, "query values q_t (drag a bar), noisy values q_t + ν_t, thresholds", 13, viz.Ink, viz.Left)
	top := plotArea{x0: 56, y0: y + 4, w: math.Max(w-130, 60), h: math.Max(h*0.56-y+36, 60), slots: len(s.queries)}
	if s.drag != 0 {
		top.lo, top.hi = s.plot.lo, s.plot.hi
	} else {
		top.lo, top.hi = s.valueRange(v)
	}
	s.plot = top
	s.drawQueries(l, top, v)
	s.drawHalting(l, top.x0, top.w, top.y0+top.h+50, h)
	s.last = l
	return l
}

func (s *AboveThreshold) drawQueries(l *viz.List, p plotArea, v shown) {
	axis := viz.Style{Stroke: viz.Muted, Width: 1}
	grid := viz.Style{Stroke: viz.Grid, Width: 1}
	for _, t := range viz.NiceTicks(p.lo, p.hi, 6) {
		y := p.yOf(t)
		l.Line(viz.Point{X: p.x0, Y: y}, viz.Point{X: p.x0 + p.w, Y: y}, grid)
		l.Text(viz.Point{X: p.x0 - 6, Y: y}, viz.TickLabel(t), 11, viz.Muted, viz.Right)
	}
	l.Line(viz.Point{X: p.x0, Y: p.y0}, viz.Point{X: p.x0, Y: p.y0 + p.h}, axis)
	// A slot too narrow for "p⊤ 0.72" names the row once, at the axis.
	pfmt := "p⊤ %.2f"
	if viz.TextWidth("p⊤ 0.00", 10) > p.slotW()-2 {
		pfmt = "%.2f"
		l.Text(viz.Point{X: p.x0 - 6, Y: p.y0 + p.h + 28}, "p⊤", 10, viz.Muted, viz.Right)
	}

	base := p.yOf(math.Max(p.lo, math.Min(0, p.hi)))
	bw := math.Min(p.slotW()*0.55, 48)
	for i, q := range s.queries {
		t := i + 1
		x := p.slotX(t)
		style := viz.Style{Fill: viz.Blue, Stroke: viz.Blue, Width: 1}
		if v.halted && t > v.current {
			style.Alpha = 0.25 // never asked
		}
		if s.drag == t {
			style.Stroke, style.Width = viz.Yellow, 3
		}
		l.Rect(viz.Point{X: x - bw/2, Y: base}, viz.Point{X: x + bw/2, Y: p.yOf(q)}, style, t)
		l.Text(viz.Point{X: x, Y: p.y0 + p.h + 14}, format.Sprintf("q%d", t), 11, viz.Ink, viz.Centre)
		l.Text(viz.Point{X: x, Y: p.y0 + p.h + 28}, format.Sprintf(pfmt, mech.ATPassProbability(s.params(), q)), 10, viz.Muted, viz.Centre)
	}

	right := p.x0 + p.w
	dashed := viz.Style{Stroke: viz.Purple, Width: 2, Dashed: true}
	l.Line(viz.Point{X: p.x0, Y: p.yOf(s.threshold)}, viz.Point{X: right, Y: p.yOf(s.threshold)}, dashed)
	l.Text(viz.Point{X: right + 6, Y: p.yOf(s.threshold)}, format.Sprintf("Δ = %s", viz.TickLabel(s.threshold)), 12, viz.Purple, viz.Left)
	if th := v.threshold; th != nil {
		y := p.yOf(th.NoisyThreshold)
		l.Line(viz.Point{X: p.x0, Y: y}, viz.Point{X: right, Y: y}, viz.Style{Stroke: viz.Purple, Width: 3})
		l.Text(viz.Point{X: right + 6, Y: y + 14}, format.Sprintf("Δ̂ = %.3g", th.NoisyThreshold), 12, viz.Purple, viz.Left)
		if th.Noise != 0 {
			l.Arrow(viz.Point{X: p.x0 + 8, Y: p.yOf(s.threshold)}, viz.Point{X: p.x0 + 8, Y: y}, viz.Style{Stroke: viz.Purple, Width: 2})
		}
	}
	for _, c := range v.compares {
		x := p.slotX(c.T)
		from, to := viz.Point{X: x, Y: p.yOf(c.Query)}, viz.Point{X: x, Y: p.yOf(c.NoisyQuery)}
		if c.Noise != 0 {
			l.Arrow(from, to, viz.Style{Stroke: viz.Orange, Width: 2})
		}
		l.Circle(to, 6, viz.Style{Fill: viz.Orange, Stroke: viz.Ink, Width: 1}, 0)
		mark, col := "⊤", viz.Green
		if !c.Pass {
			mark, col = "⊥", viz.Vermillion
		}
		l.Text(viz.Point{X: x, Y: p.y0 + 8}, mark, 18, col, viz.Centre)
	}
	if v.current > 0 {
		x := p.slotX(v.current)
		l.Rect(viz.Point{X: x - p.slotW()/2 + 2, Y: p.y0}, viz.Point{X: x + p.slotW()/2 - 2, Y: p.y0 + p.h},
			viz.Style{Stroke: viz.Yellow, Width: 2, Alpha: 0.9}, 0)
	}
}

// drawHalting compares the exact halting-time law with simulated
// frequencies, in the column x0…x0+w from y (its title) down to bottom.
func (s *AboveThreshold) drawHalting(l *viz.List, x0, w, y, bottom float64) {
	title := "when does it halt? exact probability (outline)"
	if s.sim != nil {
		title += format.Sprintf(" vs %d simulated runs (filled)", simRuns)
	} else {
		title += " — press “simulate” to compare with runs"
	}
	y += l.Text(viz.Point{X: x0, Y: y}, title, 12, viz.Ink, viz.Left) + 8
	p := plotArea{x0: x0, y0: y, w: w, h: math.Max(bottom-y-24, 30), slots: len(s.queries) + 1}
	// Scale to the tallest bar so small probabilities stay readable.
	p.lo, p.hi = 0, 0.05
	for k, pr := range s.exact {
		p.hi = math.Max(p.hi, pr)
		if s.sim != nil {
			p.hi = math.Max(p.hi, float64(s.sim[k])/simRuns)
		}
	}
	p.hi *= 1.2
	l.Line(viz.Point{X: p.x0, Y: p.y0 + p.h}, viz.Point{X: p.x0 + p.w, Y: p.y0 + p.h}, viz.Style{Stroke: viz.Muted, Width: 1})
	bw := math.Min(p.slotW()*0.6, 40)
	// A slot too narrow for "⊥@8" names the row once, at the axis.
	short := 1.4*viz.TextWidth("all ⊤", 10) > p.slotW()
	if short {
		l.Text(viz.Point{X: p.x0 - 6, Y: p.y0 + p.h + 12}, "⊥ at", 10, viz.Ink, viz.Right)
	}
	for k, pr := range s.exact {
		x := p.slotX(k + 1)
		if s.sim != nil {
			f := float64(s.sim[k]) / simRuns
			l.Rect(viz.Point{X: x - bw/2, Y: p.yOf(0)}, viz.Point{X: x + bw/2, Y: p.yOf(f)}, viz.Style{Fill: viz.Sky}, 0)
		}
		l.Rect(viz.Point{X: x - bw/2, Y: p.yOf(0)}, viz.Point{X: x + bw/2, Y: p.yOf(pr)}, viz.Style{Stroke: viz.Ink, Width: 1.5}, 0)
		label := format.Sprintf("⊥@%d", k+1)
		switch {
		case short && k == len(s.queries):
			label = "none"
		case short:
			label = format.Sprint(k + 1)
		case k == len(s.queries):
			label = "all ⊤"
		}
		l.Text(viz.Point{X: x, Y: p.y0 + p.h + 12}, label, 10, viz.Ink, viz.Centre)
		l.Text(viz.Point{X: x, Y: p.yOf(pr) - 8}, format.Sprintf("%.2f", pr), 10, viz.Muted, viz.Centre)
	}
}

// Pointer drags query bars; the noise stays fixed while the value moves.
func (s *AboveThreshold) Pointer(ev viz.Event) bool {
	switch ev.Kind {
	case viz.PointerDown:
		if s.last == nil {
			return false
		}
		id := s.last.Hit(viz.Point{X: ev.X, Y: ev.Y}, 6)
		if id >= 1 && id <= len(s.queries) {
			s.drag = id
			s.grab = s.queries[id-1] - s.plot.valueAt(ev.Y)
			return true
		}
	case viz.PointerMove:
		if s.drag == 0 {
			return false
		}
		q := math.Round((s.plot.valueAt(ev.Y)+s.grab)*100) / 100
		q = math.Max(math.Min(q, 1e6), -1e6)
		if q == s.queries[s.drag-1] {
			return false
		}
		s.queries[s.drag-1] = q
		return s.rerun() == nil
	case viz.PointerUp:
		return letGo(&s.drag)
	}
	return false
}
