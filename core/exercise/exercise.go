// Package exercise reads ULDP Lab's exercise packs and grades answers to
// them. A pack is a versioned JSON file of exercises, each about one
// lesson: the lesson's state it starts from (the part of a lesson link
// after "scene=…&"), a question, how an answer is graded, hints, and an
// explanation shown once the student has answered.
//
//	{
//	  "version": 1,
//	  "title": "Noise calibration",
//	  "exercises": [{
//	    "id": "gauss-sigma",
//	    "lesson": "calibration",
//	    "kind": "numeric",
//	    "state": "mech=gaussian&eps=1&delta=1e-5",
//	    "question": "What σ does the Gaussian mechanism need here?",
//	    "answer": {"readout": "sigma", "tolerance": 0.01, "relative": true},
//	    "hints": ["The derivation is under the figure."],
//	    "explanation": "σ = √(2 ln(1.25/δ))·Δ/ε at ε ≤ 1."
//	  }]
//	}
//
// Keys that are numbers a lesson computes name the lesson's readout
// instead of copying its value, so a key cannot go stale: the grader runs
// the lesson (a Lab) to read it. Decoding is strict, and every error names
// its place ("exercises[2].answer.tolerance: …").
package exercise

import (
	_ "embed"
	"encoding/json"
	"io"
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/internal/strictjson"
)

// Version is the pack format this package reads.
const Version = 1

// MaxBytes caps a pack file.
const MaxBytes = 1 << 20

// MaxID and MaxState bound an exercise's id and its lesson's state, in
// bytes: an id names a question, a state a lesson's settings.
const (
	MaxID    = 64
	MaxState = 4096
)

// MaxTries bounds a pack's tries: past a few, a student finds a choice's
// key by elimination.
const MaxTries = 10

// Kind is how an exercise is answered.
type Kind string

// The kinds of exercise.
const (
	// Numeric asks for a number, right within a tolerance.
	Numeric Kind = "numeric"
	// Choice asks to pick one of the listed choices.
	Choice Kind = "choice"
	// Predict asks for a number before the student steps the lesson to
	// see it: graded like Numeric, the key read at the run's end.
	Predict Kind = "predict"
	// Manipulate asks for a state of the lesson (reached by dragging and
	// setting controls) on which, at the run's end, one of the lesson's
	// readouts meets a goal.
	Manipulate Kind = "manipulate"
	// FindTheBug hides a broken variant in the audit lab: the student
	// names it and gives a pair on which the lab catches it.
	FindTheBug Kind = "find-the-bug"
)

var kinds = []Kind{Numeric, Choice, Predict, Manipulate, FindTheBug}

// Pack is a set of exercises.
type Pack struct {
	Version   int        `json:"version"`
	Title     string     `json:"title"`
	Exercises []Exercise `json:"exercises"`
	// Tries is how many answers a student may give to each exercise
	// where a class server keeps them (0 reads as 1: final once checked).
	// An answer that is right is final whatever is left.
	Tries int `json:"tries,omitempty"`
	// builtin marks ULDP Lab's own pack, which hand-ins may name
	// "builtin".
	builtin bool
}

// Exercise is one question about one lesson.
type Exercise struct {
	ID     string `json:"id"`
	Lesson string `json:"lesson"`
	Kind   Kind   `json:"kind"`
	// State is the lesson's state the exercise opens on, as in a link
	// ("eps=1&delta=1e-5"), without the scene.
	State       string   `json:"state"`
	Question    string   `json:"question"`
	Answer      Spec     `json:"answer"`
	Hints       []string `json:"hints,omitempty"`
	Explanation string   `json:"explanation"`
	// Vary gives each student their own value of some settings of a
	// numeric or predict exercise's key state (Pack.For), named {setting}
	// in the question and the explanation.
	Vary map[string]Range `json:"vary,omitempty"`
}

