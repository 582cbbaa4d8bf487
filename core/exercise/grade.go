package exercise

import (
	"encoding/json"
	"errors"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/internal/strictjson"
)

// Lab runs the lessons for the grader: the lessons' own engines, so that a
// key is what the lesson shows and a student's state is judged by the code
// that drew it.
type Lab interface {
	// Readouts are lesson's readouts at state, with its users replaced by
	// data (the lesson's dataset as CSV; empty: the state's own), at the
	// run's end when end is set.
	Readouts(lesson, state, data string, end bool) ([]Reading, error)
	// Catches reports whether the audit lab at state (a mechanism and a
	// neighbouring pair) catches the broken variant mutant, and why.
	Catches(state, mutant string) (bool, string, error)
	// Mutants are the broken variants the audit lab offers: a find-the-bug
	// answer naming another is refused, not graded wrong.
	Mutants() []string
}

// Reading is one readout of a lesson.
type Reading struct {
	Name  string
	Value float64
	Text  string
	Warn  bool
}

// reading finds the readout called name.
func reading(lab Lab, lesson, state, data, name string, end bool) (Reading, error) {
	rs, err := lab.Readouts(lesson, state, data, end)
	if err != nil {
		return Reading{}, err
	}
	var names []string
	for _, r := range rs {
		if r.Name == name {
			return r, nil
		}
		names = append(names, r.Name)
	}
	return Reading{}, notShown{format.Sprintf("lesson %s shows no readout %q there (it shows %s)", lesson, name, strings.Join(names, ", "))}
}

// notShown is a readout the lesson does not show at a state: for a
// manipulation, a goal not met (an outcome shows only once it happens).
type notShown struct{ msg string }

func (e notShown) Error() string { return e.msg }

// Result is one graded answer.
type Result struct {
	ID       string `json:"id"`
	Correct  bool   `json:"correct"`
	Feedback string `json:"feedback"`
}

// Report is a set of graded answers.
type Report struct {
	Score   int      `json:"score"`
	Total   int      `json:"total"`
	Results []Result `json:"results"`
}

// Answers are a student's answers by exercise id: a number (numeric,
// predict), a choice's index or text (choice), a state or {"state": …,
// "data": …} (manipulate: the lesson's link state, and its dataset as CSV
// when the student dragged users, which a link does not hold), or
// {"mutant": …, "state": …} (find-the-bug).
type Answers map[string]json.RawMessage

// StateAnswer answers a manipulate exercise.
type StateAnswer struct {
	State string `json:"state"`
	Data  string `json:"data,omitempty"`
}

// BugAnswer answers a find-the-bug exercise.
type BugAnswer struct {
	Mutant string `json:"mutant"`
	State  string `json:"state"`
}

// Handin is a student's answers file: what the site and the desktop app
// save and let the student download, and what `uldp grade` reads. Pack
// (the pack's title) and Student are for the teacher; answers are graded
// afresh, so a hand-in carries no score to trust.
//
//	{"pack": "ULDP Lab", "student": "Ada", "answers": {"gauss-sigma": 4.84}}
type Handin struct {
	Pack    string  `json:"pack,omitempty"`
	Student string  `json:"student,omitempty"`
	Answers Answers `json:"answers"`
}

// DecodeHandin reads a hand-in strictly (unknown fields are errors).
func DecodeHandin(r io.Reader) (*Handin, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxBytes+1))
	if err != nil {
		return nil, format.Errorf("reading the answers: %v", err)
	}
	if len(b) > MaxBytes {
		return nil, format.Errorf("the answers are larger than %d MiB", MaxBytes>>20)
	}
	if err := strictjson.Document(b, "answers file"); err != nil {
		return nil, err
	}
	top, err := strictjson.Object(b, "answers file", []string{"pack", "student", "answers"})
	if err != nil {
		return nil, err
	}
	h := &Handin{}
	if err := strictjson.Field(top, "pack", "pack", &h.Pack, false); err != nil {
		return nil, err
	}
	if err := strictjson.Field(top, "student", "student", &h.Student, false); err != nil {
		return nil, err
	}
	if err := CheckStudent(h.Student); err != nil {
		return nil, err
	}
	if err := strictjson.Field(top, "answers", "answers", &h.Answers, true); err != nil {
		return nil, err
	}
	return h, nil
}

// CheckText refuses a document holding answers (a request to a grading
// server, say) that is not UTF-8 or that gives a key twice, as the pack
// and hand-in readers do; where names it in the message.
func CheckText(b []byte, where string) error { return strictjson.Document(b, where) }

