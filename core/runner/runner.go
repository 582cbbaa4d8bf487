// Package runner binds a mechanism to its parameters and runs it on a
// dataset: the one path behind `uldp run`, `uldp step`, the audits and the
// HTTP API's /api/run.
//
// A Config holds a run's parameters as `uldp run` takes them — set by a
// command line's flags through Register, or by a scenario through
// FromScenario. Job checks them for the chosen mechanism and returns
// something to run; a run returns a Report, one of this package's *Report
// types, whose JSON is the run's result.
//
// Errors name the parameter at fault the way it was given: --tau on a
// command line, params.tau in a scenario.
package runner

import (
	"errors"
	"slices"
	"strings"

	"github.com/uldplab/uldp/core/cancel"
	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/mech"
	"github.com/uldplab/uldp/core/optim"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/core/scenario"
	"github.com/uldplab/uldp/core/trace"
)

// Config holds the parameters of every mechanism run, step and audit
// drive. The zero value is not useful: set it with Register or
// FromScenario.
type Config struct {
	// Mech is the mechanism, one of Runnable.
	Mech string
	// Mode is paper, sound, teaching or non-private.
	Mode       string
	Eps, Delta float64
	// Tau is ORME's concentration radius (and its relatives' scales);
	// Queries the number of queries ORME's budget covers.
	Tau     float64
	Queries int
	// Loss names the loss of the optimisers that take one.
	Loss string
	// Record asks the iterative mechanisms to record their trace and
	// every step (memory and output grow like T·n).
	Record bool
	// Limits bound what reading a data file may take.
	Limits dataset.Limits
	// Given holds the parameters that were set: a default fills in only
	// what was not given, never a bad value given.
	Given map[string]bool

	f             string
	sens          float64
	kappa         int
	beta, mu      float64
	rk, rx        float64
	lambda        float64
	sensRule      string
	phases, steps int
	eta           float64
	smoothing     float64
	theta0        string
	robust        robustFlags
	oir           oirFlags
	// scenario says the parameters came from a scenario: errors then name
	// its fields, not the command line's flags.
	scenario bool
}

// FlagSet is the part of *flag.FlagSet Register uses.
type FlagSet interface {
	StringVar(p *string, name, value, usage string)
	Float64Var(p *float64, name string, value float64, usage string)
	IntVar(p *int, name string, value int, usage string)
	BoolVar(p *bool, name string, value bool, usage string)
	Int64Var(p *int64, name string, value int64, usage string)
}

