// Package lab holds what the audit lab's scenes share: the menu of every
// mechanism the lab audits (each scene shows some and points to the scene
// of the others), neighbouring pairs of users with one value each, and the
// Monte Carlo audit run a slice per frame.
package lab

import (
	"slices"

	"github.com/uldplab/uldp/core/audit"
	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/figure"
)

// DrawPairRows draws a neighbouring pair's values as two rows on one line
// (the first title names its scale), the changed user marked, row A's
// dots with IDs from idBase and row B's from idBase + RowB (0: none),
// and returns the y below them.
func DrawPairRows(l *viz.List, a, b []float64, line figure.NumberLine, titles [2]string, idBase, drag int) float64 {
	changed := -1
	for i := range a {
		if a[i] != b[i] {
			changed = i
		}
	}
	titles[0] += line.ScaleNote()
	// Each row sits below the one above by its title's height and its
	// dots' stack (a phone's short line stacks them higher).
	y := 24.0
	for row, vals := range [][]float64{a, b} {
		id := 0
		if idBase > 0 {
			id = idBase + row*RowB
		}
		y = figure.RowBelow(l, y, vals, line, titles[row])
		figure.DrawValueRow(l, vals, line, y, id, changed, drag, titles[row])
		y += 32
	}
	return y
}

// Mechanisms the audit lab can audit.
const (
	Del   = "deloutputpert"
	AT    = "abovethreshold"
	Gauss = "gaussian"
	ORME  = "orme"
	Gate  = "orme-gate"
	SGD   = "dp-sgd"
	SGDSC = "dp-sgd-sc" // Paper B's strongly convex localisation
	RSGD  = "robust-sgd"
)

// Mechs lists package auditlab's mechanisms, in menu order.
var Mechs = []string{Del, AT, Gauss, ORME, Gate}

// SGDMechs are package sgdlab's mechanisms, whole SGD runs sampled: a
// scene of their own, which the browser loads as a module of its own, so
// that no other module of the lab holds DP-SGD or robust SGD.
var SGDMechs = []string{SGD, SGDSC, RSGD}

// FlippingPair is the gate's preset pair (package auditlab), which
// catches audit.ORMEHalfScoreNoise: DP-SGD's audit, which cannot see
// that variant, points to it.
const FlippingPair = "flipping"

