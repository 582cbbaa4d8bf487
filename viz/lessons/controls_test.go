package lessons

import (
	"strconv"
	"strings"
	"testing"

	"github.com/uldplab/uldp/viz"
)

// Counts (users, items, releases, steps, phases, runs) are whole numbers in
// every lesson: their sliders move in whole steps, their values are
// integers, and a fraction typed in is refused with a reason.
func TestCountsAreWhole(t *testing.T) {
	counts := map[string]bool{"n": true, "m": true, "k": true, "steps": true, "phases": true, "runs": true}
	seen := 0
	for _, l := range modules() {
		a := viz.NewApp(l.New())
		name := a.Scene().Info().Name
		for _, c := range a.Scene().Controls() {
			if !counts[c.Name] {
				continue
			}
			seen++
			if c.Step < 1 || c.Step != float64(int(c.Step)) {
				t.Errorf("%s: %s moves in steps of %v", name, c.Label, c.Step)
			}
			if _, err := strconv.Atoi(c.Value); err != nil {
				t.Errorf("%s: %s = %q", name, c.Label, c.Value)
			}
			if err := a.Set(c.Name, c.Value+".5"); err == nil {
				t.Errorf("%s: %s took %s.5", name, c.Label, c.Value)
			}
		}
	}
	if seen < 8 {
		t.Errorf("only %d count controls found", seen)
	}
}

// The number row opens lessons 1–9, 0 the tenth, - and = the eleventh and
// twelfth; the legend says so.
func TestNumberKeysOpenLessons(t *testing.T) {
	a := viz.NewApp(All()...)
	for i, s := range a.Scenes() {
		k := viz.LessonKey(i)
		if i >= 12 {
			if k != "" {
				t.Errorf("lesson %d has key %q", i+1, k)
			}
			continue
		}
		if !a.Key(k) || a.Scene().Info().Name != s.Name {
			t.Errorf("key %q opened %s, want lesson %d, %s", k, a.Scene().Info().Name, i+1, s.Name)
		}
	}
	if viz.LessonKey(10) != "-" || viz.LessonKey(11) != "=" || viz.LessonKey(12) != "" {
		t.Errorf("keys of lessons 11–13: %q, %q, %q", viz.LessonKey(10), viz.LessonKey(11), viz.LessonKey(12))
	}
	for n, want := range map[int]string{7: "1–7 lessons", 10: "1–9, 0 lessons", 11: "1–9, 0, - lessons", 12: "1–9, 0, -, = lessons", 13: "1–9, 0, -, = lessons 1–12"} {
		if got := viz.LessonKeysLegend(n); got != want {
			t.Errorf("%d lessons: legend %q, want %q", n, got, want)
		}
	}
}

// Every lesson, and every part of one, says in words what its figure
// shows, and names every item the keyboard offers in its own words (not
// "item 3 of 40"), at its default state and at the end of its run.
func TestEveryFigureDescribesItself(t *testing.T) {
	for _, s := range append(All(), Parts()...) {
		if _, ok := s.(viz.Describer); !ok {
			t.Errorf("%s does not describe its figure", s.Info().Name)
			continue
		}
		a := viz.NewApp(s)
		for _, at := range []string{"", "End"} {
			if at != "" {
				a.Key(at)
				a.Settle()
			}
			a.Frame(900, 640)
			seen := map[int]bool{}
			for range 200 {
				a.Key("ArrowDown")
				a.Frame(900, 640)
				if a.Chosen() == 0 || seen[a.Chosen()] {
					break
				}
				seen[a.Chosen()] = true
				if sel := a.Selection(); strings.Contains(sel, "Chosen: item ") || strings.Contains(sel, "no longer") {
					t.Errorf("%s: %q", s.Info().Name, sel)
					break
				}
			}
			a.Key("Escape")
		}
	}
}
