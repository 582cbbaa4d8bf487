package lab

import (
	"math"
	"slices"

	"github.com/uldplab/uldp/core/audit"
	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/figure"
)

// MC is an audit's Monte Carlo run: both sides sampled in the
// background a slice per frame, started and stopped by one button (M),
// with its progress or verdict as a readout and a line of the figure.
type MC struct {
	// Runs is how many runs each side samples (the runs slider).
	Runs  int
	mc    *audit.MCRun
	mem   audit.MCMemory // mc's arrays, kept for the next audit
	mcErr error
	// stopped is how far a Monte Carlo audit the user stopped had got (0:
	// none stopped since the last change).
	stopped float64
	batch   int // runs between two reads of the clock (tick)
}

// Reserve sets aside the audit's arrays for Runs runs of outputs values
// each, as the lesson opens: growing a browser's memory in the first tick
// took 1.5 s.
func (m *MC) Reserve(outputs int) { m.mem.Reserve(m.Runs, outputs) }

// Projections are the sampled outputs of the audit under way or done
// (see audit.MCRun.Projections), none before an audit starts.
func (m *MC) Projections() (pa, pb []float64, ha, hb int) {
	if m.mc == nil {
		return nil, nil, 0, 0
	}
	return m.mc.Projections()
}

// Run is the audit under way or done, nil before one starts.
func (m *MC) Run() *audit.MCRun { return m.mc }

// Err is why the audit failed, if it did.
func (m *MC) Err() error { return m.mcErr }

// Stopped is how far an audit the user stopped had got, 0 if none was
// stopped since the last change.
func (m *MC) Stopped() float64 { return m.stopped }

// Drop forgets the audit: the pair or the variant changed.
func (m *MC) Drop() { m.mc, m.mcErr, m.stopped = nil, nil, 0 }

// running reports whether an audit is under way.
func (m *MC) running() bool { return m.mc != nil && !m.mc.Done() && m.mcErr == nil }

// Fields are the runs slider and the button, which starts an audit
// through start (building the samplers) or stops the one under way.
func (m *MC) Fields(start func() error) viz.Form {
	c := viz.Control{Name: "monte-carlo", Label: "run the Monte Carlo audit", Key: "m",
		Help: "samples both sides in the background; α = 10⁻³ false-flag probability"}
	if m.running() {
		c.Label, c.Help = "stop the Monte Carlo audit", "stops sampling; M again starts afresh"
	}
	return viz.Form{
		viz.Int(&m.Runs, viz.Control{Name: "runs", Label: "Monte Carlo runs per side", Kind: viz.Slider, Min: 1000, Max: 1_000_000, Step: 1000, Log: true}),
		viz.Action(c, func() error {
			if m.running() { // the same button (M) stops it
				done, total := m.mc.Progress()
				m.mc, m.stopped = nil, math.Max(float64(done)/float64(total), 1e-9)
				return nil
			}
			return start()
		}),
	}
}

// Start begins sampling a against b for the claim g.
func (m *MC) Start(a, b audit.Sampler, g privacy.Guarantee) error {
	run, err := audit.NewMCRun(a, b, g, audit.MCConfig{Runs: m.Runs, Alpha: 1e-3, Seed: 1, Memory: &m.mem})
	if err != nil {
		return err
	}
	m.mc, m.mcErr, m.stopped = run, nil, 0
	return nil
}

// Tick samples for about 6 ms, so that a tick stays under 12 ms with the
// frame's drawing beside it. It reads the clock between steps of batch
// runs, a batch kept near half a millisecond: up to 200 runs of the fast
// samplers, a few of the accelerated variant's whole runs (45 µs each in
// a browser; 200 of them made a 9 ms step).
func (m *MC) Tick() bool {
	if !m.running() {
		return false
	}
	if m.batch == 0 {
		m.batch = 25 // doubled within the first tick for the fast samplers
	}
	for over := viz.Deadline(6); !m.mc.Done() && !over(); {
		t0 := now()
		if err := m.mc.Step(m.batch); err != nil {
			m.mcErr = err
			break
		}
		switch dt := now() - t0; {
		case dt > 1 && m.batch > 1:
			m.batch /= 2
		case dt < 0.25 && m.batch < 200:
			m.batch *= 2
		}
	}
	return true
}