// Spec says how an answer is graded; which fields apply depends on the
// exercise's kind.
type Spec struct {
	// Numeric and Predict: the key is Value, or the lesson's readout
	// Readout at the exercise's state, or at At when given (Predict reads
	// it at the run's end). At keeps the key out of sight where the
	// exercise opens: the question asks about another setting, which the
	// student computes or reaches. An answer is right within Tolerance of
	// the key, or within Tolerance·|key| when Relative.
	Value     *float64 `json:"value,omitempty"`
	Readout   string   `json:"readout,omitempty"`
	At        string   `json:"at,omitempty"`
	Tolerance float64  `json:"tolerance,omitempty"`
	Relative  bool     `json:"relative,omitempty"`
	// Choice: the choices, and the index (from 0) of the right one.
	Choices []string `json:"choices,omitempty"`
	Correct *int     `json:"correct,omitempty"`
	// Manipulate: the goal is on Readout at the run's end: its value
	// above Above and below Below (each when given), its warning flag
	// equal to Warn and its text containing Contains (when given).
	// Example is a state that meets it (the key).
	Above    *float64 `json:"above,omitempty"`
	Below    *float64 `json:"below,omitempty"`
	Warn     *bool    `json:"warn,omitempty"`
	Contains string   `json:"contains,omitempty"`
	Example  string   `json:"example,omitempty"`
	// FindTheBug: the broken variant under audit, and a state of the audit
	// lab (a mechanism and a pair) on which it is caught (the key).
	Mutant string `json:"mutant,omitempty"`
	Pair   string `json:"pair,omitempty"`
}

var (
	topFields      = []string{"version", "title", "exercises", "tries"}
	exerciseFields = []string{"id", "lesson", "kind", "state", "question", "answer", "hints", "explanation", "vary"}
	specFields     = map[Kind][]string{
		Numeric:    {"value", "readout", "at", "tolerance", "relative"},
		Predict:    {"value", "readout", "at", "tolerance", "relative"},
		Choice:     {"choices", "correct"},
		Manipulate: {"readout", "above", "below", "warn", "contains", "example"},
		FindTheBug: {"mutant", "pair"},
	}
	idPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)
)

// Decode reads and validates one pack.
func Decode(r io.Reader) (*Pack, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxBytes+1))
	if err != nil {
		return nil, format.Errorf("reading the pack: %v", err)
	}
	if len(b) > MaxBytes {
		return nil, format.Errorf("the pack is larger than %d MiB: split it", MaxBytes>>20)
	}
	return decode(b)
}

func decode(b []byte) (*Pack, error) {
	if err := strictjson.Document(b, "pack"); err != nil {
		return nil, err
	}
	top, err := strictjson.Object(b, "pack", topFields)
	if err != nil {
		return nil, err
	}
	p := &Pack{}
	if err := strictjson.Field(top, "version", "version", &p.Version, true); err != nil {
		return nil, err
	}
	if p.Version != Version {
		return nil, format.Errorf("version = %d: this ULDP Lab reads exercise packs of version %d; set \"version\": %d", p.Version, Version, Version)
	}
	if err := strictjson.Field(top, "title", "title", &p.Title, true); err != nil {
		return nil, err
	}
	if err := strictjson.Field(top, "tries", "tries", &p.Tries, false); err != nil {
		return nil, err
	}
	if raw, given := top["tries"]; given && string(raw) != "null" && (p.Tries < 1 || p.Tries > MaxTries) {
		return nil, format.Errorf("tries = %d: give 1 to %d answers per exercise (leave it out for 1: final once checked)", p.Tries, MaxTries)
	}
	var raws []json.RawMessage
	if err := strictjson.Field(top, "exercises", "exercises", &raws, true); err != nil {
		return nil, err
	}
	if len(raws) == 0 {
		return nil, format.Errorf("exercises: the pack has none; add at least one")
	}
	seen := map[string]int{}
	for i, raw := range raws {
		path := format.Sprintf("exercises[%d]", i)
		e, err := decodeExercise(raw, path)
		if err != nil {
			return nil, err
		}
		if j, ok := seen[e.ID]; ok {
			return nil, format.Errorf("%s.id: %q is also exercises[%d]'s id; ids must be unique", path, e.ID, j)
		}
		seen[e.ID] = i
		p.Exercises = append(p.Exercises, e)
	}
	return p, nil
}

