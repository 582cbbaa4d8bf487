package scenes

import (
	"errors"
	"testing"

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
	s := NewSemiLab()
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
	check("gate", NoMutant, false)
	check("gate", "no-threshold-noise", true)
	check("release", "gaussian-tenth", true)
	check("answer", "mwu-peeks", true)
	if !scenetest.HasText(scenetest.Frame(a), "catches “mwu-peeks”") {
		t.Error("the figure does not show the catch")
	}
}

// The lab's third part: the others answer PVMW with where it is, and it
// answers theirs.
func TestSemiLabPartsMove(t *testing.T) {
	var el viz.ElsewhereError
	if err := NewAuditLab().Set("mech", labPVMW); !errors.As(err, &el) || el.State != "scene=audit&mech="+labPVMW {
		t.Errorf("AuditLab on %s: %v", labPVMW, err)
	}
	if err := NewPhasedLab().Set("mech", labPVMW); !errors.As(err, &el) {
		t.Errorf("PhasedLab on %s: %v", labPVMW, err)
	}
	if err := NewSemiLab().Set("mech", labOIR); !errors.As(err, &el) || el.State != "scene=audit&mech="+labOIR {
		t.Errorf("SemiLab on %s: %v", labOIR, err)
	}
	a := viz.NewApp(All()...)
	a.AddParts(Parts()...)
	if err := a.Restore("scene=audit&mech=pvmw&view=answer"); err != nil {
		t.Fatal(err)
	}
	if _, ok := a.Scene().(*SemiLab); !ok {
		t.Fatalf("the link opened %T", a.Scene())
	}
	scenetest.MustSet(t, a, "mech", labORME)
	if _, ok := a.Scene().(*AuditLab); !ok {
		t.Fatalf("orme from the third part opened %T", a.Scene())
	}
}
