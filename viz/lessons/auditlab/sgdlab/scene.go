// Package sgdlab is the audit lab's part for whole SGD runs, sampled:
// Paper B's user-level DP-SGD and its strongly convex localisation, and
// Ghazi et al. 2025's robust-statistics SGD. The same lesson as package
// auditlab, in a browser module of its own, so that no other module of the
// lab holds them.
package sgdlab

import (
	"math"
	"slices"
	"strings"

	"github.com/uldplab/uldp/core/audit"
	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/loss"
	"github.com/uldplab/uldp/core/optim"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/figure"
	"github.com/uldplab/uldp/viz/lessons/auditlab/internal/lab"
)

// Mechs are the audit lab's mechanisms this part shows: the lesson list
// opens this part's module for them.
func Mechs() []string { return slices.Clone(lab.SGDMechs) }

// Scene is the audit lab for sampled SGD runs: the same lesson as package
// auditlab's scene (its menu lists every mechanism), on pairs of users
// with one value each, which the student can drag.
type Scene struct {
	mech, pair, mutant string
	a, b               []float64
	// DP-SGD's runs on a and b, ready to sample.
	sgd [2]audit.DPSGDRuns
	// The localisation's runs on a and b.
	sc [2]audit.DPSGDSCRuns
	// Robust SGD's runs on a and b, and its test's exact law on the pair.
	rsgd  [2]audit.RSGDRuns
	rtest audit.RSGDTest
	err   error
	lab.MC

	line  figure.NumberLine
	list  viz.List
	users lab.UserDrag
}

// labRSGDParams are robust SGD's (Ghazi et al. 2025) for the pair: one
// phase of T = 2 steps of B = 400 users in file order, ε = 8, δ = 10⁻⁵,
// r = 1 and η = 1/6B, the largest step its proof allows (6βηB ≤ 1), on
// the squared loss — or Huber's, whose gradients the huber-edge pair needs.
// A smaller batch is not certified: with B = 100 a batch with no 2B/3 in
// any r-box passes the test with probability 0.0016, not δ's share.
func labRSGDParams(pair string) optim.RobustSGDParams {
	p := optim.RobustSGDParams{Eps: 8, Delta: 1e-5, Loss: loss.Squared{Mu: 1}, Domain: 1e5, Batch: rsgdBatch, Radius: 1,
		Eta: rsgdEta, Order: optim.Given, Mode: privacy.Sound, Theta0: []float64{0}}
	if pair == "huber-edge" {
		p.Loss = loss.Huber{H: 1}
	}
	return p
}

// rsgdBatch is B in the robust SGD pairs, which hold 2B users, and
// rsgdEta their step.
const (
	rsgdBatch = 400
	rsgdEta   = 1.0 / (6 * rsgdBatch)
)

// huberEdge is the pair on which the indicator kernel is caught (the
// robust SGD audit's tests build the same pair in two dimensions). Step
// 1's users sit at the start x₀ = 0; in B one of them is 10⁴ away, whose
// Huber gradient saturates at 1 and moves x₁ by −η/B. Step 2's users are
// half saturated (at −5, gradient 1) and half at half that move from x
// (gradient ±η/2B): their distances straddle r = 1 by η/2B, so the
// indicator kernel counts every cross pair on A and none on B.
func huberEdge() (a, b []float64) {
	near := -rsgdEta / rsgdBatch / 2
	a = slices.Concat(lab.CrowdOf(rsgdBatch, 0), lab.CrowdOf(rsgdBatch/2, -5), lab.CrowdOf(rsgdBatch/2, near))
	b = slices.Clone(a)
	b[0] = -1e4
	return a, b
}

// labSGDParams() are user-level DP-SGD's: sound ORME at (8, 0.1) inside 8
// steps among 600 users (the proof needs n > 502), on the squared loss
// without smoothing — what the audit's sampler of whole runs needs.
func labSGDParams() optim.DPSGDParams {
	return optim.DPSGDParams{Eps: 8, Delta: 0.1, Loss: loss.Squared{Mu: 1}, Radius: 50,
		Steps: 8, Eta: 0.5, Tau: 1, Mode: privacy.Sound}
}

// sgdUsers is how many users the DP-SGD pairs hold.
const sgdUsers = 600

