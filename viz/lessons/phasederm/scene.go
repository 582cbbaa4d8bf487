// Package phasederm is lesson 7, Phased ERM: Paper A's localisation through
// shrinking balls, one private output perturbation per phase, and its SCO and
// strongly convex relatives.
package phasederm

import (
	"math"
	"slices"
	"strings"

	"github.com/uldplab/uldp/core/cancel"
	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/loss"
	"github.com/uldplab/uldp/core/mech"
	"github.com/uldplab/uldp/core/optim"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/core/trace"
	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/figure"
)

// Scene is lesson 7: Phased-ERM (Paper A, Alg. 3) localising the squared
// loss's minimiser over 𝒦 = B(0, 1) through shrinking balls, each phase one
// DelOutputPert release at (ε/T, δ/T); and its relatives, Phased-SCO on
// disjoint halving batches and Strongly-Convex-ERM/SCO's first stage.
type Scene struct {
	algo    phasedAlgo
	params  optim.PhasedParams
	n, m    int
	spread  float64
	centre  [2]float64
	lambdaX float64 // λ as a multiple of the algorithm's default
	seed    uint64

	data   *dataset.Dataset
	player viz.Player
	result optim.PhasedResult
	err    error

	cam  viz.Camera
	list viz.List
	grab viz.Grab // of the data (ID 1)
}

// phasedAlgo is one of the lesson's algorithms.
type phasedAlgo struct {
	name, composition string
	run               func(cancel.Context, optim.PhasedParams, *dataset.Dataset, *rng.Streams, mech.Progress) (optim.PhasedResult, *trace.Trace, error)
}

func phasedAlgos() []phasedAlgo {
	return []phasedAlgo{
		{"phased-erm", "basic composition of T phases at (ε/T, δ/T)", optim.PhasedERM},
		{"phased-sco", "parallel composition: T phases at (ε, δ), each on its own users", optim.PhasedSCO},
		{"strongly-convex-erm", "stage 1 at (ε/2, δ/2) + Phased-ERM at (ε/2, δ/2)", optim.StronglyConvexERM},
		{"strongly-convex-sco", "stage 1 at (ε/2, δ/2) + Phased-SCO at (ε/2, δ/2)", optim.StronglyConvexSCO},
	}
}

func (a phasedAlgo) sco() bool { return strings.HasSuffix(a.name, "-sco") }

// New returns the lesson: 2,000 users × 10 items close together, so
// that in paper mode each phase's certificate fires at ε = 1 (κ′ in the
// eighties). It opens on the localisation itself (see localise); the
// paper's constants are one action away.
func New() *Scene {
	s := &Scene{
		algo:   phasedAlgos()[0],
		params: optim.PhasedParams{Eps: 1, Delta: 1e-5, Beta: 0.01, Mu: 1, RK: 1, RX: 3, Rule: mech.DeltaPaper},
		n:      2000,
		m:      10,
		spread: 0.002,
		centre: [2]float64{0.45, 0.2},
		seed:   1,
	}
	s.localise()
	s.regenerate()
	return s
}

// localise sets the opening: no noise, and λ 64 times the theorem's over
// 6 phases, so that the balls R_i = G/λ_i run 35, 8.7, 2.2, 0.55, 0.14,
// 0.034 — the last three shrink onto the minimiser in view — while λ₁ =
// 0.11 still lets the first phase reach the data (its pull towards the
// centre of 𝒦 is λ₁/(1+λ₁) of the way).
func (s *Scene) localise() {
	s.params.Mode, s.lambdaX, s.params.Phases = privacy.NonPrivate, 64, 6
}

// paperConstants sets Paper A's constants: its noise and Thm 4.1's λ, over
// 4 phases (the paper's ⌈log₂ nm⌉ = 15 would starve each of ε).
func (s *Scene) paperConstants() {
	s.params.Mode, s.lambdaX, s.params.Phases = privacy.Paper, 1, 4
}

// Info names the scene.
func (s *Scene) Info() viz.Info {
	return viz.Info{Name: "phased-erm", Title: "Phased ERM",
		Summary: "Localise the minimiser through shrinking balls, one private output perturbation per phase."}
}

// Player returns the stepper bar.
func (s *Scene) Player() *viz.Player { return &s.player }