// CrowdOf returns n users at one value.
func CrowdOf(n int, v float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// Pair is a preset neighbouring pair: each is the pair on which one
// broken variant is caught, so a student can see the catch before hunting
// for pairs by dragging.
type Pair struct {
	// Name names the pair in the lab's menu; Catches is the broken
	// variant it was built to catch.
	Name, Catches string
	// A and B are the users' values on either side.
	A, B []float64
}

// MutantHelp says what each broken variant breaks.
func MutantHelp() map[string]string {
	out := map[string]string{
		audit.NoMutant:           "the real mechanism",
		audit.ATNoThreshold:      "the threshold gets no noise",
		audit.ATHalfQuery:        "each query gets Lap(2/ε), half the noise the proof needs",
		audit.GaussianClassical:  "the textbook σ used beyond its proof (ε ≥ 1)",
		audit.ORMENoGate:         "ORME without its gate",
		audit.ORMEHalfScoreNoise: "the score's noise at half the sound scale",
		audit.ORMEKeepAll:        "everyone kept instead of the ramp",
		audit.RSGDPaperNoise:     "the test's noise as printed, Lap(4/ε) and Lap(8/ε), for scores of sensitivity 2",
		audit.RSGDNoClip:         "the plain batch mean, not clipped to the median ± r",
		audit.RSGDTrimTooLittle:  "the trimmed mean trims one user fewer than B/3 at each end",
		audit.RSGDIndicator:      "the score counts pairs within r (an indicator) instead of exp(−‖·‖∞/r)",
		"no-score-noise":         "the gate compares the score with 4C/5 without its Laplace noise",
		"counts-at-tau":          "the ramp counts neighbours within τ instead of 2τ",
		"weak-gate":              "the gate's noise is Lap(2/ε) instead of Lap(20/ε)",
	}
	for _, name := range audit.DelMutantNames() {
		if m, err := audit.DelMutantByName(name); err == nil {
			out[name] = m.Broken
		}
	}
	return out
}

// Info names the audit lab, whichever of its scenes shows it.
func Info() viz.Info {
	return viz.Info{Name: "audit", Title: "Audit lab",
		Summary: "Does the code keep its promise? Exact δ(ε) and Monte Carlo audits of a neighbouring pair, with broken variants to catch."}
}

// Variant is the name the audit package takes for the broken variant
// mutant: "" for the real mechanism (the menu's audit.NoMutant).
func Variant(mutant string) string {
	if mutant == audit.NoMutant {
		return ""
	}
	return mutant
}

// UnderAudit is the claim g of a mechanism as the lab shows it with the
// broken variant mutant under audit: the real mechanism's, which the
// variant does not inherit.
func UnderAudit(g privacy.Guarantee, mutant string) privacy.Guarantee {
	if mutant != audit.NoMutant {
		g.Note = "the real mechanism's claim, which the broken variant under audit does not inherit"
		g.Preconditions = append(g.Preconditions, privacy.Fact("the code under audit is the mechanism the proof is about (it runs the broken variant “"+mutant+"”)", false))
	}
	return g
}

// The audit lab's mechanisms that run in phases, Lowy, Liu & Asi's
// (2024). They live in a scene of their own (package phasedlab), which the
// browser loads as a module of its own: the lab's first module has no room
// left for them.
const (
	OIR   = "outlier-iterate-removal"
	Accel = "accelerated-outlier-removal"
)

// PhasedMechs are package phasedlab's mechanisms, in menu order.
var PhasedMechs = []string{OIR, Accel}

// AllMechs is the audit lab's whole menu, every scene's mechanisms.
func AllMechs() []string {
	return slices.Concat(Mechs, SGDMechs, PhasedMechs, SemiMechs)
}

// MechHelp says what each of the lab's mechanisms audits.
func MechHelp() map[string]string {
	return map[string]string{
		Del:   "Paper A's DelOutputPert: the stability test, then Gaussian noise",
		AT:    "AboveThreshold over the queries",
		Gauss: "the Gaussian mechanism on one answer",
		ORME:  "Paper B's outlier-removal mean on one query",
		Gate:  "ORME's gate alone over 8 queries, against its share (ε/2, 0) of the budget",
		SGD:   "whole DP-SGD runs, sampled (no closed form)",
		SGDSC: "Paper B's strongly convex localisation: four DP-SGD phases on disjoint users, each from the last one's answer; each phase's gate exactly, whole runs sampled",
		RSGD:  "Ghazi et al. 2025's robust-statistics SGD, one phase of 2 steps in file order: its test's law exactly, whole runs sampled",
		OIR:   "Lowy, Liu & Asi 2024's outlier-iterate removal: the phase holding the changed user, its gate and coins exactly, whole phases sampled",
		Accel: "Lowy, Liu & Asi 2024's accelerated variant: whole runs sampled (its checks see gradients at points earlier noise chose: no closed form)",
		PVMW:  "Ghazi et al. 2024's PVMW for semi-sensitive features: one example's sensitive value changes; three of its releases sampled",
	}
}

// Elsewhere is the error a lab scene answers for a mechanism the other
// scene shows: the lesson's link with it, for the page (or the desktop's
// app) to open there.
func Elsewhere(m string) error {
	return viz.ElsewhereError{State: "scene=audit&mech=" + m}
}

// PointAt is the first profile point at or beyond ε.
func PointAt(pts []audit.Point, eps float64) (audit.Point, bool) {
	for _, p := range pts {
		if p.Eps >= eps {
			return p, true
		}
	}
	return audit.Point{}, false
}

// PVMW is the audit lab's semi-sensitive mechanism, in a scene of its
// own (package semilab) that the browser loads as a third module of the lab.
const PVMW = "pvmw"

// SemiMechs are package semilab's mechanisms.
var SemiMechs = []string{PVMW}

// RowB offsets the hit-test ids of row B's users: 1… are row A's,
// RowB+1… row B's.
const RowB = 1000

// Catcher is a preset pair of another mechanism, which catches the
// variant Mutant: a hint points to it.
type Catcher struct{ Mech, Pair, Mutant string }

// Hint says what to try next on the preset pair named pair, of the
// mechanism whose preset pairs are own, with the variant mutant under
// audit: that pair's variant (or, with drag, a pair of one's own), the
// pair that catches mutant, or a pair of elsewhere that does; "" when the
// pair catches it.
func Hint(mutant, pair string, own []Pair, elsewhere []Catcher, drag bool) string {
	for _, p := range own {
		if p.Name != pair {
			continue
		}
		if mutant == audit.NoMutant && drag {
			return "Try the broken variant “" + p.Catches + "” on this pair, or drag a user to make your own pair."
		}
		if mutant == audit.NoMutant {
			return "Try the broken variant “" + p.Catches + "” on this pair."
		}
		if mutant == p.Catches {
			return ""
		}
	}
	for _, p := range own {
		if p.Catches == mutant {
			return "The preset pair “" + p.Name + "” catches “" + mutant + "”."
		}
	}
	for _, c := range elsewhere {
		if c.Mutant == mutant {
			return "This audit cannot see “" + mutant + "”; mechanism “" + c.Mech + "” with the pair “" + c.Pair + "” catches it."
		}
	}
	return "No preset pair catches “" + mutant + "”: an audit only shows a violation that some pair exposes, and at these settings this variant may be safe on every pair."
}

// Describe is an audit's figure in words: what is audited on what, and
// the verdicts the panel shows (exact, and by sampling when run).
func Describe(mech, mutant, on string, rs []viz.Readout) string {
	variant := "the real mechanism"
	if mutant != audit.NoMutant {
		variant = "the broken variant " + mutant
	}
	name := mech
	if h, ok := MechHelp()[mech]; ok {
		name = h
	}
	return format.Sprintf("Audit of %s — %s — on %s: its privacy profile δ(ε) on the pair of inputs A and B, computed exactly where it can be and by sampling runs when asked, against the claimed guarantee. ", name, variant, on) +
		viz.Recite(rs, "exact", "mc", "halt", "test", "gate", "phase", "claim")
}

// Choices are the controls every part with preset pairs shows: the lab's
// whole menu of mechanisms, the preset pairs of the mechanism shown (drag,
// if not "", says how to make one's own) and its broken variants.
func Choices(mech, pair, mutant *string, pairs []Pair, drag string, mutants []string) viz.Form {
	var names []string
	help := map[string]string{}
	for _, p := range pairs {
		names = append(names, p.Name)
		if p.Catches != "" {
			help[p.Name] = "a preset pair that catches “" + p.Catches + "”"
		}
	}
	return viz.Form{
		viz.Choose(mech, viz.Control{Name: "mech", Label: "mechanism", Choices: AllMechs(), ChoiceHelp: MechHelp()}),
		viz.Choose(pair, viz.Control{Name: "pair", Label: "neighbouring pair", Choices: names, Help: drag, ChoiceHelp: help}),
		viz.Choose(mutant, viz.Control{Name: "mutant", Label: "broken variant", Choices: mutants,
			Help: "a bug the audit must catch on some pair", ChoiceHelp: MutantHelp()}),
	}
}

// Choose sets the control name to value through form, for a part that
// shows the mechanisms mechs, with pairs the preset pairs of each. A
// mechanism of another part answers where it is (Elsewhere). A mechanism
// chosen opens on its first pair and the real mechanism, and a pair
// chosen keeps the variant under audit: load(mech, pair) switches, setting
// the part's mechanism, pair and variant (the real one).
func Choose(form viz.Form, mechs []string, pairs map[string][]Pair, mech, pair, mutant *string, load func(string, Pair), name, value string) error {
	if name == "mech" && !slices.Contains(mechs, value) && slices.Contains(AllMechs(), value) {
		return Elsewhere(value)
	}
	kept := *mutant
	if err := form.Set(name, value); err != nil {
		return err
	}
	switch name {
	case "mech":
		load(*mech, pairs[*mech][0])
	case "pair":
		for _, p := range pairs[*mech] {
			if p.Name == *pair {
				load(*mech, p)
				*mutant = kept
			}
		}
	}
	return nil
}
