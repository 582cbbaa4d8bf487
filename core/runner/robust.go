package runner

import (
	"math"

	"github.com/uldplab/uldp/core/cancel"
	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/loss"
	"github.com/uldplab/uldp/core/mech"
	"github.com/uldplab/uldp/core/optim"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/core/robust"
	"github.com/uldplab/uldp/core/scenario"
	"github.com/uldplab/uldp/core/trace"
)

// robustFlags are robust SGD's own flags.
type robustFlags struct {
	batch, trim           int
	r, domain, huber, thr float64
	stat, order           string
}

func (f *robustFlags) register(fs FlagSet) {
	fs.IntVar(&f.batch, "batch", 0, "robust-sgd: B, the users per step; accelerated-outlier-removal: K_i in every phase (teaching mode; default the printed K_i, capped at n_i)")
	fs.Float64Var(&f.r, "r", 0, "robust-sgd: the kernel radius r, also the clip band ς = r around the robust statistic")
	fs.Float64Var(&f.domain, "domain", 0, "robust-sgd: D, the domain is the box [−D, D]^d")
	fs.StringVar(&f.stat, "stat", "median", "robust-sgd: the robust statistic, median or trimmed")
	fs.IntVar(&f.trim, "trim", 0, "robust-sgd: k for --stat trimmed, the users dropped at each end (default ⌈B/3⌉)")
	fs.StringVar(&f.order, "order", "shuffled", "robust-sgd, outlier-iterate-removal, accelerated-outlier-removal: shuffled (a random partition of the users) or given (file order: robust-sgd's step t takes users (t−1)B+1…tB, outlier-iterate removal's groups are consecutive runs of users)")
	fs.Float64Var(&f.thr, "threshold", 0, "robust-sgd: the test's threshold v (default: in sound mode the least v at which a batch with no crowd passes with chance δ/(2e^ε); otherwise 0.9B + 2 ln(T/δ)/ε)")
	fs.Float64Var(&f.huber, "huber", 1, "robust-sgd: h of the Huber loss Σⱼ h(xⱼ − zⱼ), gradient clip(xⱼ − zⱼ, −h, h)")
}

// robustParams reads robust SGD's flags; the data's dimension and size are
// checked when the run starts.
func (c *Config) robustParams() (optim.RobustSGDParams, error) {
	f := c.robust
	mode, err := privacy.ParseMode(c.Mode)
	if err != nil {
		return optim.RobustSGDParams{}, err
	}
	p := optim.RobustSGDParams{Eps: c.Eps, Delta: c.Delta, Domain: f.domain, Batch: f.batch, Radius: f.r, Eta: c.eta, Mode: mode, Record: c.Record}
	switch f.stat {
	case "median":
		if c.Given["trim"] {
			return p, format.Errorf("--trim %d: only --stat trimmed trims; drop --trim or add --stat trimmed", f.trim)
		}
	case "trimmed":
		p.Stat.Trim = robust.MinTrim(f.batch)
		if c.Given["trim"] {
			if f.trim < 1 {
				return p, format.Errorf("--trim %d: the trimmed mean drops k ≥ 1 users at each end (k = 0 is the plain mean)", f.trim)
			}
			p.Stat.Trim = f.trim
		}
	default:
		return p, format.Errorf("--stat %q: use median or trimmed", f.stat)
	}
	if p.Order, err = parseOrder(f.order); err != nil {
		return p, err
	}
	if c.Given["threshold"] {
		v := f.thr
		p.Threshold = &v
	}
	theta0, err := parseTheta0(c.theta0)
	if err != nil {
		return p, err
	}
	p.Theta0 = theta0
	dim := 2 // until the data says
	if theta0 != nil {
		dim = len(theta0)
	}
	switch c.Loss {
	case mech.LossSquared:
		p.Loss = loss.Squared{Mu: c.mu}
		if !(c.mu > 0) || math.IsInf(c.mu, 1) {
			return p, format.Errorf("--mu %v: the squared loss (μ/2)‖x − z‖² needs a finite μ > 0", c.mu)
		}
	case "huber":
		if !(f.huber > 0) || math.IsInf(f.huber, 1) {
			return p, format.Errorf("--huber %v: the Huber loss needs a finite h > 0", f.huber)
		}
		p.Loss = loss.Huber{H: f.huber}
	case "coupled":
		p.Loss = loss.Coupled(dim) // sized again to the data when the run starts
	default:
		return p, format.Errorf("--loss %q: robust-sgd takes squared, huber, or coupled (a quadratic whose Hessian is not diagonally dominant: refused outside teaching mode)", c.Loss)
	}
	// Check everything the data does not decide now, before a file is reac.
	if err := p.Validate(max(f.batch, 1), dim); err != nil {
		return p, err
	}
	return p, nil
}

