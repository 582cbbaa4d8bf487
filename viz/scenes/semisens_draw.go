package scenes

import (
	"math"
	"strconv"

	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/trace"
	"github.com/uldplab/uldp/viz"
)

// Draw shows four panels: the shown examples' beliefs, the current query's
// tests, the potential Ψ (or the updates) across the queries, and the
// privacy ledger. Side by side on a wide figure, stacked on a narrow one,
// where the captions that do not fit are left out.
func (s *SemiSens) Draw(w, h float64) *viz.List {
	l := &s.list
	l.Reset(w, h)
	v := &s.view
	switch {
	case v.err != nil:
		drawFailure(l, w, 40, "cannot run: "+v.err.Error())
		return l
	case v.st == nil:
		msg := "training through PVMW…"
		if s.bg.busy() && !s.pending {
			msg = format.Sprintf("%s… %.0f%%", s.bg.next.stage, 100*s.bg.fraction())
		}
		l.Text(viz.Point{X: w / 2, Y: h / 2}, msg, 14, viz.Muted, viz.Centre)
		return l
	}
	var beliefs, tests, psi, ledger box
	if w >= 760 {
		cw, rh := (w-30)/2, (h-30)/2
		beliefs, tests = box{10, 10, cw, rh}, box{20 + cw, 10, cw, rh}
		psi, ledger = box{10, 20 + rh, cw, rh}, box{20 + cw, 20 + rh, cw, rh}
	} else {
		u := (h - 40) / 100
		beliefs = box{10, 6, w - 20, 34 * u}
		tests = box{10, beliefs.y + beliefs.h + 10, w - 20, 26 * u}
		psi = box{10, tests.y + tests.h + 10, w - 20, 20 * u}
		ledger = box{10, psi.y + psi.h + 10, w - 20, 20 * u}
	}
	q, t := s.at()
	s.drawBeliefs(l, beliefs, q)
	s.drawTests(l, tests, q, t)
	s.drawPsi(l, psi, t)
	s.drawLedger(l, ledger, q)
	return l
}

// write puts a block of text with its top at y, within b's width, and
// returns the y under it.
func write(l *viz.List, b box, y float64, text string, size float64, c viz.Colour) float64 {
	return y + l.TextIn(viz.Point{X: b.x, Y: y + 0.625*size}, b.w, text, size, c, viz.Left)
}

// fits reports whether text written at y stays inside b.
func (b box) fits(l *viz.List, y float64, text string, size float64) bool {
	return y+l.TextHeight(viz.Point{X: b.x, Y: y}, b.w, text, size, viz.Left) <= b.y+b.h
}

