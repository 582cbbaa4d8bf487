// Package phasedlab is the audit lab's part for Lowy, Liu & Asi's
// mechanisms, which run in phases: outlier-iterate removal and its
// accelerated variant. The same lesson as package auditlab, in a browser
// module of its own.
package phasedlab

import (
	"context"
	"math"
	"slices"

	"github.com/uldplab/uldp/core/audit"
	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/loss"
	"github.com/uldplab/uldp/core/optim"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/figure"
	"github.com/uldplab/uldp/viz/lessons/auditlab/internal/lab"
)

// Mechs are the audit lab's mechanisms this part shows: the lesson list
// opens this part's module for them.
func Mechs() []string { return slices.Clone(lab.PhasedMechs) }

// Scene is the audit lab for phased algorithms: the same lesson as package
// auditlab's scene (its menu lists every mechanism), on pairs of users
// with one value each.
type Scene struct {
	mech, pair, mutant string
	a, b               []float64
	law                audit.OIRLaw
	err                error
	lab.MC
	list viz.List
}

// oirLabParams run one phase of C = 20 single-user groups whose one SGD
// step lands on the user's value (η₁μ = 1), τ ≈ 0.5, sound mode, ε = 1,
// δ = 10⁻⁵ — the pairs the audit's own tests catch the variants on.
func oirLabParams() optim.OIRParams {
	return optim.OIRParams{Eps: 1, Delta: 1e-5, Loss: loss.Squared{Mu: 1}, Lipschitz: 1, Radius: 1000, Eta: 2, PExp: 1, QExp: 1,
		Groups: 20, Phases: 1, TauScale: 0.1, Order: optim.Given, Mode: privacy.Sound}
}

// accelLabParams run two phases in teaching mode with K = 4 users a step
// and c_τ = 0.1: small enough to sample thousands of whole runs.
func accelLabParams() optim.AccelParams {
	return optim.AccelParams{Eps: 8, Delta: 1e-5, Loss: loss.Squared{Mu: 1}, Lipschitz: 2, Radius: 30, PExp: 4, QExp: 0.5,
		Phases: 2, TauScale: 0.1, Batch: 4, Mode: privacy.Teaching}
}

// oirPair is 80 users: phase 1 takes users 1–20, one per group; the first
// inCluster sit at 0 and the rest of those 20 far apart; B moves user 1
// to 500.
func oirPair(inCluster int) (a, b []float64) {
	a = make([]float64, 80)
	for i := inCluster; i < 20; i++ {
		a[i] = 10 * float64(i)
	}
	b = slices.Clone(a)
	b[0] = 500
	return a, b
}

func phasedPairs() map[string][]lab.Pair {
	farA, farB := oirPair(20)
	edgeA, edgeB := oirPair(18)
	return map[string][]lab.Pair{
		lab.OIR: {
			{Name: "far-member", Catches: "keep-all", A: farA,
				B: farB},
			{Name: "gate-edge", Catches: "no-score-noise", A: edgeA,
				B: edgeB},
		},
		lab.Accel: {
			{Name: "far-user", Catches: "", A: lab.CrowdOf(40, 0),
				B: append(lab.CrowdOf(39, 0), 9)},
		},
	}
}

// New opens on outlier-iterate removal's far-member pair.
func New() *Scene {
	s := &Scene{MC: lab.MC{Runs: defaultRuns}}
	// As in the lab's first part: the audit's arrays are reserved as the lesson opens,
	// not in its first tick (growing a browser's memory there took 1.5 s).
	s.Reserve(1)
	s.load(lab.OIR, phasedPairs()[lab.OIR][0])
	return s
}

func (s *Scene) load(m string, p lab.Pair) {
	s.mech, s.pair, s.mutant = m, p.Name, audit.NoMutant
	s.a, s.b = slices.Clone(p.A), slices.Clone(p.B)
	s.recompute()
}

// defaultRuns is how many runs a side an audit samples unless told: whole
// phases and runs of these mechanisms are slow to sample in a browser.
const defaultRuns = 20_000

