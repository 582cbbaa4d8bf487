package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

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

// maxIterates is how many iterates a report lists before leaving them out.
const maxIterates = 1000

func (d *mechFlags) dpsgdJob() (job, error) {
	mode, err := privacy.ParseMode(d.mode)
	if err != nil {
		return job{}, usageError{err}
	}
	var l loss.Item
	switch d.loss {
	case "distance":
		l = loss.Distance{}
	case mech.LossSquared:
		l = loss.Squared{Mu: d.mu}
	default:
		return job{}, usagef("--loss %q: dp-sgd takes distance (‖θ − z‖) or squared ((μ/2)‖θ − z‖²)", d.loss)
	}
	if err := privacy.CheckEps(d.eps); err != nil {
		return job{}, usageError{err}
	}
	if err := privacy.CheckDelta(d.delta); err != nil {
		return job{}, usageError{err}
	}
	var theta0 []float64
	if d.theta0 != "" {
		for _, f := range strings.Split(d.theta0, ",") {
			v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return job{}, usagef("--theta0: %q is not a finite number", f)
			}
			theta0 = append(theta0, v)
		}
	}
	return job{"running DP-SGD", func(ctx context.Context, ds *dataset.Dataset, s *rng.Streams, progress mech.Progress) (report, *trace.Trace, error) {
		m, _ := ds.M()
		g := 1.0 // the distance loss is 1-Lipschitz everywhere
		if d.loss == mech.LossSquared {
			g = d.mu * (d.rk + d.rx + math.Max(d.smoothing, 0))
		}
		set := optim.Theorem41(d.eps, d.delta, g, 2*d.rk, ds.N(), max(m, 1), ds.Dim, d.steps)
		if d.eta > 0 {
			set.Eta = d.eta
		}
		if d.smoothing >= 0 {
			set.Smoothing = d.smoothing
		}
		if d.tau > 0 {
			set.Tau = d.tau
		}
		p := optim.DPSGDParams{Eps: d.eps, Delta: d.delta, Loss: l, Radius: d.rk, Theta0: theta0,
			Steps: set.Steps, Eta: set.Eta, Smoothing: set.Smoothing, Tau: set.Tau, Mode: mode, Record: d.trace}
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
	fmt.Fprintf(w, "T = %d steps, η = %.4g, smoothing r = %.4g, τ = %.4g; ORME's σ per step = %.4g\n", s.Steps, s.Eta, s.Smoothing, s.Tau, out.Sigma)
	if out.Halted > 0 {
		fmt.Fprintf(w, "the gate failed at step %d: θ̂ = θ₀ = %v\n", out.Halted, out.Theta)
	} else {
		fmt.Fprintf(w, "θ̂ (the average of the iterates) = %v\n", out.Theta)
	}
	if out.Trace != nil {
		writeTrace(w, out.Trace)
	}
}