// scParams are the strongly convex localisation's (Paper B Alg. 4): sound
// ORME at (8, 0.1) in each phase, T_i capped at 8, on the squared loss
// without smoothing, which the audit's sampler needs. On scUsers users of
// one item it runs 4 phases on groups of 512, 1,024, 2,048 and 4,096, the
// first past the 502 users the proof needs.
func scParams() optim.DPSGDSCParams {
	return optim.DPSGDSCParams{Eps: 8, Delta: 0.1, Mu: 1, Radius: 50, RX: 1, Steps: 8, Mode: privacy.Sound, Unsmoothed: true}
}

// scUsers is how many users the localisation's pairs hold, and
// scLastGroup the first user of its last phase's group, whom the pairs
// change: later phases, on other users, would pull a change back.
const scUsers, scLastGroup = 8192, 512 + 1024 + 2048

// scPairs are the localisation's pairs: a far user whom the ramp drops
// (the phases' σ run from 6,600 down to 1,000, so the far user sits at
// 10⁸), and two crowds, half of every group in each, whose gate halts
// every phase.
func scPairs() []lab.Pair {
	far := lab.CrowdOf(scUsers, 0)
	farB := slices.Clone(far)
	farB[scLastGroup] = 1e8
	two := make([]float64, scUsers)
	for i := range two {
		two[i] = float64(i%2) * 1e4
	}
	twoB := slices.Clone(two)
	twoB[scLastGroup] = 1e4
	return []lab.Pair{{Name: "far-user", Catches: audit.ORMEKeepAll, A: far, B: farB},
		{Name: "two-crowds", Catches: audit.ORMENoGate, A: two, B: twoB}}
}

func sgdPairs() map[string][]lab.Pair {
	hA, hB := huberEdge()
	return map[string][]lab.Pair{
		lab.SGD: {
			{Name: "far-user", Catches: audit.ORMEKeepAll, A: lab.CrowdOf(sgdUsers, 0),
				B: append(lab.CrowdOf(sgdUsers-1, 0), 1e4)},
			{Name: "two-crowds", Catches: audit.ORMENoGate, A: slices.Concat(lab.CrowdOf(sgdUsers/2, 0), lab.CrowdOf(sgdUsers/2, 100)),
				B: slices.Concat(lab.CrowdOf(sgdUsers/2-1, 0), lab.CrowdOf(sgdUsers/2+1, 100))},
		},
		lab.SGDSC: scPairs(),
		lab.RSGD: {
			// The last user, 10⁶ away: the plain mean moves the answer by
			// ηz/2B ≈ 260σ; the clipped one by at most ηr/2.
			{Name: "far-user", Catches: audit.RSGDNoClip, A: lab.CrowdOf(2*rsgdBatch, 0),
				B: append(lab.CrowdOf(2*rsgdBatch-1, 0), 1e6)},
			{Name: "huber-edge", Catches: audit.RSGDIndicator, A: hA,
				B: hB},
		},
	}
}

// elsewhere are the pairs of the lab's first part that catch what no pair
// here can: a whole DP-SGD run shows only whether its gate failed, not
// how narrowly.
var elsewhere = []lab.Catcher{{Mech: lab.Gate, Pair: lab.FlippingPair, Mutant: audit.ORMEHalfScoreNoise}}

// New opens on DP-SGD's far-user pair.
func New() *Scene {
	s := &Scene{MC: lab.MC{Runs: 100_000}}
	// As in the lab's first part: the audit's arrays are reserved as the
	// lesson opens, not in its first tick. DP-SGD's θ has two coordinates.
	s.Reserve(2)
	s.load(lab.SGD, sgdPairs()[lab.SGD][0])
	s.recompute()
	return s
}

func (s *Scene) load(m string, p lab.Pair) {
	s.mech, s.pair, s.mutant = m, p.Name, audit.NoMutant
	s.a, s.b = slices.Clone(p.A), slices.Clone(p.B)
}

// Info names the scene: the audit lab, whose other parts are packages
// auditlab, phasedlab and semilab.
func (s *Scene) Info() viz.Info { return lab.Info() }

