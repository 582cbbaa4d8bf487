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

	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/mech"
	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/core/runner"
	"github.com/uldplab/uldp/core/scenario"
	"github.com/uldplab/uldp/core/trace"
)

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

// text writes a run's report for reading.
func text(w io.Writer, r runner.Report) {
	switch r := r.(type) {
	case *runner.DelReport:
		delText(w, r)
	case *runner.PhasedReport:
		phasedText(w, r)
	case *runner.ORMEReport:
		ormeText(w, r)
	case *runner.DPSGDReport:
		dpsgdText(w, r)
	case *runner.DPSGDSCReport:
		dpsgdSCText(w, r)
	case *runner.RobustReport:
		robustText(w, r)
	case *runner.OIRReport:
		oirText(w, r)
	case *runner.AccelReport:
		accelText(w, r)
	default:
		panic(fmt.Sprintf("uldp: no text for a %T report", r))
	}
}

func delText(w io.Writer, out *runner.DelReport) {
	fmt.Fprintf(w, "%s on %d users (%s)\n", out.Mechanism, out.Users, out.Guarantee)
	unmet(w, out.Guarantee)
	fmt.Fprintf(w, "κ = %d, Δ = %.6g, σ = %.6g\n", out.Kappa, out.TargetSens, out.Sigma)
	switch {
	case !out.Private:
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

func phasedText(w io.Writer, out *runner.PhasedReport) {
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

func cmdRun(e *env, args []string) error {
	if semiMech(args) != "" {
		return cmdRunSemi(e, args)
	}
	in, err := parseRun(e, args)
	if err != nil {
		return err
	}
	ctx, done, progress := withProgress(e, in.job.What)
	out, _, err := in.job.Run(ctx, in.data, rng.New(in.seed), progress)
	done()
	if err != nil {
		return mechErr(err)
	}
	return in.format.emit(e, out, func(w io.Writer) { text(w, out) })
}

// runInput is what `uldp run` runs: a checked job, its data and seed.
type runInput struct {
	job    runner.Job
	data   *dataset.Dataset
	seed   uint64
	format format
}

// parseRun reads run's flags and loads its data or scenario.
func parseRun(e *env, args []string) (runInput, error) {
	fs := flags(e, "run", "run --mech NAME (--data FILE.csv | --scenario FILE.json) --eps E --delta D (--target-sens X | --rk R --rx R) [--seed S] [--mode paper|sound|teaching|non-private] [--format text]")
	var d runner.Config
	d.Register(fs)
	data := fs.String("data", "", "dataset CSV (user,x1,…,xd)")
	scen := fs.String("scenario", "", "scenario JSON instead of --data and the parameter flags")
	seed := fs.Uint64("seed", 1, "seed of the tdlap and gauss streams")
	var in runInput
	in.format.register(fs)
	if err := parse(fs, args); err != nil {
		return in, err
	}
	var err error
	if in.data, err = loadInput(fs, &d, *data, *scen, seed, checkJob(&d)); err != nil {
		return in, err
	}
	in.seed = *seed
	in.job, err = d.Job()
	if err != nil {
		return in, usageError{err}
	}
	return in, nil
}

// loadInput reads what run, step and audit work on: a scenario file
// (which sets the parameters and the seed), or a CSV with the parameter
// flags.
// check (may be nil) validates the parameters before a CSV is read, so a
// bad flag is refused at once, not after parsing a large file.
func loadInput(fs *flag.FlagSet, d *runner.Config, data, scen string, seed *uint64, check func() error) (*dataset.Dataset, error) {
	if scen != "" {
		var clash []string
		fs.Visit(func(f *flag.Flag) {
			if f.Name == "data" || f.Name == "seed" || slices.Contains(runner.ParamFlags, f.Name) {
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
		*d = *runner.FromScenario(s)
		*seed = s.Seed
		return ds, nil
	}
	if err := required(fs, "mech", "data", "eps", "delta"); err != nil {
		return nil, err
	}
	if err := required(fs, d.Needs()...); err != nil {
		return nil, err
	}
	d.Given = given(fs)
	l := d.Limits
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
	return readCSV(data, d.Limits)
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

// checkJob checks d's parameters for loadInput, before a file is read.
func checkJob(d *runner.Config) func() error {
	return func() error {
		if _, err := d.Job(); err != nil {
			return usageError{err}
		}
		return nil
	}
}