func (s *Scene) regenerate() {
	d, err := dataset.Generate(dataset.Spec{Kind: dataset.Gaussian, N: s.n, M: s.m, D: 2, Spread: s.spread, Center: s.centre[:]}, rng.New(s.seed))
	if err != nil {
		s.err = err
		return
	}
	// Items stay in B(0, R_X), where the loss is G-Lipschitz: a wide cloud
	// near the edge is clipped rather than refused.
	rx := loss.Ball{Centre: []float64{0, 0}, Radius: s.params.RX}
	for i := range d.Users {
		for j := range d.Items(i) {
			rx.Project(d.Item(i, j), d.Item(i, j))
		}
	}
	s.data = d
	s.rerun()
}

func (s *Scene) rerun() {
	p := s.params
	p.LambdaScale = s.lambdaX
	algo := s.algo
	run := func(ctx cancel.Context, d *dataset.Dataset, st *rng.Streams) (*trace.Trace, error) {
		res, tr, err := algo.run(ctx, p, d, st, nil)
		if err == nil {
			s.result = res
		}
		return tr, err
	}
	st, err := trace.NewStepper(cancel.Never, run, s.data, rng.New(s.seed))
	s.err = err
	if err != nil {
		return
	}
	s.player.Replace(st)
}

// form binds the scene's inputs.
func (s *Scene) form() viz.Form {
	names := make([]string, len(phasedAlgos()))
	each := map[string]string{}
	for i, a := range phasedAlgos() {
		names[i] = a.name
		each[a.name] = a.composition
	}
	return viz.Form{
		viz.Custom(viz.Control{Name: "algorithm", Label: "algorithm", Kind: viz.Choice, Choices: names,
			Help: "Paper A Algs. 3–6: ERM or SCO, with or without the strongly convex first stage", ChoiceHelp: each},
			func() string { return s.algo.name },
			func(v string) error {
				i := slices.Index(names, v)
				if i < 0 {
					return format.Errorf("algorithm %q: choose one of %s", v, strings.Join(names, ", "))
				}
				s.algo = phasedAlgos()[i]
				// SCO's batches halve per phase: the paper's count keeps the
				// last one big enough; ERM's (⌈log₂ nm⌉ = 15 here) would
				// starve each phase of ε, so it gets the lesson's 4.
				if s.algo.sco() {
					s.params.Phases = 0
				} else if s.params.Phases == 0 {
					s.params.Phases = 4
				}
				return nil
			}),
		viz.Float(&s.params.Eps, viz.Control{Name: "eps", Label: "ε", Kind: viz.Slider, Min: 0.1, Max: 20, Log: true}),
		viz.Float(&s.params.Delta, viz.Control{Name: "delta", Label: "δ", Kind: viz.Slider, Min: 1e-10, Max: 0.1, Log: true}),
		viz.Int(&s.params.Phases, viz.Control{Name: "phases", Label: "phases T", Kind: viz.Slider, Min: 0, Max: 12,
			Help: "0: the paper's count, ⌈log₂(nm)⌉ (ERM) or ⌈log₂(n/N₀)⌉ (SCO: the last batch keeps N₀ = 8κ users)"}),
		viz.Float(&s.lambdaX, viz.Control{Name: "lambda", Label: "λ ÷ the theorem's", Kind: viz.Slider, Min: 0.01, Max: 1e6, Log: true,
			Help: "larger λ: smaller balls, less noise, more bias"}),
		viz.Float(&s.spread, viz.Control{Name: "spread", Label: "item spread", Kind: viz.Slider, Min: 0.0005, Max: 1, Log: true,
			Help: "wider data: the certificate stops firing (items are clipped to the data radius R_X = 3)"}),
		viz.Mode(&s.params.Mode, privacy.Paper, privacy.NonPrivate),
		viz.Action(viz.Control{Name: "paper-constants", Label: "the paper's constants", Key: "c",
			Help: "paper mode, Thm 4.1's λ, 4 phases: the noise the proof needs at 2,000 users"},
			func() error { s.paperConstants(); return nil }),
		viz.Action(viz.Control{Name: "localise", Label: "back to the localisation", Key: "v",
			Help: "non-private mode, λ = 64× the theorem's, 6 phases: the balls shrink in view"},
			func() error { s.localise(); return nil }),
		viz.Seed(&s.seed),
	}
}

// Controls declares the scene's inputs.
func (s *Scene) Controls() []viz.Control { return s.form().Controls() }

// Set changes one control; on failure the scene keeps its last working run.
func (s *Scene) Set(name, value string) error {
	next := *s
	if err := next.form().Set(name, value); err != nil {
		return err
	}
	next.regenerate()
	if next.err != nil {
		return next.err
	}
	*s = next
	return nil
}

