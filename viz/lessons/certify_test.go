package lessons

import (
	"testing"

	"github.com/uldplab/uldp/viz"
)

// Every lesson opens certified, non-private on purpose, or saying in one
// line why it opens uncertified; where it offers its nearest certified
// settings, they certify the run, and the line goes.
func TestDefaultsCertifyOrSayWhy(t *testing.T) {
	for _, l := range Lessons() {
		a := viz.NewApp(l.New())
		a.Settle()
		name := a.Scene().Info().Name
		g := a.Guarantee()
		c, offered := control(a, viz.CtlCertify)
		switch {
		case g.Certified():
			if offered {
				t.Errorf("%s: certified, yet offers certified settings", name)
			}
			continue
		case g.Mode.String() == "non-private":
			continue
		case !offered:
			t.Errorf("%s opens NOT certified (%v) and says nothing of why", name, g.Unmet())
			continue
		case len(c.Help) < 40:
			t.Errorf("%s: the line saying why is %q", name, c.Help)
		}
		if c.Disabled {
			continue
		}
		if err := a.Set(viz.CtlCertify, ""); err != nil {
			t.Errorf("%s: the certified settings: %v", name, err)
			continue
		}
		a.Settle()
		if g := a.Guarantee(); !g.Certified() {
			t.Errorf("%s: the nearest certified settings leave the run NOT certified: %v", name, g.Unmet())
		}
		if _, still := control(a, viz.CtlCertify); still {
			t.Errorf("%s: certified, yet still offers certified settings", name)
		}
	}
}

func control(a *viz.App, name string) (viz.Control, bool) {
	for _, c := range a.Controls() {
		if c.Name == name {
			return c, true
		}
	}
	return viz.Control{}, false
}