// Info names the scene: the audit lab, whose other parts are packages
// auditlab, sgdlab and semilab.
func (s *Scene) Info() viz.Info { return lab.Info() }

func (s *Scene) guarantee() privacy.Guarantee {
	if s.mech == lab.Accel {
		return accelLabParams().Guarantee(len(s.a), 1, 1)
	}
	return s.params().Guarantee(len(s.a), 1, 1)
}

// params are outlier-iterate removal's, broken as the variant under audit.
func (s *Scene) params() optim.OIRParams {
	p := oirLabParams()
	if s.mutant != audit.NoMutant {
		p, _ = audit.OIRMutant(p, s.mutant) // mutant is one of the form's choices
	}
	return p
}

// recompute redoes the exact law after any change and drops the audit.
func (s *Scene) recompute() {
	s.MC.Drop()
	s.err, s.law = nil, audit.OIRLaw{}
	if s.mech != lab.OIR {
		return
	}
	g := s.guarantee()
	eps := make([]float64, 81)
	for i := range eps {
		eps[i] = 2 * g.Eps * float64(i) / 80
	}
	s.law, s.err = audit.OIRPhaseLaw(s.params(), dataset.Values(s.a), dataset.Values(s.b), 1, g, eps)
}

// startMC samples whole phases (outlier-iterate removal, from the exact
// law's fixed start and end iterates) or whole runs (the accelerated
// variant).
func (s *Scene) startMC() error {
	if s.mech == lab.OIR {
		if s.law.Group == 0 {
			return format.Errorf("no phase holds the changed user: both sides run alike")
		}
		return s.MC.Start(s.law.Sampler(s.params(), s.law.A), s.law.Sampler(s.params(), s.law.B), s.guarantee())
	}
	p := accelLabParams()
	run := func(d *dataset.Dataset) audit.Sampler {
		return func(st *rng.Streams) ([]float64, error) {
			res, _, err := optim.Accelerated(context.Background(), p, d, st, nil)
			return res.Output, err
		}
	}
	return s.MC.Start(run(dataset.Values(s.a)), run(dataset.Values(s.b)), s.guarantee())
}

// Tick samples the Monte Carlo audit under way, a slice per frame.
func (s *Scene) Tick(float64) bool { return s.MC.Tick() }

func (s *Scene) mutants() []string {
	if s.mech == lab.Accel {
		return []string{audit.NoMutant}
	}
	return append([]string{audit.NoMutant}, optim.OIRMutantNames()...)
}

func (s *Scene) form() viz.Form {
	f := lab.Choices(&s.mech, &s.pair, &s.mutant, phasedPairs()[s.mech], "", s.mutants())
	return append(f, s.MC.Fields(s.startMC)...)
}

// Controls declares the scene's inputs.
func (s *Scene) Controls() []viz.Control { return s.form().Controls() }

// Set changes one control; a mechanism of the lab's other scenes answers
// where it is.
func (s *Scene) Set(name, value string) error {
	err := lab.Choose(s.form(), lab.PhasedMechs, phasedPairs(), &s.mech, &s.pair, &s.mutant, s.load, name, value)
	if err != nil || name == "monte-carlo" || name == "mech" {
		return err // load computed a mechanism chosen
	}
	s.recompute()
	return nil
}

// Readouts are the exact verdicts and the Monte Carlo audit's.
func (s *Scene) Readouts() []viz.Readout {
	if s.err != nil {
		return viz.FailedReadouts("cannot audit", s.err)
	}
	g := s.guarantee()
	var r []viz.Readout
	if s.mech == lab.OIR {
		l := s.law
		r = append(r, viz.Readout{Name: "phase", Label: "the changed user",
			Text: format.Sprintf("phase %d, group %d of C = %d (τ = %.3g, σ = %.3g)", l.Phase, l.Group, l.C, l.Tau, l.Sigma)},
			viz.Readout{Name: "gate", Label: "the gate's privacy loss (exact)", Value: l.GateLoss, Warn: l.GateLoss > l.GateBudget+1e-12,
				Text: format.Sprintf("%.4g against its budget ε_g = %.4g (Pr[pass] %.4g on A, %.4g on B)", l.GateLoss, l.GateBudget, l.A.PPass, l.B.PPass)})
		return s.MC.Verdicts(r, l.Points, g)
	}
	return s.MC.Verdicts(nil, nil, g)
}

