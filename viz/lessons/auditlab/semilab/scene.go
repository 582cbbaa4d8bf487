// Package semilab is the audit lab's part for PVMW, the semi-sensitive
// mechanism: three of its releases sampled, each against its share of the
// budget, in a browser module of its own.
package semilab

import (
	"slices"
	"strconv"

	"github.com/uldplab/uldp/core/audit"
	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/semisens"
	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/lessons/auditlab/internal/lab"
)

// Mechs are the audit lab's mechanisms this part shows: the lesson list
// opens this part's module for them.
func Mechs() []string { return slices.Clone(lab.SemiMechs) }

// Scene audits PVMW in the lab: a fixed pair of four examples whose
// first changes its sensitive value, seen through one of three releases —
// the gate's halting index, the first noisy answer, the beliefs after an
// update — each against the share of the budget that pays for it.
type Scene struct {
	mech, view, mutant string
	lab.MC
	list viz.List
}

// semiViewHelp says what each view samples.
var semiViewHelp = map[string]string{
	audit.ViewGate:    "how many tests pass before the first update: AboveThreshold's halting index, pure ε′-DP (ε′ = 4 here)",
	audit.ViewRelease: "the first released noisy answer v = f(D) + z: the test's bit and the Gaussian",
	audit.ViewAnswer:  "the beliefs' answer after the first update: post-processing of the test, v and ι",
}

// semiMutantHelp says what each of PVMW's broken variants breaks, and
// which view catches it.
var semiMutantHelp = map[string]string{
	audit.NoMutant:                      "the real mechanism",
	semisens.MWUPeeks.String():          "the update reads the sensitive values (caught in the answer view)",
	semisens.NoThresholdNoise.String():  "the tests' threshold gets no noise, so every ⊥ leaks (caught in the gate view)",
	semisens.GaussianTenth.String():     "the Gaussian at a tenth of its std (caught in the release view)",
	semisens.TightChargedPaper.String(): "the tight std σ/n under the paper's accounting: harmless, since the paper charges four times the cost",
}

// New opens on PVMW's gate view.
func New() *Scene {
	s := &Scene{mech: lab.PVMW, view: audit.ViewGate, mutant: audit.NoMutant, MC: lab.MC{Runs: 50_000}}
	s.Reserve(1)
	return s
}

// Info names the scene: the audit lab, whose other parts are packages
// auditlab, sgdlab and phasedlab.
func (s *Scene) Info() viz.Info { return lab.Info() }

// setup is the view's audit of the variant under audit.
func (s *Scene) setup() (audit.PVMWAudit, error) {
	name := s.mutant
	if name == audit.NoMutant {
		name = semisens.Correct.String()
	}
	m, err := semisens.ParseMutant(name)
	if err != nil {
		return audit.PVMWAudit{}, err
	}
	return audit.NewPVMWAudit(s.view, m, 1e-3)
}

func (s *Scene) guarantee() privacy.Guarantee {
	a, _ := s.setup() // the view and variant are the form's choices
	return a.Claim
}

func (s *Scene) startMC() error {
	a, err := s.setup()
	if err != nil {
		return err
	}
	return s.MC.Start(a.A, a.B, a.Claim)
}

func (s *Scene) form() viz.Form {
	f := viz.Form{
		viz.Choose(&s.mech, viz.Control{Name: "mech", Label: "mechanism", Choices: lab.AllMechs(), ChoiceHelp: lab.MechHelp()}),
		viz.Choose(&s.view, viz.Control{Name: "view", Label: "what the audit sees", Choices: audit.PVMWViews, ChoiceHelp: semiViewHelp}),
		viz.Choose(&s.mutant, viz.Control{Name: "mutant", Label: "broken variant", Choices: append([]string{audit.NoMutant}, semisens.MutantNames()...),
			Help: "a bug the audit must catch in some view", ChoiceHelp: semiMutantHelp}),
	}
	return append(f, s.MC.Fields(s.startMC)...)
}

