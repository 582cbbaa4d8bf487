package semilab

import (
	"testing"

	"github.com/uldplab/uldp/core/audit"
	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/internal/scenetest"
)

// PVMW in the lab: the real mechanism passes the gate view, and each broken
// variant is caught by the view that sees it, by sampling to a verdict a
// slice per tick. (50,000 runs a side, α = 10⁻³: the correct gate is
// flagged with probability at most 10⁻³; the runs are seeded.)
func TestSemiLabCatchesTheMutants(t *testing.T) {
	if testing.Short() {
		t.Skip("50,000 runs a side per audit")
	}
	s := New()
	a := viz.NewApp(s)
	check := func(view, mutant string, caught bool) {
		t.Helper()
		scenetest.MustSet(t, a, "view", view)
		scenetest.MustSet(t, a, "mutant", mutant)
		scenetest.MustSet(t, a, "monte-carlo", "")
		for range 100_000 {
			if !a.Tick(1.0 / 60) {
				break
			}
		}
		r, ok := scenetest.Readout(a, "mc")
		if !ok || r.Warn != caught {
			t.Errorf("%s, %s: %+v, want caught = %v", view, mutant, r, caught)
		}
	}
	check("gate", audit.NoMutant, false)
	check("gate", "no-threshold-noise", true)
	check("release", "gaussian-tenth", true)
	check("answer", "mwu-peeks", true)
	if !scenetest.HasText(scenetest.Frame(a), "catches “mwu-peeks”") {
		t.Error("the figure does not show the catch")
	}
}

// The figure says what it audits and finds, and another view changes what
// it says.
func TestSemiLabDescribes(t *testing.T) {
	a, _ := scenetest.Open(t, New())
	scenetest.Describes(t, a, func() { scenetest.MustSet(t, a, "view", "release") })
}
