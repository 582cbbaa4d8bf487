// Package classroom runs the lessons for exercise packs: the lessons' own
// engines read the keys a pack names and judge the states students reach
// (exercise.Lab), for the command line, the HTTP API, the desktop app and
// the browser's practice grader (wasm/practice), which read grading
// requests alike (Request). The browser's lesson modules do not link it.
package classroom

import (
	"errors"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/uldplab/uldp/core/audit"
	"github.com/uldplab/uldp/core/dataset"
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
	// Most states need the lesson's first scene only: its parts (the audit
	// lab's second and third, 40 ms to make) are made when it refuses one.
	state = link(lesson, strings.TrimPrefix(state, "#"))
	app := viz.NewApp(l.New())
	err := app.RestoreWith(state, []byte(data))
	if err != nil && len(l.Parts) > 0 {
		scene, parts := fresh(l)
		app = viz.NewApp(scene)
		app.AddParts(parts...)
		err = app.RestoreWith(state, []byte(data))
	}
	if err != nil {
		return nil, format.Errorf("lesson %s at %q: %v", lesson, strings.TrimPrefix(state, "scene="+lesson+"&"), err)
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
// With the state's own users (data empty) they are computed once per
// process and kept (see kept).
func (Lab) Readouts(lesson, state, data string, end bool) ([]exercise.Reading, error) {
	if data != "" {
		return readouts(lesson, state, data, end)
	}
	rs, err := kept.get(view{lesson: lesson, state: state, end: end}, func() ([]exercise.Reading, error) {
		return readouts(lesson, state, "", end)
	})
	return slices.Clone(rs), err
}

// Kept reports whether the readouts of lesson at state with its own users
// are kept: reading them is a lookup (exercise.Cache).
func (Lab) Kept(lesson, state string, end bool) bool {
	return kept.has(view{lesson: lesson, state: state, end: end})
}

// readouts opens the lesson there and reads its readouts.
func readouts(lesson, state, data string, end bool) ([]exercise.Reading, error) {
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
// can only sample have no exact verdict to grade by. Verdicts are kept,
// as readouts are (a class names a few preset pairs).
func (lab Lab) Catches(state, mutant string) (bool, string, error) {
	v, err := verdicts.get(view{lesson: "audit", state: state, mutant: mutant}, func() (verdict, error) {
		caught, why, err := catches(state, mutant)
		return verdict{caught, why}, err
	})
	return v.caught, v.why, err
}

// catches is Catches, computed.
func catches(state, mutant string) (bool, string, error) {
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

var (
	mutantsOnce sync.Once
	mutants     []string
)

// Mutants are the broken variants the audit lab offers, over every
// mechanism of all its parts, in the lab's order.
func (Lab) Mutants() []string {
	mutantsOnce.Do(func() {
		lab, err := open("audit", "", "")
		if err != nil {
			panic(err) // the audit lab opens at its defaults
		}
		for _, m := range control(lab, "mech").Choices {
			app, err := open("audit", "mech="+m, "")
			if err != nil {
				panic(err) // every mechanism of the lab's menu opens
			}
			for _, v := range control(app, "mutant").Choices {
				if v != audit.NoMutant && !slices.Contains(mutants, v) {
					mutants = append(mutants, v)
				}
			}
		}
	})
	return slices.Clone(mutants)
}

// control is app's control called name (zero if there is none).
func control(app *viz.App, name string) viz.Control {
	for _, c := range app.Controls() {
		if c.Name == name {
			return c
		}
	}
	return viz.Control{}
}

// Validate is Check, then what the lessons themselves refuse: a state a
// lesson does not take, a readout it does not show, a find-the-bug mutant
// the audit lab does not have or a pair it does not open, each with its
// place. It opens every exercise's lesson, a second or more for the
// heaviest: a teacher's check of a pack, not a request's.
func Validate(p *exercise.Pack) error {
	if err := Check(p); err != nil {
		return err
	}
	var errs []error
	for i, x := range p.Exercises {
		// A varied exercise is checked at each end of its ranges.
		for _, v := range append([]exercise.Exercise{x}, x.Extremes()...) {
			if err := checkExercise(v); err != nil {
				errs = append(errs, format.Errorf("exercises[%d] (%s).%v", i, x.ID, err))
				break
			}
		}
	}
	return errors.Join(errs...)
}

// checkExercise opens x's lesson at its state, and at its key's.
func checkExercise(x exercise.Exercise) error {
	if _, err := (Lab{}).Readouts(x.Lesson, x.State, "", false); err != nil { // kept: the grader opens it too
		return format.Errorf("state: %v", err)
	}
	s := x.Answer
	switch x.Kind {
	case exercise.Numeric, exercise.Predict, exercise.Manipulate:
		state, where := x.KeyState(), "state"
		if s.At != "" {
			where = "answer.at"
		}
		if x.Kind == exercise.Manipulate {
			state, where = s.Example, "answer.example"
		}
		if s.Readout == "" {
			return nil
		}
		rs, err := Lab{}.Readouts(x.Lesson, state, "", x.Kind != exercise.Numeric)
		if err != nil {
			return format.Errorf("%s: %v", where, err)
		}
		var names []string
		for _, r := range rs {
			if r.Name == s.Readout {
				return nil
			}
			names = append(names, r.Name)
		}
		return format.Errorf("answer.readout: the lesson shows no readout %s there; it shows %s", dataset.Excerpt(s.Readout), strings.Join(names, ", "))
	case exercise.FindTheBug:
		if known := (Lab{}).Mutants(); !slices.Contains(known, s.Mutant) {
			return format.Errorf("answer.mutant: the audit lab has no broken variant %s; its variants are %s", dataset.Excerpt(s.Mutant), strings.Join(known, ", "))
		}
		app, err := open("audit", s.Pair, "")
		if err == nil {
			err = app.Set("mutant", s.Mutant)
		}
		if err != nil {
			return format.Errorf("answer.pair: %v", err)
		}
	}
	return nil
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
// checked against the lessons there are and what they show (Validate;
// the built-in pack's own tests check it). Errors start with the name.
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
		err = Validate(p)
	}
	if err != nil {
		return nil, format.Errorf("%s: %v", name, err)
	}
	return p, nil
}
