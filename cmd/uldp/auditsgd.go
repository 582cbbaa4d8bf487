package main

import (
	"fmt"
	"io"

	"github.com/uldplab/uldp/core/audit"
	"github.com/uldplab/uldp/core/mech"
	"github.com/uldplab/uldp/core/optim"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/runner"
	"github.com/uldplab/uldp/core/scenario"
)

type dpsgdAuditOut struct {
	Mechanism string              `json:"mechanism"`
	Claimed   privacy.Guarantee   `json:"claimed"`
	Changed   *string             `json:"changed_user"`
	Settings  optim.DPSGDSettings `json:"settings"`
	Sigma     float64             `json:"sigma"` // ORME's noise per step
	// HaltA and HaltB are the exact probabilities that the gate halts a
	// run (which then answers θ₀); the rest of the law is sampled.
	HaltA      float64         `json:"halt_a"`
	HaltB      float64         `json:"halt_b"`
	Mutant     string          `json:"mutant,omitempty"`
	MonteCarlo *audit.MCResult `json:"monte_carlo"`
	Verdict    string          `json:"verdict"`
	Note       string          `json:"note,omitempty"`
}

// maxSampledSteps caps runs × steps: each sampled run walks all T steps.
const maxSampledSteps = 200_000_000

// dpsgdHalfNoiseNote says why whole runs cannot expose half the score noise.
const dpsgdHalfNoiseNote = "a DP-SGD run shows only whether its gate failed, never when, and that one outcome loses at most Δ_s/b₁ with either gate; the audit lab's orme-gate catches half the score noise through the halting time"

// auditDPSGD audits whole DP-SGD runs on the pair by sampling: its answer
// has no closed form; the gate's halting probability is exact.
func auditDPSGD(e *env, d *runner.Config, r auditRequest) error {
	p, err := d.DPSGDParams()
	if err != nil {
		return usageError{err}
	}
	p, set, err := d.DPSGDFor(p, r.a)
	if err != nil {
		return usageError{err}
	}
	if err := r.knownMutant("dp-sgd's broken variants are ORME's:", audit.ORMEMutantNames()); err != nil {
		return err
	}
	switch {
	case !r.mc:
		return usagef("dp-sgd's answer has no closed form: add --monte-carlo to audit it by sampling whole runs")
	case d.Loss != mech.LossSquared:
		return usagef("--loss %s: the DP-SGD audit samples the squared loss (--loss squared), whose users' gradients keep their distances from step to step", d.Loss)
	case set.Smoothing != 0:
		return usagef("smoothing r = %.4g: the DP-SGD audit samples runs without smoothing; add --smoothing 0", set.Smoothing)
	case float64(set.Steps)*float64(r.cfg.Runs) > maxSampledSteps:
		return usagef("%d steps × %d runs: too many steps to sample (at most %.0e); give fewer --steps (the audit lab uses 8)", set.Steps, r.cfg.Runs, float64(maxSampledSteps))
	}
	ra, err := audit.SampleDPSGD(p, r.a, r.mutant)
	if err != nil {
		return usageError{err}
	}
	rb, err := audit.SampleDPSGD(p, r.b, r.mutant)
	if err != nil {
		return usageError{err}
	}
	g, cal := ra.Guarantee, ra.Calibration
	out := dpsgdAuditOut{Mechanism: scenario.MechDPSGD, Claimed: g, Changed: r.changedID(), Settings: set, Sigma: cal.Sigma,
		HaltA: ra.Halt, HaltB: rb.Halt, Mutant: r.mutant}
	if r.mutant == audit.ORMEHalfScoreNoise {
		out.Note = dpsgdHalfNoiseNote
	}
	if out.MonteCarlo, err = r.sample(e, "sampling whole runs on both sides", ra.Sample, rb.Sample, g); err != nil {
		return err
	}
	out.Verdict = verdict(nil, out.MonteCarlo)
	return r.f.emit(e, out, func(w io.Writer) {
		fmt.Fprintf(w, "user-level DP-SGD over %d users: T = %d steps, η = %.4g, τ = %.4g, ORME's σ per step = %.6g\nclaimed: %s\n",
			r.a.N(), set.Steps, set.Eta, set.Tau, cal.Sigma, g)
		claimText(w, g, r.mutant, " (ORME's, inside every step)")
		fmt.Fprintf(w, "exact: the gate halts a run (answer θ₀) with probability %s on A, %s on B\n",
			audit.FormatProbability(ra.Halt), audit.FormatProbability(rb.Halt))
		auditText(w, nil, out.MonteCarlo, r.mutant != "", out.Verdict)
		if out.Note != "" {
			fmt.Fprintf(w, "note: %s\n", out.Note)
		}
	})
}
