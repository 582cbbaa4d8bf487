package lessons

import (
	"regexp"
	"strings"
	"testing"

	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/prose"
)

// Everything a lesson's panel shows (controls, readouts, the guarantee), in
// every mode and choice it offers, cites no spec and mentions only errata that have
// an entry on the errata page.
func TestPanelsCiteOnlyTheErrata(t *testing.T) {
	entries := string(prose.Errata())
	check := func(lesson, where, text string) {
		if citesSpec.MatchString(text) {
			t.Errorf("%s %s cites the spec: %q", lesson, where, text)
		}
		for _, m := range mention.FindAllStringSubmatch(text, -1) {
			if !strings.Contains(entries, `id="a`+m[1]+`"`) {
				t.Errorf("%s %s mentions A%s, which has no errata entry", lesson, where, m[1])
			}
		}
	}
	for _, l := range Lessons() {
		first := viz.NewApp(l.New())
		name := first.Scene().Info().Name
		// The defaults, then every choice of every choice control.
		settings := [][2]string{{}}
		for _, c := range first.Controls() {
			if c.Kind == viz.Choice {
				for _, v := range c.Choices {
					settings = append(settings, [2]string{c.Name, v})
				}
			}
		}
		for _, set := range settings {
			a := viz.NewApp(l.New())
			if set[0] != "" && a.Set(set[0], set[1]) != nil {
				continue // a setting the defaults cannot run says so itself
			}
			where := name + " (" + set[0] + " " + set[1] + ")"
			for _, c := range a.Controls() {
				check(where, "control "+c.Name, c.Label+" "+c.Help+" "+strings.Join(c.Choices, " "))
			}
			for _, r := range a.Readouts() {
				check(where, "readout "+r.Name, r.Label+" "+r.Text+" "+r.Formula)
			}
			g := a.Guarantee()
			check(where, "guarantee", g.Note)
			for _, p := range g.Preconditions {
				check(where, "precondition", p.String())
			}
		}
	}
}

// Every link from a lesson's text into a lesson ("#scene=audit&mech=…", a
// guided step) opens that lesson with every setting it names applied,
// starting from the lesson's defaults and from the step before.
func TestProseLinksSetUpTheLesson(t *testing.T) {
	if testing.Short() {
		// Links and states are the same on every platform; the lessons'
		// computations it settles (the semi-sensitive lesson's, the rates
		// explorer's) took 143 s of the js/wasm run's 190.
		t.Skip("settles every linked lesson's computation: run natively (make test-native)")
	}
	link := regexp.MustCompile(`href="#([^"]+)"`)
	links := 0
	for _, l := range Lessons() {
		page := l.Text()
		a := viz.NewApp(All()...)
		a.AddParts(Parts()...)
		for _, m := range link.FindAllStringSubmatch(page, -1) {
			links++
			state := strings.ReplaceAll(m[1], "&amp;", "&")
			fresh := viz.NewApp(All()...)
			fresh.AddParts(Parts()...)
			for _, app := range []*viz.App{fresh, a} {
				if err := app.Restore(state); err != nil {
					t.Errorf("%s: link %q: %v", l.New().Info().Name, state, err)
					continue
				}
				app.Settle()
				got := "&" + app.State() + "&"
				for _, kv := range strings.Split(state, "&") {
					if !strings.Contains(got, "&"+kv+"&") {
						t.Errorf("%s: link %q: %s not in the state %q", l.New().Info().Name, state, kv, got)
					}
				}
			}
		}
	}
	if links < 10 {
		t.Errorf("%d links into lessons: the audit lab's guided steps have 12", links)
	}
}
