package lessons

import (
	"strings"
	"testing"

	"github.com/uldplab/uldp/core/privacy"

	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/internal/scenetest"
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
		c := scenetest.Control(a, viz.CtlCertify)
		offered := c.Name != ""
		switch {
		case g.Certified():
			if offered {
				t.Errorf("%s: certified, yet offers certified settings", name)
			}
			continue
		case g.Mode == privacy.NonPrivate:
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
		scenetest.Certifies(t, a, name)
	}
}

// The lessons' text quotes the nearest certified settings at the
// defaults: they stay what the button sets.
func TestProseQuotesTheCertifiedSettings(t *testing.T) {
	quotes := map[string]map[string]string{
		"outlier-removal": {"n": "263 users"},
		"robust-sgd":      {"batch": "B = 259", "eta": "η = 6.43·10⁻⁴", "threshold": "(<em>sound</em> in the threshold menu)"},
	}
	for _, l := range Lessons() {
		a := viz.NewApp(l.New())
		a.Settle()
		name := a.Scene().Info().Name
		want, ok := quotes[name]
		if !ok {
			continue
		}
		_, settings, _ := a.Scene().(viz.Certifier).Certify()
		set := map[string]string{}
		for _, s := range settings {
			set[s[0]] = s[1]
		}
		for setting, quote := range want {
			if !strings.Contains(l.Text(), quote) {
				t.Errorf("%s: the text no longer says %q", name, quote)
			}
			if v := set[setting]; !strings.Contains(strings.ReplaceAll(quote, "6.43·10⁻⁴", "0.000643"), v) || v == "" {
				t.Errorf("%s: the button sets %s = %q, the text says %q", name, setting, v, quote)
			}
		}
	}
}
