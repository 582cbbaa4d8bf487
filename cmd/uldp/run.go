package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/uldplab/uldp/core/cancel"
	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/mech"
	"github.com/uldplab/uldp/core/optim"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/core/scenario"
	"github.com/uldplab/uldp/core/trace"
)

// mechFlags are the parameters of every mechanism run, step and audit
// drive, from flags or a scenario.
type mechFlags struct {
	mech, f, mode string
	eps, delta    float64
	sens          float64
	kappa         int
	// The optimisers' squared loss and schedule.
	beta, mu, rk, rx, lambda float64
	sensRule, loss           string
	phases                   int
	// ORME's concentration radius and query budget.
	tau     float64
	queries int
	// DP-SGD's schedule (Theorem 4.1's where not given) and start.
	steps          int
	eta, smoothing float64
	theta0         string
	trace          bool
	// robust holds robust SGD's own flags, oir Lowy, Liu & Asi's.
	robust robustFlags
	oir    oirFlags
	// limits bound what reading the data may take.
	limits dataset.Limits
	// given holds the parameters the command line or scenario set: a
	// default fills in only what was not given, never a bad value given.
	given map[string]bool
}

func (d *mechFlags) register(fs flagSet) {
	fs.StringVar(&d.mech, "mech", "", "mechanism: "+strings.Join(runnable, ", "))
	fs.StringVar(&d.f, "f", "mean", "DelOutputPert's released function: mean (the mean of the remaining users' item means)")
	fs.Float64Var(&d.eps, "eps", 0, "privacy parameter ε > 0")
	fs.Float64Var(&d.delta, "delta", 0, "privacy parameter δ in (0, 1)")
	fs.Float64Var(&d.sens, "target-sens", 0, "DelOutputPert: target deletion sensitivity Δ > 0")
	fs.StringVar(&d.mode, "mode", "paper", "paper, sound (the same for Paper A's mechanisms), teaching or non-private")
	fs.IntVar(&d.kappa, "kappa", 0, "teaching mode: choose κ by hand")
	lim := dataset.DefaultLimits
	d.limits = lim
	fs.Int64Var(&d.limits.Bytes, "max-bytes", lim.Bytes, "the largest data file read, in bytes")
	fs.IntVar(&d.limits.Line, "max-line", lim.Line, "the longest line of a data file, in bytes")
	fs.IntVar(&d.limits.Columns, "max-columns", lim.Columns, "the most coordinates per item (d) a data file may have")
	fs.IntVar(&d.limits.Rows, "max-rows", lim.Rows, "the most rows (items) a data file may have")
	fs.Float64Var(&d.beta, "beta", 0.01, "optimisers: failure probability β in (0, 1/e)")
	fs.Float64Var(&d.mu, "mu", 1, "optimisers: the squared loss (μ/2)‖θ − x‖²")
	fs.Float64Var(&d.rk, "rk", 0, "optimisers: radius of the domain 𝒦 = B(0, R_K)")
	fs.Float64Var(&d.rx, "rx", 0, "optimisers: radius of the data, every item in B(0, R_X)")
	fs.StringVar(&d.sensRule, "sens-rule", mech.DeltaPaper, "optimisers: SCOutputPert's Δ, paper or corollary (erratum A4)")
	fs.StringVar(&d.loss, "loss", mech.LossSquared, "optimisers: squared ((μ/2)‖θ − x‖² on B(0, R_K)) or absolute (1-D |θ − x|, the private median)")
	fs.Float64Var(&d.lambda, "lambda", 0, "phased algorithms: λ (default: the theorem's)")
	fs.IntVar(&d.phases, "phases", 0, "phased algorithms: number of phases (default: the paper's)")
	fs.Float64Var(&d.tau, "tau", 0, "orme: concentration radius τ (pairs within τ score, neighbours within 2τ keep); outlier-iterate-removal: the scale of τ_i (teaching or sound mode; the paper's is 1000); accelerated-outlier-removal: c_τ in τ = c_τ·L·ln(ndm)/√m (teaching mode; default 1)")
	fs.IntVar(&d.queries, "queries", 1, "orme: the number of queries T the budget covers (the mean is asked T times)")
	fs.IntVar(&d.steps, "steps", 0, "dp-sgd: the number of steps T (default: Theorem 4.1's m²n² + mn√d)")
	fs.Float64Var(&d.eta, "eta", 0, "dp-sgd: the step size η (default: Theorem 4.1's)")
	fs.Float64Var(&d.smoothing, "smoothing", 0, "dp-sgd: the smoothing radius r, 0 for none (default: Theorem 4.1's); accelerated-outlier-removal: r for a non-smooth loss (default 0, none)")
	fs.StringVar(&d.theta0, "theta0", "", "dp-sgd: the start θ₀, comma-separated (default: the centre)")
	fs.BoolVar(&d.trace, "trace", false, "dp-sgd, robust-sgd, outlier-iterate-removal, accelerated-outlier-removal: include the trace and every step (memory and output grow like T·n)")
	d.robust.register(fs)
	d.oir.register(fs)
}

