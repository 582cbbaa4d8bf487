package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/uldplab/uldp/core/audit"
	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/optim"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/core/runner"
	"github.com/uldplab/uldp/core/scenario"
)

type oirAuditOut struct {
	Mechanism string            `json:"mechanism"`
	Claimed   privacy.Guarantee `json:"claimed"`
	Changed   *string           `json:"changed_user"`
	Mutant    string            `json:"mutant,omitempty"`
	// Law is the exact law of the phase holding the changed user.
	Law        audit.OIRLaw    `json:"exact"`
	MonteCarlo *audit.MCResult `json:"monte_carlo,omitempty"`
	Verdict    string          `json:"verdict"`
}

// auditOIR audits the phase of outlier-iterate removal that holds the
// changed user: exactly (the gate's Laplace comparison, the ramp's coins,
// the Gaussian, projected on a line) and, with --monte-carlo, by sampling
// the phase.
func auditOIR(e *env, d *runner.Config, r auditRequest, seed uint64) error {
	p, err := d.OIRParams()
	if err != nil {
		return usageError{err}
	}
	if err := r.knownMutant("outlier-iterate removal's broken variants are", optim.OIRMutantNames()); err != nil {
		return err
	}
	if p, err = audit.OIRMutant(p, r.mutant); err != nil {
		return usageError{err}
	}
	p.Lipschitz = d.DataLipschitz(p.Loss, p.Lipschitz, r.a.Dim)
	m, _ := r.a.M()
	g := p.Guarantee(r.a.N(), m, r.a.Dim)
	law, err := audit.OIRPhaseLaw(p, r.a, r.b, seed, g, r.eps)
	if err != nil {
		return usageError{err}
	}
	out := oirAuditOut{Mechanism: scenario.MechOIR, Claimed: g, Changed: r.changedID(), Mutant: r.mutant, Law: law}
	if r.mc && law.Phase > 0 {
		if out.MonteCarlo, err = r.sample(e, "sampling the phase on both sides", law.Sampler(p, law.A), law.Sampler(p, law.B), g); err != nil {
			return err
		}
	}
	out.Verdict = verdict(law.Points, out.MonteCarlo)
	if law.Violated() {
		out.Verdict = "violation"
	}
	return r.f.emit(e, out, func(w io.Writer) {
		fmt.Fprintf(w, "outlier-iterate removal over %d users, C = %d groups: claimed %s\n", r.a.N(), law.C, g)
		claimText(w, g, r.mutant, "")
		switch {
		case law.User < 0:
			fmt.Fprintln(w, "A and B are the same dataset: both sides run alike (change one user with --neighbour)")
		case law.Phase == 0:
			fmt.Fprintln(w, "no phase this run reaches holds the changed user: both sides run alike (try another --seed, or fewer users)")
		case law.Group == 0:
			fmt.Fprintf(w, "phase %d leaves the changed user out of every group: both sides run alike\n", law.Phase)
		default:
			fmt.Fprintf(w, "the changed user is in phase %d, group %d (τ = %.4g, σ = %.4g, from %s)\n", law.Phase, law.Group, law.Tau, law.Sigma, vec(law.Start))
			for _, s := range []struct {
				name string
				side audit.OIRSide
			}{{"A", law.A}, {"B", law.B}} {
				fmt.Fprintf(w, "  %s: score %.4g vs 4C/5 = %.4g, passes with probability %.6g; counts %v; %d kept mean(s); halts with probability %.6g\n",
					s.name, s.side.Score, law.Gate, s.side.PPass, s.side.Counts, len(s.side.Means), s.side.Halt)
			}
			fmt.Fprintf(w, "exact: the gate loses %.4g; the accounting gives it ε_g = %.4g\n", law.GateLoss, law.GateBudget)
			if law.Points == nil {
				fmt.Fprintf(w, "more than %d groups on the ramp's slope: the output's law has too many components to integrate; add --monte-carlo\n", audit.OIRMaxMixed)
			} else {
				fmt.Fprintf(w, "the outputs projected on %s (a lower bound on the phase's δ(ε), exact for one kept mean per side):\n", vec(law.Direction))
			}
		}
		auditText(w, law.Points, out.MonteCarlo, r.mutant != "", out.Verdict)
	})
}

type accelAuditOut struct {
	Mechanism  string            `json:"mechanism"`
	Claimed    privacy.Guarantee `json:"claimed"`
	Changed    *string           `json:"changed_user"`
	MonteCarlo *audit.MCResult   `json:"monte_carlo"`
	Verdict    string            `json:"verdict"`
}

// auditAccel samples whole runs of the accelerated variant: its checks
// see gradients at points the earlier steps' noise chose, so nothing about
// a run is closed form.
func auditAccel(e *env, d *runner.Config, r auditRequest) error {
	job, err := d.Job()
	if err != nil {
		return usageError{err}
	}
	switch {
	case !r.mc:
		return usagef("the accelerated variant's checks see gradients at points the earlier noise chose: no closed form; add --monte-carlo to audit it by sampling whole runs")
	case r.mutant != "":
		return usagef("--mutant %s: the accelerated variant has no broken variants to audit yet (outlier-iterate-removal has %s)", r.mutant, strings.Join(optim.OIRMutantNames(), ", "))
	}
	if work := float64(r.a.N()) * float64(r.cfg.Runs); work > maxSampledSteps {
		return usagef("%d users × %d runs: too many gradients to sample (at most %.0e); give fewer --runs or a smaller file", r.a.N(), r.cfg.Runs, float64(maxSampledSteps))
	}
	run := func(data *dataset.Dataset, st *rng.Streams) (*runner.AccelReport, error) {
		rep, _, err := job.Run(context.Background(), data, st, nil)
		if err != nil {
			return nil, err
		}
		return rep.(*runner.AccelReport), nil
	}
	sampler := func(data *dataset.Dataset) audit.Sampler {
		return func(st *rng.Streams) ([]float64, error) {
			o, err := run(data, st)
			return o.Output, err
		}
	}
	// One run first: it checks the data and states the claim.
	first, err := run(r.a, rng.New(r.cfg.Seed))
	if err != nil {
		return mechErr(err)
	}
	claimed := first.Guarantee
	out := accelAuditOut{Mechanism: scenario.MechAccel, Claimed: claimed, Changed: r.changedID()}
	if out.MonteCarlo, err = r.sample(e, "sampling whole runs on both sides", sampler(r.a), sampler(r.b), claimed); err != nil {
		return err
	}
	out.Verdict = verdict(nil, out.MonteCarlo)
	return r.f.emit(e, out, func(w io.Writer) {
		fmt.Fprintf(w, "accelerated outlier removal over %d users: claimed %s\n", r.a.N(), claimed)
		claimText(w, claimed, "", "")
		auditText(w, nil, out.MonteCarlo, false, out.Verdict)
	})
}