// now is viz.Clock's time, 0 without a clock (natively, where a tick runs
// to the end).
func now() float64 {
	if viz.Clock == nil {
		return 0
	}
	return viz.Clock()
}

// Verdicts appends to r the verdicts on the claim g: the exact δ at its ε,
// where the exact profile pts reaches it, then the Monte Carlo audit's
// state, if there is one.
func (m *MC) Verdicts(r []viz.Readout, pts []audit.Point, g privacy.Guarantee) []viz.Readout {
	if p, ok := PointAt(pts, g.Eps); ok {
		r = append(r, viz.Readout{Name: "exact", Label: format.Sprintf("exact δ at ε = %g", g.Eps), Value: math.Max(p.DeltaAB, p.DeltaBA),
			Text: format.Sprintf("%.3g and %.3g vs promised %g: %s", p.DeltaAB, p.DeltaBA, g.Delta, p.Verdict), Warn: p.Verdict == audit.Violation})
	}
	if mc, ok := m.Readout(g.Eps); ok {
		r = append(r, mc)
	}
	return r
}

// Readout is the audit's state against the claimed ε, if there is one.
func (m *MC) Readout(claimed float64) (viz.Readout, bool) {
	switch {
	case m.mcErr != nil:
		return viz.Readout{Name: "mc", Label: "Monte Carlo", Text: m.mcErr.Error(), Warn: true}, true
	case m.stopped > 0:
		return viz.Readout{Name: "mc", Label: "Monte Carlo", Text: format.Sprintf("stopped at %.0f%%; no verdict", 100*m.stopped)}, true
	case m.mc != nil && !m.mc.Done():
		done, total := m.mc.Progress()
		return viz.Readout{Name: "mc", Label: "Monte Carlo", Value: float64(done) / float64(total), Text: format.Sprintf("sampling… %.0f%%", 100*float64(done)/float64(total))}, true
	case m.mc != nil:
		res := m.mc.Result()
		return viz.Readout{Name: "mc", Label: "Monte Carlo", Value: res.EpsLower, Warn: res.Verdict == "violation",
			Text: format.Sprintf("ε ≥ %.3g with probability ≥ 0.999 (claimed %g): %s%s", res.EpsLower, claimed, res.Verdict, reachNote(res, claimed))}, true
	}
	return viz.Readout{}, false
}

// reachNote warns when the runs are too few to refute the claim at all.
func reachNote(r audit.MCResult, claimed float64) string {
	if r.Verdict == "pass" && r.EpsReach <= claimed {
		return format.Sprintf("; %d runs can show at most ε ≈ %.3g, so they cannot refute ε = %g: raise the runs", r.Runs, r.EpsReach, claimed)
	}
	return ""
}

// mcLine is a line of the audit's text below the figure.
type mcLine struct {
	text string
	col  viz.Colour
}

