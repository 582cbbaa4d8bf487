// Package calibration is lesson 2, noise calibration: from ε, δ and the
// sensitivity Δ to a noise scale, every step of its derivation shown, item
// level against user level.
package calibration

import (
	"math"

	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/figure"
)

// Scene is lesson 2: from ε, δ and a sensitivity Δ to a noise scale,
// for the mean of n users' m values in [−R, R], at item level (Δ = 2R/(nm))
// and at user level (Δ = 2R/n) side by side, with every step of each
// derivation, and the total budget of k such releases under every
// composition rule.
type Scene struct {
	mech       string
	eps, delta float64
	n, m       int
	radius     float64
	k          int
	rule       string // a privacy.Rule, or bestRule
	slack      float64

	item, user privacy.Calibration
	rules      privacy.Comparison
	total      privacy.Composition // the rule in force
	err        error
}

// bestRule totals k releases under whichever rule gives the smallest ε.
const bestRule = "best"

// ruleChoices lists "best" and every composition rule.
func ruleChoices() []string {
	out := []string{bestRule}
	for _, r := range privacy.Rules {
		out = append(out, string(r))
	}
	return out
}

// New returns the lesson at ε = 1, δ = 1e-5, analytic Gaussian.
func New() *Scene {
	c := &Scene{mech: privacy.MechAnalyticGaussian, eps: 1, delta: 1e-5, n: 100, m: 20, radius: 1, k: 1, rule: bestRule, slack: 1e-6}
	c.recompute()
	return c
}

// Info names the scene.
func (c *Scene) Info() viz.Info {
	return viz.Info{Name: "calibration", Title: "Noise calibration",
		Summary: "From ε, δ and the sensitivity Δ to the noise scale, item level against user level."}
}

func (c *Scene) itemSens() float64 { return 2 * c.radius / float64(c.n*c.m) }
func (c *Scene) userSens() float64 { return 2 * c.radius / float64(c.n) }

// recompute calibrates both levels and the composition; every input was
// range-checked by Set, so an error here is a formula's own refusal (κ too
// large, say) and is shown rather than returned.
func (c *Scene) recompute() {
	c.err = nil
	var err1, err2, err3 error
	c.item, err1 = privacy.Calibrate(c.mech, c.eps, c.delta, c.itemSens())
	c.user, err2 = privacy.Calibrate(c.mech, c.eps, c.delta, c.userSens())
	if err2 == nil {
		c.rules, err3 = privacy.CompareRules(c.user.Spend("release"), c.k, c.slack)
	}
	if err3 == nil && err2 == nil {
		want := privacy.Rule(c.rule)
		if c.rule == bestRule {
			want = c.rules.Best
		}
		for _, r := range c.rules.Rules {
			if r.Rule == want {
				c.total = r
			}
		}
	}
	for _, err := range []error{err1, err2, err3} {
		if err != nil && c.err == nil {
			c.err = err
		}
	}
}

// form binds the scene's inputs.
func (c *Scene) form() viz.Form {
	return viz.Form{
		viz.Choose(&c.mech, viz.Control{Name: "mech", Label: "mechanism", Choices: privacy.CalibratorNames(),
			ChoiceHelp: map[string]string{
				privacy.MechAnalyticGaussian: "the Gaussian's σ from its exact privacy curve (Balle & Wang 2018): the smallest σ, at every ε",
				privacy.MechDelOutputPert:    "Paper A's output perturbation behind a stability test: the whole derivation from ε to σ",
				privacy.MechGaussian:         "the textbook σ = √(2 ln(1.25/δ))·Δ/ε, proven for ε < 1 only",
				privacy.MechLaplace:          "Laplace noise of scale Δ/ε: pure ε-DP, δ = 0",
			}}),
		viz.Float(&c.eps, viz.Control{Name: "eps", Label: "ε", Kind: viz.Slider, Min: 0.01, Max: 20, Log: true}),
		viz.Float(&c.delta, viz.Control{Name: "delta", Label: "δ", Kind: viz.Slider, Min: 1e-12, Max: 0.5, Log: true,
			Help: "not used by Laplace, which is pure ε-DP"}),
		viz.Int(&c.n, viz.Control{Name: "n", Label: "users n", Kind: viz.Slider, Min: 2, Max: 100000, Log: true}),
		viz.Int(&c.m, viz.Control{Name: "m", Label: "items per user m", Kind: viz.Slider, Min: 1, Max: 1000, Log: true}),
		viz.Float(&c.radius, viz.Control{Name: "radius", Label: "values in [−R, R]", Kind: viz.Slider, Min: 0.01, Max: 100, Log: true}),
		viz.Int(&c.k, viz.Control{Name: "k", Label: "releases k", Kind: viz.Slider, Min: 1, Max: 10000, Log: true,
			Help: "how many such releases the budget must cover"}),
		viz.Choose(&c.rule, viz.Control{Name: "rule", Label: "composition", Choices: ruleChoices(),
			Help: "which rule's total the guarantee states; all of them are sound",
			ChoiceHelp: map[string]string{
				bestRule:   "the smallest ε of the four (within 0.1 %, the smaller δ)",
				"basic":    "the k releases' ε and δ add up",
				"advanced": "ε grows like √k, at the price of the extra δ′",
				"zcdp":     "zero-concentrated DP: ρ adds up, then becomes (ε, δ) with the extra δ′",
				"optimal":  "the exact bound for k arbitrary (ε, δ) releases; zCDP may beat it when the releases are Gaussian",
			}}),
		viz.Float(&c.slack, viz.Control{Name: "slack", Label: "extra δ′", Kind: viz.Slider, Min: 1e-12, Max: 0.1, Log: true,
			Help: "the failure probability advanced, zCDP and optimal composition add"}),
	}
}