func (s *Scene) guarantee() privacy.Guarantee {
	switch {
	case s.mech == lab.RSGD:
		return labRSGDParams(s.pair).Guarantee(len(s.a), 1, 1, false)
	case s.mech == lab.SGDSC && s.sc[0].Sample == nil:
		// Prepared with the runs: only a pair whose runs cannot be
		// prepared leaves it so.
		return privacy.Guarantee{Eps: scParams().Eps, Delta: scParams().Delta, Mode: privacy.Sound, Note: "not computed: the runs could not be prepared"}
	case s.mech == lab.SGDSC:
		return s.sc[0].Guarantee
	}
	cal, err := labSGDParams().ORME(max(len(s.a), 2), 1, 1).Calibrate(max(len(s.a), 2))
	if err != nil {
		return privacy.Guarantee{Eps: labSGDParams().Eps, Delta: labSGDParams().Delta, Mode: privacy.Sound, Note: err.Error()}
	}
	return labSGDParams().Guarantee(cal)
}

func (s *Scene) mutants() []string {
	if s.mech == lab.RSGD {
		return append([]string{audit.NoMutant}, audit.RSGDMutantNames()...)
	}
	return append([]string{audit.NoMutant}, audit.ORMEMutantNames()...)
}

// recompute prepares both sides' runs after any change (robust SGD's
// test law exactly); a running or finished Monte Carlo audit no longer
// matches the pair and is dropped.
func (s *Scene) recompute() {
	s.MC.Drop()
	s.err, s.sgd, s.sc, s.rsgd, s.rtest = nil, [2]audit.DPSGDRuns{}, [2]audit.DPSGDSCRuns{}, [2]audit.RSGDRuns{}, audit.RSGDTest{}
	variant := lab.Variant(s.mutant)
	if s.mech == lab.SGDSC {
		// Each phase's halting probability is exact, the answer sampled.
		for i, vals := range [][]float64{s.a, s.b} {
			if s.sc[i], s.err = audit.SampleDPSGDSC(scParams(), dataset.Values(vals), variant); s.err != nil {
				s.sc = [2]audit.DPSGDSCRuns{}
				return
			}
		}
		return
	}
	if s.mech == lab.SGD {
		// No closed form: only the gate's halting probability is exact.
		for i, vals := range [][]float64{s.a, s.b} {
			if s.sgd[i], s.err = audit.SampleDPSGD(labSGDParams(), dataset.Values(vals), variant); s.err != nil {
				return
			}
		}
		return
	}
	p, err := audit.RSGDMutant(labRSGDParams(s.pair), variant)
	if err != nil {
		s.err = err
		return
	}
	a, b := dataset.Values(s.a), dataset.Values(s.b)
	if s.rtest, s.err = audit.RSGDTestLaw(p, a, b, 1); s.err != nil {
		return
	}
	for i, d := range []*dataset.Dataset{a, b} {
		if s.rsgd[i], s.err = audit.SampleRSGD(p, d); s.err != nil {
			return
		}
	}
}

// startMC samples whole runs on both sides.
func (s *Scene) startMC() error {
	switch s.mech {
	case lab.RSGD:
		return s.MC.Start(s.rsgd[0].Sample, s.rsgd[1].Sample, s.guarantee())
	case lab.SGDSC:
		return s.MC.Start(s.sc[0].Sample, s.sc[1].Sample, s.guarantee())
	}
	return s.MC.Start(s.sgd[0].Sample, s.sgd[1].Sample, s.guarantee())
}

// Tick samples the Monte Carlo audit under way, a slice per frame.
func (s *Scene) Tick(float64) bool { return s.MC.Tick() }

// draggable says whether the student may drag the pair's users: the
// localisation's 8,192 users take too long to prepare for each move of a
// drag (40 ms natively), so its pairs are presets.
func (s *Scene) draggable() bool { return s.mech != lab.SGDSC }

func (s *Scene) form() viz.Form {
	drag := ""
	if s.draggable() {
		drag = "drag the users to make your own pair"
	}
	f := lab.Choices(&s.mech, &s.pair, &s.mutant, sgdPairs()[s.mech], drag, s.mutants())
	return append(f, s.MC.Fields(s.startMC)...)
}

