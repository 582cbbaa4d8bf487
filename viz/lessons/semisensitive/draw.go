package semisensitive

import (
	"math"
	"slices"
	"strconv"

	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/semisens"
	"github.com/uldplab/uldp/core/trace"
	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/figure"
)

// Draw shows four panels: the shown examples' beliefs, the current query's
// tests (or, as chosen, the update's scores, Condition 14 or the
// lower-bound game), the potential Ψ (or the updates) across the queries,
// and the privacy ledger. Side by side on a wide figure, stacked on a narrow one,
// where the captions that do not fit are left out.
func (s *Scene) Draw(w, h float64) *viz.List {
	l := &s.list
	l.Reset(w, h)
	v := &s.view
	switch {
	case v.err != nil:
		figure.DrawFailure(l, w, 40, "cannot run: "+v.err.Error())
		return l
	case v.st == nil:
		// Nothing to show yet: the banner over the figure says what is
		// being computed (viz.App), and here, what will appear.
		l.Text(viz.Point{X: w / 2, Y: h / 2}, "PVMW's run appears here when it is done", 14, viz.Muted, viz.Centre)
		return l
	}
	var beliefs, tests, psi, ledger figure.Box
	if w >= 760 {
		cw, rh := (w-30)/2, (h-30)/2
		beliefs, tests = figure.Box{X: 10, Y: 10, W: cw, H: rh}, figure.Box{X: 20 + cw, Y: 10, W: cw, H: rh}
		psi, ledger = figure.Box{X: 10, Y: 20 + rh, W: cw, H: rh}, figure.Box{X: 20 + cw, Y: 20 + rh, W: cw, H: rh}
	} else {
		u := (h - 40) / 100
		beliefs = figure.Box{X: 10, Y: 6, W: w - 20, H: 34 * u}
		tests = figure.Box{X: 10, Y: beliefs.Y + beliefs.H + 10, W: w - 20, H: 26 * u}
		psi = figure.Box{X: 10, Y: tests.Y + tests.H + 10, W: w - 20, H: 20 * u}
		ledger = figure.Box{X: 10, Y: psi.Y + psi.H + 10, W: w - 20, H: 20 * u}
	}
	q, t := s.at()
	s.drawBeliefs(l, beliefs, q)
	switch v.cfg.panel {
	case panelScores:
		s.drawScores(l, tests, q)
	case panelCondition:
		s.drawCondition(l, tests, q)
	case panelNoise:
		s.drawNoise(l, tests, q)
	case panelGame:
		s.drawGame(l, tests)
	default:
		s.drawTests(l, tests, q, t)
	}
	if v.cfg.lower == lowerTraining {
		s.drawTraining(l, psi, t)
	} else {
		s.drawPsi(l, psi, t)
	}
	s.drawLedger(l, ledger, q)
	return l
}

// write puts a block of text with its top at y, within b's width, and
// returns the y under it.
func write(l *viz.List, b figure.Box, y float64, text string, size float64, c viz.Colour) float64 {
	return y + l.TextIn(viz.Point{X: b.X, Y: y + 0.625*size}, b.W, text, size, c, viz.Left)
}

