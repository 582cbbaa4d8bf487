package runner

import (
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/noise"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/scenario"
)

// param declares one of a run's parameters once: its name (the flag; a
// scenario's field is params.NAME), the mechanisms that take it, and, for
// a number, its value and the range it must lie in. Every command that
// binds a Config (run, step, audit) and every scenario, the API's runs
// among them, is checked against this table before anything is computed.
type param struct {
	name  string
	mechs []string
	value func(c *Config) float64 // nil: not a number (read and checked where it is used)
	ok    func(v float64) bool
	need  string // what a value must be, for the message
}

// The mechanisms by family, as the parameters apply to them.
var (
	allMechs = Runnable
	paperA   = []string{scenario.MechSCOutputPert, scenario.MechPhasedERM, scenario.MechPhasedSCO, scenario.MechStronglyConvexERM, scenario.MechStronglyConvexSCO}
	dpsgds   = []string{scenario.MechDPSGD, scenario.MechDPSGDSC}
	robusts  = []string{scenario.MechRobustSGD, scenario.MechRobustLoc}
	llas     = []string{scenario.MechOIR, scenario.MechAccel}
)

// mechs joins families.
func mechs(families ...[]string) []string { return slices.Concat(families...) }

// Ranges.
func positive(v float64) bool    { return v > 0 && !math.IsInf(v, 1) }
func nonNegative(v float64) bool { return v >= 0 && !math.IsInf(v, 1) }
func finite(v float64) bool      { return !math.IsNaN(v) && !math.IsInf(v, 0) }
func between(lo, hi float64) func(float64) bool {
	return func(v float64) bool { return v >= lo && v <= hi }
}