// Controls declares the scene's inputs.
func (s *Scene) Controls() []viz.Control { return s.form().Controls() }

// Set changes one control; a mechanism of the lab's other parts answers
// where it is.
func (s *Scene) Set(name, value string) error {
	err := lab.Choose(s.form(), lab.SGDMechs, sgdPairs(), &s.mech, &s.pair, &s.mutant, s.load, name, value)
	if err != nil || name == "monte-carlo" {
		return err
	}
	s.recompute()
	return nil
}

// Readouts are the exact halting probabilities, robust SGD's test law,
// and the Monte Carlo audit's verdict.
func (s *Scene) Readouts() []viz.Readout {
	if s.err != nil {
		return viz.FailedReadouts("cannot audit", s.err)
	}
	var r []viz.Readout
	switch s.mech {
	case lab.SGD:
		r = append(r, viz.Readout{Name: "halt", Label: "Pr[the gate halts a run]", Value: math.Max(s.sgd[0].Halt, s.sgd[1].Halt),
			Text: format.Sprintf("%s on A, %s on B (exact); a halted run answers θ₀", audit.FormatProbability(s.sgd[0].Halt), audit.FormatProbability(s.sgd[1].Halt))})
	case lab.SGDSC:
		r = append(r, viz.Readout{Name: "halt", Label: "Pr[each phase's gate halts it]", Value: math.Max(slices.Max(s.sc[0].Halts), slices.Max(s.sc[1].Halts)),
			Text: scHaltText(s.sc) + "; a halted phase passes its start on, and a run whose every phase halted answers θ₀"})
	default:
		r = append(r, viz.Readout{Name: "halt", Label: "Pr[the test halts a run]", Value: math.Max(s.rsgd[0].Halt, s.rsgd[1].Halt),
			Text: format.Sprintf("%s on A, %s on B (exact); a halted run answers x₀ plus the noise", audit.FormatProbability(s.rsgd[0].Halt), audit.FormatProbability(s.rsgd[1].Halt))},
			viz.Readout{Name: "test", Label: "the test's privacy loss (exact)", Value: math.Max(s.rtest.Loss, s.rtest.WorstLoss), Warn: s.rtest.Violated(),
				Text: rsgdTestText(s.rtest)})
	}
	return s.MC.Verdicts(r, nil, s.guarantee())
}

// scHaltText lists each phase's exact halting probability on A and B.
func scHaltText(sc [2]audit.DPSGDSCRuns) string {
	side := func(h []float64) string {
		out := make([]string, len(h))
		for i, p := range h {
			out[i] = audit.FormatProbability(p)
		}
		return strings.Join(out, ", ")
	}
	return format.Sprintf("phase by phase, %s on A and %s on B (exact, independent)", side(sc[0].Halts), side(sc[1].Halts))
}

// rsgdTestText says what the test's halting step loses on the pair and at
// the proof's worst neighbour, against the ε/2 it may lose.
func rsgdTestText(t audit.RSGDTest) string {
	verdict := audit.Within
	if t.Violated() {
		verdict = audit.Violation
	}
	if t.Step == 0 {
		return format.Sprintf("the changed user is in no step: the runs are alike (may lose ε/2 = %g): %s", t.Budget, verdict)
	}
	return format.Sprintf("%.3g on this pair, %.3g against the proof's worst neighbour (the scores from step %d moved by 2), may lose ε/2 = %g: %s",
		t.Loss, t.WorstLoss, t.Step, t.Budget, verdict)
}

// Guarantee is the audited mechanism's claim.
func (s *Scene) Guarantee() privacy.Guarantee { return lab.UnderAudit(s.guarantee(), s.mutant) }