// Controls declares the scene's inputs.
func (s *Scene) Controls() []viz.Control { return s.form().Controls() }

// Set changes one control; a mechanism of the lab's other scenes answers
// where it is. A change of view or variant drops the audit.
func (s *Scene) Set(name, value string) error {
	if name == "mech" && !slices.Contains(lab.SemiMechs, value) && slices.Contains(lab.AllMechs(), value) {
		return lab.Elsewhere(value)
	}
	if err := s.form().Set(name, value); err != nil || name == "monte-carlo" || name == "runs" {
		return err
	}
	s.MC.Drop()
	return nil
}

// Tick samples the Monte Carlo audit under way, a slice per frame.
func (s *Scene) Tick(float64) bool { return s.MC.Tick() }

// Readouts: the claim the view is held to, and the audit's verdict.
func (s *Scene) Readouts() []viz.Readout {
	g := s.guarantee()
	r := []viz.Readout{{Name: "claim", Label: "the view's claim", Value: g.Eps,
		Text: format.Sprintf("(ε = %.3g, δ = %.3g): %s", g.Eps, g.Delta, g.Note)}}
	return s.MC.Verdicts(r, nil, g)
}

// Guarantee is the view's claim, or the real mechanism's under a broken
// variant.
func (s *Scene) Guarantee() privacy.Guarantee { return lab.UnderAudit(s.guarantee(), s.mutant) }

// Pointer: the pair is fixed.
func (s *Scene) Pointer(viz.Event) bool { return false }

// Draw shows the pair — four examples, the first with another sensitive
// value in B — what the view samples, and the Monte Carlo audit.
func (s *Scene) Draw(w, h float64) *viz.List {
	l := &s.list
	l.Reset(w, h)
	y := 20.0
	y += l.TextIn(viz.Point{X: 20, Y: y}, w-40, "PVMW on four examples with one query, f(x, 1) = 1 and f(x, 2) = −1: A holds value 1 everywhere (f(A) = 1); its neighbour B gives example 1 the value 2 (f(B) = ½), the whole 2/n, away from the uniform beliefs' answer 0.", 13, viz.Ink, viz.Left)
	bw := min(88, (w-70)/4-8)
	l.Text(viz.Point{X: 50, Y: y + 14}, "the sensitive values of examples 1 to 4", 11, viz.Muted, viz.Left)
	for row, title := range []string{"A", "B"} {
		ry := y + 24 + float64(row)*34
		l.Text(viz.Point{X: 20, Y: ry + 12}, title, 13, viz.Ink, viz.Left)
		for i := range 4 {
			v := 1
			if row == 1 && i == 0 {
				v = 2
			}
			x := 50 + float64(i)*(bw+8)
			style := viz.Style{Fill: viz.Sky, Alpha: 0.5, Stroke: viz.Muted, Width: 1}
			if v == 2 {
				style = viz.Style{Fill: viz.Orange, Alpha: 0.6, Stroke: viz.Ink, Width: 1.5}
			}
			l.Rect(viz.Point{X: x, Y: ry}, viz.Point{X: x + bw, Y: ry + 24}, style, 0)
			l.Text(viz.Point{X: x + bw/2, Y: ry + 12}, strconv.Itoa(v), 12, viz.Ink, viz.Centre)
		}
	}
	y += 24 + 2*34 + 16
	g := s.guarantee()
	y += l.TextIn(viz.Point{X: 20, Y: y}, w-40, "View: "+semiViewHelp[s.view]+format.Sprintf(". Claim: (ε = %.3g, δ = %.3g), %s.", g.Eps, g.Delta, g.Note), 12, viz.Muted, viz.Left)
	s.MC.Draw(l, w, y+24, g.Eps, s.mutant)
	return l
}

// Describe says what the lab audits and what it found.
func (s *Scene) Describe() string {
	return lab.Describe(s.mech, s.mutant, "the "+s.view+" view", s.Readouts())
}
