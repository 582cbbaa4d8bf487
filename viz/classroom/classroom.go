// Package classroom runs the lessons for exercise packs: the lessons' own
// engines read the keys a pack names and judge the states students reach
// (exercise.Lab), for the command line and the HTTP API. The browser's
// lesson modules do not link it.
package classroom

import (
	"errors"
	"os"
	"strings"

	"github.com/uldplab/uldp/core/exercise"
	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/lessons"
)

// Lab is the lessons as an exercise.Lab. Each call opens a fresh lesson.
type Lab struct{}

// Lessons lists the lessons' names in menu order, for validating packs.
func Lessons() []string {
	_, ns := lessons.Named()
	return append([]string(nil), ns...)
}

// open starts lesson at state, its users replaced by data (a CSV) when
// given, and finishes what the settings start computing. A lesson whose
// users are all in its state (the stability test's values) ignores data,
// as its own page does: the page sends the dataset it exports either way.
func open(lesson, state, data string) (*viz.App, error) {
	ls, ns := lessons.Named()
	l, ok := ls[lesson]
	if !ok {
		return nil, format.Errorf("no lesson %q: the lessons are %s", lesson, strings.Join(ns, ", "))
	}
	scene, parts := fresh(l)
	app := viz.NewApp(scene)
	app.AddParts(parts...)
	if err := app.RestoreWith(link(lesson, strings.TrimPrefix(state, "#")), []byte(data)); err != nil {
		return nil, format.Errorf("lesson %s at %q: %v", lesson, state, err)
	}
	return app, nil
}

// fresh makes a lesson's scene and its parts, every setting at its
// default: a state may name a setting a part shows.
func fresh(l lessons.Lesson) (viz.Scene, []viz.Scene) {
	var parts []viz.Scene
	for _, p := range l.Parts {
		parts = append(parts, p.New())
	}
	return l.New(), parts
}

// link is a lesson's state as a link names it.
func link(lesson, state string) string { return "scene=" + lesson + "&" + state }

// Readouts are the lesson's readouts there, at the run's end when end.
func (Lab) Readouts(lesson, state, data string, end bool) ([]exercise.Reading, error) {
	app, err := open(lesson, state, data)
	if err != nil {
		return nil, err
	}
	if _, ok := app.Scene().(viz.Stepped); ok && end {
		if err := app.Set(viz.CtlEnd, ""); err != nil {
			return nil, err
		}
	}
	var out []exercise.Reading
	for _, r := range app.Readouts() {
		out = append(out, exercise.Reading{Name: r.Name, Value: r.Value, Text: r.Text, Warn: r.Warn})
	}
	return out, nil
}

// Catches runs the audit lab at state with mutant under audit: caught when
// the exact δ(ε) at the claimed ε exceeds the claim. Mechanisms the lab
// can only sample have no exact verdict to grade by.
func (lab Lab) Catches(state, mutant string) (bool, string, error) {
	app, err := open("audit", state, "")
	if err != nil {
		return false, "", err
	}
	if err := app.Set("mutant", mutant); err != nil {
		return false, "", err
	}
	for _, r := range app.Readouts() {
		switch r.Name {
		case "error":
			return false, "", format.Errorf("the audit lab cannot audit there: %s", r.Text)
		case "exact":
			if r.Warn {
				return true, "the exact δ at the claimed ε exceeds the promise (" + r.Text + ")", nil
			}
			return false, "the exact δ at the claimed ε keeps the promise (" + r.Text + ")", nil
		}
	}
	return false, "", format.Errorf("the audit lab has no exact verdict there (%s); find-the-bug grades by the exact one", state)
}

// Check reports exercises about no lesson of ULDP Lab, naming them and the
// lessons there are.
func Check(p *exercise.Pack) error {
	ls, ns := lessons.Named()
	var unknown []string
	for _, x := range p.Exercises {
		if _, ok := ls[x.Lesson]; !ok {
			unknown = append(unknown, x.ID+" ("+x.Lesson+")")
		}
	}
	if len(unknown) > 0 {
		return format.Errorf("exercises about no lesson of ULDP Lab: %s; the lessons are %s", strings.Join(unknown, ", "), strings.Join(ns, ", "))
	}
	return nil
}

// ReadPack reads the built-in pack ("builtin") or the pack file name,
// checked against the lessons there are. Errors start with the name.
func ReadPack(name string) (*exercise.Pack, error) {
	if name == "builtin" {
		return exercise.Builtin()
	}
	file, err := os.Open(name)
	if err != nil {
		return nil, format.Errorf("%s: %v (or use the built-in pack: builtin)", name, errors.Unwrap(err))
	}
	defer file.Close()
	p, err := exercise.Decode(file)
	if err == nil {
		err = Check(p)
	}
	if err != nil {
		return nil, format.Errorf("%s: %v", name, err)
	}
	return p, nil
}
