// Package lessons is the list of ULDP Lab's lessons: the desktop app's
// menu, the browser's engine modules (one per lesson, built from this
// list), the site's menu and lesson texts, and the grader all read it.
//
// Each lesson is a package of its own below this one (lessons/dpsgd, …):
// its scene, drawing, tests and prose (lesson.html). A lesson package
// imports the figure kit (viz/figure), viz and core, never another lesson,
// and nothing but this list and the front ends (cmd, wasm, site) imports a
// lesson. README.md ("Adding a lesson") says how to add one.
package lessons

import (
	"reflect"
	"runtime"
	"strings"
	"sync"

	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/lessons/abovethreshold"
	"github.com/uldplab/uldp/viz/lessons/auditlab"
	"github.com/uldplab/uldp/viz/lessons/auditlab/phasedlab"
	"github.com/uldplab/uldp/viz/lessons/auditlab/semilab"
	"github.com/uldplab/uldp/viz/lessons/auditlab/sgdlab"
	"github.com/uldplab/uldp/viz/lessons/calibration"
	"github.com/uldplab/uldp/viz/lessons/dpsgd"
	"github.com/uldplab/uldp/viz/lessons/outlieriterates"
	"github.com/uldplab/uldp/viz/lessons/outlierremoval"
	"github.com/uldplab/uldp/viz/lessons/phasederm"
	"github.com/uldplab/uldp/viz/lessons/ratesexplorer"
	"github.com/uldplab/uldp/viz/lessons/robustsgd"
	"github.com/uldplab/uldp/viz/lessons/semisensitive"
	"github.com/uldplab/uldp/viz/lessons/stability"
	"github.com/uldplab/uldp/viz/lessons/userlevel"
)

// Lesson is one entry of the lesson menu.
type Lesson struct {
	// New makes the lesson's scene.
	New func() viz.Scene
	// Constructor is the full Go name of the top-level function behind New
	// ("github.com/uldplab/uldp/viz/lessons/userlevel.New"). The browser's
	// engine module for the lesson calls that function and nothing else, so
	// it links its own lesson only.
	Constructor string
	// Text returns the lesson's prose, an HTML fragment (package prose
	// reads it); parts have none of their own.
	Text func() string
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

// lesson is the entry of the lesson whose package has the constructor f
// and the prose text.
func lesson[S viz.Scene](f func() S, text func() string) Lesson {
	return Lesson{
		New:         func() viz.Scene { return f() },
		Constructor: runtime.FuncForPC(reflect.ValueOf(f).Pointer()).Name(),
		Text:        text,
	}
}

// Lessons returns every lesson in menu order. It is the one list of lessons:
// the desktop app shows them all, and the browser gets one engine module per
// entry, built from it. Append new lessons: a lesson's position is its
// number, and links name it by its scene's Info().Name.
func Lessons() []Lesson {
	return []Lesson{
		lesson(userlevel.New, userlevel.Text),
		lesson(calibration.New, calibration.Text),
		lesson(abovethreshold.New, abovethreshold.Text),
		lesson(stability.New, stability.Text),
		lesson(outlierremoval.New, outlierremoval.Text),
		lesson(dpsgd.New, dpsgd.Text),
		lesson(phasederm.New, phasederm.Text),
		auditLesson(),
		lesson(robustsgd.New, robustsgd.Text),
		lesson(outlieriterates.New, outlieriterates.Text),
		lesson(ratesexplorer.New, ratesexplorer.Text),
		lesson(semisensitive.New, semisensitive.Text),
	}
}

// auditLesson is the audit lab: whole SGD runs are a part of their own
// (the first module has no room for them), Lowy, Liu & Asi's mechanisms
// another, and PVMW a third.
func auditLesson() Lesson {
	l := lesson(auditlab.New, auditlab.Text)
	l.Parts = []Part{{Name: "sgd", Param: "mech", Values: sgdlab.Mechs(), Lesson: lesson(sgdlab.New, nil)},
		{Name: "phased", Param: "mech", Values: phasedlab.Mechs(), Lesson: lesson(phasedlab.New, nil)},
		{Name: "semi", Param: "mech", Values: semilab.Mechs(), Lesson: lesson(semilab.New, nil)}}
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

var (
	namedOnce sync.Once
	byName    map[string]Lesson
	names     []string
)

// Named returns the lessons by the name their links use ("dp-sgd"), and
// the names in menu order. It makes every lesson's scene once, to ask its
// name.
func Named() (map[string]Lesson, []string) {
	namedOnce.Do(func() {
		byName = map[string]Lesson{}
		for _, l := range Lessons() {
			n := l.New().Info().Name
			byName[n] = l
			names = append(names, n)
		}
	})
	return byName, names
}

// Text returns the prose of the lesson called name.
func Text(name string) (string, error) {
	ls, ns := Named()
	l, ok := ls[name]
	if !ok {
		return "", format.Errorf("no lesson %q: the lessons are %s", name, strings.Join(ns, ", "))
	}
	return l.Text(), nil
}
