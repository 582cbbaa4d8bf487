// Package scenes holds the lessons' scenes. Each is a viz.Scene: pure Go
// state, input handling and drawing, shared by the desktop app and the web
// site.
package scenes

import (
	"github.com/uldplab/uldp/core/format"
	"reflect"
	"runtime"

	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/viz"
)

// Lesson is one entry of the lesson menu.
type Lesson struct {
	// New makes the lesson's scene.
	New func() viz.Scene
	// Constructor is the full Go name of the top-level function behind New
	// ("github.com/uldplab/uldp/viz/scenes.NewPlayground"). The browser's
	// engine module for the lesson calls that function and nothing else, so
	// it links its own lesson only.
	Constructor string
	// Parts split a lesson too large for one browser module: each is a
	// scene of its own, in a module of its own, showing the values of one
	// setting (Param); the lesson's scenes answer the others' values with
	// a viz.ElsewhereError.
	Parts []Part
}

// Part is one further module of a lesson.
type Part struct {
	// Name names the module ("phased": the module audit-phased).
	Name string
	// Param and Values are the setting the part shows and its values.
	Param  string
	Values []string
	Lesson
}

func lesson[S viz.Scene](f func() S) Lesson {
	return Lesson{
		New:         func() viz.Scene { return f() },
		Constructor: runtime.FuncForPC(reflect.ValueOf(f).Pointer()).Name(),
	}
}

// Lessons returns every lesson in menu order. It is the one list of lessons:
// the desktop app shows them all, and the browser gets one engine module per
// entry, built from it. Append new lessons: a lesson's position is its
// number, and links name it by its scene's Info().Name.
func Lessons() []Lesson {
	return []Lesson{
		lesson(NewPlayground), lesson(NewCalibration), lesson(NewAboveThreshold), lesson(NewStability),
		lesson(NewOutlier), lesson(NewDPSGD), lesson(NewPhased), auditLesson(), lesson(NewRobustSGD),
		lesson(NewOIR), lesson(NewRates), lesson(NewSemiSens),
	}
}

// auditLesson is the audit lab: Lowy, Liu & Asi's mechanisms are a part of
// their own (the first module has no room for them), and PVMW another.
func auditLesson() Lesson {
	l := lesson(NewAuditLab)
	l.Parts = []Part{{Name: "phased", Param: "mech", Values: phasedMechs, Lesson: lesson(NewPhasedLab)},
		{Name: "semi", Param: "mech", Values: semiMechs, Lesson: lesson(NewSemiLab)}}
	return l
}

// Parts returns a fresh scene for every part of every lesson, for an app
// that shows whole lessons (viz.App.AddParts).
func Parts() []viz.Scene {
	var out []viz.Scene
	for _, l := range Lessons() {
		for _, p := range l.Parts {
			out = append(out, p.New())
		}
	}
	return out
}

// All returns a fresh instance of every lesson scene, in lesson order.
func All() []viz.Scene {
	ls := Lessons()
	out := make([]viz.Scene, len(ls))
	for i, l := range ls {
		out[i] = l.New()
	}
	return out
}

// failedReadouts is the one readout a lesson shows when its run failed;
// label says what could not be done ("cannot run", "cannot audit").
func failedReadouts(label string, err error) []viz.Readout {
	return []viz.Readout{{Name: "error", Label: label, Text: err.Error(), Warn: true}}
}

// drawFailure writes a failed run's message across the figure, wrapped to
// its width, from y down.
func drawFailure(l *viz.List, w, y float64, msg string) {
	for i, line := range viz.Wrap(msg, int(w/7)) {
		l.Text(viz.Point{X: 20, Y: y + 18*float64(i)}, line, 13, viz.Vermillion, viz.Left)
	}
}

// fits checks that d has n users of m items each in 2-D.
func fits(d *dataset.Dataset, n, m int) error {
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

// labels places labels that may crowd each other (one per dot, where dots
// can pile up): a label that would overlap one already placed is left out,
// so place the important ones first.
type labels struct {
	l     *viz.List
	boxes [][4]float64
}

// text draws a one-line label unless it would overlap a placed one, and
// says whether it did.
func (p *labels) text(at viz.Point, text string, size float64, c viz.Colour, align viz.Align) bool {
	tw := viz.TextWidth(text, size)
	x0 := at.X - [...]float64{0, tw / 2, tw}[align]
	b := [4]float64{x0, at.Y - size/2, x0 + tw, at.Y + size/2}
	for _, o := range p.boxes {
		if b[0] < o[2] && o[0] < b[2] && b[1] < o[3] && o[1] < b[3] {
			return false
		}
	}
	p.boxes = append(p.boxes, b)
	p.l.Text(at, text, size, c, align)
	return true
}

// preset is a lesson's named setting of its data and controls.
type preset interface{ presetName() string }

// namesOf lists presets' names, in order: a preset control's choices.
func namesOf[P preset](ps []P) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.presetName()
	}
	return out
}

// byName returns the preset called name, one of namesOf(ps): the form
// checks a choice before a lesson looks it up, so a miss is a bug.
func byName[P preset](ps []P, name string) P {
	for _, p := range ps {
		if p.presetName() == name {
			return p
		}
	}
	panic("no preset " + name)
}

// letGo ends a drag on pointer up: drag is the dragged thing's ID (0:
// none); true if there was one to let go of.
func letGo(drag *int) bool {
	if *drag == 0 {
		return false
	}
	*drag = 0
	return true
}
