package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/mech"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/core/scenario"
	"github.com/uldplab/uldp/core/trace"
)

// delFlags are the DelOutputPert parameters shared by run and audit.
type delFlags struct {
	mech, f, mode string
	eps, delta    float64
	sens          float64
	kappa         int
}

func (d *delFlags) register(fs flagSet) {
	fs.StringVar(&d.mech, "mech", "", "mechanism: deloutputpert")
	fs.StringVar(&d.f, "f", "mean", "released function: mean (the mean of the remaining users' item means)")
	fs.Float64Var(&d.eps, "eps", 0, "privacy parameter ε > 0")
	fs.Float64Var(&d.delta, "delta", 0, "privacy parameter δ in (0, 1)")
	fs.Float64Var(&d.sens, "target-sens", 0, "target deletion sensitivity Δ > 0")
	fs.StringVar(&d.mode, "mode", "paper", "paper, sound (the same for DelOutputPert), teaching or non-private")
	fs.IntVar(&d.kappa, "kappa", 0, "teaching mode: choose κ by hand")
}

// params checks the flags and returns DelOutputPert's parameters.
func (d *delFlags) params() (mech.DelParams, error) {
	if d.mech != privacy.MechDelOutputPert {
		return mech.DelParams{}, usagef("--mech %q: this command supports deloutputpert (more mechanisms arrive with their lessons)", d.mech)
	}
	if d.f != "mean" {
		return mech.DelParams{}, usagef("--f %q: supported: mean (the mean of the remaining users' item means)", d.f)
	}
	m, err := privacy.ParseMode(d.mode)
	if err != nil {
		return mech.DelParams{}, usageError{err}
	}
	if m == privacy.Sound {
		m = privacy.Paper // Alg. 1 needs no correction beyond errata A1, A2
	}
	p := mech.DelParams{Eps: d.eps, Delta: d.delta, Sens: d.sens, Mode: m, Kappa: d.kappa}
	if err := p.Validate(); err != nil {
		return mech.DelParams{}, usageError{err}
	}
	return p, nil
}

// flagSet is the part of *flag.FlagSet the shared flags use.
type flagSet interface {
	StringVar(p *string, name, value, usage string)
	Float64Var(p *float64, name string, value float64, usage string)
	IntVar(p *int, name string, value int, usage string)
}

// readCSV loads a dataset file for a mechanism.
func readCSV(path string) (*dataset.Dataset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, usageError{err}
	}
	defer f.Close()
	d, err := dataset.ReadCSV(f, true) // the mean of user means allows ragged users
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

type runOut struct {
	Mechanism string              `json:"mechanism"`
	Kappa     int                 `json:"kappa"`
	Sigma     float64             `json:"sigma"`
	RStar     *int                `json:"rstar"` // null: no stable set within 2κ
	Removed   []string            `json:"removed"`
	PBottom   float64             `json:"p_bottom"`
	Center    []float64           `json:"center"` // null when ⊥ is certain
	Certified bool                `json:"certificate"`
	R1        int                 `json:"r1"`
	Output    []float64           `json:"output"` // null for ⊥
	Seed      uint64              `json:"seed"`
	Guarantee privacy.Guarantee   `json:"guarantee"`
	Trace     *trace.Trace        `json:"trace"`
	Cal       privacy.Calibration `json:"calibration"`
}

func cmdRun(e *env, args []string) error {
	fs := flags(e, "run", "run --mech deloutputpert (--data FILE.csv | --scenario FILE.json) --f mean --eps E --delta D --target-sens X [--seed S] [--mode paper|sound|teaching|non-private] [--format text]")
	var d delFlags
	d.register(fs)
	data := fs.String("data", "", "dataset CSV (user,x1,…,xd)")
	scen := fs.String("scenario", "", "scenario JSON instead of --data and the parameter flags")
	seed := fs.Uint64("seed", 1, "seed of the tdlap and gauss streams")
	var f format
	f.register(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	ds, err := loadInput(fs, &d, *data, *scen, seed)
	if err != nil {
		return err
	}
	p, err := d.params()
	if err != nil {
		return err
	}
	ctx, done, progress := withProgress(e, "searching the deletion lattice")
	res, tr, err := mech.DelOutputPert(ctx, p, ds, rng.New(*seed), progress)
	done()
	if err != nil {
		return mechErr(err)
	}
	cal, _ := p.DelCalibration()
	out := runOut{Mechanism: privacy.MechDelOutputPert, Kappa: res.Law.Kappa, Sigma: res.Law.Sigma, Removed: []string{},
		PBottom: res.Law.PBottom, Center: res.Law.Centre, Certified: res.Law.Certified, R1: res.R1, Output: res.Output,
		Seed: *seed, Guarantee: res.Guarantee, Trace: tr, Cal: cal.Calibration}
	if p.Mode != privacy.NonPrivate && res.Law.RStar >= 0 {
		r := res.Law.RStar
		out.RStar = &r
		for _, i := range res.Law.Removed {
			out.Removed = append(out.Removed, ds.Users[i].ID)
		}
	}
	return f.emit(e, out, func(w io.Writer) {
		fmt.Fprintf(w, "DelOutputPert on %d users (%s)\n", ds.N(), res.Guarantee)
		fmt.Fprintf(w, "κ = %d, σ = %.6g\n", out.Kappa, out.Sigma)
		switch {
		case p.Mode == privacy.NonPrivate:
		case out.RStar == nil:
			fmt.Fprintf(w, "no set of ≤ 2κ users leaves a stable dataset: ⊥ with probability 1\n")
		default:
			fmt.Fprintf(w, "r* = %d, removed %v, Pr[⊥] = %.6g, centre %v\n", *out.RStar, out.Removed, out.PBottom, out.Center)
		}
		if out.Output == nil {
			fmt.Fprintf(w, "R1 = %d → output ⊥\n", out.R1)
		} else {
			fmt.Fprintf(w, "R1 = %d → output %v\n", out.R1, out.Output)
		}
		fmt.Fprintln(w, "\ntrace:")
		for i, s := range tr.Steps {
			fmt.Fprintf(w, "  %d. [%s] %s\n", i+1, s.Kind, s.Text)
		}
	})
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// loadInput reads what run and step work on: a scenario file (which sets
// the parameters and the seed), or a CSV with the parameter flags.
func loadInput(fs *flag.FlagSet, d *delFlags, data, scen string, seed *uint64) (*dataset.Dataset, error) {
	if scen != "" {
		if data != "" || given(fs)["eps"] {
			return nil, usagef("--scenario holds the data and parameters: give it alone (with --format)")
		}
		ds, s, err := loadScenario(scen)
		if err != nil {
			return nil, err
		}
		*d = delFlags{mech: s.Mechanism, f: orDefault(s.Params.F, "mean"), mode: s.Mode.String(), eps: s.Params.Eps, delta: s.Params.Delta, sens: s.Params.Sens, kappa: s.Params.Kappa}
		*seed = s.Seed
		return ds, nil
	}
	if err := required(fs, "mech", "data", "eps", "delta", "target-sens"); err != nil {
		return nil, err
	}
	return readCSV(data)
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