// For checks that the hand-in answers p (when it names its pack at all,
// by its title or, for ULDP Lab's own, as "builtin").
func (h *Handin) For(p *Pack) error {
	if h.Pack != "" && h.Pack != p.Title && !(h.Pack == "builtin" && p.builtin) {
		return format.Errorf("pack: these answers are for the pack “%s”, not “%s”; grade them with that pack", h.Pack, p.Title)
	}
	return nil
}

// Grade grades answers against the pack; an exercise without an answer
// counts as wrong and says so. An answer to no exercise of the pack, or of
// the wrong shape, is an error naming it.
func (p *Pack) Grade(answers Answers, lab Lab) (Report, error) {
	if err := p.personal(); err != nil {
		return Report{}, err
	}
	r := Report{Total: len(p.Exercises)}
	ids := map[string]bool{}
	for _, e := range p.Exercises {
		ids[e.ID] = true
	}
	for id := range answers {
		if !ids[id] {
			return Report{}, format.Errorf("answers.%s: the pack has no exercise %q", id, id)
		}
	}
	for _, e := range p.Exercises {
		raw, ok := answers[e.ID]
		res := Result{ID: e.ID}
		if !ok {
			res.Feedback = "not answered. " + e.Explanation
		} else {
			var err error
			if res, err = e.Grade(raw, lab); err != nil {
				return Report{}, err
			}
		}
		if res.Correct {
			r.Score++
		}
		r.Results = append(r.Results, res)
	}
	return r, nil
}

// Grade grades one answer (its JSON: a number, a choice's index or text,
// a state, or a variant and a pair, by kind). An answer of the wrong shape
// is an error naming it.
func (e Exercise) Grade(raw json.RawMessage, lab Lab) (Result, error) {
	res := Result{ID: e.ID}
	path := "answers." + e.ID
	s := e.Answer
	switch e.Kind {
	case Numeric, Predict:
		var x float64
		if err := json.Unmarshal(raw, &x); err != nil {
			return res, format.Errorf("%s: expected a number", path)
		}
		key, err := e.key(lab)
		if err != nil {
			return res, err
		}
		tol := s.Tolerance
		if s.Relative {
			tol *= math.Abs(key)
		}
		res.Correct = math.Abs(x-key) <= tol
		if res.Correct {
			res.Feedback = format.Sprintf("Right: %s (the lesson shows %s). %s", num(x), num(key), e.Explanation)
		} else {
			within := "only that value counts"
			if tol > 0 {
				within = "answers within " + num(tol) + " of it count"
			}
			res.Feedback = format.Sprintf("Not quite: you gave %s; the lesson shows %s, and %s. %s", num(x), num(key), within, e.Explanation)
		}
	case Choice:
		i, err := s.choice(raw, path)
		if err != nil {
			return res, err
		}
		res.Correct = i == *s.Correct
		if res.Correct {
			res.Feedback = format.Sprintf("Right: “%s”. %s", s.Choices[i], e.Explanation)
		} else {
			res.Feedback = format.Sprintf("Not quite: you chose “%s”; the answer is “%s”. %s", s.Choices[i], s.Choices[*s.Correct], e.Explanation)
		}
	case Manipulate:
		var a StateAnswer
		if json.Unmarshal(raw, &a.State) != nil {
			if err := strictjson.Decode(raw, &a); err != nil {
				return res, format.Errorf("%s: expected the lesson's state (a string) or {\"state\": …, \"data\": …}: %v", path, err)
			}
		}
		r, err := reading(lab, e.Lesson, a.State, a.Data, s.Readout, true)
		var absent notShown
		switch {
		case errors.As(err, &absent):
			res.Feedback = format.Sprintf("%s: on your state the lesson shows no %s at the run's end; the goal: %s. %s", verdict(false), s.Readout, s.goal(), e.Explanation)
			return res, nil
		case err != nil:
			return res, format.Errorf("%s: %v", path, err)
		}
		res.Correct = s.meets(r)
		res.Feedback = format.Sprintf("%s: on your state the lesson's %s reads %s; the goal: %s. %s", verdict(res.Correct), r.Name, shown(r), s.goal(), e.Explanation)
	case FindTheBug:
		var b BugAnswer
		if err := strictjson.Decode(raw, &b); err != nil {
			return res, format.Errorf("%s: expected {\"mutant\": …, \"state\": …}: %v", path, err)
		}
		if known := lab.Mutants(); !slices.Contains(known, b.Mutant) {
			return res, format.Errorf("%s.mutant: the audit lab has no broken variant %s; its variants are %s", path, dataset.Excerpt(b.Mutant), strings.Join(known, ", "))
		}
		if b.Mutant != s.Mutant {
			res.Feedback = format.Sprintf("%s: the broken variant is not “%s”. %s", verdict(false), b.Mutant, e.Explanation)
			return res, nil
		}
		caught, why, err := lab.Catches(b.State, b.Mutant)
		if err != nil {
			return res, format.Errorf("%s.state: %v", path, err)
		}
		res.Correct = caught
		res.Feedback = format.Sprintf("%s: “%s” is the broken variant; on your pair %s. %s", verdict(caught), b.Mutant, why, e.Explanation)
	}
	return res, nil
}

