package exercise

import (
	"encoding/json"
	"github.com/uldplab/uldp/core/format"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/uldplab/uldp/core/internal/strictjson"
)

// Lab runs the lessons for the grader: the lessons' own engines, so that a
// key is what the lesson shows and a student's state is judged by the code
// that drew it.
type Lab interface {
	// Readout is the value of lesson's readout name at state, at the
	// run's end when end is set.
	Readout(lesson, state, name string, end bool) (float64, error)
	// Goal reports whether lesson at state meets goal, and why.
	Goal(lesson, goal, state string) (bool, string, error)
	// Catches reports whether the audit lab at state (a mechanism and a
	// neighbouring pair) catches the broken variant mutant, and why.
	Catches(state, mutant string) (bool, string, error)
}

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
// predict), a choice's index or text (choice), a state (manipulate), or
// {"mutant": …, "state": …} (find-the-bug).
type Answers map[string]json.RawMessage

// BugAnswer answers a find-the-bug exercise.
type BugAnswer struct {
	Mutant string `json:"mutant"`
	State  string `json:"state"`
}

// DecodeAnswers reads {"answers": {id: answer, …}}.
func DecodeAnswers(r io.Reader) (Answers, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxBytes+1))
	if err != nil {
		return nil, format.Errorf("reading the answers: %v", err)
	}
	if len(b) > MaxBytes {
		return nil, format.Errorf("the answers are larger than %d MiB", MaxBytes>>20)
	}
	top, err := strictjson.Object(b, "answers file", []string{"answers"})
	if err != nil {
		return nil, err
	}
	var a Answers
	if err := strictjson.Field(top, "answers", "answers", &a, true); err != nil {
		return nil, err
	}
	return a, nil
}

// Grade grades answers against the pack; an exercise without an answer
// counts as wrong and says so. An answer to no exercise of the pack, or of
// the wrong shape, is an error naming it.
func (p *Pack) Grade(answers Answers, lab Lab) (Report, error) {
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
			if res, err = e.grade(raw, lab); err != nil {
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

// grade grades one answer.
func (e Exercise) grade(raw json.RawMessage, lab Lab) (Result, error) {
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
		res.Feedback = format.Sprintf("%s: you gave %s; the lesson shows %s, and answers within %s of it count. %s",
			verdict(res.Correct), num(x), num(key), num(tol), e.Explanation)
	case Choice:
		i, err := s.choice(raw, path)
		if err != nil {
			return res, err
		}
		res.Correct = i == *s.Correct
		res.Feedback = format.Sprintf("%s: you chose “%s”; the answer is “%s”. %s", verdict(res.Correct), s.Choices[i], s.Choices[*s.Correct], e.Explanation)
	case Manipulate:
		var state string
		if err := json.Unmarshal(raw, &state); err != nil {
			return res, format.Errorf("%s: expected the lesson's state, a string", path)
		}
		met, why, err := lab.Goal(e.Lesson, s.Goal, state)
		if err != nil {
			return res, format.Errorf("%s: %v", path, err)
		}
		res.Correct = met
		res.Feedback = format.Sprintf("%s: %s. %s", verdict(met), why, e.Explanation)
	case FindTheBug:
		var b BugAnswer
		if err := strictjson.Decode(raw, &b); err != nil {
			return res, format.Errorf("%s: expected {\"mutant\": …, \"state\": …}: %v", path, err)
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
	v, err := lab.Readout(e.Lesson, e.State, e.Answer.Readout, e.Kind == Predict)
	if err != nil {
		return 0, format.Errorf("exercise %s: reading the key: %v", e.ID, err)
	}
	return v, nil
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