// drawBeliefs is the heatmap of the shown examples' beliefs after the
// updates so far; revealed, each row's true value is outlined, and a click
// on a cell gives that example that value (a neighbouring dataset).
func (s *SemiSens) drawBeliefs(l *viz.List, b box, q *semiQuery) {
	v := &s.view
	k := v.cfg.k
	u := 0
	if q != nil {
		u = q.before + len(q.updates)
		if q.failed {
			u = q.before // the failed query's updates were never answered from
		}
	}
	snap := v.snaps[min(u, len(v.snaps)-1)]
	y := write(l, b, b.y, format.Sprintf("beliefs pᵢ(y) after %s (uniform: light; 4/k and more: full)", trace.Count(u, "update")), 12, viz.Ink)
	foot := "built from public data and released values only"
	if v.cfg.reveal {
		foot = "outlined: the true value (instructor's view); click a cell to give that example that value"
	}
	footH := l.TextHeight(viz.Point{X: b.x, Y: 0}, b.w, foot, 11, viz.Left)
	if b.y+b.h-y < 120 {
		footH = 0 // no room: the help goes
	}
	top := y + 16
	avail := b.y + b.h - footH - 4 - top
	rows := min(len(v.rows), int(avail/8))
	if rows < 1 {
		return
	}
	ch := math.Min(20, avail/float64(rows))
	labels := ch >= 11
	left := b.x
	if labels {
		left += 26
	}
	cw := math.Min(40, (b.x+b.w-left)/float64(k))
	step := int(math.Ceil(11 / cw)) // column labels 11 px apart at least
	for c := 0; c < k; c += step {
		l.Text(viz.Point{X: left + (float64(c)+0.5)*cw, Y: top - 8}, strconv.Itoa(c+1), 10, viz.Muted, viz.Centre)
	}
	for r, i := range v.rows[:rows] {
		ry := top + float64(r)*ch
		if labels {
			l.Text(viz.Point{X: left - 6, Y: ry + ch/2}, strconv.Itoa(i+1), 10, viz.Muted, viz.Right)
		}
		for c := range k {
			p := snap[r*k+c]
			a := viz.Point{X: left + float64(c)*cw, Y: ry}
			z := viz.Point{X: a.X + cw - 1, Y: ry + ch - 1}
			// Uniform beliefs (1/k) are a light quarter tone; four times as likely is full.
			l.Rect(a, z, viz.Style{Fill: viz.Blue, Alpha: math.Max(0.04, math.Min(1, p*float64(k)/4))}, semiCell(r, c, k))
			if v.cfg.reveal && v.truth[i] == c {
				l.Rect(a, z, viz.Style{Stroke: viz.Vermillion, Width: 2}, 0)
			}
		}
	}
	if footH > 0 {
		write(l, b, top+float64(rows)*ch+4, foot, 11, viz.Muted)
	}
}

// semiCell is the hit id of row r's cell y.
func semiCell(r, y, k int) int { return 1 + r*k + y }

// drawTests is the current query's tests on a number line: the noisy
// error E + ν against the noisy threshold τ + χ, and (revealed) E itself.
func (s *SemiSens) drawTests(l *viz.List, b box, q *semiQuery, t int) {
	v := &s.view
	if q == nil {
		write(l, b, b.y, "each query's private test: press step ▶ (→) to ask the first", 12, viz.Ink)
		return
	}
	y := write(l, b, b.y, format.Sprintf("query %d: an update fires when E + ν ≥ τ + χ", t), 12, viz.Ink)
	lo, hi := 0.0, v.cfg.tau*2
	for _, ts := range q.tests {
		hi = math.Max(hi, math.Max(ts.Error+ts.Nu, ts.Tau+ts.Chi)*1.15)
		lo = math.Min(lo, math.Min(ts.Error+ts.Nu, ts.Tau+ts.Chi)*1.15)
		if v.cfg.reveal {
			hi = math.Max(hi, ts.Error*1.15)
		}
	}
	x0, x1 := b.x+12, b.x+b.w-12
	at := func(x float64) float64 { return x0 + (x1-x0)*(x-lo)/(hi-lo) }
	var notes []string
	for _, u := range q.updates {
		notes = append(notes, format.Sprintf("update: ‖z‖ = %.3g, ι = E + ξ = %.3g, %d scores cut at ±c", u.NoiseZ, u.Iota, u.Clipped))
	}
	if q.failed {
		notes = append(notes, "no paid update left: FAIL — PVMW answers nothing more")
	}
	top := y + 22
	rowH := math.Min(34, (b.y+b.h-top-14*float64(len(notes)))/float64(len(q.tests)))
	rowH = math.Max(rowH, 18)
	tx := at(v.cfg.tau)
	l.Text(viz.Point{X: tx, Y: top - 10}, "τ", 11, viz.Purple, viz.Centre)
	l.Line(viz.Point{X: tx, Y: top - 2}, viz.Point{X: tx, Y: top + rowH*float64(len(q.tests))}, viz.Style{Stroke: viz.Purple, Width: 1.5, Dashed: true})
	for j, ts := range q.tests {
		ry := top + float64(j)*rowH + rowH/2
		l.Line(viz.Point{X: x0, Y: ry}, viz.Point{X: x1, Y: ry}, viz.Style{Stroke: viz.Grid, Width: 1})
		th := at(ts.Tau + ts.Chi)
		l.Line(viz.Point{X: th, Y: ry - 7}, viz.Point{X: th, Y: ry + 7}, viz.Style{Stroke: viz.Purple, Width: 3})
		c := viz.Green
		if ts.Top {
			c = viz.Orange
		}
		l.Circle(viz.Point{X: at(ts.Error + ts.Nu), Y: ry}, 5, viz.Style{Fill: c, Stroke: viz.Ink, Width: 1}, 0)
		if v.cfg.reveal {
			l.Circle(viz.Point{X: at(ts.Error), Y: ry}, 4, viz.Style{Stroke: viz.Ink, Width: 1.5}, 0)
		}
	}
	y = top + rowH*float64(len(q.tests)) + 4
	legend := "dot: E + ν, orange ⊤ (update), green ⊥ (answer); bar: τ + χ"
	if v.cfg.reveal {
		legend += "; ring: the true error E (instructor)"
	}
	for _, text := range append(notes, legend) {
		c := viz.Ink
		if q.failed && text == notes[len(notes)-1] {
			c = viz.Vermillion
		}
		if !b.fits(l, y, text, 11) {
			break
		}
		y = write(l, b, y, text, 11, c)
	}
}