// paramFlags are the flags mechFlags registers: a scenario sets them all.
var paramFlags = []string{"mech", "f", "eps", "delta", "target-sens", "mode", "kappa", "beta", "mu", "rk", "rx",
	"sens-rule", "lambda", "phases", "loss", "tau", "queries", "steps", "eta", "smoothing", "theta0",
	"batch", "r", "domain", "stat", "trim", "order", "threshold", "huber",
	"groups", "p-exp", "q-exp", "radius", "lipschitz", "on-empty", "on-short", "on-oversize", "with-replacement", "abort-on-halt"}

// runnable are the mechanisms run and step accept.
var runnable = []string{privacy.MechDelOutputPert, scenario.MechSCOutputPert, scenario.MechPhasedERM,
	scenario.MechPhasedSCO, scenario.MechStronglyConvexERM, scenario.MechStronglyConvexSCO, scenario.MechORME, scenario.MechDPSGD, scenario.MechDPSGDSC, scenario.MechRobustSGD, scenario.MechRobustLoc, scenario.MechOIR, scenario.MechAccel}

// needs returns the flags the mechanism requires besides --eps and --delta.
// (An unknown mechanism needs nothing here: job names the choices.)
func (d *mechFlags) needs() []string {
	switch {
	case d.mech == privacy.MechDelOutputPert:
		return []string{"target-sens"}
	case d.mech == scenario.MechORME:
		return []string{"tau"}
	case d.mech == scenario.MechDPSGD:
		return []string{"rk"}
	case d.mech == scenario.MechDPSGDSC:
		return []string{"rk", "rx"}
	case d.mech == scenario.MechRobustSGD || d.mech == scenario.MechRobustLoc:
		return []string{"batch", "r", "eta", "domain"}
	case d.mech == scenario.MechOIR:
		return []string{"eta", "radius"}
	case d.mech == scenario.MechAccel:
		return []string{"radius"}
	case slices.Contains(runnable, d.mech):
		return []string{"rk", "rx"}
	}
	return nil
}

func (d *mechFlags) parseMode() (privacy.Mode, error) {
	m, err := privacy.ParseMode(d.mode)
	if err != nil {
		return 0, usageError{err}
	}
	if m == privacy.Sound {
		m = privacy.Paper // Paper A's algorithms need no correction beyond errata A1, A2
	}
	return m, nil
}

// params checks the flags and returns DelOutputPert's parameters.
func (d *mechFlags) params() (mech.DelParams, error) {
	if d.mech != privacy.MechDelOutputPert {
		return mech.DelParams{}, usagef("--mech %q: this command supports deloutputpert (more mechanisms arrive with their lessons)", d.mech)
	}
	if d.f != "mean" {
		return mech.DelParams{}, usagef("--f %q: supported: mean (the mean of the remaining users' item means)", d.f)
	}
	m, err := d.parseMode()
	if err != nil {
		return mech.DelParams{}, err
	}
	p := mech.DelParams{Eps: d.eps, Delta: d.delta, Sens: d.sens, Mode: m, Kappa: d.kappa}
	if err := p.Validate(); err != nil {
		return mech.DelParams{}, usageError{err}
	}
	return p, nil
}

