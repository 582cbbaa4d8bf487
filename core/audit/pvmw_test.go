package audit

import (
	"context"
	"testing"

	"github.com/uldplab/uldp/core/semisens"
)

// PVMW's audit: the correct mechanism passes every view, each broken
// variant is refuted by the view that sees its piece, and the tight
// Gaussian charged at the paper's rate is harmless. Each audit flags a
// correct mechanism with probability at most α = 10⁻³ (the Monte Carlo's
// bound, Bonferroni over its events), so the four passing audits here
// fail falsely with probability at most 4·10⁻³; the runs are seeded, so a
// given build passes or fails every time.
func TestPVMWAudit(t *testing.T) {
	if testing.Short() {
		t.Skip("10⁵ runs per side and audit")
	}
	for _, c := range []struct {
		view   string
		mutant semisens.Mutant
		caught bool
	}{
		{ViewGate, semisens.Correct, false},
		{ViewRelease, semisens.Correct, false},
		{ViewAnswer, semisens.Correct, false},
		{ViewRelease, semisens.TightChargedPaper, false},
		{ViewGate, semisens.NoThresholdNoise, true},
		{ViewRelease, semisens.GaussianTenth, true},
		{ViewAnswer, semisens.MWUPeeks, true},
	} {
		a, err := NewPVMWAudit(c.view, c.mutant, 1e-3)
		if err != nil {
			t.Fatal(err)
		}
		res, err := MonteCarlo(context.Background(), a.A, a.B, a.Claim, MCConfig{Runs: 100_000, Alpha: 1e-3, Seed: 1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Verdict == "violation"; got != c.caught {
			t.Errorf("%s, %q: ε ≥ %.3g against the claimed %.3g (%s); want caught = %v", c.view, c.mutant, res.EpsLower, a.Claim.Eps, res.Verdict, c.caught)
		}
		// A refutation must have room: a mutant barely over its claim would
		// turn on the seed.
		if c.caught && res.EpsLower < a.Claim.Eps+1 {
			t.Errorf("%s, %q caught with ε ≥ %.3g, within 1 of the claim %.3g: the audit is too weak to rely on", c.view, c.mutant, res.EpsLower, a.Claim.Eps)
		}
	}
	if _, err := NewPVMWAudit("ledger", semisens.Correct, 1e-3); err == nil {
		t.Error("an unknown view was accepted")
	}
}