// Readouts lists the run's numbers.
func (s *Scene) Readouts() []viz.Readout {
	if s.err != nil {
		return viz.FailedReadouts("cannot run", s.err)
	}
	r := s.result
	total, _ := r.Ledger.Total()
	out := []viz.Readout{
		{Name: "ledger", Label: "budget spent", Value: total.Eps, Text: format.Sprintf("ε = %.4g, δ = %.3g of (%g, %g)", total.Eps, total.Delta, s.params.Eps, s.params.Delta), Formula: s.algo.composition},
	}
	if st := r.Stage1; st != nil {
		text := format.Sprintf("θ₀ at (ε/2, δ/2): σ = %.3g, R′ = %.3g", st.Sigma, st.Radius)
		if st.Output == nil {
			text += ", ⊥ (𝒦′ = 𝒦)"
		}
		out = append(out, viz.Readout{Name: "stage-1", Label: "stage 1", Value: st.Radius, Text: text,
			Formula: "R′ = σ(√d + √(2 ln(1/β))) [+ 30G√(ln(2/β))/(μ√(nm)) for SCO]"})
	}
	if n := len(r.Phases); n > 0 && r.Phases[n-1].Sigma > s.params.RK {
		out = append(out, viz.Readout{Name: "noise-warning", Label: "noise vs 𝒦", Value: r.Phases[n-1].Sigma, Warn: true,
			Text: format.Sprintf("even the last phase's σ = %.3g exceeds 𝒦's radius: at these sizes the paper's constants make each release essentially random in 𝒦 (try non-private mode, a larger ε or fewer phases)", r.Phases[n-1].Sigma)})
	}
	for _, ph := range r.Phases {
		text := format.Sprintf("λ = %.3g, R = %.3g, σ = %.3g", ph.Lambda, ph.Radius, ph.Sigma)
		if ph.Bottom {
			text += ", ⊥"
		}
		out = append(out, viz.Readout{Name: format.Sprintf("phase-%d", ph.I), Label: format.Sprintf("phase %d", ph.I), Value: ph.Sigma, Text: text})
	}
	return out
}

// Guarantee is the run's.
func (s *Scene) Guarantee() privacy.Guarantee { return s.result.Guarantee }

// Trace returns the run.
func (s *Scene) Trace() *trace.Trace {
	if st := s.player.Stepper(); st != nil {
		return st.Trace()
	}
	return nil
}

// Dataset returns the users' items, for reading only.
func (s *Scene) Dataset() *dataset.Dataset { return s.data }

