package scenes

import (
	"errors"
	"strings"
	"testing"

	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/internal/scenetest"
)

// Outlier-iterate removal in the lab: the real phase keeps its promise on
// both preset pairs, its gate spending exactly its budget on far-member;
// keep-all and weak-gate are caught there, no-score-noise on gate-edge.
func TestPhasedLabCatchesTheMutants(t *testing.T) {
	s := NewPhasedLab()
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
	s := NewPhasedLab()
	a := viz.NewApp(s)
	for _, m := range []string{labOIR, labAccel} {
		scenetest.MustSet(t, a, "mech", m)
		scenetest.MustSet(t, a, "runs", "2000")
		scenetest.MustSet(t, a, "monte-carlo", "")
		for range 10_000 {
			if !a.Tick(1.0 / 60) {
				break
			}
		}
		if r, ok := scenetest.Readout(a, "mc"); !ok || !strings.Contains(r.Text, "ε ≥") {
			t.Errorf("%s: Monte Carlo readout %+v", m, r)
		}
	}
}

// The lab is one lesson in two scenes: each answers the other's
// mechanisms with where they are, and an app given both parts moves
// between them, by a setting or a link.
func TestLabPartsMove(t *testing.T) {
	var el viz.ElsewhereError
	if err := NewAuditLab().Set("mech", labOIR); !errors.As(err, &el) || el.State != "scene=audit&mech="+labOIR {
		t.Errorf("AuditLab on %s: %v", labOIR, err)
	}
	if err := NewPhasedLab().Set("mech", labORME); !errors.As(err, &el) || el.State != "scene=audit&mech="+labORME {
		t.Errorf("PhasedLab on %s: %v", labORME, err)
	}
	a := viz.NewApp(All()...)
	a.AddParts(Parts()...)
	if err := a.SwitchTo("audit"); err != nil {
		t.Fatal(err)
	}
	scenetest.MustSet(t, a, "mech", labOIR)
	if _, ok := a.Scene().(*PhasedLab); !ok {
		t.Fatalf("mech %s shows %T", labOIR, a.Scene())
	}
	scenetest.MustSet(t, a, "mech", labORME)
	if _, ok := a.Scene().(*AuditLab); !ok {
		t.Fatalf("mech %s shows %T", labORME, a.Scene())
	}
	if err := a.Restore("scene=audit&mech=" + labOIR + "&pair=gate-edge&mutant=no-score-noise"); err != nil {
		t.Fatal(err)
	}
	if p, ok := a.Scene().(*PhasedLab); !ok || p.pair != "gate-edge" || p.mutant != "no-score-noise" {
		t.Errorf("the link opened %T %+v", a.Scene(), a.State())
	}
	if !strings.Contains(a.State(), "mech="+labOIR) {
		t.Errorf("state %q", a.State())
	}
}