// phased returns the optimisers' parameters (SCOutputPert uses the same).
func (d *mechFlags) phased() (optim.PhasedParams, error) {
	m, err := d.parseMode()
	if err != nil {
		return optim.PhasedParams{}, err
	}
	p := optim.PhasedParams{Eps: d.eps, Delta: d.delta, Beta: d.beta, Mu: d.mu, RK: d.rk, RX: d.rx,
		Lambda: d.lambda, Phases: d.phases, Rule: d.sensRule, Mode: m, Kappa: d.kappa, Loss: d.loss}
	if err := errors.Join(privacy.CheckEps(p.Eps), privacy.CheckDelta(p.Delta)); err != nil {
		return p, usageError{err}
	}
	sc := mech.SCParams{Eps: p.Eps, Delta: p.Delta, Beta: p.Beta, Mu: p.Mu, RK: p.RK, RX: p.RX, Rule: p.Rule, Mode: p.Mode, Kappa: p.Kappa, Loss: p.Loss}
	if err := sc.Validate(); err != nil {
		return p, usageError{err}
	}
	return p, nil
}

// flagSet is the part of *flag.FlagSet the shared flags use.
type flagSet interface {
	StringVar(p *string, name, value, usage string)
	Float64Var(p *float64, name string, value float64, usage string)
	IntVar(p *int, name string, value int, usage string)
	BoolVar(p *bool, name string, value bool, usage string)
	Int64Var(p *int64, name string, value int64, usage string)
}

// readCSV loads a dataset file for a mechanism, within lim.
func readCSV(path string, lim dataset.Limits) (*dataset.Dataset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, usageError{err}
	}
	defer f.Close()
	d, err := lim.ReadCSV(f, true) // the mean of user means allows ragged users
	if le := (*dataset.LimitError)(nil); errors.As(err, &le) {
		return nil, usagef("%s: %v: raise the limit with --max-%s N if the file is meant to be this large", path, err, le.Name)
	}
	if err != nil {
		return nil, usagef("%s: %v", path, err)
	}
	return d, nil
}

// withProgress returns a context cancelled by Ctrl+C and a progress callback
// that draws a bar on stderr when it is a terminal and the work is slow.
func withProgress(e *env, what string) (context.Context, func(), mech.Progress) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	tty := term.IsTerminal(int(os.Stderr.Fd())) && e.stderr == io.Writer(os.Stderr)
	start, last := time.Now(), time.Time{}
	drawn := false
	progress := func(done, total int64) {
		if !tty || time.Since(start) < 500*time.Millisecond || time.Since(last) < 200*time.Millisecond {
			return
		}
		last, drawn = time.Now(), true
		frac := float64(done) / float64(max(total, 1))
		bar := strings.Repeat("█", int(frac*30)) + strings.Repeat("·", 30-int(frac*30))
		fmt.Fprintf(e.stderr, "\r%s %s %3.0f%% (Ctrl+C cancels)", what, bar, 100*frac)
	}
	done := func() {
		if drawn {
			fmt.Fprint(e.stderr, "\r\033[K")
		}
		stop()
	}
	return ctx, done, progress
}

// mechErr classifies a mechanism's error: Ctrl+C is a cancellation (exit
// 1); everything else comes from the input (parameters the data cannot
// support, an infeasible exact search) and exits 2 with the message.
func mechErr(err error) error {
	if errors.Is(err, context.Canceled) {
		return errors.New("cancelled")
	}
	return usageError{err}
}

// delOut is a DelOutputPert or SCOutputPert run (the contract:
// kappa, sigma, rstar, removed, p_bottom, center, output).
type delOut struct {
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
	n          int
	private    bool
}

func newDelOut(name string, p mech.DelParams, res mech.DelResult, tr *trace.Trace, ds *dataset.Dataset, seed uint64) delOut {
	cal, _ := p.DelCalibration()
	out := delOut{Mechanism: name, Kappa: res.Law.Kappa, Sigma: res.Law.Sigma, TargetSens: p.Sens, Removed: []string{},
		PBottom: res.Law.PBottom, Center: res.Law.Centre, Certified: res.Law.Certified, R1: res.R1, Output: res.Output,
		Seed: seed, Guarantee: res.Guarantee, Trace: tr, Cal: cal.Calibration, n: ds.N(), private: p.Mode != privacy.NonPrivate}
	if out.private && res.Law.RStar >= 0 {
		r := res.Law.RStar
		out.RStar = &r
		for _, i := range res.Law.Removed {
			out.Removed = append(out.Removed, ds.Users[i].ID)
		}
	}
	return out
}