func decodeExercise(raw json.RawMessage, path string) (Exercise, error) {
	var e Exercise
	m, err := strictjson.Object(raw, path, exerciseFields)
	if err != nil {
		return e, err
	}
	for _, f := range []struct {
		name string
		dst  any
	}{{"id", &e.ID}, {"lesson", &e.Lesson}, {"kind", &e.Kind}, {"question", &e.Question}, {"explanation", &e.Explanation}} {
		if err := strictjson.Field(m, f.name, path+"."+f.name, f.dst, true); err != nil {
			return e, err
		}
	}
	if err := strictjson.Field(m, "state", path+".state", &e.State, false); err != nil {
		return e, err
	}
	if err := strictjson.Field(m, "hints", path+".hints", &e.Hints, false); err != nil {
		return e, err
	}
	if raw, ok := m["vary"]; ok {
		if err := strictjson.Decode(raw, &e.Vary); err != nil {
			return e, strictjson.TypeError(path+".vary", err)
		}
	}
	if len(e.ID) > MaxID || !idPattern.MatchString(e.ID) {
		return e, format.Errorf("%s.id: %s: write up to %d lower-case letters, digits and hyphens (\"gauss-sigma\")", path, dataset.Excerpt(e.ID), MaxID)
	}
	if len(e.State) > MaxState {
		return e, format.Errorf("%s.state is %d bytes: a lesson's settings take far fewer (at most %d)", path, len(e.State), MaxState)
	}
	path = format.Sprintf("%s (%s)", path, e.ID)
	for _, s := range []struct{ name, v string }{{"lesson", e.Lesson}, {"question", e.Question}, {"explanation", e.Explanation}} {
		if strings.TrimSpace(s.v) == "" {
			return e, format.Errorf("%s.%s is empty", path, s.name)
		}
	}
	if strings.HasPrefix(e.State, "#") || strings.Contains(e.State, "scene=") {
		return e, format.Errorf("%s.state: %q: give the lesson's state without the scene (\"eps=1&delta=1e-5\"): the lesson field names the scene", path, e.State)
	}
	known, ok := specFields[e.Kind]
	if !ok {
		return e, format.Errorf("%s.kind = %q: use one of %s", path, e.Kind, kindList())
	}
	raw, ok = m["answer"]
	if !ok {
		return e, format.Errorf("%s.answer is missing", path)
	}
	if _, err := strictjson.Object(raw, path+".answer", known); err != nil {
		return e, err
	}
	if err := strictjson.Decode(raw, &e.Answer); err != nil {
		return e, strictjson.TypeError(path+".answer", err)
	}
	if err := e.Answer.check(e.Kind, path+".answer"); err != nil {
		return e, err
	}
	return e, e.checkVary(path)
}

// check validates a spec for its kind.
func (s Spec) check(k Kind, path string) error {
	switch k {
	case Numeric, Predict:
		switch {
		case (s.Value == nil) == (s.Readout == ""):
			return format.Errorf("%s: give exactly one of value (a number) and readout (the lesson's readout to read the key from)", path)
		case s.At != "" && s.Readout == "":
			return format.Errorf("%s.at: the state to read the key's readout at; give a readout too", path)
		case len(s.At) > MaxState:
			return format.Errorf("%s.at is %d bytes: a lesson's settings take far fewer (at most %d)", path, len(s.At), MaxState)
		case strings.HasPrefix(s.At, "#") || strings.Contains(s.At, "scene="):
			return format.Errorf("%s.at: %q: give the lesson's state without the scene (\"eps=1&delta=1e-5\")", path, s.At)
		case s.Value != nil && (math.IsNaN(*s.Value) || math.IsInf(*s.Value, 0)):
			return format.Errorf("%s.value must be a finite number", path)
		case !(s.Tolerance >= 0) || math.IsInf(s.Tolerance, 0):
			return format.Errorf("%s.tolerance = %v: a finite number ≥ 0 (0: exactly the key)", path, s.Tolerance)
		case s.Relative && s.Tolerance >= 1:
			return format.Errorf("%s.tolerance = %v with relative: a share of the key below 1 (0.01 is 1%%)", path, s.Tolerance)
		}
	case Choice:
		switch {
		case len(s.Choices) < 2:
			return format.Errorf("%s.choices: give at least two", path)
		case s.Correct == nil:
			return format.Errorf("%s.correct is missing: the index (from 0) of the right choice", path)
		case *s.Correct < 0 || *s.Correct >= len(s.Choices):
			return format.Errorf("%s.correct = %d: an index from 0 to %d", path, *s.Correct, len(s.Choices)-1)
		}
		for i, c := range s.Choices {
			if strings.TrimSpace(c) == "" {
				return format.Errorf("%s.choices[%d] is empty", path, i)
			}
		}
	case Manipulate:
		switch {
		case s.Readout == "":
			return format.Errorf("%s.readout is missing: the lesson's readout the goal is about", path)
		case s.Above == nil && s.Below == nil && s.Warn == nil && s.Contains == "":
			return format.Errorf("%s: give the goal: above, below, warn or contains", path)
		case s.Above != nil && s.Below != nil && !(*s.Above < *s.Below):
			return format.Errorf("%s: above = %v and below = %v leave nothing between", path, *s.Above, *s.Below)
		case s.Example == "":
			return format.Errorf("%s.example is missing: a state of the lesson that meets the goal (the key)", path)
		}
	case FindTheBug:
		switch {
		case s.Mutant == "":
			return format.Errorf("%s.mutant is missing: the broken variant the student must find", path)
		case s.Pair == "":
			return format.Errorf("%s.pair is missing: a state of the audit lab on which the variant is caught (the key)", path)
		}
	}
	return nil
}