// key is a numeric exercise's key: its value, or the lesson's readout.
func (e Exercise) key(lab Lab) (float64, error) {
	if e.Answer.Value != nil {
		return *e.Answer.Value, nil
	}
	r, err := reading(lab, e.Lesson, e.KeyState(), "", e.Answer.Readout, e.Kind == Predict)
	if err != nil {
		return 0, format.Errorf("exercise %s: reading the key: %v", e.ID, err)
	}
	return r.Value, nil
}

// KeyState is the state a numeric or predict key is read at: the answer's
// At, else the exercise's own.
func (e Exercise) KeyState() string {
	if e.Answer.At != "" {
		return e.Answer.At
	}
	return e.State
}

// Cache is a Lab that keeps the readouts it computed: Kept reports
// whether those of lesson at state (at the run's end when end), with the
// state's own users, are kept, so that reading them again is a lookup.
type Cache interface {
	Kept(lesson, state string, end bool) bool
}

// Costly reports whether grading answers with lab runs a lesson: a
// manipulation or a find-the-bug answer does (on the student's state), and
// so does a numeric or predict answer whose key lab has not kept. The
// others are a lookup and a comparison, which a server answers without
// waiting for a core.
func (p *Pack) Costly(answers Answers, lab Lab) bool {
	c, caches := lab.(Cache)
	for _, e := range p.Exercises {
		if _, ok := answers[e.ID]; !ok {
			continue
		}
		switch e.Kind {
		case Manipulate, FindTheBug:
			return true
		case Numeric, Predict:
			if e.Answer.Value == nil && !(caches && c.Kept(e.Lesson, e.KeyState(), e.Kind == Predict)) {
				return true
			}
		}
	}
	return false
}

// meets says whether a reading meets a manipulation's goal.
func (s Spec) meets(r Reading) bool {
	return (s.Above == nil || r.Value > *s.Above) && (s.Below == nil || r.Value < *s.Below) &&
		(s.Warn == nil || r.Warn == *s.Warn) && strings.Contains(r.Text, s.Contains)
}

// goal writes a manipulation's goal.
func (s Spec) goal() string {
	var parts []string
	if s.Above != nil {
		parts = append(parts, "above "+num(*s.Above))
	}
	if s.Below != nil {
		parts = append(parts, "below "+num(*s.Below))
	}
	if s.Warn != nil {
		parts = append(parts, map[bool]string{true: "flagged", false: "not flagged"}[*s.Warn])
	}
	if s.Contains != "" {
		parts = append(parts, "saying “"+s.Contains+"”")
	}
	return s.Readout + " " + strings.Join(parts, ", ")
}

// shown writes a reading as the lesson shows it.
func shown(r Reading) string {
	if r.Text != "" {
		return "“" + r.Text + "”"
	}
	return num(r.Value)
}

// choice reads a choice answer: an index from 0, or the choice's text.
func (s Spec) choice(raw json.RawMessage, path string) (int, error) {
	var text string
	if json.Unmarshal(raw, &text) == nil {
		for i, c := range s.Choices {
			if strings.EqualFold(strings.TrimSpace(text), c) {
				return i, nil
			}
		}
		return 0, format.Errorf("%s: %q is none of the choices", path, text)
	}
	var i int
	if err := json.Unmarshal(raw, &i); err != nil || i < 0 || i >= len(s.Choices) {
		return 0, format.Errorf("%s: expected a choice's index from 0 to %d, or its text", path, len(s.Choices)-1)
	}
	return i, nil
}

// Key is the instructor's key: an answer to every exercise that grades as
// right, in the shape Grade reads.
func (p *Pack) Key(lab Lab) (map[string]any, error) {
	if err := p.personal(); err != nil {
		return nil, err
	}
	out := map[string]any{}
	for _, e := range p.Exercises {
		switch e.Kind {
		case Numeric, Predict:
			k, err := e.key(lab)
			if err != nil {
				return nil, err
			}
			out[e.ID] = k
		case Choice:
			out[e.ID] = *e.Answer.Correct
		case Manipulate:
			out[e.ID] = e.Answer.Example
		case FindTheBug:
			out[e.ID] = BugAnswer{Mutant: e.Answer.Mutant, State: e.Answer.Pair}
		}
	}
	return out, nil
}

func verdict(right bool) string {
	if right {
		return "Right"
	}
	return "Not quite"
}

func num(x float64) string { return strconv.FormatFloat(x, 'g', 4, 64) }
