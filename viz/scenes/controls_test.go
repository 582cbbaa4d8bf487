package scenes

import (
	"strconv"
	"testing"

	"github.com/uldplab/uldp/viz"
)

// Counts (users, items, releases, steps, phases, runs) are whole numbers in
// every lesson: their sliders move in whole steps, their values are
// integers, and a fraction typed in is refused with a reason.
func TestCountsAreWhole(t *testing.T) {
	counts := map[string]bool{"n": true, "m": true, "k": true, "steps": true, "phases": true, "runs": true}
	seen := 0
	for _, l := range Lessons() {
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
