package lab

import (
	"math"
	"slices"

	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/figure"
)

// UserDrag drags one user of a pair drawn by DrawPairRows (ids 1… for row
// A, RowB+1… for row B) along its number line, keeping B a neighbour of
// A: grabbing a user of B puts B's other users back at A's values.
type UserDrag struct {
	ID   int     // the user being dragged, 0 for none
	grab float64 // pixels from the pointer to the user: the line may be logarithmic
}

// Item splits a hit-test id of a pair's rows (users drawn by DrawPairRows,
// or query bars numbered alike) into the item's index and its row.
func Item(id int) (i int, inB bool) {
	if id > RowB {
		return id - RowB - 1, true
	}
	return id - 1, false
}

// ItemName names the item id of the pair a, b ("row B's user 3 at 0.5";
// what says what an item is), or "" for none.
func ItemName(id int, what string, a, b []float64) string {
	i, inB := Item(id)
	row, vals := "A", a
	if inB {
		row, vals = "B", b
	}
	if i < 0 || i >= len(vals) {
		return ""
	}
	return format.Sprintf("row %s's %s %d at %.4g", row, what, i+1, vals[i])
}

// Fit sets line to show the pair a, b in width w, unless a user is held:
// the line stays as it was under the pointer.
func (d *UserDrag) Fit(line *figure.NumberLine, a, b []float64, w float64) {
	if d.ID == 0 {
		*line = figure.FitLine(append(slices.Clone(a), b...), 40, w-80)
	}
	line.W = w - 80
}

// Down grabs the user id, the hit test's answer at ev, if it is one.
func (d *UserDrag) Down(id int, ev viz.Event, a, b []float64, line figure.NumberLine) bool {
	i, inB := Item(id)
	if id == 0 || i < 0 || i >= len(a) {
		return false
	}
	d.ID = id
	v := a[i]
	if inB {
		v = b[i]
		for j := range b {
			if j != i {
				b[j] = a[j]
			}
		}
	}
	d.grab = line.XOf(v) - ev.X
	return true
}

// Move puts the grabbed user under the pointer, rounded to 10⁻³. A user
// A and B share moves in both; within > 0 keeps each B value within that
// distance of A's, and B's offset when A's moves (the Gaussian mechanism's
// answers, one sensitivity apart).
func (d *UserDrag) Move(ev viz.Event, a, b []float64, line figure.NumberLine, within float64) bool {
	if d.ID == 0 {
		return false
	}
	i, inB := Item(d.ID)
	v := math.Round(line.ValueAtX(ev.X+d.grab)*1000) / 1000
	switch {
	case inB && within > 0:
		b[i] = math.Max(a[i]-within, math.Min(a[i]+within, v))
	case inB:
		b[i] = v
	case within > 0:
		a[i], b[i] = v, b[i]+v-a[i]
	default:
		if b[i] == a[i] {
			b[i] = v
		}
		a[i] = v
	}
	return true
}

// Up lets the user go, and reports whether one was held.
func (d *UserDrag) Up() bool { return viz.LetGo(&d.ID) }