// lines is the audit's text when it is not sampling: its error, its stop,
// the offer to run it, or its result with what to beware of.
func (m *MC) lines(claimed float64, mutant string) []mcLine {
	switch {
	case m.mcErr != nil:
		return []mcLine{{"Monte Carlo: " + m.mcErr.Error(), viz.Vermillion}}
	case m.stopped > 0:
		return []mcLine{{format.Sprintf("Monte Carlo audit stopped at %.0f%%: no verdict — press M to start again", 100*m.stopped), viz.Muted}}
	case m.mc == nil:
		return []mcLine{{"Monte Carlo audit: press “run the Monte Carlo audit” (M) to sample both sides — no closed form needed", viz.Muted}}
	case !m.mc.Done():
		return nil
	}
	r := m.mc.Result()
	col := viz.Green
	if r.Verdict == "violation" {
		col = viz.Vermillion
	}
	out := []mcLine{{format.Sprintf("Monte Carlo, %d runs per side: ε ≥ %.3g with probability ≥ 0.999 (claimed %g) — %s; the event that tells A from B best, “%s”, happened in %.0f of A's %d runs and %.0f of B's",
		r.Runs, r.EpsLower, claimed, r.Verdict, r.Worst.Name, r.Worst.PA*float64(r.Runs), r.Runs, r.Worst.PB*float64(r.Runs)), col}}
	if gloss := r.Worst.Gloss(); gloss != "" {
		out = append(out, mcLine{"(" + gloss + ")", viz.Muted})
	}
	if note := reachNote(r, claimed); note != "" {
		out = append(out, mcLine{"Beware" + note, viz.Vermillion})
	}
	if r.Verdict == "violation" && mutant != audit.NoMutant {
		out = append(out, mcLine{"✗ VIOLATION: sampling alone, the audit catches “" + mutant + "”", viz.Vermillion})
	}
	return out
}

// Height is how tall Draw's text is in l (a narrow frame wraps it), so a
// figure can leave it room at the bottom.
func (m *MC) Height(l *viz.List, claimed float64, mutant string) float64 {
	h := 14.0 // the progress bar
	if lines := m.lines(claimed, mutant); lines != nil {
		h = 0
		for _, ln := range lines {
			h += l.TextHeight(viz.Point{X: 20}, 0, ln.text, 12, viz.Left)
		}
	}
	return h
}

// Draw shows the audit's progress or result at height y of a frame w
// wide, against the claimed ε; mutant names the broken variant under
// audit ("none" for the real mechanism). Its lines stack by their
// measured heights.
func (m *MC) Draw(l *viz.List, w, y, claimed float64, mutant string) {
	if m.mc != nil && !m.mc.Done() && m.mcErr == nil && m.stopped == 0 {
		done, total := m.mc.Progress()
		frac := float64(done) / float64(total)
		l.Rect(viz.Point{X: 20, Y: y - 7}, viz.Point{X: w - 20, Y: y + 7}, viz.Style{Stroke: viz.Muted, Width: 1}, 0)
		l.Rect(viz.Point{X: 20, Y: y - 7}, viz.Point{X: 20 + (w-40)*frac, Y: y + 7}, viz.Style{Fill: viz.Sky}, 0)
		l.Text(viz.Point{X: w / 2, Y: y}, format.Sprintf("sampling %d of %d outputs — M stops", done, total), 11, viz.Ink, viz.Centre)
		return
	}
	for _, ln := range m.lines(claimed, mutant) {
		y += l.Text(viz.Point{X: 20, Y: y}, ln.text, 12, ln.col, viz.Left)
	}
}

// PlotBelow is the place of a plot below text ending at y in a figure w
// by h, under its caption, with room left at the bottom for the audit's
// text (Draw), which a narrow figure wraps onto more lines.
func (m *MC) PlotBelow(l *viz.List, w, h, y float64, caption string, claimed float64, mutant string) figure.Plot {
	top := math.Max(230, y+16+l.TextHeight(viz.Point{X: 60}, 0, caption, 12, viz.Left))
	ph := math.Max(h-top-54-math.Max(m.Height(l, claimed, mutant), 36), 80)
	return figure.Plot{X0: 60, Y0: top, W: w - 120, H: ph}
}

