package main

import (
	"fmt"
	"io"

	"github.com/uldplab/uldp/core/cancel"
	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/mech"
	"github.com/uldplab/uldp/core/optim"
	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/core/scenario"
	"github.com/uldplab/uldp/core/trace"
)

// accelParams reads the accelerated variant's flags; the data's size is
// checked when the run starts.
func (d *mechFlags) accelParams() (optim.AccelParams, error) {
	f := d.oir
	c, err := d.readLLA("c_τ, the scale of τ = c_τ·L·ln(ndm)/√m (default 1),")
	if err != nil {
		return optim.AccelParams{}, err
	}
	p := optim.AccelParams{Eps: d.eps, Delta: d.delta, Loss: c.loss, Lipschitz: c.lip, Radius: f.radius, Lambda: d.lambda, PExp: f.pExp, QExp: f.qExp,
		Phases: d.phases, TauScale: c.tauScale, Batch: d.robust.batch, Smoothing: d.smoothing, WithReplacement: f.withReplacement,
		Theta0: c.theta0, Order: c.order, Mode: c.mode, OnEmpty: c.onEmpty, AbortOnHalt: f.abortOnHalt, Record: d.trace}
	if p.OnOversize, err = optim.ParseOversizePolicy(f.oversize); err != nil {
		return p, usagef("--on-oversize: %v", err)
	}
	check := p
	if !d.given["p-exp"] {
		check.PExp = 1 // the default is set from the data when the run starts
	}
	if err := check.Validate(2, c.dim); err != nil {
		return p, usageError{err}
	}
	return p, nil
}

// accelStepOut is one AC-SA step as the contract prints it: users by id,
// the kept ones too.
type accelStepOut struct {
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

type accelPhaseOut struct {
	Users   []string       `json:"users"`
	Lambda  float64        `json:"lambda"`
	T       int            `json:"T"`
	Batch   int            `json:"batch"`
	Printed float64        `json:"printed_batch"`
	Capped  bool           `json:"capped"`
	Tau     float64        `json:"tau"`
	Sigma   float64        `json:"sigma"`
	Start   []float64      `json:"start"`
	Steps   []accelStepOut `json:"steps"`
	Halted  bool           `json:"halted"`
	Output  []float64      `json:"output"`
}

type accelOut struct {
	Mechanism string          `json:"mechanism"`
	PExp      float64         `json:"p_exp"`
	Phases    []accelPhaseOut `json:"phases"`
	llaEnd
}

func newAccelOut(res optim.AccelResult, p optim.AccelParams, ds *dataset.Dataset, m int, s *rng.Streams, tr *trace.Trace) accelOut {
	out := accelOut{Mechanism: scenario.MechAccel, PExp: p.PExp, llaEnd: newLLAEnd(res.Stop, res.Output, res.Gradients, res.Guarantee, ds, m, s, tr)}
	for _, ph := range res.Phases {
		o := accelPhaseOut{Users: ids(ds, ph.UserIdx), Lambda: ph.Lambda, T: ph.AccelRow.Steps, Batch: ph.Batch, Printed: ph.Printed, Capped: ph.Capped,
			Tau: ph.Tau, Sigma: ph.Sigma, Start: ph.Start, Halted: ph.Halted, Output: ph.Output}
		for _, st := range ph.Steps {
			s := accelStepOut{T: st.T, Query: st.Query, Users: ids(ds, st.Users), Score: st.Score, NoisyScore: st.NoisyScore,
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

func (d *mechFlags) accelJob() (job, error) {
	p, err := d.accelParams()
	if err != nil {
		return job{}, err
	}
	return job{"running accelerated outlier removal", func(ctx cancel.Context, ds *dataset.Dataset, s *rng.Streams, progress mech.Progress) (report, *trace.Trace, error) {
		p := p // a scenario's runs each size it to their own data
		p.Lipschitz = d.dataLipschitz(p.Loss, p.Lipschitz, ds.Dim)
		m, _ := ds.M() // unequal m is refused by the run
		if !d.given["p-exp"] {
			p.PExp = optim.TheoremPExp(p.QExp, ds.N(), max(m, 1))
		}
		res, tr, err := optim.Accelerated(ctx, p, ds, s, progress)
		if err != nil {
			return nil, nil, err
		}
		return newAccelOut(res, p, ds, m, s, tr), tr, nil
	}}, nil
}

func (out accelOut) text(w io.Writer) {
	fmt.Fprintf(w, "accelerated outlier removal, p = %.4g (%s)\n", out.PExp, out.Guarantee)
	unmet(w, out.Guarantee)
	for i, ph := range out.Phases {
		capped := ""
		if ph.Capped {
			capped = fmt.Sprintf(" (printed %.4g, capped)", ph.Printed)
		}
		fmt.Fprintf(w, "phase %d: %d users, λ = %.4g, T = %d steps of K = %d%s, τ = %.4g, σ = %.4g, from %s\n",
			i+1, len(ph.Users), ph.Lambda, ph.T, ph.Batch, capped, ph.Tau, ph.Sigma, vec(ph.Start))
		for _, st := range ph.Steps {
			fmt.Fprintf(w, "  step %d at %s: score %.4g, noisy %.4g vs %.4g: ", st.T, vec(st.Query), st.Score, st.NoisyScore, st.Threshold)
			if !st.Passed {
				fmt.Fprintln(w, "failed, the phase returns 0")
				continue
			}
			fmt.Fprintf(w, "passed; kept %d of %d; G = %s\n", len(st.Kept), len(st.Users), vec(st.Gradient))
		}
		if ph.Halted && len(ph.Steps) > 0 && ph.Steps[len(ph.Steps)-1].Passed {
			fmt.Fprintln(w, "  the coins kept nobody: the phase returns 0")
		}
		fmt.Fprintf(w, "  phase output %s\n", vec(ph.Output))
	}
	if out.Stop != "" {
		fmt.Fprintf(w, "%s\n", out.Stop)
	}
	out.llaEnd.text(w)
}