// Guarantee is the audited mechanism's claim.
func (s *Scene) Guarantee() privacy.Guarantee { return lab.UnderAudit(s.guarantee(), s.mutant) }

// Pointer: the pairs are presets here.
func (s *Scene) Pointer(viz.Event) bool { return false }

// Draw shows the pair, the exact verdicts and profile (outlier-iterate
// removal), and the Monte Carlo audit.
func (s *Scene) Draw(w, h float64) *viz.List {
	l := &s.list
	l.Reset(w, h)
	line := figure.FitLine(append(slices.Clone(s.a), s.b...), 40, w-80)
	y := lab.DrawPairRows(l, s.a, s.b, line, [2]string{"dataset A: one value per user", "neighbour B: one user of A replaced"}, 0, 0)
	y = math.Max(178, y+24)
	if s.err != nil {
		figure.DrawFailure(l, w, y+12, "Cannot audit: "+s.err.Error())
		return l
	}
	g := s.guarantee()
	switch s.mech {
	case lab.Accel:
		y += l.TextIn(viz.Point{X: 20, Y: y}, w-40, "No closed form: the accelerated variant's checks see gradients at points the earlier noise chose. Press M to sample whole runs on both sides.", 13, viz.Ink, viz.Left)
		s.drawSampled(l, w, h, y, "sampled answers, projected on the audit's direction u: A (blue bars), B (orange outline)")
		return l
	}
	law := s.law
	text, bad := format.Sprintf("the gate loses %.3g ≤ ε_g = %.3g", law.GateLoss, law.GateBudget), false
	if law.GateLoss > law.GateBudget+1e-12 {
		text, bad = format.Sprintf("the gate loses %.3g > ε_g = %.3g", law.GateLoss, law.GateBudget), true
	}
	if p, ok := lab.PointAt(law.Points, g.Eps); ok {
		text += format.Sprintf("; δ(ε = %g) = %.3g, %.3g vs %g: %s", g.Eps, p.DeltaAB, p.DeltaBA, g.Delta, p.Verdict)
		bad = bad || p.Verdict == audit.Violation
	}
	text, col := "✓ keeps its promise on this pair: "+text, viz.Green
	if bad {
		text, col = "✗ VIOLATION on this pair: "+text[len("✓ keeps its promise on this pair: "):], viz.Vermillion
		if s.mutant != audit.NoMutant {
			text += " — the audit catches “" + s.mutant + "”"
		}
	}
	y += l.TextIn(viz.Point{X: 20, Y: y}, w-40, text, 14, col, viz.Left)
	caption := figure.ProfileCaption("A vs B", "B vs A")
	area := s.MC.PlotBelow(l, w, h, y, caption, g.Eps, s.mutant)
	if len(law.Points) > 0 {
		figure.Profile(l, area, law.Points, g.Eps, g.Delta, caption)
	}
	s.MC.Draw(l, w, area.Y0+area.H+40, g.Eps, s.mutant)
	return l
}

// drawSampled draws, below text ending at y, the answers the Monte Carlo
// audit has sampled, where an exact law has no closed form, then its text.
func (s *Scene) drawSampled(l *viz.List, w, h, y float64, caption string) {
	eps := s.guarantee().Eps
	area := s.MC.PlotBelow(l, w, h, y, caption, eps, s.mutant)
	s.MC.DrawSampled(l, area, caption)
	s.MC.Draw(l, w, area.Y0+area.H+40, eps, s.mutant)
}

// Describe says what the lab audits and what it found.
func (s *Scene) Describe() string {
	return lab.Describe(s.mech, s.mutant, "the pair "+s.pair, s.Readouts())
}