// Register binds c to the command line's flags, with their defaults.
// The caller sets Given from the flags the command line set.
func (c *Config) Register(fs FlagSet) {
	fs.StringVar(&c.Mech, "mech", "", "mechanism: "+strings.Join(Runnable, ", "))
	fs.StringVar(&c.f, "f", "mean", "DelOutputPert's released function: mean (the mean of the remaining users' item means)")
	fs.Float64Var(&c.Eps, "eps", 0, "privacy parameter ε > 0")
	fs.Float64Var(&c.Delta, "delta", 0, "privacy parameter δ in (0, 1)")
	fs.Float64Var(&c.sens, "target-sens", 0, "DelOutputPert: target deletion sensitivity Δ > 0")
	fs.StringVar(&c.Mode, "mode", "paper", "paper, sound (the same for Paper A's mechanisms), teaching or non-private")
	fs.IntVar(&c.kappa, "kappa", 0, "teaching mode: choose κ by hand")
	lim := dataset.DefaultLimits
	c.Limits = lim
	fs.Int64Var(&c.Limits.Bytes, "max-bytes", lim.Bytes, "the largest data file read, in bytes")
	fs.IntVar(&c.Limits.Line, "max-line", lim.Line, "the longest line of a data file, in bytes")
	fs.IntVar(&c.Limits.Columns, "max-columns", lim.Columns, "the most coordinates per item (d) a data file may have")
	fs.IntVar(&c.Limits.Rows, "max-rows", lim.Rows, "the most rows (items) a data file may have")
	fs.Float64Var(&c.beta, "beta", 0.01, "optimisers: failure probability β in (0, 1/e)")
	fs.Float64Var(&c.mu, "mu", 1, "optimisers: the squared loss (μ/2)‖θ − x‖²")
	fs.Float64Var(&c.rk, "rk", 0, "optimisers: radius of the domain 𝒦 = B(0, R_K)")
	fs.Float64Var(&c.rx, "rx", 0, "optimisers: radius of the data, every item in B(0, R_X)")
	fs.StringVar(&c.sensRule, "sens-rule", mech.DeltaPaper, "optimisers: SCOutputPert's Δ, paper or corollary (erratum A4)")
	fs.StringVar(&c.Loss, "loss", mech.LossSquared, "optimisers: squared ((μ/2)‖θ − x‖² on B(0, R_K)) or absolute (1-D |θ − x|, the private median)")
	fs.Float64Var(&c.lambda, "lambda", 0, "phased algorithms: λ (default: the theorem's)")
	fs.IntVar(&c.phases, "phases", 0, "phased algorithms: number of phases (default: the paper's)")
	fs.Float64Var(&c.Tau, "tau", 0, "orme: concentration radius τ (pairs within τ score, neighbours within 2τ keep); outlier-iterate-removal: the scale of τ_i (teaching or sound mode; the paper's is 1000); accelerated-outlier-removal: c_τ in τ = c_τ·L·ln(ndm)/√m (teaching mode; default 1)")
	fs.IntVar(&c.Queries, "queries", 1, "orme: the number of queries T the budget covers (the mean is asked T times)")
	fs.IntVar(&c.steps, "steps", 0, "dp-sgd: the number of steps T (default: Theorem 4.1's m²n² + mn√d)")
	fs.Float64Var(&c.eta, "eta", 0, "dp-sgd: the step size η (default: Theorem 4.1's)")
	fs.Float64Var(&c.smoothing, "smoothing", 0, "dp-sgd: the smoothing radius r, 0 for none (default: Theorem 4.1's); accelerated-outlier-removal: r for a non-smooth loss (default 0, none)")
	fs.StringVar(&c.theta0, "theta0", "", "dp-sgd: the start θ₀, comma-separated (default: the centre)")
	fs.BoolVar(&c.Record, "trace", false, "include the trace and every step: dp-sgd, robust-sgd, outlier-iterate-removal and accelerated-outlier-removal record them only when asked (memory and output grow like T·n); the others always do")
	c.robust.register(fs)
	c.oir.register(fs)
}

// ParamFlags are the flags Register binds that a scenario sets too.
var ParamFlags = []string{"mech", "f", "eps", "delta", "target-sens", "mode", "kappa", "beta", "mu", "rk", "rx",
	"sens-rule", "lambda", "phases", "loss", "tau", "queries", "steps", "eta", "smoothing", "theta0",
	"batch", "r", "domain", "stat", "trim", "order", "threshold", "huber",
	"groups", "p-exp", "q-exp", "radius", "lipschitz", "on-empty", "on-short", "on-oversize", "with-replacement", "abort-on-halt"}

// Runnable are the mechanisms a Config runs.
var Runnable = []string{privacy.MechDelOutputPert, scenario.MechSCOutputPert, scenario.MechPhasedERM,
	scenario.MechPhasedSCO, scenario.MechStronglyConvexERM, scenario.MechStronglyConvexSCO, scenario.MechORME, scenario.MechDPSGD, scenario.MechDPSGDSC, scenario.MechRobustSGD, scenario.MechRobustLoc, scenario.MechOIR, scenario.MechAccel}

// Needs returns the flags the mechanism requires besides --eps and --delta.
// (An unknown mechanism needs nothing here: Job names the choices.)
func (c *Config) Needs() []string {
	switch {
	case c.Mech == privacy.MechDelOutputPert:
		return []string{"target-sens"}
	case c.Mech == scenario.MechORME:
		return []string{"tau"}
	case c.Mech == scenario.MechDPSGD:
		return []string{"rk"}
	case c.Mech == scenario.MechDPSGDSC:
		return []string{"rk", "rx"}
	case c.Mech == scenario.MechRobustSGD || c.Mech == scenario.MechRobustLoc:
		return []string{"batch", "r", "eta", "domain"}
	case c.Mech == scenario.MechOIR:
		return []string{"eta", "radius"}
	case c.Mech == scenario.MechAccel:
		return []string{"radius"}
	case slices.Contains(Runnable, c.Mech):
		return []string{"rk", "rx"}
	}
	return nil
}

