package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/uldplab/uldp/core/cancel"
	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/loss"
	"github.com/uldplab/uldp/core/mech"
	"github.com/uldplab/uldp/core/optim"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/core/trace"
)

// dpsgdOut is a DP-SGD run.
type dpsgdOut struct {
	Mechanism string               `json:"mechanism"`
	Theta     []float64            `json:"theta"`
	Halted    int                  `json:"halted"` // the step whose gate failed, 0 if none
	Settings  optim.DPSGDSettings  `json:"settings"`
	Sigma     float64              `json:"sigma"` // ORME's noise per step
	Iterates  [][]float64          `json:"iterates,omitempty"`
	ORME      mech.ORMECalibration `json:"orme"`
	Guarantee privacy.Guarantee    `json:"guarantee"`
	Seed      uint64               `json:"seed"`
	Trace     *trace.Trace         `json:"trace,omitempty"`
}

// maxTraceCells bounds a recorded trace: steps·n·(d+1) values. A step
// costs about 320 bytes per user in ORME's trace and 590 in DP-SGD's
// (measured at d = 1, the JSON output included), so the cap keeps a run
// under about 1 GB whatever the flags.
const maxTraceCells = 2_000_000

// maxPairScores bounds ORME's work: each query scores n² pairs.
const maxPairScores = 1e10

// traceFits refuses a recorded run of steps on ds that would pass
// maxTraceCells, naming the flag that sets the steps and what to do.
func traceFits(steps int, ds *dataset.Dataset, flag, fix string) error {
	if cells := float64(steps) * float64(ds.N()) * float64(ds.Dim+1); cells > maxTraceCells {
		return usagef("%s %d on %d users in ℝ^%d: a trace of steps·n·(d+1) = %.3g values would need over 1 GB (at most %.0e): %s", flag, steps, ds.N(), ds.Dim, cells, float64(maxTraceCells), fix)
	}
	return nil
}

// maxIterates is how many iterates a report lists before leaving them out.
const maxIterates = 1000

// dpsgdParams reads DP-SGD's flags; dpsgdFor completes them for a dataset.
func (d *mechFlags) dpsgdParams() (optim.DPSGDParams, error) {
	mode, err := privacy.ParseMode(d.mode)
	if err != nil {
		return optim.DPSGDParams{}, usageError{err}
	}
	var l loss.Item
	switch d.loss {
	case "distance":
		l = loss.Distance{}
	case mech.LossSquared:
		l = loss.Squared{Mu: d.mu}
	default:
		return optim.DPSGDParams{}, usagef("--loss %q: dp-sgd takes distance (‖θ − z‖) or squared ((μ/2)‖θ − z‖²)", d.loss)
	}
	if err := errors.Join(privacy.CheckEps(d.eps), privacy.CheckDelta(d.delta), d.checkSchedule()); err != nil {
		return optim.DPSGDParams{}, usageError{err}
	}
	theta0, err := parseTheta0(d.theta0)
	if err != nil {
		return optim.DPSGDParams{}, err
	}
	return optim.DPSGDParams{Eps: d.eps, Delta: d.delta, Loss: l, Radius: d.rk, Theta0: theta0, Mode: mode, Record: d.trace}, nil
}