// Draw shows the pair, what is exact (DP-SGD's halting, robust SGD's test
// law and its verdict), and the answers the Monte Carlo audit samples.
func (s *Scene) Draw(w, h float64) *viz.List {
	l := &s.list
	l.Reset(w, h)
	s.users.Fit(&s.line, s.a, s.b, w)
	titles, ids := [2]string{"dataset A: one value per user", "neighbour B: one user of A replaced"}, 0
	if s.draggable() {
		titles, ids = [2]string{"dataset A (drag a user)", "neighbour B: one user of A replaced (drag it)"}, 1
	}
	y := lab.DrawPairRows(l, s.a, s.b, s.line, titles, ids, s.users.ID)
	// The verdict and the hint stack by their measured heights (a phone
	// wraps them); the plot goes below them.
	y = math.Max(178, y+24)
	if s.err != nil {
		figure.DrawFailure(l, w, y+12, "Cannot audit: "+s.err.Error())
		return l
	}
	caption := "sampled answers, projected on the audit's direction u: A (blue bars), B (orange outline); halted runs (θ₀) at the left"
	switch s.mech {
	case lab.SGD:
		text := format.Sprintf("No closed form for DP-SGD's answer; exact: Pr[the gate halts a run] is %s on A, %s on B (it then answers θ₀).",
			audit.FormatProbability(s.sgd[0].Halt), audit.FormatProbability(s.sgd[1].Halt))
		y += l.Text(viz.Point{X: 20, Y: y}, text, 13, viz.Ink, viz.Left)
	case lab.SGDSC:
		text := format.Sprintf("No closed form for the localisation's answer; exact: Pr[a phase's gate halts it], %s. A halted phase passes its start on; a run halts (θ₀) only if every phase does. Press M to sample whole runs on both sides.", scHaltText(s.sc))
		y += l.TextIn(viz.Point{X: 20, Y: y}, w-40, text, 13, viz.Ink, viz.Left)
		caption = "sampled answers, projected on the audit's direction u: A (blue bars), B (orange outline); runs that every phase halted (θ₀) at the left"
	default:
		y += s.drawRSGDTest(l, y)
		caption = "sampled answers: A (blue bars), B (orange outline); a halted run answers x₀ plus the same noise, so it is among them"
	}
	if hint := s.hint(); hint != "" {
		y += l.Text(viz.Point{X: 20, Y: y}, hint, 11, viz.Muted, viz.Left)
	}
	eps := s.guarantee().Eps
	// The plot starts below its caption, however many lines it wraps to.
	area := s.MC.PlotBelow(l, w, h, y, caption, eps, s.mutant)
	s.MC.DrawSampled(l, area, caption)
	s.MC.Draw(l, w, area.Y0+area.H+40, eps, s.mutant)
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

// hint says what to try next on a preset pair.
func (s *Scene) hint() string {
	if s.mech == lab.RSGD && s.mutant == audit.RSGDPaperNoise {
		return format.Sprintf("The printed noise leaks on long phases: over T = 2 steps its halting step loses at most %.2g, within ε/2 = %g, even against the proof's worst neighbour. Over 30 steps it loses ε.",
			s.rtest.WorstLoss, s.rtest.Budget)
	}
	return lab.Hint(s.mutant, s.pair, sgdPairs()[s.mech], elsewhere, s.draggable())
}

// Pointer drags a user of either dataset, keeping the pair neighbours
// (the localisation's pairs draw no user to grab).
func (s *Scene) Pointer(ev viz.Event) bool {
	switch ev.Kind {
	case viz.PointerDown:
		return s.users.Down(s.list.HitEvent(ev, 4), ev, s.a, s.b, s.line)
	case viz.PointerMove:
		if !s.users.Move(ev, s.a, s.b, s.line, 0) {
			return false
		}
		s.recompute()
		return true
	case viz.PointerUp:
		return s.users.Up()
	}
	return false
}

// ItemName names a user of row A or B.
func (s *Scene) ItemName(id int) string { return lab.ItemName(id, "user", s.a, s.b) }

// Describe says what the lab audits and what it found, then where the
// pair's users differ: a sentence of its own, so that a drag is spoken as
// that sentence alone.
func (s *Scene) Describe() string {
	text := lab.Describe(s.mech, s.mutant, format.Sprintf("the pair %s of %d users", s.pair, len(s.a)), s.Readouts())
	var differ []int
	for i := range s.a {
		if s.a[i] != s.b[i] {
			differ = append(differ, i)
		}
	}
	if len(differ) == 1 {
		i := differ[0]
		text += format.Sprintf(" The users are alike but user %d: %.4g in A, %.4g in B", i+1, s.a[i], s.b[i])
		if s.draggable() {
			text += " (drag them)"
		}
		text += "."
	}
	return text
}