func (out delOut) text(w io.Writer) {
	fmt.Fprintf(w, "%s on %d users (%s)\n", out.Mechanism, out.n, out.Guarantee)
	unmet(w, out.Guarantee)
	fmt.Fprintf(w, "κ = %d, Δ = %.6g, σ = %.6g\n", out.Kappa, out.TargetSens, out.Sigma)
	switch {
	case !out.private:
	case out.RStar == nil:
		fmt.Fprintf(w, "no set of ≤ 2κ users leaves a stable dataset: ⊥ with probability 1\n")
	default:
		fmt.Fprintf(w, "r* = %d, removed %s, Pr[⊥] = %.6g, centre %s\n", *out.RStar, trace.Users(out.Removed), out.PBottom, vec(out.Center))
	}
	if out.Output == nil {
		fmt.Fprintf(w, "R1 = %d → output ⊥\n", out.R1)
	} else {
		fmt.Fprintf(w, "R1 = %d → output %s\n", out.R1, vec(out.Output))
	}
	writeTrace(w, out.Trace)
}

// phasedOut is a run of one of the phased optimisers.
type phasedOut struct {
	Mechanism string `json:"mechanism"`
	optim.PhasedResult
	Seed  uint64       `json:"seed"`
	Trace *trace.Trace `json:"trace"`
}

func (out phasedOut) text(w io.Writer) {
	fmt.Fprintf(w, "%s: %s\n", out.Mechanism, out.Guarantee)
	unmet(w, out.Guarantee)
	if st := out.Stage1; st != nil {
		fmt.Fprintf(w, "stage 1: σ = %.4g, R′ = %.4g, θ₀ = %s\n", st.Sigma, st.Radius, vec(st.Output))
	}
	for _, ph := range out.Phases {
		fmt.Fprintf(w, "phase %d on %d users: λ = %.4g, R = %.4g, κ′ = %d, σ = %.4g → %s\n", ph.I, ph.Users, ph.Lambda, ph.Radius, ph.Kappa, ph.Sigma, vec(ph.Output))
	}
	fmt.Fprintf(w, "θ̂ = %s\n", vec(out.Theta))
	writeTrace(w, out.Trace)
}

func writeTrace(w io.Writer, tr *trace.Trace) {
	fmt.Fprintln(w, "\ntrace:")
	for i, s := range tr.Steps {
		fmt.Fprintf(w, "  %d. [%s] %s\n", i+1, s.Kind, s.Text)
	}
}

// report is a run's result: JSON by default, text with --format text.
type report interface{ text(w io.Writer) }

// job is a mechanism bound to its parameters: run prints its report, step
// walks its trace.
type job struct {
	what string // what the progress bar says
	run  func(ctx cancel.Context, data *dataset.Dataset, s *rng.Streams, progress mech.Progress) (report, *trace.Trace, error)
}

var optimisers = map[string]func(cancel.Context, optim.PhasedParams, *dataset.Dataset, *rng.Streams, mech.Progress) (optim.PhasedResult, *trace.Trace, error){
	scenario.MechPhasedERM: optim.PhasedERM, scenario.MechPhasedSCO: optim.PhasedSCO,
	scenario.MechStronglyConvexERM: optim.StronglyConvexERM, scenario.MechStronglyConvexSCO: optim.StronglyConvexSCO,
}

