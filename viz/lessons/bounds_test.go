package lessons

import (
	"fmt"
	"testing"

	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/internal/scenetest"
)

// modules are every lesson's scenes, its parts' included: what the
// browser's modules show.
func modules() []Lesson {
	var out []Lesson
	for _, l := range Lessons() {
		out = append(out, l)
		for _, p := range l.Parts {
			out = append(out, p.Lesson)
		}
	}
	return out
}

// Every lesson's labels stay inside the figure and clear of each other at
// the page's three sizes, at every step of its default run.
func TestLabelsDoNotClash(t *testing.T) {
	for _, l := range modules() {
		for _, size := range scenetest.FigureSizes {
			a := viz.NewApp(l.New())
			name := a.Scene().Info().Name
			seen := map[string]bool{}
			for step := 0; ; step++ {
				a.Settle()
				fr, _ := a.Frame(size[0], size[1])
				for _, bad := range scenetest.Clashes(fr) {
					if !seen[bad] {
						seen[bad] = true
						t.Errorf("%s at %.0f × %.0f, step %d: %s", name, size[0], size[1], step, bad)
					}
				}
				if !a.Key("ArrowRight") {
					break
				}
			}
		}
	}
}

// Every lesson, at its defaults and in every choice and switch it offers
// (a mechanism, a preset, an algorithm, a lens), fits the page's three
// sizes when it opens and at the end of its run: nothing leaves the frame
// and no label covers another. -short checks the defaults only.
func TestFiguresFitInEveryChoice(t *testing.T) {
	for _, les := range modules() {
		settings := [][2]string{{}} // the defaults
		for _, c := range viz.NewApp(les.New()).Controls() {
			switch {
			case testing.Short():
			case c.Kind == viz.Choice:
				for _, v := range c.Choices {
					settings = append(settings, [2]string{c.Name, v})
				}
			case c.Kind == viz.Toggle:
				settings = append(settings, [2]string{c.Name, "true"}, [2]string{c.Name, "false"})
			}
		}
		for _, set := range settings {
			a := viz.NewApp(les.New())
			name := a.Scene().Info().Name
			if set[0] != "" {
				if err := a.Set(set[0], set[1]); err != nil {
					continue // refused where the lesson stands (its own tests cover that)
				}
				name += fmt.Sprintf(", %s = %s", set[0], set[1])
			}
			for _, when := range []string{"open", "end"} {
				if when == "end" && !a.Key("End") {
					continue
				}
				a.Settle()
				for _, size := range scenetest.FigureSizes {
					fr, _ := a.Frame(size[0], size[1])
					for _, bad := range append(scenetest.Outside(fr), scenetest.Clashes(fr)...) {
						t.Errorf("%s at %.0f × %.0f (%s): %s", name, size[0], size[1], when, bad)
					}
				}
			}
		}
	}
}