// DrawSampled draws in p what the audit has sampled so far, projected on
// its direction: A's answers as blue bars, B's as an orange outline, and
// runs that halted (or released ⊥) in a pair of bars of their own at the
// left, under caption. Bars are fractions of each side's runs.
func (m *MC) DrawSampled(l *viz.List, p figure.Plot, caption string) {
	pa, pb, ha, hb := m.Projections()
	if len(pa)+len(pb)+ha+hb == 0 {
		l.Text(viz.Point{X: p.X0, Y: p.Y0 + p.H/2}, "Both sides' sampled answers are drawn here as the audit runs.", 12, viz.Muted, viz.Left)
		return
	}
	l.TextAbove(viz.Point{X: p.X0, Y: p.Y0 - 8}, 0, caption, 12, viz.Ink, viz.Left)
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, xs := range [][]float64{pa, pb} {
		for _, v := range xs {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	if !(hi > lo) { // one value, or none
		lo, hi = math.Min(lo, 0)-1, math.Max(hi, 0)+1
	}
	const bins, atomW = 40, 50.0
	bw := (p.W - atomW - 10) / bins
	hist := func(xs []float64, halted int) ([]float64, float64) {
		runs := float64(max(len(xs)+halted, 1))
		out := make([]float64, bins)
		for _, v := range xs {
			out[min(int((v-lo)/(hi-lo)*bins), bins-1)] += 1 / runs
		}
		return out, float64(halted) / runs
	}
	fa, atomA := hist(pa, ha)
	fb, atomB := hist(pb, hb)
	top := math.Max(slices.Max(fa), slices.Max(fb))
	top = math.Max(top, math.Max(atomA, atomB))
	base := p.Y0 + p.H
	yOf := func(f float64) float64 { return base - p.H*f/top }
	l.Rect(viz.Point{X: p.X0, Y: yOf(atomA)}, viz.Point{X: p.X0 + atomW/2 - 2, Y: base}, viz.Style{Fill: viz.Blue}, 0)
	l.Rect(viz.Point{X: p.X0 + atomW/2, Y: yOf(atomB)}, viz.Point{X: p.X0 + atomW - 2, Y: base}, viz.Style{Stroke: viz.Orange, Width: 2}, 0)
	l.Text(viz.Point{X: p.X0 + atomW/2, Y: base + 12}, "θ₀", 10, viz.Muted, viz.Centre)
	if ha+hb == 0 {
		// Else B's first bin, just right of the slot, reads as its atom.
		l.Text(viz.Point{X: p.X0 + atomW/2, Y: base - 6}, "none", 10, viz.Muted, viz.Centre)
	}
	x0 := p.X0 + atomW + 10
	l.Line(viz.Point{X: x0 - 5, Y: p.Y0}, viz.Point{X: x0 - 5, Y: base}, viz.Style{Stroke: viz.Muted, Width: 1, Dashed: true})
	xOf := func(v float64) float64 { return x0 + (v-lo)/(hi-lo)*bins*bw }
	l.Line(viz.Point{X: x0, Y: base}, viz.Point{X: x0 + bins*bw, Y: base}, viz.Style{Stroke: viz.Muted, Width: 1})
	outline := []viz.Point{{X: x0, Y: base}}
	for i := range bins {
		left, right := x0+float64(i)*bw, x0+float64(i+1)*bw
		if fa[i] > 0 {
			l.Rect(viz.Point{X: left, Y: yOf(fa[i])}, viz.Point{X: right, Y: base}, viz.Style{Fill: viz.Blue}, 0)
		}
		outline = append(outline, viz.Point{X: left, Y: yOf(fb[i])}, viz.Point{X: right, Y: yOf(fb[i])})
	}
	l.Polyline(append(outline, viz.Point{X: x0 + bins*bw, Y: base}), viz.Style{Stroke: viz.Orange, Width: 2})
	for _, t := range viz.NiceTicks(lo, hi, 6) {
		l.Text(viz.Point{X: xOf(t), Y: base + 12}, viz.TickLabel(t), 10, viz.Muted, viz.Centre)
	}
	l.Text(viz.Point{X: x0 + bins*bw, Y: base + 24}, "⟨o, u⟩, o an answer", 11, viz.Muted, viz.Right)
}