func (c *Config) parseMode() (privacy.Mode, error) {
	m, err := privacy.ParseMode(c.Mode)
	if err != nil {
		return 0, err
	}
	if m == privacy.Sound {
		m = privacy.Paper // Paper A's algorithms need no correction beyond errata A1, A2
	}
	return m, nil
}

// DelParams checks the parameters and returns DelOutputPert's.
func (c *Config) DelParams() (mech.DelParams, error) {
	if c.Mech != privacy.MechDelOutputPert {
		return mech.DelParams{}, c.errorf("--mech %q: this command supports deloutputpert (more mechanisms arrive with their lessons)", c.Mech)
	}
	if err := c.checkParams(); err != nil {
		return mech.DelParams{}, c.named(err)
	}
	if c.f != "mean" {
		return mech.DelParams{}, c.errorf("--f %q: supported: mean (the mean of the remaining users' item means)", c.f)
	}
	m, err := c.parseMode()
	if err != nil {
		return mech.DelParams{}, err
	}
	p := mech.DelParams{Eps: c.Eps, Delta: c.Delta, Sens: c.sens, Mode: m, Kappa: c.kappa}
	if err := p.Validate(); err != nil {
		return mech.DelParams{}, c.named(err)
	}
	return p, nil
}

// phased returns the optimisers' parameters (SCOutputPert uses the same).
func (c *Config) phased() (optim.PhasedParams, error) {
	m, err := c.parseMode()
	if err != nil {
		return optim.PhasedParams{}, err
	}
	p := optim.PhasedParams{Eps: c.Eps, Delta: c.Delta, Beta: c.beta, Mu: c.mu, RK: c.rk, RX: c.rx,
		Lambda: c.lambda, Phases: c.phases, Rule: c.sensRule, Mode: m, Kappa: c.kappa, Loss: c.Loss}
	if err := errors.Join(privacy.CheckEps(p.Eps), privacy.CheckDelta(p.Delta)); err != nil {
		return p, c.named(err)
	}
	sc := mech.SCParams{Eps: p.Eps, Delta: p.Delta, Beta: p.Beta, Mu: p.Mu, RK: p.RK, RX: p.RX, Rule: p.Rule, Mode: p.Mode, Kappa: p.Kappa, Loss: p.Loss}
	if err := sc.Validate(); err != nil {
		return p, c.named(err)
	}
	return p, nil
}

// Report is a run's result, one of this package's *Report types; its JSON
// is what `uldp run` prints.
type Report interface{ report() }

// Job is a mechanism bound to its parameters.
type Job struct {
	// What says what the run is doing, for a progress bar.
	What string
	run  func(ctx cancel.Context, data *dataset.Dataset, s *rng.Streams, progress mech.Progress) (Report, *trace.Trace, error)
}

// Run runs the job on data with the streams s. progress, if not nil, is
// told how far the run is. The trace is nil where the mechanism records
// one only when asked (Config.Record) and was not.
func (j Job) Run(ctx cancel.Context, data *dataset.Dataset, s *rng.Streams, progress mech.Progress) (Report, *trace.Trace, error) {
	return j.run(ctx, data, s, progress)
}

var optimisers = map[string]func(cancel.Context, optim.PhasedParams, *dataset.Dataset, *rng.Streams, mech.Progress) (optim.PhasedResult, *trace.Trace, error){
	scenario.MechPhasedERM: optim.PhasedERM, scenario.MechPhasedSCO: optim.PhasedSCO,
	scenario.MechStronglyConvexERM: optim.StronglyConvexERM, scenario.MechStronglyConvexSCO: optim.StronglyConvexSCO,
}

// Job checks the parameters for the chosen mechanism. The dataset is
// checked against them when the job runs.
func (c *Config) Job() (Job, error) {
	j, err := c.job()
	if err != nil {
		return j, c.named(err)
	}
	run := j.run
	j.run = func(ctx cancel.Context, data *dataset.Dataset, s *rng.Streams, progress mech.Progress) (Report, *trace.Trace, error) {
		r, tr, err := run(ctx, data, s, progress)
		return r, tr, c.named(err)
	}
	return j, nil
}

