package lessons

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/internal/scenetest"
	"github.com/uldplab/uldp/viz/lessons/auditlab"
	"github.com/uldplab/uldp/viz/lessons/auditlab/phasedlab"
	"github.com/uldplab/uldp/viz/lessons/auditlab/semilab"
	"github.com/uldplab/uldp/viz/lessons/auditlab/sgdlab"
)

// The audit lab's mechanisms, as its links name them.
const (
	labORME = "orme"
	labOIR  = "outlier-iterate-removal"
	labPVMW = "pvmw"
)

// The lab is one lesson in three scenes: each answers the others'
// mechanisms with where they are, and an app given every part moves
// between them, by a setting or a link.
func TestLabPartsMove(t *testing.T) {
	var el viz.ElsewhereError
	if err := auditlab.New().Set("mech", labOIR); !errors.As(err, &el) || el.State != "scene=audit&mech="+labOIR {
		t.Errorf("AuditLab on %s: %v", labOIR, err)
	}
	if err := phasedlab.New().Set("mech", labORME); !errors.As(err, &el) || el.State != "scene=audit&mech="+labORME {
		t.Errorf("PhasedLab on %s: %v", labORME, err)
	}
	a := viz.NewApp(All()...)
	a.AddParts(Parts()...)
	if err := a.SwitchTo("audit"); err != nil {
		t.Fatal(err)
	}
	scenetest.MustSet(t, a, "mech", labOIR)
	if _, ok := a.Scene().(*phasedlab.Scene); !ok {
		t.Fatalf("mech %s shows %T", labOIR, a.Scene())
	}
	scenetest.MustSet(t, a, "mech", labORME)
	if _, ok := a.Scene().(*auditlab.Scene); !ok {
		t.Fatalf("mech %s shows %T", labORME, a.Scene())
	}
	if err := a.Restore("scene=audit&mech=" + labOIR + "&pair=gate-edge&mutant=no-score-noise"); err != nil {
		t.Fatal(err)
	}
	if _, ok := a.Scene().(*phasedlab.Scene); !ok || scenetest.Control(a, "pair").Value != "gate-edge" || scenetest.Control(a, "mutant").Value != "no-score-noise" {
		t.Errorf("the link opened %T %+v", a.Scene(), a.State())
	}
	if !strings.Contains(a.State(), "mech="+labOIR) {
		t.Errorf("state %q", a.State())
	}
}

// Every mechanism of the lab's menu belongs to exactly one of its scenes:
// each other scene answers it with the lab's link for it, and an app given
// every part shows the scene it belongs to when it is chosen.
func TestLabEveryMechanismInOnePart(t *testing.T) {
	scenes := map[string]func() viz.Scene{
		"auditlab":  func() viz.Scene { return auditlab.New() },
		"sgdlab":    func() viz.Scene { return sgdlab.New() },
		"phasedlab": func() viz.Scene { return phasedlab.New() },
		"semilab":   func() viz.Scene { return semilab.New() },
	}
	mechs := scenetest.Control(viz.NewApp(auditlab.New()), "mech").Choices
	if len(mechs) < 10 {
		t.Fatalf("the lab's menu lists %v", mechs)
	}
	a := viz.NewApp(All()...)
	a.AddParts(Parts()...)
	if err := a.SwitchTo("audit"); err != nil {
		t.Fatal(err)
	}
	for _, m := range mechs {
		var owners []string
		for name, open := range scenes {
			var el viz.ElsewhereError
			switch err := open().Set("mech", m); {
			case err == nil:
				owners = append(owners, name)
			case !errors.As(err, &el) || el.State != "scene=audit&mech="+m:
				t.Errorf("%s on %s: %v", name, m, err)
			}
		}
		if len(owners) != 1 {
			t.Errorf("%s belongs to %v", m, owners)
			continue
		}
		scenetest.MustSet(t, a, "mech", m)
		if got := fmt.Sprintf("%T", a.Scene()); got != "*"+owners[0]+".Scene" {
			t.Errorf("mech %s shows %s, want %s's scene", m, got, owners[0])
		}
	}
}

// The lab's third part: the others answer PVMW with where it is, and it
// answers theirs.
func TestSemiLabPartsMove(t *testing.T) {
	var el viz.ElsewhereError
	if err := auditlab.New().Set("mech", labPVMW); !errors.As(err, &el) || el.State != "scene=audit&mech="+labPVMW {
		t.Errorf("AuditLab on %s: %v", labPVMW, err)
	}
	if err := phasedlab.New().Set("mech", labPVMW); !errors.As(err, &el) {
		t.Errorf("PhasedLab on %s: %v", labPVMW, err)
	}
	if err := semilab.New().Set("mech", labOIR); !errors.As(err, &el) || el.State != "scene=audit&mech="+labOIR {
		t.Errorf("SemiLab on %s: %v", labOIR, err)
	}
	a := viz.NewApp(All()...)
	a.AddParts(Parts()...)
	if err := a.Restore("scene=audit&mech=pvmw&view=answer"); err != nil {
		t.Fatal(err)
	}
	if _, ok := a.Scene().(*semilab.Scene); !ok {
		t.Fatalf("the link opened %T", a.Scene())
	}
	scenetest.MustSet(t, a, "mech", labORME)
	if _, ok := a.Scene().(*auditlab.Scene); !ok {
		t.Fatalf("orme from the third part opened %T", a.Scene())
	}
}