// job checks the parameters for the chosen mechanism.
func (d *mechFlags) job() (job, error) {
	switch d.mech {
	case privacy.MechDelOutputPert:
		p, err := d.params()
		if err != nil {
			return job{}, err
		}
		return job{"searching the deletion lattice", func(ctx cancel.Context, ds *dataset.Dataset, s *rng.Streams, progress mech.Progress) (report, *trace.Trace, error) {
			res, tr, err := mech.DelOutputPert(ctx, p, ds, s, progress)
			if err != nil {
				return nil, nil, err
			}
			return newDelOut(d.mech, p, res, tr, ds, s.Seed()), tr, nil
		}}, nil
	case scenario.MechSCOutputPert:
		q, err := d.phased()
		if err != nil {
			return job{}, err
		}
		sc := mech.SCParams{Eps: q.Eps, Delta: q.Delta, Beta: q.Beta, Mu: q.Mu, RK: q.RK, RX: q.RX, Rule: q.Rule, Mode: q.Mode, Kappa: q.Kappa, Loss: q.Loss}
		return job{"searching the deletion lattice", func(ctx cancel.Context, ds *dataset.Dataset, s *rng.Streams, progress mech.Progress) (report, *trace.Trace, error) {
			res, tr, err := mech.SCOutputPert(ctx, sc, ds, s, progress)
			if err != nil {
				return nil, nil, err
			}
			m, _ := ds.M()
			sens, _ := sc.TargetSens(ds.N(), m, res.Law.Kappa) // as the run computed it
			p := mech.DelParams{Eps: q.Eps, Delta: q.Delta, Mode: q.Mode, Kappa: q.Kappa, Sens: sens}
			return newDelOut(d.mech, p, res, tr, ds, s.Seed()), tr, nil
		}}, nil
	}
	switch d.mech {
	case scenario.MechORME:
		return d.ormeJob()
	case scenario.MechDPSGD:
		return d.dpsgdJob()
	case scenario.MechDPSGDSC:
		return d.dpsgdSCJob()
	case scenario.MechRobustSGD, scenario.MechRobustLoc:
		return d.robustJob()
	case scenario.MechOIR:
		return d.oirJob()
	case scenario.MechAccel:
		return d.accelJob()
	}
	run, ok := optimisers[d.mech]
	if !ok {
		return job{}, usagef("--mech %q: use one of %s", d.mech, strings.Join(runnable, ", "))
	}
	q, err := d.phased()
	if err != nil {
		return job{}, err
	}
	return job{"running the phases", func(ctx cancel.Context, ds *dataset.Dataset, s *rng.Streams, progress mech.Progress) (report, *trace.Trace, error) {
		res, tr, err := run(ctx, q, ds, s, progress)
		if err != nil {
			return nil, nil, err
		}
		return phasedOut{Mechanism: d.mech, PhasedResult: res, Seed: s.Seed(), Trace: tr}, tr, nil
	}}, nil
}

func cmdRun(e *env, args []string) error {
	in, err := parseRun(e, args)
	if err != nil {
		return err
	}
	ctx, done, progress := withProgress(e, in.job.what)
	out, _, err := in.job.run(ctx, in.data, rng.New(in.seed), progress)
	done()
	if err != nil {
		return mechErr(err)
	}
	return in.format.emit(e, out, out.text)
}

// runInput is what `uldp run` runs: a checked job, its data and seed.
type runInput struct {
	job    job
	data   *dataset.Dataset
	seed   uint64
	format format
}

