package phasedlab

import (
	"strings"
	"testing"

	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/internal/scenetest"
	"github.com/uldplab/uldp/viz/lessons/auditlab/internal/lab"
	"github.com/uldplab/uldp/viz/lessons/auditlab/internal/labtest"
)

// Outlier-iterate removal in the lab: the real phase keeps its promise on
// both preset pairs, its gate spending exactly its budget on far-member;
// keep-all and weak-gate are caught there, no-score-noise on gate-edge.
func TestPhasedLabCatchesTheMutants(t *testing.T) {
	s := New()
	a := viz.NewApp(s)
	check := func(pair, mutant string, caught bool) {
		t.Helper()
		scenetest.MustSet(t, a, "pair", pair)
		scenetest.MustSet(t, a, "mutant", mutant)
		gate, _ := scenetest.Readout(a, "gate")
		exact, ok := scenetest.Readout(a, "exact")
		if !ok {
			t.Fatalf("%s, %s: no exact verdict (%+v)", pair, mutant, a.Readouts())
		}
		if got := gate.Warn || exact.Warn; got != caught {
			t.Errorf("%s, %s: caught %v (gate %q, exact %q), want %v", pair, mutant, got, gate.Text, exact.Text, caught)
		}
	}
	check("far-member", "none", false)
	if l := s.law; l.Phase != 1 || l.Group != 1 || l.C != 20 || l.GateLoss < l.GateBudget-1e-12 {
		t.Errorf("far-member: phase %d group %d of %d, gate loss %v of %v", l.Phase, l.Group, l.C, l.GateLoss, l.GateBudget)
	}
	check("far-member", "keep-all", true)
	check("far-member", "weak-gate", true)
	check("gate-edge", "none", false)
	check("gate-edge", "no-score-noise", true)
	if !scenetest.HasText(scenetest.Frame(a), "the audit catches") && !scenetest.HasText(scenetest.Frame(a), "VIOLATION") && !scenetest.HasText(scenetest.Frame(a), "violation") {
		t.Error("the figure does not show the catch")
	}
}

// Sampling: whole phases of outlier-iterate removal and whole runs of the
// accelerated variant, a slice per tick, to a verdict.
func TestPhasedLabMonteCarlo(t *testing.T) {
	s := New()
	a := viz.NewApp(s)
	for _, m := range []string{lab.OIR, lab.Accel} {
		scenetest.MustSet(t, a, "mech", m)
		labtest.Sample(t, a, "2000")
		if r, ok := scenetest.Readout(a, "mc"); !ok || !strings.Contains(r.Text, "ε ≥") {
			t.Errorf("%s: Monte Carlo readout %+v", m, r)
		}
		if n := labtest.BlueBars(scenetest.Frame(a)); m == lab.Accel && n < 3 {
			t.Errorf("%s: the figure draws %d bars of sampled answers", m, n)
		}
	}
}

// The figure says what it audits and finds, and a broken variant changes
// what it says.
func TestPhasedLabDescribes(t *testing.T) {
	a, _ := scenetest.Open(t, New())
	scenetest.Describes(t, a, func() { scenetest.MustSet(t, a, "mutant", "keep-all") })
}
