package viz

import "testing"

// A changed setting's run keeps the step shown; shown to its end, it
// shows the new run's end, longer or shorter.
func TestPlayerReplaceKeepsTheStepOrTheEnd(t *testing.T) {
	for _, c := range []struct {
		name           string
		oldLen, at     int
		newLen, wantAt int
	}{
		{"the start stays", 10, 0, 20, 0},
		{"a step partway stays", 10, 4, 20, 4},
		{"past a shorter run's end, its end", 10, 7, 5, 5},
		{"the end of a longer run", 10, 10, 20, 20},
		{"the end of a shorter run", 10, 10, 5, 5},
		{"an empty run's start is its end: the start", 0, 0, 5, 0},
	} {
		var p Player
		p.Replace(newStepScene(t, c.oldLen).player.Stepper()) // nothing shown before: the new run's start
		if got := p.Stepper().Pos(); got != 0 {
			t.Fatalf("%s: the first run shows step %d, want 0", c.name, got)
		}
		if err := p.Stepper().Seek(c.at); err != nil {
			t.Fatal(err)
		}
		p.Replace(newStepScene(t, c.newLen).player.Stepper())
		if got := p.Stepper().Pos(); got != c.wantAt {
			t.Errorf("%s: step %d of %d shown, %d of %d after, want %d", c.name, c.at, c.oldLen, got, c.newLen, c.wantAt)
		}
	}
}