func (c *Config) job() (Job, error) {
	if err := c.checkParams(); err != nil {
		return Job{}, err
	}
	switch c.Mech {
	case privacy.MechDelOutputPert:
		p, err := c.DelParams()
		if err != nil {
			return Job{}, err
		}
		return Job{"searching the deletion lattice", func(ctx cancel.Context, ds *dataset.Dataset, s *rng.Streams, progress mech.Progress) (Report, *trace.Trace, error) {
			res, tr, err := mech.DelOutputPert(ctx, p, ds, s, progress)
			if err != nil {
				return nil, nil, err
			}
			return newDelReport(c.Mech, p, res, tr, ds, s.Seed()), tr, nil
		}}, nil
	case scenario.MechSCOutputPert:
		q, err := c.phased()
		if err != nil {
			return Job{}, err
		}
		sc := mech.SCParams{Eps: q.Eps, Delta: q.Delta, Beta: q.Beta, Mu: q.Mu, RK: q.RK, RX: q.RX, Rule: q.Rule, Mode: q.Mode, Kappa: q.Kappa, Loss: q.Loss}
		return Job{"searching the deletion lattice", func(ctx cancel.Context, ds *dataset.Dataset, s *rng.Streams, progress mech.Progress) (Report, *trace.Trace, error) {
			res, tr, err := mech.SCOutputPert(ctx, sc, ds, s, progress)
			if err != nil {
				return nil, nil, err
			}
			m, _ := ds.M()
			sens, _ := sc.TargetSens(ds.N(), m, res.Law.Kappa) // as the run computed it
			p := mech.DelParams{Eps: q.Eps, Delta: q.Delta, Mode: q.Mode, Kappa: q.Kappa, Sens: sens}
			return newDelReport(c.Mech, p, res, tr, ds, s.Seed()), tr, nil
		}}, nil
	case scenario.MechORME:
		return c.ormeJob()
	case scenario.MechDPSGD:
		return c.dpsgdJob()
	case scenario.MechDPSGDSC:
		return c.dpsgdSCJob()
	case scenario.MechRobustSGD, scenario.MechRobustLoc:
		return c.robustJob()
	case scenario.MechOIR:
		return c.oirJob()
	case scenario.MechAccel:
		return c.accelJob()
	}
	run, ok := optimisers[c.Mech]
	if !ok {
		return Job{}, c.errorf("--mech %q: use one of %s", c.Mech, strings.Join(Runnable, ", "))
	}
	q, err := c.phased()
	if err != nil {
		return Job{}, err
	}
	return Job{"running the phases", func(ctx cancel.Context, ds *dataset.Dataset, s *rng.Streams, progress mech.Progress) (Report, *trace.Trace, error) {
		res, tr, err := run(ctx, q, ds, s, progress)
		if err != nil {
			return nil, nil, err
		}
		return &PhasedReport{Mechanism: c.Mech, PhasedResult: res, Seed: s.Seed(), Trace: tr}, tr, nil
	}}, nil
}

// DelReport is a DelOutputPert or SCOutputPert run.
type DelReport struct {
	Mechanism  string              `json:"mechanism"`
	Kappa      int                 `json:"kappa"`
	Sigma      float64             `json:"sigma"`
	TargetSens float64             `json:"target_sens"`
	RStar      *int                `json:"rstar"` // null: no stable set within 2κ
	Removed    []string            `json:"removed"`
	PBottom    float64             `json:"p_bottom"`
	Center     []float64           `json:"center"` // null when ⊥ is certain
	Certified  bool                `json:"certificate"`
	R1         int                 `json:"r1"`
	Output     []float64           `json:"output"` // null for ⊥
	Seed       uint64              `json:"seed"`
	Guarantee  privacy.Guarantee   `json:"guarantee"`
	Trace      *trace.Trace        `json:"trace"`
	Cal        privacy.Calibration `json:"calibration"`
	// Users is the number of users; Private is false in non-private mode.
	Users   int  `json:"-"`
	Private bool `json:"-"`
}

func (*DelReport) report() {}

func newDelReport(name string, p mech.DelParams, res mech.DelResult, tr *trace.Trace, ds *dataset.Dataset, seed uint64) *DelReport {
	cal, _ := p.DelCalibration()
	out := &DelReport{Mechanism: name, Kappa: res.Law.Kappa, Sigma: res.Law.Sigma, TargetSens: p.Sens, Removed: []string{},
		PBottom: res.Law.PBottom, Center: res.Law.Centre, Certified: res.Law.Certified, R1: res.R1, Output: res.Output,
		Seed: seed, Guarantee: res.Guarantee, Trace: tr, Cal: cal.Calibration, Users: ds.N(), Private: p.Mode != privacy.NonPrivate}
	if out.Private && res.Law.RStar >= 0 {
		r := res.Law.RStar
		out.RStar = &r
		for _, i := range res.Law.Removed {
			out.Removed = append(out.Removed, ds.Users[i].ID)
		}
	}
	return out
}