// drawPsi plots Ψ across the queries (revealed), else the updates spent:
// either way the updates are marked, and the current query.
func (s *SemiSens) drawPsi(l *viz.List, b box, t int) {
	v := &s.view
	nq := len(v.queries)
	var lo, hi float64
	var ys []float64
	title := format.Sprintf("updates spent, of L_max = %d, per query", v.cfg.lmax)
	if v.cfg.reveal {
		title = "Ψ, the beliefs' cross-entropy with the truth, per query (instructor)"
		lo, hi = math.Inf(1), math.Log(float64(v.cfg.k))
		for _, p := range v.res.Psi {
			lo, hi = math.Min(lo, p), math.Max(hi, p)
			ys = append(ys, p)
		}
		lo = math.Max(0, lo-0.1*(hi-lo)-1e-3)
	} else {
		hi = float64(v.cfg.lmax)
		ys = append(ys, 0)
		for _, q := range v.queries {
			ys = append(ys, float64(q.before+len(q.updates)))
		}
	}
	y0 := write(l, b, b.y, title, 12, viz.Ink) + 8
	x0, x1, y1 := b.x+34, b.x+b.w-6, b.y+b.h-18
	if y1-y0 < 20 {
		return
	}
	at := func(i, y float64) viz.Point {
		return viz.Point{X: x0 + (x1-x0)*i/math.Max(1, float64(nq)), Y: y1 - (y1-y0)*(y-lo)/(hi-lo)}
	}
	l.Text(viz.Point{X: x0 - 4, Y: y0}, viz.FormatNumber(math.Round(hi*100)/100), 10, viz.Muted, viz.Right)
	l.Text(viz.Point{X: x0 - 4, Y: y1}, viz.FormatNumber(math.Round(lo*100)/100), 10, viz.Muted, viz.Right)
	l.Line(viz.Point{X: x0, Y: y1}, viz.Point{X: x1, Y: y1}, viz.Style{Stroke: viz.Muted, Width: 1})
	l.Line(viz.Point{X: x0, Y: y0}, viz.Point{X: x0, Y: y1}, viz.Style{Stroke: viz.Muted, Width: 1})
	for i, q := range v.queries {
		if len(q.updates) > 0 {
			x := at(float64(i+1), lo).X
			l.Line(viz.Point{X: x, Y: y1}, viz.Point{X: x, Y: y1 - 8}, viz.Style{Stroke: viz.Orange, Width: 2})
		}
	}
	pts := make([]viz.Point, len(ys))
	for i, y := range ys {
		pts[i] = at(float64(i), y)
	}
	l.Polyline(pts, viz.Style{Stroke: viz.Blue, Width: 2})
	if t > 0 && t < len(pts) {
		l.Circle(pts[t], 4, viz.Style{Fill: viz.Blue, Stroke: viz.Ink, Width: 1}, 0)
	}
	l.Text(viz.Point{X: (x0 + x1) / 2, Y: y1 + 10}, format.Sprintf("queries 0–%d; orange ticks: updates", nq), 10, viz.Muted, viz.Centre)
}