// checkSchedule refuses DP-SGD's loss and schedule flags that are out of
// range, each by its own name, before any default is computed from them.
func (d *mechFlags) checkSchedule() error {
	var errs []error
	check := func(name string, v float64, ok bool, need string) {
		if !ok {
			errs = append(errs, fmt.Errorf("--%s = %v: %s", name, v, need))
		}
	}
	finitePos := func(v float64) bool { return v > 0 && !math.IsInf(v, 1) }
	check("rk", d.rk, finitePos(d.rk), "the domain's radius must be a finite number > 0")
	if d.loss == mech.LossSquared {
		check("mu", d.mu, finitePos(d.mu), "the squared loss's μ must be a finite number > 0")
		check("rx", d.rx, d.rx >= 0 && !math.IsInf(d.rx, 1), "the data's radius must be a finite number ≥ 0")
	}
	if d.given["steps"] {
		check("steps", float64(d.steps), d.steps >= 1 && d.steps <= 10_000_000, "choose 1 to 10⁷ steps")
	}
	if d.given["eta"] {
		check("eta", d.eta, finitePos(d.eta), "the step size must be a finite number > 0")
	}
	if d.given["smoothing"] {
		check("smoothing", d.smoothing, d.smoothing >= 0 && !math.IsInf(d.smoothing, 1), "the smoothing radius must be a finite number ≥ 0 (0: none)")
	}
	if d.given["tau"] {
		check("tau", d.tau, finitePos(d.tau), "the concentration radius must be a finite number > 0")
	}
	return errors.Join(errs...)
}

// dpsgdFor fills in Theorem 4.1's settings for ds where no flag gave them;
// the error says which setting the theorem cannot give for these inputs.
func (d *mechFlags) dpsgdFor(p optim.DPSGDParams, ds *dataset.Dataset) (optim.DPSGDParams, optim.DPSGDSettings, error) {
	m, _ := ds.M()
	g := 1.0 // the distance loss is 1-Lipschitz everywhere
	if d.loss == mech.LossSquared {
		smoothing := 0.0
		if d.given["smoothing"] {
			smoothing = d.smoothing
		}
		g = d.mu * (d.rk + d.rx + smoothing)
	}
	steps := 0
	if d.given["steps"] {
		steps = d.steps
	}
	set := optim.Theorem41(d.eps, d.delta, g, 2*d.rk, ds.N(), max(m, 1), ds.Dim, steps)
	for _, s := range []struct {
		name string
		v    *float64
		flag float64
	}{{"eta", &set.Eta, d.eta}, {"smoothing", &set.Smoothing, d.smoothing}, {"tau", &set.Tau, d.tau}} {
		if d.given[s.name] {
			*s.v = s.flag
		} else if !(*s.v >= 0) || math.IsInf(*s.v, 0) || (s.name != "smoothing" && *s.v == 0) {
			return p, set, usagef("Theorem 4.1 gives %s = %v for these inputs (G = %.4g, n = %d, m = %d, d = %d, T = %d): set --%s, or bring --rk, --rx and --mu into a smaller range", s.name, *s.v, g, ds.N(), m, ds.Dim, set.Steps, s.name)
		}
	}
	p.Steps, p.Eta, p.Smoothing, p.Tau = set.Steps, set.Eta, set.Smoothing, set.Tau
	return p, set, nil
}

func (d *mechFlags) dpsgdJob() (job, error) {
	base, err := d.dpsgdParams()
	if err != nil {
		return job{}, err
	}
	return job{"running DP-SGD", func(ctx cancel.Context, ds *dataset.Dataset, s *rng.Streams, progress mech.Progress) (report, *trace.Trace, error) {
		p, set, err := d.dpsgdFor(base, ds)
		if err != nil {
			return nil, nil, err
		}
		if p.Record {
			if err := traceFits(p.Steps, ds, "--steps", "give fewer steps, or run without --trace (uldp step always records; its --to K only limits what it prints)"); err != nil {
				return nil, nil, err
			}
		}
		res, tr, err := optim.DPSGD(ctx, p, ds, s, progress)
		if err != nil {
			return nil, nil, err
		}
		out := dpsgdOut{Mechanism: "dp-sgd", Theta: res.Theta, Halted: res.Halted, Settings: set, Sigma: res.ORME.Sigma,
			ORME: res.ORME, Guarantee: res.Guarantee, Seed: s.Seed(), Trace: tr}
		if len(res.Iterates) <= maxIterates {
			out.Iterates = res.Iterates
		}
		return out, tr, nil
	}}, nil
}

