package runner

import (
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/uldplab/uldp/core/cancel"
	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/loss"
	"github.com/uldplab/uldp/core/mech"
	"github.com/uldplab/uldp/core/optim"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/core/trace"
)

// DPSGDReport is a DP-SGD run.
type DPSGDReport struct {
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

func (*DPSGDReport) report() {}

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
		return format.Errorf("%s %d on %d users in ℝ^%d: a trace of steps·n·(d+1) = %.3g values would need over 1 GB (at most %.0e): %s", flag, steps, ds.N(), ds.Dim, cells, float64(maxTraceCells), fix)
	}
	return nil
}

// maxIterates is how many iterates a report lists before leaving them out.
const maxIterates = 1000

// dpsgdParams reads DP-SGD's flags; dpsgdFor completes them for a dataset.
func (c *Config) dpsgdParams() (optim.DPSGDParams, error) {
	mode, err := privacy.ParseMode(c.Mode)
	if err != nil {
		return optim.DPSGDParams{}, err
	}
	var l loss.Item
	switch c.Loss {
	case "distance":
		l = loss.Distance{}
	case mech.LossSquared:
		l = loss.Squared{Mu: c.mu}
	default:
		return optim.DPSGDParams{}, format.Errorf("--loss %q: dp-sgd takes distance (‖θ − z‖) or squared ((μ/2)‖θ − z‖²)", c.Loss)
	}
	if err := errors.Join(privacy.CheckEps(c.Eps), privacy.CheckDelta(c.Delta), c.checkSchedule()); err != nil {
		return optim.DPSGDParams{}, err
	}
	theta0, err := parseTheta0(c.theta0)
	if err != nil {
		return optim.DPSGDParams{}, err
	}
	return optim.DPSGDParams{Eps: c.Eps, Delta: c.Delta, Loss: l, Radius: c.rk, Theta0: theta0, Mode: mode, Record: c.Record}, nil
}

// checkSchedule refuses DP-SGD's loss and schedule flags that are out of
// range, each by its own name, before any default is computed from them.
func (c *Config) checkSchedule() error {
	var errs []error
	check := func(name string, v float64, ok bool, need string) {
		if !ok {
			errs = append(errs, format.Errorf("--%s = %v: %s", name, v, need))
		}
	}
	finitePos := func(v float64) bool { return v > 0 && !math.IsInf(v, 1) }
	check("rk", c.rk, finitePos(c.rk), "the domain's radius must be a finite number > 0")
	if c.Loss == mech.LossSquared {
		check("mu", c.mu, finitePos(c.mu), "the squared loss's μ must be a finite number > 0")
		check("rx", c.rx, c.rx >= 0 && !math.IsInf(c.rx, 1), "the data's radius must be a finite number ≥ 0")
	}
	if c.Given["steps"] {
		check("steps", float64(c.steps), c.steps >= 1 && c.steps <= 10_000_000, "choose 1 to 10⁷ steps")
	}
	if c.Given["eta"] {
		check("eta", c.eta, finitePos(c.eta), "the step size must be a finite number > 0")
	}
	if c.Given["smoothing"] {
		check("smoothing", c.smoothing, c.smoothing >= 0 && !math.IsInf(c.smoothing, 1), "the smoothing radius must be a finite number ≥ 0 (0: none)")
	}
	if c.Given["tau"] {
		check("tau", c.Tau, finitePos(c.Tau), "the concentration radius must be a finite number > 0")
	}
	return errors.Join(errs...)
}

