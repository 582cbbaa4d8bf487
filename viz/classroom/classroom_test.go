package classroom

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/uldplab/uldp/core/exercise"
)

// wrongAnswer is an answer to e that must grade as wrong: a number off by
// well over the tolerance, the next choice, the exercise's own starting
// state (which must not meet the goal yet), another of the lab's broken
// variants.
func wrongAnswer(t *testing.T, e exercise.Exercise, key any) json.RawMessage {
	t.Helper()
	var v any
	switch e.Kind {
	case exercise.Numeric, exercise.Predict:
		k := key.(float64)
		off := 10*e.Answer.Tolerance + 1
		if e.Answer.Relative {
			off = math.Abs(k)*10*e.Answer.Tolerance + 1
		}
		v = k + off
	case exercise.Choice:
		v = (*e.Answer.Correct + 1) % len(e.Answer.Choices)
	case exercise.Manipulate:
		v = e.State
	case exercise.FindTheBug:
		other := slices.IndexFunc(Lab{}.Mutants(), func(m string) bool { return m != e.Answer.Mutant })
		v = exercise.BugAnswer{Mutant: Lab{}.Mutants()[other], State: e.Answer.Pair}
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// builtinKey is the built-in pack and its key, read from the lessons.
func builtinKey(t *testing.T) (*exercise.Pack, map[string]any) {
	t.Helper()
	p, err := exercise.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	p = p.For("") // a student with no name has numbers of their own too
	key, err := p.Key(Lab{})
	if err != nil {
		t.Fatal(err)
	}
	return p, key
}

// Every built-in exercise grades as right with the instructor's key (read
// from the lessons themselves) and as wrong with a wrong answer, on real
// lessons; the pack covers every kind and names only real lessons.
func TestBuiltinPackGradesRightAndWrong(t *testing.T) {
	p, key := builtinKey(t)
	right := exercise.Answers{}
	for id, v := range key {
		b, _ := json.Marshal(v)
		right[id] = b
	}
	r, err := p.Grade(right, Lab{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Score != r.Total || r.Total != len(p.Exercises) {
		t.Errorf("the key scores %d of %d", r.Score, r.Total)
		for _, res := range r.Results {
			if !res.Correct {
				t.Errorf("  %s: %s", res.ID, res.Feedback)
			}
		}
	}
	kinds := map[exercise.Kind]bool{}
	for _, e := range p.Exercises {
		kinds[e.Kind] = true
		if !slices.Contains(Lessons(), e.Lesson) {
			t.Errorf("%s: no lesson %q", e.ID, e.Lesson)
		}
		r, err := p.Grade(exercise.Answers{e.ID: wrongAnswer(t, e, key[e.ID])}, Lab{})
		if err != nil {
			t.Errorf("%s: %v", e.ID, err)
			continue
		}
		for _, res := range r.Results {
			if res.ID == e.ID && (res.Correct || !strings.Contains(res.Feedback, "Not quite")) {
				t.Errorf("%s: a wrong answer graded %+v", e.ID, res)
			}
		}
	}
	// A variant the lab does not have is refused with the ones it has, not
	// graded as a wrong guess.
	for _, e := range p.Exercises {
		if e.Kind != exercise.FindTheBug {
			continue
		}
		_, err := p.Grade(exercise.Answers{e.ID: json.RawMessage(`{"mutant": "no-such-variant", "state": "` + e.Answer.Pair + `"}`)}, Lab{})
		if err == nil || !strings.Contains(err.Error(), `no broken variant "no-such-variant"`) || !strings.Contains(err.Error(), e.Answer.Mutant) {
			t.Errorf("%s: an unknown variant: %v", e.ID, err)
		}
	}
	if len(kinds) != 5 {
		t.Errorf("the pack has %d kinds of exercise, want all 5", len(kinds))
	}
	// The classroom issue's floor: at least 30, and 3 for every lesson.
	per := map[string]int{}
	for _, e := range p.Exercises {
		per[e.Lesson]++
	}
	for _, l := range Lessons() {
		if per[l] < 3 {
			t.Errorf("lesson %s has %d exercises, want at least 3", l, per[l])
		}
	}
	if len(p.Exercises) < 30 {
		t.Errorf("%d exercises, want at least 30", len(p.Exercises))
	}
}

// A state the student reached by dragging counts through its data: the
// lesson's dataset CSV replaces the preset's users.
func TestManipulationWithData(t *testing.T) {
	rs, err := Lab{}.Readouts("outlier-removal", "preset=outliers&n=30&tau=0.5&eps=8&delta=0.1&mode=paper&seed=2", farApart(30), true)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if r.Name == "outcome" && (!r.Warn || !strings.Contains(r.Text, "gate failed")) {
			t.Errorf("30 users 10 apart: outcome %+v, want the gate to fail", r)
		}
	}
	if _, err := (Lab{}).Readouts("outlier-removal", "n=30", farApart(7), true); err == nil || !strings.Contains(err.Error(), "does not fit") {
		t.Errorf("7 users into a lesson of 30: %v", err)
	}
	if _, err := (Lab{}).Readouts("no-lesson", "", "", false); err == nil || !strings.Contains(err.Error(), "the lessons are user-level") {
		t.Errorf("an unknown lesson: %v", err)
	}
}

// farApart is n users, one item each in 2-D, 10 apart on a line.
func farApart(n int) string {
	var b strings.Builder
	b.WriteString("user,x1,x2\n")
	for i := range n {
		b.WriteString(strings.Join([]string{itoa(i + 1), itoa(10 * i), "0"}, ",") + "\n")
	}
	return b.String()
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// The audit lab's second part answers too: a find-the-bug pair may be one
// of Lowy, Liu & Asi's.
func TestCatchesInTheLabsSecondPart(t *testing.T) {
	const state = "mech=outlier-iterate-removal&pair=far-member"
	caught, why, err := Lab{}.Catches(state, "keep-all")
	if err != nil || !caught || !strings.Contains(why, "exceeds") {
		t.Errorf("keep-all on far-member: %v %q %v", caught, why, err)
	}
	// The verdict is kept, and a kept one is the same.
	if !verdicts.has(view{lesson: "audit", state: state, mutant: "keep-all"}) {
		t.Error("the verdict was not kept")
	}
	if again, why2, err := (Lab{}).Catches(state, "keep-all"); again != caught || why2 != why || err != nil {
		t.Errorf("kept verdict %v %q %v", again, why2, err)
	}
	if c, _, err := (Lab{}).Catches(state, "no-threshold-noise"); c || err == nil {
		t.Errorf("another mutant got the kept verdict: %v %v", c, err)
	}
}

// A pack file is validated against what the lessons show: a state a lesson
// does not take, a readout it does not show, a mutant the audit lab does
// not have, a pair it does not open are refused with their place.
func TestValidateRefusesWhatTheLessonsDoNot(t *testing.T) {
	const head = `{"version": 1, "title": "t", "exercises": [`
	for _, c := range []struct{ ex, want string }{
		{`{"id": "a", "lesson": "calibration", "kind": "numeric", "state": "%%%&&&==", "question": "q", "explanation": "e", "answer": {"value": 1}}`, "exercises[0] (a).state"},
		{`{"id": "a", "lesson": "calibration", "kind": "numeric", "state": "eps=1", "question": "q", "explanation": "e", "answer": {"readout": "bogus"}}`, `exercises[0] (a).answer.readout: the lesson shows no readout "bogus"`},
		{`{"id": "a", "lesson": "audit", "kind": "find-the-bug", "question": "q", "explanation": "e", "answer": {"mutant": "bogus", "pair": "mech=orme&pair=far-user"}}`, `answer.mutant: the audit lab has no broken variant "bogus"`},
		{`{"id": "a", "lesson": "audit", "kind": "find-the-bug", "question": "q", "explanation": "e", "answer": {"mutant": "keep-all", "pair": "mech=bogus"}}`, "exercises[0] (a).answer.pair"},
		{`{"id": "a", "lesson": "calibration", "kind": "numeric", "state": "eps=1", "question": "q", "explanation": "e", "answer": {"readout": "ratio", "at": "eps=-3"}}`, "exercises[0] (a).answer.at: "},
		{`{"id": "a", "lesson": "outlier-removal", "kind": "manipulate", "question": "q", "explanation": "e", "answer": {"readout": "bogus", "warn": true, "example": "tau=1"}}`, `answer.readout: the lesson shows no readout "bogus"`},
	} {
		p, err := exercise.Decode(strings.NewReader(head + c.ex + `]}`))
		if err == nil {
			err = Validate(p)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.ex, err, c.want)
		}
	}
	p, err := exercise.Decode(strings.NewReader(head + `{"id": "a", "lesson": "calibration", "kind": "numeric", "state": "eps=1", "question": "q", "explanation": "e", "answer": {"readout": "ratio"}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := Validate(p); err != nil {
		t.Errorf("a good pack: %v", err)
	}
}

// A view's readouts with its own users are kept once read: Kept turns
// true, the kept readouts are those a fresh lesson shows, and a caller
// changing them changes nothing kept. With a student's users they are not
// kept.
func TestReadoutsAreKept(t *testing.T) {
	const lesson, state = "calibration", "eps=0.7&delta=1e-6"
	lab := Lab{}
	if lab.Kept(lesson, state, false) {
		t.Fatal("kept before it was read")
	}
	first, err := lab.Readouts(lesson, state, "", false)
	if err != nil || len(first) == 0 {
		t.Fatal(first, err)
	}
	if !lab.Kept(lesson, state, false) || lab.Kept(lesson, state, true) {
		t.Errorf("kept: %v at the start, %v at the end (want true, false)", lab.Kept(lesson, state, false), lab.Kept(lesson, state, true))
	}
	fresh, err := readouts(lesson, state, "", false)
	if err != nil || !reflect.DeepEqual(first, fresh) {
		t.Errorf("kept %v, fresh %v (%v)", first, fresh, err)
	}
	first[0].Value = math.NaN()
	if again, _ := lab.Readouts(lesson, state, "", false); !reflect.DeepEqual(again, fresh) {
		t.Error("changing the returned readouts changed the kept ones")
	}
	const other = "eps=0.9&delta=1e-6"
	if _, err := lab.Readouts(lesson, other, "user,x1\n1,0\n", false); err != nil || lab.Kept(lesson, other, false) {
		t.Errorf("readouts with a student's users were kept as the state's own (%v)", err)
	}
}

// An error is kept too, and a full cache forgets to make room.
func TestKeptIsBounded(t *testing.T) {
	k := newKept[[]exercise.Reading]()
	calls := 0
	fail := func() ([]exercise.Reading, error) { calls++; return nil, errors.New("refused") }
	for range 2 {
		if _, err := k.get(view{lesson: "x"}, fail); err == nil {
			t.Fatal("the error was lost")
		}
	}
	if calls != 1 {
		t.Errorf("computed %d times", calls)
	}
	for i := range maxKept + 10 {
		_, _ = k.get(view{state: strconv.Itoa(i)}, func() ([]exercise.Reading, error) { return nil, nil })
	}
	if len(k.m) > maxKept {
		t.Errorf("%d views kept, at most %d allowed", len(k.m), maxKept)
	}
}

// The find-the-bug exercises of the built-in pack give evidence: the
// hidden variant keeps its promise on the pair the question names, and
// (for AboveThreshold) the other variant would have been caught there.
func TestFindTheBugEvidence(t *testing.T) {
	for _, c := range []struct {
		state, mutant string
		caught        bool
	}{
		{"mech=orme&pair=two-crowds", "keep-all", false},
		{"mech=deloutputpert&pair=three-vs-four-outliers", "no-stability", false},
		{"mech=abovethreshold&pair=ones-vs-zeros", "half-query-noise", false},
		{"mech=abovethreshold&pair=ones-vs-zeros", "no-threshold-noise", true},
		{"mech=abovethreshold&pair=opposite-moves", "no-threshold-noise", false},
	} {
		caught, why, err := Lab{}.Catches(c.state, c.mutant)
		if err != nil || caught != c.caught {
			t.Errorf("%s on %s: caught %v (%s, %v), the question says %v", c.mutant, c.state, caught, why, err, c.caught)
		}
	}
}

// The built-in pack passes the checks a teacher's pack file does, its
// varied settings at both ends of their ranges.
func TestBuiltinPackValidates(t *testing.T) {
	p, err := exercise.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	if err := Validate(p); err != nil {
		t.Error(err)
	}
}