// Draw shows 𝒦, the data cloud, each revealed phase's ball, minimiser and
// release, and the ledger.
func (s *Scene) Draw(w, h float64) *viz.List {
	l := &s.list
	if !figure.Reset(l, w, h, s.err) {
		return l
	}
	const key = "◆ phase minimiser (exact)   ● released θ̂ᵢ   dashed: B(θ̂ᵢ₋₁, R_i), R_i = G/λ_i   orange ring: ±σᵢ around the minimiser"
	top := 16 + l.TextHeight(viz.Point{X: 14, Y: 16}, 0, key, 12, viz.Left)
	if s.grab.ID == 0 {
		s.cam = viz.Fit(-1.25, 1.25, -1.25, 1.25, 0, math.Max(40, top+8), w, h-60-math.Max(40, top+8), 10)
	}
	c := s.cam
	o := c.ToScreen(0, 0)
	l.Circle(o, s.params.RK*c.Scale, viz.Style{Fill: viz.Grid, Stroke: viz.Muted, Width: 1}, 0)
	l.Text(viz.Point{X: o.X, Y: o.Y - s.params.RK*c.Scale - 8}, "𝒦 = B(0, 1)", 11, viz.Muted, viz.Centre)
	// The data cloud (a sample of items keeps the list small), coloured by
	// batch for the SCO variants, and its handle.
	s.drawCloud(l)
	hc := c.ToScreen(s.centre[0], s.centre[1])
	st := viz.Style{Fill: viz.Sky, Stroke: viz.Ink, Width: 1}
	if s.grab.ID != 0 {
		st.Stroke, st.Width = viz.Yellow, 3
	}
	l.Circle(hc, 8, st, 1)
	// Labels of releases that land together would pile up: the newest is
	// placed first, then the data's handle's (on whichever side is free),
	// then older ones where they are clear of those.
	type release struct {
		at   viz.Point
		text string
	}
	var rel []release
	place := figure.Labels{L: l}

	shown := map[int]bool{}
	released := map[int]bool{}
	spent := map[string]bool{}
	stage := false
	for _, stp := range s.player.Stepper().Shown() {
		switch stp.Kind {
		case optim.KindPhaseStart:
			shown[stp.Data.(optim.Phase).I] = true
		case optim.KindPhaseRelease:
			released[stp.Data.(optim.Phase).I] = true
		case optim.KindLedgerSpend:
			spent[stp.Data.(privacy.Spend).Label] = true
		case optim.KindStage1:
			stage = true
		}
	}
	prev := o
	if st := s.result.Stage1; stage && st.Output != nil {
		t0 := c.ToScreen(st.Output[0], st.Output[1])
		l.Circle(t0, math.Min(st.Radius*c.Scale, 4*w), viz.Style{Stroke: viz.Green, Width: 2}, 0)
		l.Circle(t0, 6, viz.Style{Fill: viz.Green, Stroke: viz.Ink, Width: 1}, 0)
		place.Text(viz.Point{X: t0.X + 8, Y: t0.Y + 10}, format.Sprintf("θ₀ (stage 1); green: B(θ₀, R′ = %.3g)", st.Radius), 11, viz.Ink, viz.Left)
		prev = t0
	}
	for _, ph := range s.result.Phases {
		if !shown[ph.I] {
			break
		}
		ctr := c.ToScreen(ph.Start[0], ph.Start[1])
		l.Circle(ctr, ph.Radius*c.Scale, viz.Style{Stroke: viz.Purple, Width: 1.5, Dashed: true}, 0)
		mn := c.ToScreen(ph.Minimiser[0], ph.Minimiser[1])
		l.Polygon([]viz.Point{{X: mn.X, Y: mn.Y - 6}, {X: mn.X + 6, Y: mn.Y}, {X: mn.X, Y: mn.Y + 6}, {X: mn.X - 6, Y: mn.Y}}, viz.Style{Fill: viz.Purple, Stroke: viz.Ink, Width: 1})
		if !released[ph.I] {
			break
		}
		out := c.ToScreen(ph.Output[0], ph.Output[1])
		if ph.Sigma > 0 {
			l.Circle(mn, math.Min(ph.Sigma*c.Scale, 4*w), viz.Style{Stroke: viz.Orange, Width: 1, Alpha: 0.7}, 0)
		}
		l.Arrow(prev, out, viz.Style{Stroke: viz.Ink, Width: 1.5})
		l.Circle(out, 6, viz.Style{Fill: viz.Orange, Stroke: viz.Ink, Width: 1}, 0)
		label := format.Sprintf("θ̂%d", ph.I)
		if ph.Bottom {
			label += " (⊥)"
		}
		rel = append(rel, release{viz.Point{X: out.X + 8, Y: out.Y - 8}, label})
		prev = out
	}
	if n := len(rel); n > 0 {
		place.Text(rel[n-1].at, rel[n-1].text, 11, viz.Ink, viz.Left)
		rel = rel[:n-1]
	}
	if !place.Text(viz.Point{X: hc.X + 12, Y: hc.Y}, "data (drag)", 11, viz.Ink, viz.Left) {
		place.Text(viz.Point{X: hc.X - 12, Y: hc.Y}, "data (drag)", 11, viz.Ink, viz.Right)
	}
	for i := len(rel) - 1; i >= 0; i-- {
		place.Text(rel[i].at, rel[i].text, 11, viz.Ink, viz.Left)
	}
	// The key and the ledger sit on paper, over the early phases' balls,
	// which reach far past the plane's view.
	l.Rect(viz.Point{}, viz.Point{X: w, Y: top + 2}, viz.Style{Fill: viz.Paper, Alpha: 0.92}, 0)
	l.Text(viz.Point{X: 14, Y: 16}, key, 12, viz.Ink, viz.Left)
	l.Rect(viz.Point{Y: h - 54}, viz.Point{X: w, Y: h}, viz.Style{Fill: viz.Paper, Alpha: 0.92}, 0)
	s.drawLedger(l, w, h, spent)
	c.DrawScaleBar(l)
	return l
}

// drawCloud draws a sample of the items; with disjoint batches (SCO) each
// batch has its own colour and the users no phase uses are grey.
func (s *Scene) drawCloud(l *viz.List) {
	c := s.cam
	colours := []viz.Colour{viz.Blue, viz.Orange, viz.Green, viz.Purple, viz.Vermillion, viz.Sky}
	groups := map[viz.Colour][]viz.Point{}
	step := max(1, s.n*s.m/400)
	T := len(s.result.Phases)
	for k := 0; k < s.n*s.m; k += step {
		u := k / s.m
		col := viz.Blue
		if s.algo.sco() {
			col = viz.Muted // users below ⌊n/2^T⌋ sit out
			for i := 1; i <= T; i++ {
				if u >= s.n>>i && u < s.n>>(i-1) {
					col = colours[(i-1)%len(colours)]
				}
			}
		}
		it := s.data.Item(u, k%s.m)
		groups[col] = append(groups[col], c.ToScreen(it[0], it[1]))
	}
	for _, col := range append(colours, viz.Muted) {
		if len(groups[col]) > 0 {
			l.Dots(groups[col], 1.5, viz.Style{Fill: col, Alpha: 0.5}, 0)
		}
	}
}