func kindList() string {
	out := make([]string, len(kinds))
	for i, k := range kinds {
		out[i] = string(k)
	}
	return strings.Join(out, ", ")
}

//go:embed builtin.json
var builtin []byte

// Builtin returns ULDP Lab's own pack.
// It is decoded once; each call returns a copy whose list of exercises
// the caller may change.
func Builtin() (*Pack, error) {
	builtinOnce.Do(func() {
		builtinPack, builtinErr = decode(builtin)
		if builtinPack != nil {
			builtinPack.builtin = true
		}
	})
	if builtinErr != nil {
		return nil, builtinErr
	}
	p := *builtinPack
	p.Exercises = slices.Clone(p.Exercises)
	return &p, nil
}

var (
	builtinOnce sync.Once
	builtinPack *Pack
	builtinErr  error
)

// Sheet is a pack as a student sees it before answering: the questions,
// hints and choices, and none of the keys or explanations. Front ends that
// grade elsewhere (the site asks the server) show a sheet, so the page
// never holds an answer the student has not earned.
type Sheet struct {
	Version   int        `json:"version"`
	Title     string     `json:"title"`
	Tries     int        `json:"tries"`
	Exercises []Question `json:"exercises"`
}

// Question is one exercise on a Sheet.
type Question struct {
	ID       string   `json:"id"`
	Lesson   string   `json:"lesson"`
	Kind     Kind     `json:"kind"`
	State    string   `json:"state"`
	Question string   `json:"question"`
	Hints    []string `json:"hints,omitempty"`
	// Choices are a Choice exercise's choices.
	Choices []string `json:"choices,omitempty"`
	// Tolerance says how close a Numeric or Predict answer must come
	// ("within 1%").
	Tolerance string `json:"tolerance,omitempty"`
	// Goal is what a Manipulate answer's state must show ("user-scale
	// below 0.01").
	Goal string `json:"goal,omitempty"`
	// Varies says that the question's numbers are the student's own
	// (Pack.For): they depend on the student's name.
	Varies bool `json:"varies,omitempty"`
}

// Sheet returns student's sheet of the pack (For), without its keys.
func (p *Pack) Sheet(student string) Sheet {
	s := Sheet{Version: p.Version, Title: p.Title, Tries: p.TriesEach()}
	for i, e := range p.For(student).Exercises {
		q := Question{ID: e.ID, Lesson: e.Lesson, Kind: e.Kind, State: e.State, Question: e.Question, Hints: e.Hints, Varies: len(p.Exercises[i].Vary) > 0}
		switch e.Kind {
		case Choice:
			q.Choices = e.Answer.Choices
		case Numeric, Predict:
			q.Tolerance = e.Answer.tolerance()
		case Manipulate:
			q.Goal = e.Answer.goal()
		}
		s.Exercises = append(s.Exercises, q)
	}
	return s
}

// IsBuiltin reports whether p is ULDP Lab's own pack (Builtin).
func (p *Pack) IsBuiltin() bool { return p.builtin }

// Index is the place of the exercise id in p, or -1.
func (p *Pack) Index(id string) int {
	return slices.IndexFunc(p.Exercises, func(e Exercise) bool { return e.ID == id })
}

// TriesEach is how many answers each exercise takes: Tries, at least 1.
func (p *Pack) TriesEach() int { return max(1, p.Tries) }

// tolerance says in words how close an answer must come.
func (s Spec) tolerance() string {
	switch {
	case s.Tolerance == 0:
		return "exactly"
	case s.Relative:
		return "within " + num(100*s.Tolerance) + "%"
	}
	return "within ±" + num(s.Tolerance)
}