// params is every parameter a Config binds, but the data's limits.
var params = []param{
	{"eps", allMechs, func(c *Config) float64 { return c.Eps }, positive, "ε must be a finite number > 0"},
	{"delta", allMechs, func(c *Config) float64 { return c.Delta }, func(v float64) bool { return v > 0 && v < 1 }, "δ must lie in (0, 1)"},
	{"mode", allMechs, nil, nil, ""},
	{"f", []string{privacy.MechDelOutputPert}, nil, nil, ""},
	{"target-sens", []string{privacy.MechDelOutputPert}, func(c *Config) float64 { return c.sens }, positive, "the target sensitivity must be a finite number > 0"},
	{"kappa", mechs([]string{privacy.MechDelOutputPert}, paperA), func(c *Config) float64 { return float64(c.kappa) }, between(1, noise.MaxKappa), "choose 1 ≤ κ ≤ " + strconv.Itoa(noise.MaxKappa) + " (teaching mode)"},
	{"beta", paperA, func(c *Config) float64 { return c.beta }, func(v float64) bool { return v > 0 && v < 1/math.E }, "β must lie in (0, 1/e)"},
	{"mu", mechs(paperA, dpsgds, robusts, llas), func(c *Config) float64 { return c.mu }, positive, "the squared loss's μ must be a finite number > 0"},
	{"rk", mechs(paperA, dpsgds), func(c *Config) float64 { return c.rk }, positive, "the domain's radius must be a finite number > 0"},
	{"rx", mechs(paperA, dpsgds), func(c *Config) float64 { return c.rx }, nonNegative, "the data's radius must be a finite number ≥ 0"},
	{"sens-rule", paperA, nil, nil, ""},
	{"loss", mechs(paperA, []string{scenario.MechDPSGD}, robusts, llas), nil, nil, ""},
	{"lambda", mechs(paperA, []string{scenario.MechAccel}), func(c *Config) float64 { return c.lambda }, positive, "λ must be a finite number > 0"},
	{"phases", mechs(paperA, llas), func(c *Config) float64 { return float64(c.phases) }, between(1, 100), "choose 1 to 100 phases"},
	{"tau", mechs([]string{scenario.MechORME, scenario.MechDPSGD}, llas), func(c *Config) float64 { return c.Tau }, positive, "τ (or its scale) must be a finite number > 0"},
	{"queries", []string{scenario.MechORME}, func(c *Config) float64 { return float64(c.Queries) }, between(1, 1e6), "choose 1 to 10⁶ queries"},
	{"steps", dpsgds, func(c *Config) float64 { return float64(c.steps) }, between(1, 1e7), "choose 1 to 10⁷ steps"},
	{"eta", mechs([]string{scenario.MechDPSGD}, robusts, []string{scenario.MechOIR}), func(c *Config) float64 { return c.eta }, positive, "the step size must be a finite number > 0"},
	{"smoothing", []string{scenario.MechDPSGD, scenario.MechAccel}, func(c *Config) float64 { return c.smoothing }, nonNegative, "the smoothing radius must be a finite number ≥ 0 (0: none)"},
	{"theta0", mechs(dpsgds, robusts, llas), nil, nil, ""},
	{"trace", allMechs, nil, nil, ""},
	{"batch", mechs(robusts, []string{scenario.MechAccel}), func(c *Config) float64 { return float64(c.robust.batch) }, between(1, 1e7), "B, the users per step, must be at least 1 (and at most 10⁷)"},
	{"r", robusts, func(c *Config) float64 { return c.robust.r }, positive, "the kernel radius must be a finite number > 0"},
	{"domain", robusts, func(c *Config) float64 { return c.robust.domain }, positive, "the domain's half-width must be a finite number > 0"},
	{"stat", robusts, nil, nil, ""},
	{"trim", robusts, func(c *Config) float64 { return float64(c.robust.trim) }, between(0, 1e7), "trim 0 or more users at each end"},
	{"threshold", robusts, func(c *Config) float64 { return c.robust.thr }, finite, "the test's threshold must be a finite number"},
	{"order", mechs(robusts, llas), nil, nil, ""},
	{"huber", mechs(robusts, llas), func(c *Config) float64 { return c.robust.huber }, positive, "the Huber loss's h must be a finite number > 0"},
	{"groups", []string{scenario.MechOIR}, func(c *Config) float64 { return float64(c.oir.groups) }, between(1, 1e6), "choose 1 to 10⁶ groups"},
	{"p-exp", llas, func(c *Config) float64 { return c.oir.pExp }, func(v float64) bool { return v > 0 && v <= 20 }, "p must lie in (0, 20]: larger makes the steps vanish"},
	{"q-exp", llas, func(c *Config) float64 { return c.oir.qExp }, func(v float64) bool { return v > 0 && v <= 10 }, "q must lie in (0, 10]"},
	{"radius", llas, func(c *Config) float64 { return c.oir.radius }, positive, "the domain ball's radius must be a finite number > 0"},
	{"lipschitz", llas, func(c *Config) float64 { return c.oir.lip }, positive, "the gradient bound L must be a finite number > 0"},
	{"on-empty", llas, nil, nil, ""},
	{"on-short", []string{scenario.MechOIR}, nil, nil, ""},
	{"on-oversize", []string{scenario.MechAccel}, nil, nil, ""},
	{"with-replacement", []string{scenario.MechAccel}, nil, nil, ""},
	{"abort-on-halt", []string{scenario.MechAccel}, nil, nil, ""},
}

// checkParams refuses, before anything is computed from them, every given
// parameter the mechanism does not take and every given number outside its
// range, each under its own name. An unknown mechanism is left to Job,
// which names the choices.
func (c *Config) checkParams() error {
	if !slices.Contains(Runnable, c.Mech) {
		return nil
	}
	var errs []error
	for _, p := range params {
		switch {
		case !c.Given[p.name]:
		case !slices.Contains(p.mechs, c.Mech):
			errs = append(errs, format.Errorf("--%s does not apply to %s, which takes %s: drop it", p.name, c.Mech, takes(c.Mech)))
		case p.value != nil && !p.ok(p.value(c)):
			errs = append(errs, format.Errorf("--%s = %s: %s", p.name, number(p.value(c)), p.need))
		}
	}
	if c.Given["huber"] && c.Loss != "huber" && slices.Contains(mechs(robusts, llas), c.Mech) {
		errs = append(errs, format.Errorf("--huber sets the Huber loss's h: add --loss huber, or drop --huber"))
	}
	return errors.Join(errs...)
}

// number writes a parameter's value as it was given: a count as an
// integer, not 1e+09.
func number(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// takes lists the parameters mech takes, as flags.
func takes(mech string) string {
	var names []string
	for _, p := range params {
		if slices.Contains(p.mechs, mech) {
			names = append(names, "--"+p.name)
		}
	}
	return strings.Join(names, ", ")
}
