package runner

import (
	"github.com/uldplab/uldp/core/cancel"
	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/mech"
	"github.com/uldplab/uldp/core/optim"
	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/core/scenario"
	"github.com/uldplab/uldp/core/trace"
)

// accelParams reads the accelerated variant's flags; the data's size is
// checked when the run starts.
func (c *Config) accelParams() (optim.AccelParams, error) {
	f := c.oir
	lf, err := c.readLLA("c_τ, the scale of τ = c_τ·L·ln(ndm)/√m (default 1),")
	if err != nil {
		return optim.AccelParams{}, err
	}
	p := optim.AccelParams{Eps: c.Eps, Delta: c.Delta, Loss: lf.loss, Lipschitz: lf.lip, Radius: f.radius, Lambda: c.lambda, PExp: f.pExp, QExp: f.qExp,
		Phases: c.phases, TauScale: lf.tauScale, Batch: c.robust.batch, Smoothing: c.smoothing, WithReplacement: f.withReplacement,
		Theta0: lf.theta0, Order: lf.order, Mode: lf.mode, OnEmpty: lf.onEmpty, AbortOnHalt: f.abortOnHalt, Record: c.Record}
	if p.OnOversize, err = optim.ParseOversizePolicy(f.oversize); err != nil {
		return p, format.Errorf("--on-oversize: %v", err)
	}
	check := p
	if !c.Given["p-exp"] {
		check.PExp = 1 // the default is set from the data when the run starts
	}
	if err := check.Validate(2, lf.dim); err != nil {
		return p, err
	}
	return p, nil
}

// AccelStep is one AC-SA step as the contract prints it: users by id,
// the kept ones too.
type AccelStep struct {
	T          int       `json:"t"`
	Query      []float64 `json:"query"`
	Users      []string  `json:"users"`
	Score      float64   `json:"score"`
	NoisyScore float64   `json:"noisy_score"`
	Threshold  float64   `json:"threshold"`
	Passed     bool      `json:"passed"`
	Counts     []int     `json:"counts"`
	KeepProb   []float64 `json:"keep_prob"`
	Kept       []string  `json:"kept"`
	Mean       []float64 `json:"mean,omitempty"`
	Sigma      float64   `json:"sigma"`
	Gradient   []float64 `json:"gradient,omitempty"`
}

type AccelPhase struct {
	Users   []string    `json:"users"`
	Lambda  float64     `json:"lambda"`
	T       int         `json:"T"`
	Batch   int         `json:"batch"`
	Printed float64     `json:"printed_batch"`
	Capped  bool        `json:"capped"`
	Tau     float64     `json:"tau"`
	Sigma   float64     `json:"sigma"`
	Start   []float64   `json:"start"`
	Steps   []AccelStep `json:"steps"`
	Halted  bool        `json:"halted"`
	Output  []float64   `json:"output"`
}

type AccelReport struct {
	Mechanism string       `json:"mechanism"`
	PExp      float64      `json:"p_exp"`
	Phases    []AccelPhase `json:"phases"`
	Ending
}

func (*AccelReport) report() {}

func newAccelReport(res optim.AccelResult, p optim.AccelParams, ds *dataset.Dataset, m int, s *rng.Streams, tr *trace.Trace) *AccelReport {
	out := &AccelReport{Mechanism: scenario.MechAccel, PExp: p.PExp, Ending: newEnding(res.Stop, res.Output, res.Gradients, res.Guarantee, ds, m, s, tr)}
	for _, ph := range res.Phases {
		o := AccelPhase{Users: ids(ds, ph.UserIdx), Lambda: ph.Lambda, T: ph.AccelRow.Steps, Batch: ph.Batch, Printed: ph.Printed, Capped: ph.Capped,
			Tau: ph.Tau, Sigma: ph.Sigma, Start: ph.Start, Halted: ph.Halted, Output: ph.Output}
		for _, st := range ph.Steps {
			s := AccelStep{T: st.T, Query: st.Query, Users: ids(ds, st.Users), Score: st.Score, NoisyScore: st.NoisyScore,
				Threshold: st.Threshold, Passed: st.Passed, Counts: st.Counts, KeepProb: st.Keep, Kept: []string{},
				Mean: st.Mean, Sigma: st.Sigma, Gradient: st.Gradient}
			for _, i := range st.Kept {
				s.Kept = append(s.Kept, s.Users[i])
			}
			o.Steps = append(o.Steps, s)
		}
		out.Phases = append(out.Phases, o)
	}
	return out
}

func (c *Config) accelJob() (Job, error) {
	p, err := c.accelParams()
	if err != nil {
		return Job{}, err
	}
	return Job{"running accelerated outlier removal", func(ctx cancel.Context, ds *dataset.Dataset, s *rng.Streams, progress mech.Progress) (Report, *trace.Trace, error) {
		p := p // a scenario's runs each size it to their own data
		p.Lipschitz = c.DataLipschitz(p.Loss, p.Lipschitz, ds.Dim)
		m, _ := ds.M() // unequal m is refused by the run
		if !c.Given["p-exp"] {
			p.PExp = optim.TheoremPExp(p.QExp, ds.N(), max(m, 1))
		}
		res, tr, err := optim.Accelerated(ctx, p, ds, s, progress)
		if err != nil {
			return nil, nil, err
		}
		return newAccelReport(res, p, ds, m, s, tr), tr, nil
	}}, nil
}