// drawBeliefs is the heatmap of the shown examples' beliefs after the
// updates so far; revealed, each row's true value is outlined, and a click
// on a cell gives that example that value (a neighbouring dataset).
func (s *Scene) drawBeliefs(l *viz.List, b figure.Box, q *semiQuery) {
	v := &s.view
	k := v.cfg.k
	// Every update paid for, as the ledger counts them: the failed query's
	// too, though no answer comes from them.
	u := min(q.spent(), len(v.snaps)-1)
	snap := v.snaps[u]
	head := format.Sprintf("beliefs pᵢ(y) after %s (uniform: light; 4/k and more: full)", trace.Count(u, "update"))
	if q != nil && q.failed {
		head = format.Sprintf("beliefs pᵢ(y) after all %s paid for; FAIL: no query is answered from them (uniform: light; 4/k and more: full)", trace.Count(u, "update"))
	}
	y := write(l, b, b.Y, head, 12, viz.Ink)
	foot := "built from public data and released values only"
	if v.cfg.reveal {
		foot = "outlined: the true value (instructor's view); click a cell to give that example that value"
	}
	footH := l.TextHeight(viz.Point{X: b.X, Y: 0}, b.W, foot, 11, viz.Left)
	if b.Y+b.H-y < 120 {
		footH = 0 // no room: the help goes
	}
	top := y + 16
	avail := b.Y + b.H - footH - 4 - top
	rows := min(len(v.rows), int(avail/8))
	if rows < 1 {
		return
	}
	ch := math.Min(20, avail/float64(rows))
	labels := ch >= 11
	left := b.X
	if labels {
		left += 26
	}
	cw := math.Min(40, (b.X+b.W-left)/float64(k))
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
func (s *Scene) drawTests(l *viz.List, b figure.Box, q *semiQuery, t int) {
	v := &s.view
	if q == nil {
		write(l, b, b.Y, "each query's private test: press step ▶ (→) to ask the first", 12, viz.Ink)
		return
	}
	y := write(l, b, b.Y, format.Sprintf("query %d: an update fires when E + ν ≥ τ + χ", t), 12, viz.Ink)
	lo, hi := 0.0, v.cfg.tau*2
	for _, ts := range q.tests {
		hi = math.Max(hi, math.Max(ts.Error+ts.Nu, ts.Tau+ts.Chi)*1.15)
		lo = math.Min(lo, math.Min(ts.Error+ts.Nu, ts.Tau+ts.Chi)*1.15)
		if v.cfg.reveal {
			hi = math.Max(hi, ts.Error*1.15)
		}
	}
	x0, x1 := b.X+12, b.X+b.W-12
	at := func(x float64) float64 { return x0 + (x1-x0)*(x-lo)/(hi-lo) }
	var notes []string
	for _, u := range q.updates {
		notes = append(notes, format.Sprintf("update: ‖z‖ = %.3g, ι = E + ξ = %.3g, %d scores cut at ±c", u.NoiseZ, u.Iota, u.Clipped))
	}
	if q.failed {
		notes = append(notes, "no paid update left: FAIL — PVMW answers nothing more")
	}
	top := y + 22
	const scaleH = 20 // the scale under the rows
	rowH := math.Min(34, (b.Y+b.H-top-scaleH-14*float64(len(notes)))/float64(len(q.tests)))
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
	// The scale, in the query's own units (an answer's error), so τ and
	// the noise have sizes and not only an order.
	sy := top + rowH*float64(len(q.tests))
	l.Line(viz.Point{X: x0, Y: sy}, viz.Point{X: x1, Y: sy}, viz.Style{Stroke: viz.Muted, Width: 1})
	for _, v := range viz.NiceTicks(lo, hi, max(2, int((x1-x0)/70))) {
		l.Line(viz.Point{X: at(v), Y: sy}, viz.Point{X: at(v), Y: sy + 4}, viz.Style{Stroke: viz.Muted, Width: 1})
		l.Text(viz.Point{X: at(v), Y: sy + 11}, viz.TickLabel(v), 10, viz.Muted, viz.Centre)
	}
	y = sy + scaleH
	legend := "dot: E + ν, orange ⊤ (update), green ⊥ (answer); bar: τ + χ"
	if v.cfg.reveal {
		legend += "; ring: the true error E (instructor)"
	}
	for _, text := range append(notes, legend) {
		c := viz.Ink
		if q.failed && text == notes[len(notes)-1] {
			c = viz.Vermillion
		}
		if !b.Fits(l, y, text, 11) {
			break
		}
		y = write(l, b, y, text, 11, c)
	}
}

// drawPsi plots Ψ (revealed), else the updates spent, over the queries
// asked so far: like the ledger, the line grows as the run is stepped
// through, and the updates are marked. The axis is fixed for the whole run
// and starts at 0, so a fall looks as large as it is: Ψ runs from ln k,
// while the beliefs are uniform, to 0, when they are sure of every true
// value, and a run that learns a little moves it a little.
func (s *Scene) drawPsi(l *viz.List, b figure.Box, t int) {
	v := &s.view
	nq := len(v.queries)
	t = min(t, nq)
	var hi float64
	var ys []float64
	var title, now string
	if v.cfg.reveal {
		lnk := math.Log(float64(v.cfg.k))
		hi = lnk
		for _, p := range v.res.Psi {
			hi = math.Max(hi, p)
		}
		ys = v.res.Psi[:min(t+1, len(v.res.Psi))]
		title = format.Sprintf("Ψ, the beliefs' cross-entropy with the truth (instructor): ln k = %.3g while they are uniform, 0 when sure of every true value", lnk)
		now = format.Sprintf("Ψ = %.4g", ys[len(ys)-1])
	} else {
		hi = float64(v.cfg.lmax)
		ys = append(ys, 0)
		for _, q := range v.queries[:t] {
			ys = append(ys, float64(q.spent()))
		}
		title = format.Sprintf("updates spent, of L_max = %d, over the queries so far", v.cfg.lmax)
		now = format.Sprintf("%d spent", int(ys[len(ys)-1]))
	}
	y0 := write(l, b, b.Y, title, 12, viz.Ink) + 8
	x0, x1, y1 := b.X+34, b.X+b.W-6, b.Y+b.H-18
	if y1-y0 < 20 {
		return
	}
	at := func(i, y float64) viz.Point {
		return viz.Point{X: x0 + (x1-x0)*i/math.Max(1, float64(nq)), Y: y1 - (y1-y0)*y/hi}
	}
	for _, y := range viz.NiceTicks(0, hi, max(2, int((y1-y0)/28))) {
		p := at(0, y)
		l.Line(viz.Point{X: x0 - 3, Y: p.Y}, p, viz.Style{Stroke: viz.Muted, Width: 1})
		l.Text(viz.Point{X: x0 - 5, Y: p.Y}, viz.TickLabel(y), 10, viz.Muted, viz.Right)
	}
	l.Line(viz.Point{X: x0, Y: y1}, viz.Point{X: x1, Y: y1}, viz.Style{Stroke: viz.Muted, Width: 1})
	l.Line(viz.Point{X: x0, Y: y0}, viz.Point{X: x0, Y: y1}, viz.Style{Stroke: viz.Muted, Width: 1})
	for i, q := range v.queries[:t] {
		if len(q.updates) > 0 {
			x := at(float64(i+1), 0).X
			l.Line(viz.Point{X: x, Y: y1}, viz.Point{X: x, Y: y1 - 8}, viz.Style{Stroke: viz.Orange, Width: 2})
		}
	}
	pts := make([]viz.Point, len(ys))
	for i, y := range ys {
		pts[i] = at(float64(i), y)
	}
	if len(pts) > 1 {
		l.Polyline(pts, viz.Style{Stroke: viz.Blue, Width: 2})
	}
	p := pts[len(pts)-1]
	l.Circle(p, 4, viz.Style{Fill: viz.Blue, Stroke: viz.Ink, Width: 1}, 0)
	// The value beside the marker, on whichever side has room, above the
	// line (a fall goes down and right) unless that is the title's place.
	ly := p.Y - 10
	if ly < y0+6 {
		ly = p.Y + 12
	}
	if p.X+8+viz.TextWidth(now, 10) <= x1 {
		l.Text(viz.Point{X: p.X + 8, Y: ly}, now, 10, viz.Ink, viz.Left)
	} else {
		l.Text(viz.Point{X: p.X - 8, Y: ly}, now, 10, viz.Ink, viz.Right)
	}
	l.Text(viz.Point{X: (x0 + x1) / 2, Y: y1 + 10}, format.Sprintf("queries 0–%d, %d asked; orange ticks: updates", nq, t), 10, viz.Muted, viz.Centre)
}

// drawLedger splits ρ into the L_max instances, each into the test's and
// the norm's ε′²/2 and the Gaussian's ρ_G, and fills those used so far.
func (s *Scene) drawLedger(l *viz.List, b figure.Box, q *semiQuery) {
	v := &s.view
	c := v.res.Calibration
	used := q.spent()
	g := s.Guarantee()
	y := write(l, b, b.Y, format.Sprintf("ledger: ρ = %.3g in %d instances, %d used; the claim pays for all %d: ε = %.3g", c.Rho, c.LMax, used, c.LMax, g.Eps), 12, viz.Ink) + 4
	per := math.Max(1, math.Floor((b.W+4)/30))
	sw := math.Min(40, (b.W+4)/per-4)
	rows := math.Ceil(float64(c.LMax) / per)
	sh := math.Max(6, math.Min(16, (b.Y+b.H-y)/rows-4))
	shares := []struct {
		f float64
		c viz.Colour
	}{{c.EpsPrime * c.EpsPrime / 2, viz.Orange}, {c.EpsPrime * c.EpsPrime / 2, viz.Sky}, {c.RhoG, viz.Blue}}
	for i := range c.LMax {
		bx := b.X + float64(i%int(per))*(sw+4)
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
	if b.Fits(l, y, note, 11) {
		write(l, b, y, note, 11, viz.Muted)
	}
}

// Pointer: with the values revealed, a click on a belief cell gives that
// example that sensitive value and reruns with the same seed — the
// neighbouring dataset of semi-sensitive DP.
func (s *Scene) Pointer(ev viz.Event) bool {
	v := &s.view
	if ev.Kind != viz.PointerDown || !v.cfg.reveal || v.st == nil {
		return false
	}
	id := s.list.HitEvent(ev, 0)
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

// shownUpdate is the update the scores and Condition 14 panels show at
// query q, numbered from 1: its last, else the latest before it; 0 before
// any. at is the query it served.
func (s *Scene) shownUpdate(q *semiQuery) (u, at int) {
	u = q.spent()
	for t, qq := range s.view.queries {
		if u > qq.before && u <= qq.spent() {
			return u, t + 1
		}
	}
	return 0, 0
}

// updateFor is the update the scores, noise and Condition 14 panels show
// at query q. When there is none yet, or the panel is the instructor's
// (needs says what it needs the true values for) and they are hidden, it
// says so in b and returns nil.
func (s *Scene) updateFor(l *viz.List, b figure.Box, q *semiQuery, what, needs string) (seen *semiSeen, u, at int) {
	if needs != "" && !s.view.cfg.reveal {
		write(l, b, b.Y, needs+": turn on “reveal sensitive values” (instructor's view)", 12, viz.Ink)
		return nil, 0, 0
	}
	if u, at = s.shownUpdate(q); u == 0 || u > len(s.view.seen) {
		s.noUpdateYet(l, b, what)
		return nil, 0, 0
	}
	return &s.view.seen[u-1], u, at
}

// noUpdateYet says where the first update is, for the panels that show
// one.
func (s *Scene) noUpdateYet(l *viz.List, b figure.Box, what string) {
	first := "none in this run"
	for t, q := range s.view.queries {
		if len(q.updates) > 0 {
			first = format.Sprintf("the first fires at query %d", t+1)
			break
		}
	}
	write(l, b, b.Y, format.Sprintf("%s: no update yet (%s); step ▶ (→) to it", what, first), 12, viz.Ink)
}

// drawScores is the histogram of the update's raw scores ⟨φ, f(xᵢ, y)⟩
// over all n·k candidates, with the truncation at ±c: the scores beyond
// are cut, so no candidate's weight moves by more than e^{ηc}.
func (s *Scene) drawScores(l *viz.List, b figure.Box, q *semiQuery) {
	v := &s.view
	seen, u, at := s.updateFor(l, b, q, "the update's scores", "")
	if seen == nil {
		return
	}
	y := write(l, b, b.Y, format.Sprintf("update %d (query %d): the scores ⟨φ, f(xᵢ, y)⟩ of all %d candidates", u, at, v.cfg.n*v.cfg.k), 12, viz.Ink)
	c := v.cfg.c
	foot := format.Sprintf("%.1f%% cut at ±c = ±%g (orange): a candidate's weight moves by a factor of at most exp(±ηc) = exp(±%.3g), however wild the noisy direction φ = (v − f(p))/ι", 100*seen.cond.Clipped, c, v.cfg.eta*c)
	if seen.cond.Clipped == 0 {
		foot = format.Sprintf("no score reaches ±c = ±%g: the truncation cuts nothing here. It caps a wild noisy direction φ = (v − f(p))/ι, so that no weight moves by more than a factor of exp(±ηc)", c)
	}
	if seen.lim >= 4*c {
		foot += format.Sprintf("; the outer bars hold everything beyond ±%g", seen.lim)
	}
	footH := l.TextHeight(viz.Point{X: b.X, Y: 0}, b.W, foot, 11, viz.Left)
	x0, x1 := b.X+30, b.X+b.W-8
	y0, y1 := y+8, b.Y+b.H-footH-22
	if y1-y0 < 30 {
		y1, footH = b.Y+b.H-20, 0
	}
	top := 1
	for _, n := range seen.hist {
		top = max(top, n)
	}
	bw := (x1 - x0) / semiBins
	for j, n := range seen.hist {
		mid := -seen.lim + (float64(j)+0.5)*2*seen.lim/semiBins
		col := viz.Blue
		if math.Abs(mid) > c {
			col = viz.Orange
		}
		h := (y1 - y0) * float64(n) / float64(top)
		l.Rect(viz.Point{X: x0 + float64(j)*bw, Y: y1 - h}, viz.Point{X: x0 + float64(j+1)*bw - 1, Y: y1}, viz.Style{Fill: col}, 0)
	}
	at2 := func(x float64) float64 { return x0 + (x1-x0)*(x+seen.lim)/(2*seen.lim) }
	for _, e := range []float64{-c, c} {
		l.Line(viz.Point{X: at2(e), Y: y0}, viz.Point{X: at2(e), Y: y1}, viz.Style{Stroke: viz.Purple, Width: 1.5, Dashed: true})
	}
	l.Text(viz.Point{X: at2(-c), Y: y0 - 2}, "−c", 10, viz.Purple, viz.Centre)
	l.Text(viz.Point{X: at2(c), Y: y0 - 2}, "+c", 10, viz.Purple, viz.Centre)
	l.Line(viz.Point{X: x0, Y: y1}, viz.Point{X: x1, Y: y1}, viz.Style{Stroke: viz.Muted, Width: 1})
	for _, x := range []float64{-seen.lim, 0, seen.lim} {
		l.Text(viz.Point{X: at2(x), Y: y1 + 9}, viz.FormatNumber(math.Round(x*100)/100), 10, viz.Muted, viz.Centre)
	}
	l.Text(viz.Point{X: x0 - 4, Y: y0 + 4}, strconv.Itoa(top), 10, viz.Muted, viz.Right)
	if footH > 0 {
		write(l, b, y1+16, foot, 11, viz.Muted)
	}
}

// drawCondition lists Condition 14's parts on the update, each measured
// against its bound, and how far Ψ fell against what the analysis
// promises: η² when every part holds, the exact (D1) bound always.
func (s *Scene) drawCondition(l *viz.List, b figure.Box, q *semiQuery) {
	seen, u, at := s.updateFor(l, b, q, "Condition 14", "Condition 14 needs the true values")
	if seen == nil {
		return
	}
	cond := seen.cond
	y := write(l, b, b.Y, format.Sprintf("Condition 14 on update %d (query %d) — instructor's view, not private", u, at), 12, viz.Ink) + 4
	failed := 0
	for _, pt := range cond.Parts {
		mark, col := "✓", viz.Green
		if !pt.Holds {
			mark, col, failed = "✗", viz.Vermillion, failed+1
		}
		rel := pt.Relation()
		text := format.Sprintf("%s %s %s: %.3g %s %.3g", mark, pt.Name, pt.Text, pt.Value, rel, pt.Bound)
		if b.W < 480 {
			text = format.Sprintf("%s %s: %.3g %s %.3g", mark, pt.Name, pt.Value, rel, pt.Bound) // a phone: the relations only
		}
		if !b.Fits(l, y, text, 11) {
			break
		}
		y = write(l, b, y, text, 11, col)
	}
	verdict := format.Sprintf("every part holds, so Lemma 16 promises Ψ falls by η² = %.3g: it fell %.4g", cond.Lemma, cond.Drop)
	if !cond.Holds {
		verdict = format.Sprintf("%d of %d parts fail: Lemma 16 promises nothing here. Ψ fell %.4g; the exact bound η(A_true − A_syn) − η²Q, true for any step, says ≥ %.4g", failed, len(cond.Parts), cond.Drop, cond.Exact)
	}
	if b.Fits(l, y+4, verdict, 11) {
		write(l, b, y+4, verdict, 11, viz.Ink)
	}
}

// drawGame is the lower-bound game: one block of k coordinates per
// example, each pointed at the value k-ary randomized response reports,
// and the share pointed right against the bound no (ε, δ) algorithm beats.
func (s *Scene) drawGame(l *viz.List, b figure.Box) {
	v := &s.view
	k, n := v.cfg.k, v.cfg.n
	g := s.Guarantee()
	if !v.cfg.reveal {
		write(l, b, b.Y, "the lower-bound game is scored against the true values: turn on “reveal sensitive values” (instructor's view)", 12, viz.Ink)
		return
	}
	bound := s.guessBound()
	share := float64(v.game.hits) / float64(n)
	y := write(l, b, b.Y, format.Sprintf("the lower-bound game: each example's block of k = %d points at one value", k), 12, viz.Ink)
	lines := []string{
		"filled: where the block points; outlined: the true value",
		format.Sprintf("randomized response at ε = %.3g points %d of %d right, %.1f%%; no (ε, δ) algorithm can average more than e^ε/(e^ε + k − 1) + δ = %.1f%% (pink), guessing gets 1/k = %.1f%%",
			g.Eps, v.game.hits, n, 100*share, 100*bound, 100/float64(k)),
		"every block pointed wrong costs the model excess risk on the paper's hard instance (d = n·k): hence the lower bound √(ln k/(εn))",
	}
	// On a small figure the closing note goes first, then the grid with its
	// legend: the share and its bound stay.
	height := func(ts []string) (h float64) {
		for _, t := range ts {
			h += l.TextHeight(viz.Point{X: b.X, Y: 0}, b.W, t, 11, viz.Left)
		}
		return h
	}
	if b.Y+b.H-height(lines)-26-y < 20+8*3 {
		lines = lines[:2]
	}
	if b.Y+b.H-height(lines)-26-y < 20+8*3 {
		lines = lines[1:2]
	}
	barY := b.Y + b.H - height(lines) - 26
	avail := barY - y - 20
	if len(lines) == 1 {
		avail = 0 // no legend: no grid
		barY = y + 8
	}
	rows := min(len(v.rows), int(avail/8))
	if rows >= 1 {
		ch := math.Min(16, avail/float64(rows))
		cw := math.Min(32, (b.W-30)/float64(k))
		for r, i := range v.rows[:rows] {
			ry := y + 6 + float64(r)*ch
			hit := v.game.pointed[i] == v.truth[i]
			mark, col := "✓", viz.Green
			if !hit {
				mark, col = "✗", viz.Vermillion
			}
			if ch >= 10 {
				l.Text(viz.Point{X: b.X + 10, Y: ry + ch/2}, mark, 10, col, viz.Centre)
			}
			for c := range k {
				a := viz.Point{X: b.X + 24 + float64(c)*cw, Y: ry}
				z := viz.Point{X: a.X + cw - 1, Y: ry + ch - 1}
				st := viz.Style{Fill: viz.Grid, Alpha: 0.5}
				if c == v.game.pointed[i] {
					st = viz.Style{Fill: viz.Blue}
				}
				l.Rect(a, z, st, 0)
				if c == v.truth[i] {
					l.Rect(a, z, viz.Style{Stroke: viz.Vermillion, Width: 2}, 0)
				}
			}
		}
	}
	// The share pointed right on a 0–100% bar, with the bound and chance.
	x0, x1 := b.X+4, b.X+b.W-4
	l.Rect(viz.Point{X: x0, Y: barY}, viz.Point{X: x1, Y: barY + 12}, viz.Style{Stroke: viz.Muted, Width: 1}, 0)
	l.Rect(viz.Point{X: x0, Y: barY}, viz.Point{X: x0 + (x1-x0)*share, Y: barY + 12}, viz.Style{Fill: viz.Green, Alpha: 0.8}, 0)
	for _, m := range []struct {
		x float64
		c viz.Colour
	}{{bound, viz.Purple}, {1 / float64(k), viz.Muted}} {
		x := x0 + (x1-x0)*m.x
		l.Line(viz.Point{X: x, Y: barY - 4}, viz.Point{X: x, Y: barY + 16}, viz.Style{Stroke: m.c, Width: 2})
	}
	y = barY + 20
	for _, t := range lines {
		if !b.Fits(l, y, t, 11) {
			break
		}
		y = write(l, b, y, t, 11, viz.Ink)
	}
}

// drawTraining plots every model's excess risk as training goes: the
// model trained through PVMW, and with exact gradients, Gaussian noise and
// randomized response, with the current query's step marked. The scale
// starts near the lowest value: the models differ by little beside what
// the descent itself leaves.
func (s *Scene) drawTraining(l *viz.List, b figure.Box, t int) {
	v := &s.view
	if !v.cfg.reveal {
		write(l, b, b.Y, "the excess risk needs the true values: turn on “reveal sensitive values” (instructor's view)", 12, viz.Ink)
		return
	}
	c := v.res.Problems[0].Curves
	if c == nil {
		return
	}
	series := []struct {
		curve semisens.Curve
		col   viz.Colour
		name  string
	}{{c.NonPrivate, viz.Ink, "exact gradients"}, {c.Gaussian, viz.Sky, "Gaussian noise"}, {c.RR, viz.Orange, "randomized response"}, {c.Private, viz.Blue, "PVMW"}} // PVMW's on top
	// A strongly convex problem's excess falls by orders of magnitude: a
	// logarithmic scale, down to 10⁻¹².
	logScale := v.cfg.mu > 0
	val := func(x float64) float64 {
		if logScale {
			return math.Log10(math.Max(x, 1e-12))
		}
		return x
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, sr := range series {
		for _, x := range sr.curve.Excess {
			lo, hi = math.Min(lo, val(x)), math.Max(hi, val(x))
		}
	}
	pad := math.Max(0.05*(hi-lo), 1e-4)
	lo, hi = lo-pad, hi+pad
	if !logScale {
		lo = math.Max(0, lo)
	}

	title := "excess risk 𝓛(w) − 𝓛(w*) of each model as training goes (instructor)"
	if logScale {
		title = format.Sprintf("excess risk 𝓛(w) − 𝓛(w*), log scale, μ = %g: geometric until the oracle's error stops it (instructor)", v.cfg.mu)
	}
	y0 := write(l, b, b.Y, title, 12, viz.Ink) + 8
	// The legend: one coloured name per model, in rows as wide as the panel
	// (a character is about 0.6 of the font size wide).
	const size = 10
	rows, x := 1, 0.0
	var at2 []viz.Point
	for _, sr := range series {
		w := 0.6*size*float64(len([]rune(sr.name))) + 14
		if x > 0 && x+w > b.W {
			rows, x = rows+1, 0
		}
		at2 = append(at2, viz.Point{X: b.X + x, Y: float64(rows)})
		x += w
	}
	x0, x1, y1 := b.X+40, b.X+b.W-6, b.Y+b.H-16-13*float64(rows)
	if y1-y0 < 20 {
		return
	}
	q := float64(v.cfg.steps)
	ty := func(y float64) float64 { return y1 - (y1-y0)*(y-lo)/(hi-lo) }
	at := func(s, e float64) viz.Point { return viz.Point{X: x0 + (x1-x0)*s/q, Y: ty(val(e))} }
	if logScale {
		// Powers of ten, at most six of them labelled.
		a, z := int(math.Ceil(lo)), int(math.Floor(hi))
		for e := a; e <= z; e += max(1, (z-a+6)/6) {
			l.Text(viz.Point{X: x0 - 4, Y: ty(float64(e))}, "1e"+strconv.Itoa(e), size, viz.Muted, viz.Right)
		}
	} else {
		l.Text(viz.Point{X: x0 - 4, Y: y0}, viz.FormatNumber(math.Round(hi*1000)/1000), size, viz.Muted, viz.Right)
		l.Text(viz.Point{X: x0 - 4, Y: y1}, viz.FormatNumber(math.Round(lo*1000)/1000), size, viz.Muted, viz.Right)
	}
	l.Line(viz.Point{X: x0, Y: y1}, viz.Point{X: x1, Y: y1}, viz.Style{Stroke: viz.Muted, Width: 1})
	l.Line(viz.Point{X: x0, Y: y0}, viz.Point{X: x0, Y: y1}, viz.Style{Stroke: viz.Muted, Width: 1})
	for _, sr := range series {
		pts := make([]viz.Point, len(sr.curve.Steps))
		for i, s := range sr.curve.Steps {
			pts[i] = at(float64(s), sr.curve.Excess[i])
		}
		l.Polyline(pts, viz.Style{Stroke: sr.col, Width: 2})
	}
	if t > 0 {
		x := x0 + (x1-x0)*float64(min(t, v.cfg.steps))/q
		l.Line(viz.Point{X: x, Y: y0}, viz.Point{X: x, Y: y1}, viz.Style{Stroke: viz.Purple, Width: 1, Dashed: true})
	}
	l.Text(viz.Point{X: (x0 + x1) / 2, Y: y1 + 8}, format.Sprintf("steps 1–%d", v.cfg.steps), size, viz.Muted, viz.Centre)
	for i, sr := range series {
		p := viz.Point{X: at2[i].X, Y: y1 + 8 + 13*at2[i].Y}
		l.Line(viz.Point{X: p.X, Y: p.Y}, viz.Point{X: p.X + 10, Y: p.Y}, viz.Style{Stroke: sr.col, Width: 3})
		l.Text(viz.Point{X: p.X + 13, Y: p.Y}, sr.name, size, sr.col, viz.Left)
	}
}

// drawNoise shows the update's released answer in the plane of its error
// and its noise, at true scale: f(p), f(D) at distance E along the error,
// and v = f(D) + z, z split into its part along the error and across it.
// More public features lengthen z across; the part along, which is all an
// update's progress depends on, stays.
func (s *Scene) drawNoise(l *viz.List, b figure.Box, q *semiQuery) {
	seen, u, at := s.updateFor(l, b, q, "the update's noise", "the noise is measured against the true answer f(D)")
	if seen == nil {
		return
	}
	c := seen.cond
	e, along, across := c.Error, c.NoiseAlong, c.NoiseAcross()
	d := s.view.dim
	y := write(l, b, b.Y, format.Sprintf("update %d (query %d): v = f(D) + z in the plane of the error and the noise (instructor)", u, at), 12, viz.Ink)
	foot := format.Sprintf("‖z‖ = %.3g in d = %d: across the error %.3g, along it only %.3g. An update's progress depends on the part along (Condition 14's (ii)); more features lengthen z across, not along",
		c.Noise, d, across, math.Abs(along))
	footH := l.TextHeight(viz.Point{X: b.X, Y: 0}, b.W, foot, 11, viz.Left)
	top, bottom := y+14, b.Y+b.H-footH-8
	if bottom-top < 40 {
		bottom, footH = b.Y+b.H-4, 0
	}
	// The plane, at one scale on both axes: f(p) at the origin, the error
	// along x, the noise's part across along y.
	xs := []float64{0, e, e + along}
	lo, hi := slices.Min(xs), slices.Max(xs)
	scale := math.Min((b.W-60)/math.Max(hi-lo, 1e-12), (bottom-top-28)/math.Max(across, 1e-12))
	x0 := b.X + 30 + ((b.W-60)-(hi-lo)*scale)/2 - lo*scale
	base := bottom - 18 // room for the labels under f(p) and f(D)
	pt := func(a, c float64) viz.Point { return viz.Point{X: x0 + a*scale, Y: base - c*scale} }
	p, dd, vv, foot2 := pt(0, 0), pt(e, 0), pt(e+along, across), pt(e+along, 0)
	l.Line(dd, foot2, viz.Style{Stroke: viz.Orange, Width: 1.5, Dashed: true})
	l.Line(foot2, vv, viz.Style{Stroke: viz.Orange, Width: 1.5, Dashed: true})
	l.Arrow(p, dd, viz.Style{Stroke: viz.Green, Width: 2.5})
	l.Arrow(dd, vv, viz.Style{Stroke: viz.Orange, Width: 2.5})
	for _, m := range []struct {
		at    viz.Point
		text  string
		col   viz.Colour
		align viz.Align
	}{{p, "f(p)", viz.Ink, viz.Right}, {dd, "f(D)", viz.Green, viz.Left}, {vv, "v", viz.Orange, viz.Left}} {
		l.Circle(m.at, 3.5, viz.Style{Fill: m.col}, 0)
		off := 6.0
		if m.align == viz.Right {
			off = -6
		}
		l.Text(viz.Point{X: m.at.X + off, Y: m.at.Y + 10}, m.text, 11, m.col, m.align)
	}
	if footH > 0 {
		write(l, b, b.Y+b.H-footH, foot, 11, viz.Muted)
	}
}
