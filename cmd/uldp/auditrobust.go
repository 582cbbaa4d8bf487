package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/uldplab/uldp/core/audit"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/runner"
	"github.com/uldplab/uldp/core/scenario"
)

type robustAuditOut struct {
	Mechanism string            `json:"mechanism"`
	Claimed   privacy.Guarantee `json:"claimed"`
	Changed   *string           `json:"changed_user"`
	Mutant    string            `json:"mutant,omitempty"`
	// Test is the exact law of the concentration test on both sides.
	Test       audit.RSGDTest  `json:"test"`
	MonteCarlo *audit.MCResult `json:"monte_carlo,omitempty"`
	Verdict    string          `json:"verdict"`
}

// auditRobust audits one phase of robust SGD on the pair: the test's
// halting law exactly (given the partition the seed draws), and with
// --monte-carlo whole runs by sampling.
func auditRobust(e *env, d *runner.Config, r auditRequest, seed uint64) error {
	if d.Mech != scenario.MechRobustSGD {
		return usagef("--mech %s: the audit runs one phase (--mech %s); A-LOC's phases hold disjoint users, so a user is in one phase only", d.Mech, scenario.MechRobustSGD)
	}
	p, err := d.RobustParams()
	if err != nil {
		return usageError{err}
	}
	if err := r.knownMutant("robust-sgd's broken variants are", audit.RSGDMutantNames()); err != nil {
		return err
	}
	if p, err = audit.RSGDMutant(p, r.mutant); err != nil {
		return usageError{err}
	}
	if work := float64(r.a.N()) * float64(p.Batch) * float64(r.cfg.Runs); r.mc && work > maxSampledSteps*100 {
		return usagef("%d users × B = %d × %d runs: too many kernel terms to sample (at most %.0e); give fewer --runs or a smaller file", r.a.N(), p.Batch, r.cfg.Runs, float64(maxSampledSteps*100))
	}
	test, err := audit.RSGDTestLaw(p, r.a, r.b, seed)
	if err != nil {
		return usageError{err}
	}
	m, _ := r.a.M()
	g := p.Guarantee(r.a.N(), m, r.a.Dim, false)
	out := robustAuditOut{Mechanism: scenario.MechRobustSGD, Claimed: g, Changed: r.changedID(), Mutant: r.mutant, Test: test}
	if r.mc {
		if out.MonteCarlo, err = r.sample(e, "sampling whole runs on both sides", audit.RSGDSampler(p, r.a), audit.RSGDSampler(p, r.b), g); err != nil {
			return err
		}
	}
	out.Verdict = verdict(nil, out.MonteCarlo)
	if test.Violated() {
		out.Verdict = "violation"
	}
	return r.f.emit(e, out, func(w io.Writer) {
		fmt.Fprintf(w, "robust SGD over %d users, B = %d: claimed %s\n", r.a.N(), p.Batch, g)
		claimText(w, g, r.mutant, "")
		if test.Step == 0 {
			fmt.Fprintln(w, "the changed user is in no step (the partition leaves them out): both sides run alike")
		} else {
			fmt.Fprintf(w, "the changed user is in step %d; scores on A %s, on B %s\n", test.Step, scoresText(test.ScoresA), scoresText(test.ScoresB))
		}
		fmt.Fprintf(w, "exact: the test's halting step loses %.4g on this pair and %.4g at the proof's worst (the scores from step %d moved by 2 against each outcome); the test may lose ε/2 = %.4g\n",
			test.Loss, test.WorstLoss, test.Step, test.Budget)
		auditText(w, nil, out.MonteCarlo, r.mutant != "", out.Verdict)
	})
}

func scoresText(s []float64) string {
	var b strings.Builder
	for i, v := range s {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%.4g", v)
	}
	return b.String()
}