func (out dpsgdOut) text(w io.Writer) {
	s := out.Settings
	fmt.Fprintf(w, "user-level DP-SGD (%s)\n", out.Guarantee)
	unmet(w, out.Guarantee)
	fmt.Fprintf(w, "T = %d steps, η = %.4g, smoothing r = %.4g, τ = %.4g; ORME's σ per step = %.4g\n", s.Steps, s.Eta, s.Smoothing, s.Tau, out.Sigma)
	if out.Halted > 0 {
		fmt.Fprintf(w, "the gate failed at step %d: θ̂ = θ₀ = %s\n", out.Halted, vec(out.Theta))
	} else {
		fmt.Fprintf(w, "θ̂ (the average of the iterates) = %s\n", vec(out.Theta))
	}
	if out.Trace != nil {
		writeTrace(w, out.Trace)
	}
}

// dpsgdSCOut is a run of the strongly convex localisation.
type dpsgdSCOut struct {
	Mechanism string               `json:"mechanism"`
	Theta     []float64            `json:"theta"`
	Phases    []optim.DPSGDSCPhase `json:"phases"`
	Guarantee privacy.Guarantee    `json:"guarantee"`
	Seed      uint64               `json:"seed"`
	Trace     *trace.Trace         `json:"trace"`
}

func (d *mechFlags) dpsgdSCJob() (job, error) {
	mode, err := privacy.ParseMode(d.mode)
	if err != nil {
		return job{}, usageError{err}
	}
	if err := errors.Join(privacy.CheckEps(d.eps), privacy.CheckDelta(d.delta)); err != nil {
		return job{}, usageError{err}
	}
	theta0, err := parseTheta0(d.theta0)
	if err != nil {
		return job{}, err
	}
	p := optim.DPSGDSCParams{Eps: d.eps, Delta: d.delta, Mu: d.mu, Radius: d.rk, RX: d.rx, Theta0: theta0, Steps: d.steps, Mode: mode}
	return job{"running the phases", func(ctx cancel.Context, ds *dataset.Dataset, s *rng.Streams, progress mech.Progress) (report, *trace.Trace, error) {
		res, tr, err := optim.DPSGDSC(ctx, p, ds, s, progress)
		if err != nil {
			return nil, nil, err
		}
		return dpsgdSCOut{Mechanism: "dp-sgd-sc", Theta: res.Theta, Phases: res.Phases, Guarantee: res.Guarantee, Seed: s.Seed(), Trace: tr}, tr, nil
	}}, nil
}

func (out dpsgdSCOut) text(w io.Writer) {
	fmt.Fprintf(w, "DP-SGD, strongly convex localisation (%s)\n", out.Guarantee)
	unmet(w, out.Guarantee)
	for _, ph := range out.Phases {
		s := ph.Settings
		fmt.Fprintf(w, "phase %d on %d users: R̂ = %.4g, T = %d, η = %.3g, r = %.3g, τ = %.3g → %s", ph.I, ph.Users, ph.RHat, s.Steps, s.Eta, s.Smoothing, s.Tau, vec(ph.Theta))
		if ph.Halted > 0 {
			fmt.Fprintf(w, " (the gate failed at step %d: its start)", ph.Halted)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "θ̂ = %s\n", vec(out.Theta))
}

// parseTheta0 reads --theta0 (empty: the centre).
// formatTheta0 writes x₀ as --theta0 takes it (what a scenario gives).
func formatTheta0(x []float64) string {
	parts := make([]string, len(x))
	for i, v := range x {
		parts[i] = strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strings.Join(parts, ",")
}

func parseTheta0(v string) ([]float64, error) {
	if v == "" {
		return nil, nil
	}
	var out []float64
	for _, f := range strings.Split(v, ",") {
		x, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, usagef("--theta0: %q is not a finite number", f)
		}
		out = append(out, x)
	}
	return out, nil
}