// drawLedger splits ρ into the L_max instances, each into the test's and
// the norm's ε′²/2 and the Gaussian's ρ_G, and fills those used so far.
func (s *SemiSens) drawLedger(l *viz.List, b box, q *semiQuery) {
	v := &s.view
	c := v.res.Calibration
	used := 0
	if q != nil {
		used = q.before + len(q.updates)
	}
	g := s.Guarantee()
	y := write(l, b, b.y, format.Sprintf("ledger: ρ = %.3g in %d instances, %d used; the claim pays for all %d: ε = %.3g", c.Rho, c.LMax, used, c.LMax, g.Eps), 12, viz.Ink) + 4
	per := math.Max(1, math.Floor((b.w+4)/30))
	sw := math.Min(40, (b.w+4)/per-4)
	rows := math.Ceil(float64(c.LMax) / per)
	sh := math.Max(6, math.Min(16, (b.y+b.h-y)/rows-4))
	shares := []struct {
		f float64
		c viz.Colour
	}{{c.EpsPrime * c.EpsPrime / 2, viz.Orange}, {c.EpsPrime * c.EpsPrime / 2, viz.Sky}, {c.RhoG, viz.Blue}}
	for i := range c.LMax {
		bx := b.x + float64(i%int(per))*(sw+4)
		by := y + float64(i/int(per))*(sh+4)
		alpha := 0.15
		switch {
		case i < used:
			alpha = 1
		case i == used && !v.res.Failed:
			alpha = 0.45 // the open instance: its test runs, nothing spent yet
		}
		x := bx
		for _, part := range shares {
			wd := sw * part.f / c.RhoInst
			l.Rect(viz.Point{X: x, Y: by}, viz.Point{X: x + wd, Y: by + sh}, viz.Style{Fill: part.c, Alpha: alpha}, 0)
			x += wd
		}
		l.Rect(viz.Point{X: bx, Y: by}, viz.Point{X: bx + sw, Y: by + sh}, viz.Style{Stroke: viz.Muted, Width: 1}, 0)
	}
	y += rows*(sh+4) + 2
	note := format.Sprintf("each: the test (orange, ε′²/2 = %.3g), the norm's release (sky, ε′²/2), the Gaussian (blue, ρ_G = %.3g); a ⊥ answer spends nothing", c.EpsPrime*c.EpsPrime/2, c.RhoG)
	if b.fits(l, y, note, 11) {
		write(l, b, y, note, 11, viz.Muted)
	}
}

// Pointer: with the values revealed, a click on a belief cell gives that
// example that sensitive value and reruns with the same seed — the
// neighbouring dataset of semi-sensitive DP.
func (s *SemiSens) Pointer(ev viz.Event) bool {
	v := &s.view
	if ev.Kind != viz.PointerDown || !v.cfg.reveal || v.st == nil {
		return false
	}
	id := s.list.Hit(viz.Point{X: ev.X, Y: ev.Y}, 0)
	k := v.cfg.k
	if id < 1 || id > len(v.rows)*k {
		return false
	}
	r, y := (id-1)/k, (id-1)%k
	i := v.rows[r]
	if v.truth[i] == y {
		return false
	}
	next := s.cfg
	next.moved = map[int]int{}
	for j, val := range s.cfg.moved {
		next.moved[j] = val
	}
	next.moved[i] = y
	return s.start(next) == nil
}
