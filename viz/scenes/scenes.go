// Package scenes holds the lessons' scenes. Each is a viz.Scene: pure Go
// state, input handling and drawing, shared by the desktop app and the web
// site.
package scenes

import (
	"reflect"
	"runtime"

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