// Controls declares the scene's inputs.
func (c *Scene) Controls() []viz.Control { return c.form().Controls() }

// Set changes one control; a value the calibration refuses leaves the
// lesson as it was.
func (c *Scene) Set(name, value string) error {
	next := *c
	if err := next.form().Set(name, value); err != nil {
		return err
	}
	next.recompute()
	if next.err != nil {
		return next.err
	}
	*c = next
	return nil
}

// Readouts lists both scales, their ratio and the budget.
func (c *Scene) Readouts() []viz.Readout {
	f := func(x float64) string { return format.Sprintf("%.4g", x) }
	r := []viz.Readout{
		{Name: "item-scale", Label: "item-level " + c.item.Symbol, Value: c.item.Scale, Text: f(c.item.Scale), Formula: "Δ = 2R/(nm) = " + f(c.itemSens())},
		{Name: "user-scale", Label: "user-level " + c.user.Symbol, Value: c.user.Scale, Text: f(c.user.Scale), Formula: "Δ = 2R/n = " + f(c.userSens())},
		{Name: "ratio", Label: "user ÷ item", Value: c.user.Scale / c.item.Scale, Text: f(c.user.Scale / c.item.Scale), Formula: "= m for formulas linear in Δ"},
		{Name: "validity", Label: "proven for", Text: c.user.Validity, Warn: !c.user.Valid},
	}
	if c.user.Warning != "" {
		r = append(r, viz.Readout{Name: "warning", Label: "warning", Text: c.user.Warning, Warn: true})
	}
	r = append(r, viz.Readout{Name: "total-eps", Label: format.Sprintf("total ε after %d releases (%s)", c.k, c.ruleName()), Value: c.total.Total.Eps,
		Text: format.Sprintf("%.4g, δ = %.3g", c.total.Total.Eps, c.total.Total.Delta), Formula: c.total.Formula})
	return r
}

// Guarantee is that of k user-level releases under the chosen rule, with
// the formula's validity as a precondition.
func (c *Scene) Guarantee() privacy.Guarantee {
	g := privacy.Guarantee{Eps: c.total.Total.Eps, Delta: c.total.Total.Delta, Mode: privacy.Paper,
		Note: format.Sprintf("%d user-level release(s) of the mean, %s, %s composition", c.k, c.mech, c.ruleName())}
	switch c.mech {
	case privacy.MechGaussian:
		g.Preconditions = append(g.Preconditions, privacy.Require("ε < 1 (classical Gaussian formula)", c.eps, privacy.Below, 1))
	case privacy.MechDelOutputPert:
		if d, err := privacy.DelOutputPert(c.eps, c.delta, c.userSens()); err == nil {
			g.Preconditions = append(g.Preconditions, d.Notes...)
		}
	}
	return g
}

// Pointer: the figure has nothing to drag.
func (c *Scene) Pointer(viz.Event) bool { return false }