// drawLedger shows what one user spends: shared releases as slices of ε in
// a row, disjoint batches' releases stacked in the same slot (parallel
// composition: each user pays for one of them). Spent slices fill in.
func (s *Scene) drawLedger(l *viz.List, w, h float64, spent map[string]bool) {
	spends := s.result.Ledger.Spends()
	if len(spends) == 0 {
		l.Text(viz.Point{X: 20, Y: h - 30}, "privacy ledger: nothing spent (non-private mode)", 12, viz.Muted, viz.Left)
		return
	}
	x0, y0, bw := 20.0, h-30, w-40
	l.Text(viz.Point{X: x0, Y: y0 - 14}, format.Sprintf("privacy ledger, what one user spends of ε = %g: %s", s.params.Eps, s.algo.composition), 12, viz.Ink, viz.Left)
	var shared, grouped []privacy.Spend
	for _, sp := range spends {
		if sp.Group == "" {
			shared = append(shared, sp)
		} else {
			grouped = append(grouped, sp)
		}
	}
	x := x0
	slot := func(sp privacy.Spend, y, hh float64) {
		st := viz.Style{Stroke: viz.Muted, Width: 1}
		if spent[sp.Label] {
			st.Fill = viz.Orange
		}
		l.Rect(viz.Point{X: x, Y: y}, viz.Point{X: x + bw*sp.Eps/s.params.Eps - 2, Y: y + hh}, st, 0)
	}
	for _, sp := range shared {
		slot(sp, y0, 14)
		x += bw * sp.Eps / s.params.Eps
	}
	for i, sp := range grouped {
		hh := 14 / float64(len(grouped))
		slot(sp, y0+float64(i)*hh, hh)
	}
}

// Pointer drags the data cloud's centre; the cloud is redrawn from the same
// seed around it.
func (s *Scene) Pointer(ev viz.Event) bool {
	switch ev.Kind {
	case viz.PointerDown:
		if s.list.HitEvent(ev, 4) == 1 {
			s.grab.Start(1, s.cam, ev, s.centre)
			return true
		}
	case viz.PointerMove:
		if s.grab.ID == 0 {
			return false
		}
		c := s.grab.At(ev)
		// Keep the data inside its radius R_X (the loss's Lipschitz bound).
		if r := math.Hypot(c[0], c[1]); r > s.params.RX-0.1 {
			c[0], c[1] = c[0]*(s.params.RX-0.1)/r, c[1]*(s.params.RX-0.1)/r
		}
		s.centre = c
		s.regenerate()
		return true
	case viz.PointerUp:
		return s.grab.End()
	}
	return false
}

// LoadDataset replaces the users' items and reruns with the same seed.
func (s *Scene) LoadDataset(d *dataset.Dataset) error {
	if err := viz.Fits(d, s.n, s.m); err != nil {
		return err
	}
	s.data = d.Clone()
	s.rerun()
	return nil
}

// Describe says what the figure shows: the users' items dragged as one
// cloud, each phase's ball and release, and the budget.
func (s *Scene) Describe() string {
	end := ""
	if th := s.result.Theta; len(th) == 2 {
		end = format.Sprintf(" The last release is θ̂ = (%.3f, %.3f).", th[0], th[1])
	}
	return format.Sprintf("%s (%s) on %d users of %d items spread %.3g around (%.2f, %.2f), drawn as one cloud you can drag; each phase draws the ball it localises to and its noisy release, %d phases in all.%s ",
		s.algo.name, s.algo.composition, s.n, s.m, s.spread, s.centre[0], s.centre[1], len(s.result.Phases), end) +
		viz.Recite(s.Readouts(), "ledger", "stage-1", "noise-warning", "phase-1", "phase-2")
}

// ItemName names the data cloud, by its centre.
func (s *Scene) ItemName(id int) string {
	if id != 1 {
		return ""
	}
	return format.Sprintf("the users' cloud, centred at (%.3f, %.3f)", s.centre[0], s.centre[1])
}
