package viz

import (
	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/format"
)

// FailedReadout names the readout FailedReadouts returns: the figure in
// words says it instead of the scene's description.
const FailedReadout = "error"

// FailedReadouts is the one readout a lesson shows when its run failed;
// label says what could not be done ("cannot run", "cannot audit").
func FailedReadouts(label string, err error) []Readout {
	return []Readout{{Name: FailedReadout, Label: label, Text: err.Error(), Warn: true}}
}

// Fits checks that d has n users of m items each in 2-D.
func Fits(d *dataset.Dataset, n, m int) error {
	if d.Dim != 2 || d.N() != n {
		return format.Errorf("the lesson has %d users in 2-D, the dataset %d in %d-D", n, d.N(), d.Dim)
	}
	for i, u := range d.Users {
		if len(u.Points) != 2*m {
			return format.Errorf("user %s has %d items; this lesson's users have %d", d.Users[i].ID, len(u.Points)/2, m)
		}
	}
	return nil
}

// LetGo ends a drag on pointer up: drag is the dragged thing's ID (0:
// none); true if there was one to let go of.
func LetGo(drag *int) bool {
	if *drag == 0 {
		return false
	}
	*drag = 0
	return true
}