// Draw shows both noise densities on one axis against the data range, then
// the two derivations and the budget.
func (c *Scene) Draw(w, h float64) *viz.List {
	l := &viz.List{Width: w, Height: h}
	// Below 640 px the two derivations stack and the figure gets less of
	// the height, so that everything fits a phone's frame.
	narrow := w < 640
	y := 20.0
	y += l.Text(viz.Point{X: 40, Y: y}, format.Sprintf("noise added to the mean of %d users × %d values in [−R, R], %s at ε = %g, δ = %g", c.n, c.m, c.mech, c.eps, c.delta), 13, viz.Ink, viz.Left)
	// The item level shows only the steps where it differs from the user
	// level (Δ and what scales with it); the figure gives the text below
	// the room it needs.
	var itemSteps []privacy.Step
	for i, st := range c.item.Steps {
		if i >= len(c.user.Steps) || st != c.user.Steps[i] {
			itemSteps = append(itemSteps, st)
		}
	}
	rows := len(c.user.Steps)
	if narrow {
		// A phone has room for one derivation: the item level's Δ line
		// says what changes.
		itemSteps = nil
		rows += 7
	}
	below := 40 + 66 + 17*float64(rows) + 30 + 17*float64(2+len(c.rules.Rules)) + 10
	plotH := math.Max(80, math.Min(math.Min(h*0.36, 260), h-y-10-below))
	if narrow {
		plotH = math.Max(80, math.Min(h*0.2, h-y-10-below))
	}
	// The axis fits the user level's noise, so that both curves have a
	// width to compare (on the data range's scale, noise a few percent of
	// R was two spikes); where that noise is narrower than the data, the
	// data range runs past both ends and the note says by how much. The
	// note sits over the plot, not in it, where the spikes would cross it.
	span := 3.5 * c.user.Scale
	if !(span > 0) || math.IsInf(span, 1) {
		span = 3.5 * c.radius
	}
	note := "grey: the data range [−R, R]; curves scaled to equal height"
	if c.radius > span {
		note = format.Sprintf("grey: the data range [−R, R], %.3g× this axis; curves scaled to equal height", c.radius/span)
	}
	noteH := l.TextIn(viz.Point{X: 40, Y: y + 12}, w-80, note, 11, viz.Muted, viz.Left)
	plot := figure.Plot{X0: 40, Y0: y + 10 + noteH, W: w - 80, H: math.Max(80, plotH-noteH)}
	xOf := func(x float64) float64 { return plot.X0 + plot.W*(x+span)/(2*span) }
	base := plot.Y0 + plot.H
	r := math.Min(c.radius, span)
	l.Rect(viz.Point{X: xOf(-r), Y: plot.Y0}, viz.Point{X: xOf(r), Y: base}, viz.Style{Fill: viz.Grid}, 0)
	l.Line(viz.Point{X: plot.X0, Y: base}, viz.Point{X: plot.X0 + plot.W, Y: base}, viz.Style{Stroke: viz.Ink, Width: 1})
	for _, t := range viz.NiceTicks(-span, span, max(5, int(plot.W/70))) {
		l.Line(viz.Point{X: xOf(t), Y: base}, viz.Point{X: xOf(t), Y: base + 4}, viz.Style{Stroke: viz.Ink, Width: 1})
		l.Text(viz.Point{X: xOf(t), Y: base + 14}, viz.TickLabel(t), 11, viz.Muted, viz.Centre)
	}
	// Each curve is scaled to the plot's height: compare widths, not heights.
	for _, cv := range []struct {
		cal privacy.Calibration
		col viz.Colour
	}{{c.user, viz.Vermillion}, {c.item, viz.Blue}} {
		peak := figure.Density(cv.cal, 0)
		pts := make([]viz.Point, 0, 241)
		for i := 0; i <= 240; i++ {
			x := -span + 2*span*float64(i)/240
			pts = append(pts, viz.Point{X: xOf(x), Y: base - (plot.H-20)*figure.Density(cv.cal, x)/peak})
		}
		l.Polyline(pts, viz.Style{Stroke: cv.col, Width: 2.5})
	}

	y = base + 40
	col := (w - 60) / 2
	if narrow {
		col = w - 40
	}
	next := y
	for i, side := range []struct {
		title string
		cal   privacy.Calibration
		sens  float64
		c     viz.Colour
	}{{"item level: one value changes", c.item, c.itemSens(), viz.Blue}, {"user level: one user's m values change", c.user, c.userSens(), viz.Vermillion}} {
		x := 30 + float64(i)*(col+10)
		yy := y
		if narrow {
			x, yy = 20, next
		}
		yy += l.TextIn(viz.Point{X: x, Y: yy}, col, side.title, 14, side.c, viz.Left) + 4
		yy += l.TextIn(viz.Point{X: x, Y: yy}, col, format.Sprintf("Δ = %.4g   →   %s = %.4g", side.sens, side.cal.Symbol, side.cal.Scale), 16, viz.Ink, viz.Left) + 2
		steps := side.cal.Steps
		if i == 0 && len(itemSteps) < len(steps) {
			steps = itemSteps
			if !narrow {
				yy += l.TextIn(viz.Point{X: x + 8, Y: yy}, col-8, "the steps as at the user level (right), except:", 12, viz.Muted, viz.Left) + 2
			}
		}
		size := 12.0
		if narrow {
			size = 11
		}
		for _, st := range steps {
			yy += l.TextIn(viz.Point{X: x + 8, Y: yy}, col-8, format.Sprintf("%s = %s = %.5g", st.Symbol, st.Formula, st.Value), size, viz.Ink, viz.Left) + 1
		}
		next = math.Max(next, yy+6)
	}
	y = next + 8
	validity := "proven: " + c.user.Validity
	vc := viz.Green
	if !c.user.Valid {
		validity, vc = "NOT proven here — valid for "+c.user.Validity, viz.Vermillion
	}
	y += l.TextIn(viz.Point{X: 30, Y: y}, w-60, validity, 12, vc, viz.Left) + 3
	if c.user.Warning != "" {
		y += l.TextIn(viz.Point{X: 30, Y: y}, w-60, c.user.Warning, 12, viz.Vermillion, viz.Left)
	}
	y += 8
	cmp := c.rules
	head := format.Sprintf("budget of %d release(s) of (ε = %g, δ = %.3g), each %s, under every rule (δ′ = %g):",
		cmp.K, cmp.Per.Eps, cmp.Per.Delta, cmp.Kind, cmp.Slack)
	if narrow {
		head = format.Sprintf("budget of %d release(s), every rule (δ′ = %g):", cmp.K, cmp.Slack)
	}
	y += l.TextIn(viz.Point{X: 30, Y: y}, w-60, head, 13, viz.Ink, viz.Left) + 2
	// The formulas need room beside the figures; a narrow frame shows the
	// figures alone (the total's readout keeps its formula).
	wide := w >= 760
	// The δ column starts past the widest ε (2.203e+05 at ε = 10 and many
	// releases), the formulas past the widest δ.
	epsX, deltaX, noteX := 110.0, 200.0, 300.0
	for _, r := range cmp.Rules {
		deltaX = math.Max(deltaX, epsX+viz.NumberWidth(format.Sprintf("ε = %.4g", r.Total.Eps), 12)+10)
	}
	for _, r := range cmp.Rules {
		noteX = math.Max(noteX, deltaX+viz.NumberWidth(format.Sprintf("δ = %.3g", r.Total.Delta), 12)+10)
	}
	for _, r := range cmp.Rules {
		col, mark, short := viz.Ink, "", ""
		if r.Rule == cmp.Best {
			mark, short = "   ← best", "← best"
		}
		if r.Rule == c.total.Rule {
			col = viz.Green
			if c.rule != bestRule {
				mark, short = mark+"   (the rule chosen)", "← chosen"
			}
		}
		l.Text(viz.Point{X: 40, Y: y}, string(r.Rule), 12, col, viz.Left)
		l.Text(viz.Point{X: epsX, Y: y}, format.Sprintf("ε = %.4g", r.Total.Eps), 12, col, viz.Left)
		delta := format.Sprintf("δ = %.3g", r.Total.Delta)
		dy := l.Text(viz.Point{X: deltaX, Y: y}, delta, 12, col, viz.Left)
		switch {
		case wide:
			dy = math.Max(dy, l.Text(viz.Point{X: noteX, Y: y}, r.Formula+mark, 11, viz.Muted, viz.Left))
		case short != "":
			l.Text(viz.Point{X: deltaX + viz.NumberWidth(delta, 12) + 10, Y: y}, short, 11, viz.Muted, viz.Left)
		}
		y += dy + 2
	}
	return l
}

// ruleName names the rule in force, saying when it was picked as the best.
func (c *Scene) ruleName() string {
	if c.rule == bestRule {
		return "best: " + string(c.total.Rule)
	}
	return c.rule
}

// Describe says what the figure shows: the two noise densities side by
// side on the data's range, and the numbers that set them.
func (c *Scene) Describe() string {
	return format.Sprintf("Two noise densities of the %s mechanism on one axis, the values' range [−%.4g, %.4g] shaded, each curve scaled to the plot's height (compare widths, not heights): the item-level one for Δ = 2R/(nm) = %.4g, the user-level one for Δ = 2R/n = %.4g, at ε = %g, δ = %g, n = %d users of m = %d items. ",
		c.mech, c.radius, c.radius, c.itemSens(), c.userSens(), c.eps, c.delta, c.n, c.m) +
		viz.Recite(c.Readouts(), "item-scale", "user-scale", "ratio", "validity", "warning", "total-eps")
}