// PhasedReport is a run of one of the phased optimisers.
type PhasedReport struct {
	Mechanism string `json:"mechanism"`
	optim.PhasedResult
	Seed  uint64       `json:"seed"`
	Trace *trace.Trace `json:"trace"`
}

func (*PhasedReport) report() {}

// FromScenario returns a scenario's mechanism and parameters (not its seed
// or data) as a Config, as if they had been given as flags.
func FromScenario(s *scenario.Scenario) *Config {
	q := s.Params
	c := &Config{Mech: s.Mechanism, f: orDefault(q.F, "mean"), Mode: s.Mode.String(), Eps: q.Eps, Delta: q.Delta, sens: q.Sens, kappa: q.Kappa,
		beta: q.Beta, mu: q.Mu, rk: q.RK, rx: q.RX, sensRule: orDefault(q.SensRule, mech.DeltaPaper), lambda: q.Lambda, phases: q.Phases,
		Loss: orDefault(q.Loss, mech.LossSquared), Tau: q.Tau, Queries: max(q.Queries, 1),
		steps: q.Steps, eta: q.Eta, smoothing: q.Smoothing, Limits: dataset.DefaultLimits, scenario: true,
		// A scenario leaves out what it does not set: zero is not given.
		robust: robustFlags{batch: q.Batch, trim: q.Trim, r: q.R, domain: q.Domain, huber: q.Huber, stat: orDefault(q.Stat, "median"), order: orDefault(q.Order, "shuffled")},
		oir: oirFlags{groups: q.Groups, pExp: q.PExp, qExp: orZero(q.QExp, 0.5), radius: q.Radius, lip: q.Lipschitz,
			onEmpty: q.OnEmpty, onShort: orDefault(q.OnShort, "stop"), oversize: orDefault(q.OnOversize, "cap"),
			withReplacement: q.WithReplacement, abortOnHalt: q.AbortOnHalt},
		theta0: formatTheta0(q.Theta0),
		// What a scenario leaves out is not given: a parameter given to a
		// mechanism that does not take it is refused as on a command line.
		Given: map[string]bool{"eps": true, "delta": q.Delta != 0, "f": q.F != "", "target-sens": q.Sens != 0, "kappa": q.Kappa != 0,
			"beta": q.Beta != 0, "mu": q.Mu != 0, "rk": q.RK != 0, "rx": q.RX != 0, "sens-rule": q.SensRule != "", "lambda": q.Lambda != 0,
			"phases": q.Phases != 0, "loss": q.Loss != "", "tau": q.Tau != 0, "queries": q.Queries != 0, "steps": q.Steps != 0,
			"eta": q.Eta != 0, "smoothing": q.Smoothing != 0, "theta0": q.Theta0 != nil, "batch": q.Batch != 0, "r": q.R != 0,
			"domain": q.Domain != 0, "stat": q.Stat != "", "trim": q.Trim != 0, "threshold": q.Threshold != nil, "order": q.Order != "",
			"huber": q.Huber != 0, "groups": q.Groups != 0, "p-exp": q.PExp != 0, "q-exp": q.QExp != 0, "radius": q.Radius != 0,
			"lipschitz": q.Lipschitz != 0, "on-empty": q.OnEmpty != "", "on-short": q.OnShort != "", "on-oversize": q.OnOversize != "",
			"with-replacement": q.WithReplacement, "abort-on-halt": q.AbortOnHalt}}
	if q.Threshold != nil {
		c.robust.thr = *q.Threshold
	}
	if c.robust.huber == 0 {
		c.robust.huber = 1
	}
	if c.beta == 0 {
		c.beta = 0.01
	}
	if c.mu == 0 {
		c.mu = 1
	}
	return c
}

// orZero is v, or def where a scenario left v out.
func orZero(v, def float64) float64 {
	if v == 0 {
		return def
	}
	return v
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// errorf is an error about the parameters, named as they were given.
func (c *Config) errorf(f string, args ...any) error {
	return c.named(format.Errorf(f, args...))
}
