package classroom

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/uldplab/uldp/core/audit"
	"github.com/uldplab/uldp/core/exercise"
	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/lessons"
)

// Session is a student working through a pack on this machine, as the
// desktop app runs it: answers are graded once committed, by the lessons'
// own engines, and the hand-in file is written after each one, so it is
// the progress: reopening it resumes, and the teacher grades it with
// `uldp grade`.
type Session struct {
	Pack *exercise.Pack
	// Current is the index of the exercise open.
	Current int
	// Hints counts the hints shown per exercise.
	Hints map[string]int

	handin  exercise.Handin
	results map[string]exercise.Result
	path    string
}

// Resume opens the hand-in at path for p, grading the answers it already
// holds, or starts one there when there is no file yet. The first exercise
// not yet answered is open.
func Resume(p *exercise.Pack, path, student string) (*Session, error) {
	if err := Check(p); err != nil {
		return nil, err
	}
	if err := exercise.CheckStudent(student); err != nil {
		return nil, err
	}
	// The student's own numbers: a hand-in names its student, else the
	// name given here does.
	s := &Session{Pack: p.For(student), Hints: map[string]int{}, results: map[string]exercise.Result{}, path: path,
		handin: exercise.Handin{Pack: p.Title, Student: student, Answers: exercise.Answers{}}}
	f, err := os.Open(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return s, nil
	case err != nil:
		return nil, err
	}
	defer f.Close()
	h, err := exercise.DecodeHandin(f)
	if err == nil {
		err = h.For(p)
	}
	if err != nil {
		return nil, format.Errorf("%s: %v (start a new hand-in elsewhere, or move this one away)", path, err)
	}
	switch {
	case student == "":
		student = h.Student
	case h.Student != student && (h.Student != "" || len(h.Answers) > 0):
		// The answers were worked out with h.Student's own numbers.
		owner := h.Student
		if owner == "" {
			owner = "a student with no name"
		}
		return nil, format.Errorf("%s: this hand-in is %s's, not %s's (start a new hand-in elsewhere)", path, owner, student)
	}
	s.handin.Student = student
	s.Pack = p.For(student)
	for _, e := range s.Pack.Exercises {
		raw, ok := h.Answers[e.ID]
		if !ok {
			continue
		}
		r, err := e.Grade(raw, Lab{})
		if err != nil {
			return nil, format.Errorf("%s: %v", path, err)
		}
		s.handin.Answers[e.ID], s.results[e.ID] = raw, r
	}
	if len(s.results) != len(h.Answers) {
		return nil, format.Errorf("%s: answers to exercises the pack “%s” does not have", path, p.Title)
	}
	for s.Current < len(p.Exercises)-1 && s.Answered(p.Exercises[s.Current].ID) {
		s.Current++
	}
	return s, nil
}

// Exercise is the exercise open.
func (s *Session) Exercise() exercise.Exercise { return s.Pack.Exercises[s.Current] }

// Answered reports whether exercise id has its answer.
func (s *Session) Answered(id string) bool { _, ok := s.results[id]; return ok }

// Result is exercise id's grading, once answered.
func (s *Session) Result(id string) (exercise.Result, bool) { r, ok := s.results[id]; return r, ok }

// Score counts the right answers and the answered exercises.
func (s *Session) Score() (right, answered int) {
	for _, r := range s.results {
		if r.Correct {
			right++
		}
	}
	return right, len(s.results)
}

// Path is where the hand-in is written.
func (s *Session) Path() string { return s.path }

// Open shows the exercise open in app, its lesson fresh at the exercise's
// state: what the grader sees, whatever the student explored before.
func (s *Session) Open(app *viz.App) error {
	e := s.Exercise()
	ls, _ := lessons.Named()
	scene, parts := fresh(ls[e.Lesson]) // Resume checked it exists
	if err := app.Reopen(scene, parts...); err != nil {
		return err
	}
	return app.RestoreWith(link(e.Lesson, e.State), nil)
}

// AnswerNumber commits x to the open Numeric or Predict exercise.
func (s *Session) AnswerNumber(x float64) (exercise.Result, error) { return s.answer(x) }

// AnswerChoice commits choice i (from 0) to the open Choice exercise.
func (s *Session) AnswerChoice(i int) (exercise.Result, error) { return s.answer(i) }

// AnswerState commits app's lesson as it is now to the open Manipulate or
// FindTheBug exercise: its state, its dragged users, the variant under
// audit.
func (s *Session) AnswerState(app *viz.App) (exercise.Result, error) {
	e := s.Exercise()
	if name := app.Scene().Info().Name; name != e.Lesson {
		return exercise.Result{}, format.Errorf("this exercise is about the lesson %s: open it (the exercise's Restart button), then answer", e.Lesson)
	}
	state := strings.TrimPrefix(app.State(), "scene="+e.Lesson)
	state = strings.TrimPrefix(state, "&")
	if e.Kind == exercise.FindTheBug {
		var mutant string
		for _, c := range app.Controls() {
			if c.Name == "mutant" {
				mutant = c.Value
			}
		}
		if mutant == "" || mutant == audit.NoMutant {
			return exercise.Result{}, format.Errorf("set the lab's “broken variant” to the one you suspect first")
		}
		return s.answer(exercise.BugAnswer{Mutant: mutant, State: state})
	}
	a := exercise.StateAnswer{State: state}
	if _, ok := app.Scene().(viz.DatasetLoader); ok {
		csv, err := app.ExportCSV()
		if err != nil {
			return exercise.Result{}, err
		}
		a.Data = string(csv)
	}
	return s.answer(a)
}

// answer grades v as the open exercise's answer, once, and writes the
// hand-in.
func (s *Session) answer(v any) (exercise.Result, error) {
	e := s.Exercise()
	if r, ok := s.results[e.ID]; ok {
		return r, format.Errorf("exercise %d is answered already: an answer is final once checked", s.Current+1)
	}
	raw, err := marshal(v, "")
	if err != nil {
		return exercise.Result{}, err
	}
	r, err := e.Grade(raw, Lab{})
	if err != nil {
		return r, err
	}
	s.handin.Answers[e.ID], s.results[e.ID] = raw, r
	return r, s.save()
}

// save writes the hand-in whole or not at all: to a file beside it, then
// renamed over it.
func (s *Session) save() error {
	b, err := marshal(s.handin, "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(s.path), ".uldp-handin-*")
	if err != nil {
		return format.Errorf("saving the hand-in: %v", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return format.Errorf("saving the hand-in: %v", err)
	}
	if err := tmp.Close(); err != nil {
		return format.Errorf("saving the hand-in: %v", err)
	}
	if err := os.Rename(tmp.Name(), s.path); err != nil {
		return format.Errorf("saving the hand-in: %v", err)
	}
	return nil
}

// marshal writes v as JSON with "&" as itself: states are links' fragments,
// and a hand-in is read by people too.
func marshal(v any, indent string) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", indent)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSpace(buf.Bytes()), nil
}