// dpsgdFor fills in Theorem 4.1's settings for ds where no flag gave them;
// the error says which setting the theorem cannot give for these inputs.
func (c *Config) dpsgdFor(p optim.DPSGDParams, ds *dataset.Dataset) (optim.DPSGDParams, optim.DPSGDSettings, error) {
	m, _ := ds.M()
	g := 1.0 // the distance loss is 1-Lipschitz everywhere
	if c.Loss == mech.LossSquared {
		smoothing := 0.0
		if c.Given["smoothing"] {
			smoothing = c.smoothing
		}
		g = c.mu * (c.rk + c.rx + smoothing)
	}
	steps := 0
	if c.Given["steps"] {
		steps = c.steps
	}
	set := optim.Theorem41(c.Eps, c.Delta, g, 2*c.rk, ds.N(), max(m, 1), ds.Dim, steps)
	for _, s := range []struct {
		name string
		v    *float64
		flag float64
	}{{"eta", &set.Eta, c.eta}, {"smoothing", &set.Smoothing, c.smoothing}, {"tau", &set.Tau, c.Tau}} {
		if c.Given[s.name] {
			*s.v = s.flag
		} else if !(*s.v >= 0) || math.IsInf(*s.v, 0) || (s.name != "smoothing" && *s.v == 0) {
			return p, set, format.Errorf("Theorem 4.1 gives %s = %v for these inputs (G = %.4g, n = %d, m = %d, d = %d, T = %d): set --%s, or bring --rk, --rx and --mu into a smaller range", s.name, *s.v, g, ds.N(), m, ds.Dim, set.Steps, s.name)
		}
	}
	p.Steps, p.Eta, p.Smoothing, p.Tau = set.Steps, set.Eta, set.Smoothing, set.Tau
	return p, set, nil
}

func (c *Config) dpsgdJob() (Job, error) {
	base, err := c.dpsgdParams()
	if err != nil {
		return Job{}, err
	}
	return Job{"running DP-SGD", func(ctx cancel.Context, ds *dataset.Dataset, s *rng.Streams, progress mech.Progress) (Report, *trace.Trace, error) {
		p, set, err := c.dpsgdFor(base, ds)
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
		out := DPSGDReport{Mechanism: "dp-sgd", Theta: res.Theta, Halted: res.Halted, Settings: set, Sigma: res.ORME.Sigma,
			ORME: res.ORME, Guarantee: res.Guarantee, Seed: s.Seed(), Trace: tr}
		if len(res.Iterates) <= maxIterates {
			out.Iterates = res.Iterates
		}
		return &out, tr, nil
	}}, nil
}

// DPSGDSCReport is a run of the strongly convex localisation.
type DPSGDSCReport struct {
	Mechanism string               `json:"mechanism"`
	Theta     []float64            `json:"theta"`
	Phases    []optim.DPSGDSCPhase `json:"phases"`
	Guarantee privacy.Guarantee    `json:"guarantee"`
	Seed      uint64               `json:"seed"`
	Trace     *trace.Trace         `json:"trace"`
}

func (*DPSGDSCReport) report() {}

func (c *Config) dpsgdSCJob() (Job, error) {
	mode, err := privacy.ParseMode(c.Mode)
	if err != nil {
		return Job{}, err
	}
	if err := errors.Join(privacy.CheckEps(c.Eps), privacy.CheckDelta(c.Delta)); err != nil {
		return Job{}, err
	}
	theta0, err := parseTheta0(c.theta0)
	if err != nil {
		return Job{}, err
	}
	p := optim.DPSGDSCParams{Eps: c.Eps, Delta: c.Delta, Mu: c.mu, Radius: c.rk, RX: c.rx, Theta0: theta0, Steps: c.steps, Mode: mode}
	return Job{"running the phases", func(ctx cancel.Context, ds *dataset.Dataset, s *rng.Streams, progress mech.Progress) (Report, *trace.Trace, error) {
		res, tr, err := optim.DPSGDSC(ctx, p, ds, s, progress)
		if err != nil {
			return nil, nil, err
		}
		return &DPSGDSCReport{Mechanism: "dp-sgd-sc", Theta: res.Theta, Phases: res.Phases, Guarantee: res.Guarantee, Seed: s.Seed(), Trace: tr}, tr, nil
	}}, nil
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
			return nil, format.Errorf("--theta0: %q is not a finite number", f)
		}
		out = append(out, x)
	}
	return out, nil
}