// RobustPhase is a phase as the contract prints it: per step the
// batch's user ids, the score, the estimate g_{t−1} and x_t.
type RobustPhase struct {
	Batches             [][]string  `json:"batches"`
	Scores              []float64   `json:"scores"`
	Estimates           [][]float64 `json:"estimates"`
	Iterates            [][]float64 `json:"iterates"`
	Average             []float64   `json:"average"`
	Threshold           float64     `json:"threshold"`
	NoisyThreshold      float64     `json:"noisy_threshold"`
	ThresholdNoiseScale float64     `json:"threshold_noise_scale"`
	ScoreNoiseScale     float64     `json:"score_noise_scale"`
	Passed              bool        `json:"passed"`
	FailedAt            *int        `json:"failed_at"`
	Eta                 float64     `json:"eta"`
	Sigma               float64     `json:"sigma"`
	Noise               []float64   `json:"noise"`
	Output              []float64   `json:"output"`
}

// RobustReport is a run: robust-sgd prints its one phase at the top level,
// robust-sgd-loc a list of phases.
type RobustReport struct {
	Mechanism string `json:"mechanism"`
	*RobustPhase
	Phases    []RobustPhase     `json:"phases,omitempty"`
	Output    []float64         `json:"output"`
	Guarantee privacy.Guarantee `json:"guarantee"`
	Seed      uint64            `json:"seed"`
	Trace     *trace.Trace      `json:"trace,omitempty"`
}

func (*RobustReport) report() {}

func newRobustPhase(ph optim.RobustPhase, ds *dataset.Dataset) RobustPhase {
	out := RobustPhase{Average: ph.Average, Threshold: ph.Threshold, NoisyThreshold: ph.NoisyThreshold,
		ThresholdNoiseScale: ph.ThresholdScale, ScoreNoiseScale: ph.ScoreScale, Passed: ph.Passed,
		Eta: ph.Eta, Sigma: ph.Sigma, Noise: ph.Noise, Output: ph.Output}
	if ph.FailedAt > 0 {
		out.FailedAt = &ph.FailedAt
	}
	for _, st := range ph.Steps {
		out.Batches = append(out.Batches, ids(ds, st.Users))
		out.Scores = append(out.Scores, st.Score)
		out.Estimates = append(out.Estimates, st.Estimate.Est)
		out.Iterates = append(out.Iterates, st.Next)
	}
	return out
}

// maxScoreWork bounds a run's kernel evaluations, Σ_steps B² (minutes of
// work beyond it).
const maxScoreWork = 2e10

func (c *Config) robustJob() (Job, error) {
	p, err := c.robustParams()
	if err != nil {
		return Job{}, err
	}
	loc := c.Mech == scenario.MechRobustLoc
	return Job{"running robust SGD", func(ctx cancel.Context, ds *dataset.Dataset, s *rng.Streams, progress mech.Progress) (Report, *trace.Trace, error) {
		if _, ok := p.Loss.(loss.Quadratic); ok {
			p.Loss = loss.Coupled(ds.Dim)
		}
		if work := float64(ds.N()) * float64(p.Batch); work > maxScoreWork {
			return nil, nil, format.Errorf("--batch %d on %d users: the tests would evaluate about n·B = %.2g kernel terms (at most %.0e, minutes of work); give a smaller batch", p.Batch, ds.N(), work, maxScoreWork)
		}
		if p.Record {
			if err := traceFits(ds.N()/p.Batch, ds, "--batch", "record fewer users' steps: give a larger --batch or a smaller file"); err != nil {
				return nil, nil, err
			}
		}
		run := optim.RobustSGD
		if loc {
			run = optim.RobustLocalization
		}
		res, tr, err := run(ctx, p, ds, s, progress)
		if err != nil {
			return nil, nil, err
		}
		out := RobustReport{Mechanism: c.Mech, Output: res.Output, Guarantee: res.Guarantee, Seed: s.Seed(), Trace: tr}
		if loc {
			for _, ph := range res.Phases {
				out.Phases = append(out.Phases, newRobustPhase(ph, ds))
			}
		} else {
			one := newRobustPhase(res.Phases[0], ds)
			out.RobustPhase = &one
		}
		return &out, tr, nil
	}}, nil
}