// parseRun reads run's flags and loads its data or scenario.
func parseRun(e *env, args []string) (runInput, error) {
	fs := flags(e, "run", "run --mech NAME (--data FILE.csv | --scenario FILE.json) --eps E --delta D (--target-sens X | --rk R --rx R) [--seed S] [--mode paper|sound|teaching|non-private] [--format text]")
	var d mechFlags
	d.register(fs)
	data := fs.String("data", "", "dataset CSV (user,x1,…,xd)")
	scen := fs.String("scenario", "", "scenario JSON instead of --data and the parameter flags")
	seed := fs.Uint64("seed", 1, "seed of the tdlap and gauss streams")
	var in runInput
	in.format.register(fs)
	if err := parse(fs, args); err != nil {
		return in, err
	}
	var err error
	if in.data, err = loadInput(fs, &d, *data, *scen, seed, func() error { _, err := d.job(); return err }); err != nil {
		return in, err
	}
	in.seed = *seed
	in.job, err = d.job()
	return in, err
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

// loadInput reads what run, step and audit work on: a scenario file
// (which sets the parameters and the seed), or a CSV with the parameter
// flags.
// check (may be nil) validates the parameters before a CSV is read, so a
// bad flag is refused at once, not after parsing a large file.
func loadInput(fs *flag.FlagSet, d *mechFlags, data, scen string, seed *uint64, check func() error) (*dataset.Dataset, error) {
	if scen != "" {
		var clash []string
		fs.Visit(func(f *flag.Flag) {
			if f.Name == "data" || f.Name == "seed" || slices.Contains(paramFlags, f.Name) {
				clash = append(clash, "--"+f.Name)
			}
		})
		if len(clash) > 0 {
			return nil, usagef("--scenario holds the data, the parameters and the seed: drop %s (or edit the scenario)", strings.Join(clash, ", "))
		}
		ds, s, err := loadScenario(scen)
		if err != nil {
			return nil, err
		}
		d.fromScenario(s)
		*seed = s.Seed
		return ds, nil
	}
	if err := required(fs, "mech", "data", "eps", "delta"); err != nil {
		return nil, err
	}
	if err := required(fs, d.needs()...); err != nil {
		return nil, err
	}
	d.given = given(fs)
	l := d.limits
	for _, lim := range []struct {
		name string
		v    int64
	}{{"bytes", l.Bytes}, {"line", int64(l.Line)}, {"columns", int64(l.Columns)}, {"rows", int64(l.Rows)}} {
		if lim.v < 1 {
			return nil, usagef("--max-%s = %d: a limit must be ≥ 1", lim.name, lim.v)
		}
	}
	if check != nil {
		if err := check(); err != nil {
			return nil, err
		}
	}
	return readCSV(data, d.limits)
}

// fromScenario sets d to a scenario's mechanism and parameters (not its
// seed or data), as if they had been given as flags.
func (d *mechFlags) fromScenario(s *scenario.Scenario) {
	q := s.Params
	*d = mechFlags{mech: s.Mechanism, f: orDefault(q.F, "mean"), mode: s.Mode.String(), eps: q.Eps, delta: q.Delta, sens: q.Sens, kappa: q.Kappa,
		beta: q.Beta, mu: q.Mu, rk: q.RK, rx: q.RX, sensRule: orDefault(q.SensRule, mech.DeltaPaper), lambda: q.Lambda, phases: q.Phases,
		loss: orDefault(q.Loss, mech.LossSquared), tau: q.Tau, queries: max(q.Queries, 1),
		steps: q.Steps, eta: q.Eta, smoothing: q.Smoothing,
		// A scenario leaves out what it does not set: zero is not given.
		robust: robustFlags{batch: q.Batch, trim: q.Trim, r: q.R, domain: q.Domain, huber: q.Huber, stat: orDefault(q.Stat, "median"), order: orDefault(q.Order, "shuffled")},
		oir: oirFlags{groups: q.Groups, pExp: q.PExp, qExp: orZero(q.QExp, 0.5), radius: q.Radius, lip: q.Lipschitz,
			onEmpty: q.OnEmpty, onShort: orDefault(q.OnShort, "stop"), oversize: orDefault(q.OnOversize, "cap"),
			withReplacement: q.WithReplacement, abortOnHalt: q.AbortOnHalt},
		theta0: formatTheta0(q.Theta0),
		given: map[string]bool{"steps": q.Steps != 0, "eta": q.Eta != 0, "smoothing": q.Smoothing != 0, "tau": q.Tau != 0,
			"trim": q.Trim != 0, "threshold": q.Threshold != nil, "lipschitz": q.Lipschitz != 0, "p-exp": q.PExp != 0}}
	if q.Threshold != nil {
		d.robust.thr = *q.Threshold
	}
	if d.robust.huber == 0 {
		d.robust.huber = 1
	}
	if d.beta == 0 {
		d.beta = 0.01
	}
	if d.mu == 0 {
		d.mu = 1
	}
}

// loadScenario reads a scenario file and builds its dataset.
func loadScenario(path string) (*dataset.Dataset, *scenario.Scenario, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, usageError{err}
	}
	defer f.Close()
	s, err := scenario.Decode(f)
	if err != nil {
		return nil, nil, usagef("%s: %v", path, err)
	}
	d, err := s.Build()
	if err != nil {
		return nil, nil, usagef("%s: %v", path, err)
	}
	return d, s, nil
}
