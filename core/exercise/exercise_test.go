package exercise

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// fakeLab answers from tables: readouts by lesson/name, goals met by one
// state, pairs that catch by state.
type fakeLab struct{}

func (fakeLab) Readouts(lesson, state, data string, end bool) ([]Reading, error) {
	switch {
	case lesson == "calibration" && !end:
		return []Reading{{Name: "sigma", Value: 4.8, Text: "4.8"}}, nil
	case lesson == "outlier-removal" && end:
		fails := state == "n=30&tau=0.01" || data == "user,x1\n1,0\n"
		out := Reading{Name: "outcome", Text: "every user kept"}
		if fails {
			out = Reading{Name: "outcome", Text: "the gate failed: output 0", Warn: true}
		}
		return []Reading{{Name: "kept", Value: 28}, out}, nil
	}
	return nil, errors.New("no such lesson")
}

func (fakeLab) Mutants() []string { return []string{"keep-all", "no-gate"} }

func (fakeLab) Catches(state, mutant string) (bool, string, error) {
	if state == "mech=orme&pair=far-user" && mutant == "keep-all" {
		return true, "the exact δ exceeds the claim", nil
	}
	return false, "the audit passes", nil
}

const pack = `{
  "version": 1,
  "title": "test",
  "exercises": [
    {"id": "sigma", "lesson": "calibration", "kind": "numeric", "state": "eps=1", "question": "σ?",
     "answer": {"readout": "sigma", "tolerance": 0.01, "relative": true}, "explanation": "σ = …"},
    {"id": "kept", "lesson": "outlier-removal", "kind": "predict", "question": "How many kept?",
     "answer": {"readout": "kept", "tolerance": 0}, "explanation": "the two far users go"},
    {"id": "which", "lesson": "outlier-removal", "kind": "choice", "question": "Which?",
     "answer": {"choices": ["the crowd", "the far users"], "correct": 1}, "explanation": "p = 0 below n/2"},
    {"id": "break-gate", "lesson": "outlier-removal", "kind": "manipulate", "question": "Make the gate fail.",
     "answer": {"readout": "outcome", "warn": true, "contains": "gate failed", "example": "n=30&tau=0.01"}, "explanation": "shrink τ"},
    {"id": "bug", "lesson": "audit", "kind": "find-the-bug", "state": "mech=orme", "question": "Which variant?",
     "answer": {"mutant": "keep-all", "pair": "mech=orme&pair=far-user"}, "explanation": "keep-all moves the mean"},
    {"id": "literal", "lesson": "calibration", "kind": "numeric", "question": "2 + 2?",
     "answer": {"value": 4, "tolerance": 0}, "explanation": "four"}
  ]
}`

func mustPack(t *testing.T) *Pack { t.Helper(); return mustDecode(t, pack) }

// mustDecode decodes a pack the test wrote.
func mustDecode(t *testing.T, text string) *Pack {
	t.Helper()
	p, err := Decode(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// The key grades as right, every exercise; a wrong answer of each kind
// grades as wrong and its feedback says what was expected.
func TestKeyIsRightAndWrongAnswersAreNot(t *testing.T) {
	p := mustPack(t)
	key, err := p.Key(fakeLab{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(map[string]any{"answers": key})
	h, err := DecodeHandin(strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	r, err := p.Grade(h.Answers, fakeLab{})
	if err != nil || r.Score != 6 || r.Total != 6 {
		t.Fatalf("the key scores %d of %d: %v %+v", r.Score, r.Total, err, r.Results)
	}
	wrong := Answers{
		"sigma":      json.RawMessage(`4.9`), // 2% off, tolerance 1%
		"kept":       json.RawMessage(`30`),
		"which":      json.RawMessage(`"the crowd"`),
		"break-gate": json.RawMessage(`"n=30"`),
		"bug":        json.RawMessage(`{"mutant": "no-gate", "state": "mech=orme&pair=far-user"}`),
		"literal":    json.RawMessage(`5`),
	}
	r, err = p.Grade(wrong, fakeLab{})
	if err != nil || r.Score != 0 {
		t.Fatalf("wrong answers score %d: %v %+v", r.Score, err, r.Results)
	}
	if f := r.Results[0].Feedback; !strings.Contains(f, "you gave 4.9") || !strings.Contains(f, "shows 4.8") || !strings.Contains(f, "answers within 0.048 of it count") || !strings.Contains(f, "σ = …") {
		t.Errorf("numeric feedback %q", f)
	}
	if f := r.Results[1].Feedback; !strings.Contains(f, "only that value counts") || strings.Contains(f, "within 0") {
		t.Errorf("feedback with no tolerance %q", f)
	}
	if f := r.Results[2].Feedback; !strings.Contains(f, "the answer is “the far users”") {
		t.Errorf("choice feedback %q", f)
	}
	// A state with data: the dragged users count.
	r, _ = p.Grade(Answers{"break-gate": json.RawMessage(`{"state": "n=1", "data": "user,x1\n1,0\n"}`)}, fakeLab{})
	if !r.Results[3].Correct {
		t.Errorf("a manipulation with data: %+v", r.Results[3])
	}
	// The right mutant on a pair that does not catch it is not enough.
	r, _ = p.Grade(Answers{"bug": json.RawMessage(`{"mutant": "keep-all", "state": "mech=orme&pair=two-crowds"}`)}, fakeLab{})
	if r.Results[4].Correct || !strings.Contains(r.Results[4].Feedback, "the audit passes") || !strings.Contains(r.Results[0].Feedback, "not answered") {
		t.Errorf("bug on a pair that does not catch it: %+v", r.Results)
	}
}

// Malformed packs and answers are errors naming their place.
func TestDecodeErrorsSayWhere(t *testing.T) {
	ex := func(s string) string {
		return `{"version": 1, "title": "t", "exercises": [` + s + `]}`
	}
	good := `{"id": "a", "lesson": "calibration", "kind": "numeric", "question": "q", "explanation": "e", "answer": {"value": 1}}`
	for _, c := range []struct{ in, want string }{
		{`{"version": 2, "title": "t", "exercises": []}`, "version = 2"},
		{`{"version": 1, "title": "t", "exercises": []}`, "exercises: the pack has none"},
		{`{"version": 1, "title": "t", "exercise": []}`, `did you mean "exercises"`},
		{`{"version": 1, "title": "t", "exercises": [`, "line 1"},
		{ex(good + "," + good), `exercises[1].id: "a" is also exercises[0]'s id`},
		{ex(strings.Replace(good, `"a"`, `"A b"`, 1)), "exercises[0].id"},
		{ex(strings.Replace(good, `"numeric"`, `"essay"`, 1)), `exercises[0] (a).kind = "essay"`},
		{ex(strings.Replace(good, `"value": 1`, `"value": 1, "tolerence": 0.1`, 1)), `did you mean "tolerance"`},
		{ex(strings.Replace(good, `"value": 1`, `"value": 1, "readout": "sigma"`, 1)), "exactly one of value"},
		{ex(strings.Replace(good, `"value": 1`, `"value": 1, "tolerance": -1`, 1)), "tolerance = -1"},
		{ex(strings.Replace(good, `"value": 1`, `"value": 1, "at": "eps=2"`, 1)), "answer.at: the state to read the key's readout at; give a readout"},
		{ex(strings.Replace(good, `"value": 1`, `"readout": "sigma", "at": "scene=calibration&eps=2"`, 1)), "answer.at: \"scene=calibration&eps=2\": give the lesson's state without the scene"},
		{ex(strings.Replace(good, `"value": 1`, `"readout": "sigma", "at": "eps=`+strings.Repeat("1", 5000)+`"`, 1)), "answer.at is 5004 bytes"},
		{ex(strings.Replace(good, `"value": 1`, `"value": "one"`, 1)), "exercises[0] (a).answer.value: expected"},
		{ex(strings.Replace(good, `"question": "q"`, `"question": " "`, 1)), "question is empty"},
		{ex(strings.Replace(good, `"kind": "numeric"`, `"kind": "numeric", "state": "scene=calibration&eps=1"`, 1)), "without the scene"},
		{ex(`{"id": "c", "lesson": "l", "kind": "choice", "question": "q", "explanation": "e", "answer": {"choices": ["x", "y"], "correct": 2}}`), "correct = 2"},
		{ex(`{"id": "c", "lesson": "l", "kind": "choice", "question": "q", "explanation": "e", "answer": {"choices": ["x", "y"]}}`), "correct is missing"},
		{ex(`{"id": "c", "lesson": "l", "kind": "manipulate", "question": "q", "explanation": "e", "answer": {"readout": "g", "warn": true}}`), "example is missing"},
		{ex(`{"id": "c", "lesson": "l", "kind": "manipulate", "question": "q", "explanation": "e", "answer": {"readout": "g", "example": "x"}}`), "give the goal"},
		{ex(`{"id": "c", "lesson": "l", "kind": "manipulate", "question": "q", "explanation": "e", "answer": {"readout": "g", "above": 2, "below": 1, "example": "x"}}`), "leave nothing between"},
		{ex(`{"id": "c", "lesson": "l", "kind": "find-the-bug", "question": "q", "explanation": "e", "answer": {"mutant": "m"}}`), "pair is missing"},
		// Hostile packs: an id or a state far longer than any question or
		// lesson needs, text that is not UTF-8, a field given twice.
		{ex(strings.Replace(good, `"a"`, `"`+strings.Repeat("a", 100_000)+`"`, 1)), "write up to 64"},
		{ex(strings.Replace(good, `"kind": "numeric"`, `"kind": "numeric", "state": "eps=`+strings.Repeat("1", 500_000)+`"`, 1)), "state is 500004 bytes"},
		{strings.Replace(ex(good), `"title": "t"`, "\"title\": \"\xff\"", 1), "not UTF-8 text"},
		{ex(strings.Replace(good, `"value": 1`, `"value": 1, "value": 2`, 1)), `exercises[0].answer: "value" is given twice`},
	} {
		_, err := Decode(strings.NewReader(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s\n  error %v, want it to say %q", c.in, err, c.want)
		}
	}
	p := mustPack(t)
	for _, c := range []struct{ in, want string }{
		{`{"answer": {}}`, `did you mean "answers"`},
		{`{"answers": {"nope": 1}}`, "answers.nope: the pack has no exercise"},
		{`{"answers": {"sigma": "five"}}`, "answers.sigma: expected a number"},
		{`{"answers": {"which": 7}}`, "answers.which: expected a choice's index from 0 to 1"},
		{`{"answers": {"which": "neither"}}`, `"neither" is none of the choices`},
		{`{"answers": {"bug": {"mutant": "keep-all", "pair": "x"}}}`, "answers.bug: expected"},
		{`{"student": 7, "answers": {}}`, "student"},
		{`{"pack": "Another pack", "answers": {}}`, "for the pack “Another pack”"},
		{`{"pack": "builtin", "answers": {}}`, "for the pack “builtin”"}, // only ULDP Lab's own pack is "builtin"
		{`{"answers": {"sigma": 4, "sigma": 5}}`, `answers file.answers: "sigma" is given twice`},
	} {
		h, err := DecodeHandin(strings.NewReader(c.in))
		if err == nil {
			err = h.For(p)
		}
		if err == nil {
			_, err = p.Grade(h.Answers, fakeLab{})
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to say %q", c.in, err, c.want)
		}
	}
}

// Decode never panics and, when it accepts a pack, every exercise is valid
// for its kind.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(pack))
	f.Add([]byte(`{"version": 1, "title": "t", "exercises": [{"id": "a"}]}`))
	f.Add([]byte(`{"version":1,"title":"","exercises":[{"id":"x","lesson":"l","kind":"choice","question":"q","explanation":"e","answer":{"choices":["a","b"],"correct":0}}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := Decode(strings.NewReader(string(b)))
		if err != nil {
			return
		}
		for _, e := range p.Exercises {
			if err := e.Answer.check(e.Kind, e.ID); err != nil {
				t.Fatalf("accepted an invalid exercise %s: %v", e.ID, err)
			}
			if e.Kind == Choice && (*e.Answer.Correct < 0 || *e.Answer.Correct >= len(e.Answer.Choices)) {
				t.Fatalf("accepted correct = %d of %d choices", *e.Answer.Correct, len(e.Answer.Choices))
			}
		}
	})
}

// A sheet shows the questions, never a key or an explanation.
func TestSheetHoldsNoKeys(t *testing.T) {
	p := mustPack(t)
	b, err := json.Marshal(p.Sheet(""))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range p.Exercises {
		for _, secret := range []string{e.Explanation, e.Answer.Example, e.Answer.Pair, e.Answer.Mutant} {
			if secret != "" && strings.Contains(string(b), secret) && !strings.Contains(e.Question, secret) {
				t.Errorf("%s: the sheet shows %q", e.ID, secret)
			}
		}
	}
	for _, bad := range []string{`"correct"`, `"value"`, `"example"`, `"explanation"`, `"mutant"`, `"pair"`} {
		if strings.Contains(string(b), bad) {
			t.Errorf("the sheet has a field %s: %s", bad, b)
		}
	}
	q := p.Sheet("").Exercises
	if q[0].Tolerance != "within 1%" || len(q[2].Choices) != 2 || q[3].Goal == "" {
		t.Errorf("sheet questions %+v", q)
	}
}

// A hand-in may name ULDP Lab's own pack by its title or as "builtin", the
// name the command line and the API give it.
func TestHandinNamesTheBuiltinPack(t *testing.T) {
	p, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"builtin", p.Title} {
		h, err := DecodeHandin(strings.NewReader(`{"pack": "` + name + `", "answers": {}}`))
		if err != nil || h.For(p) != nil {
			t.Errorf("pack %q: %v, %v", name, err, h.For(p))
		}
	}
}

// cachingLab is fakeLab keeping the calibration lesson's readouts.
type cachingLab struct{ fakeLab }

func (cachingLab) Kept(lesson, state string, end bool) bool {
	return lesson == "calibration" && state == "eps=1" && !end
}

// Costly tells lookups from runs: a choice, a literal key and a key the
// lab keeps are lookups; a manipulation, a find-the-bug answer and a key
// not kept (or a lab that keeps nothing) run a lesson. Exercises not
// answered do not count.
func TestCostly(t *testing.T) {
	p := mustPack(t)
	n := json.RawMessage(`1`)
	for _, c := range []struct {
		answers Answers
		lab     Lab
		want    bool
	}{
		{Answers{"which": n, "literal": n}, fakeLab{}, false},
		{Answers{"sigma": n}, fakeLab{}, true},
		{Answers{"sigma": n}, cachingLab{}, false},
		{Answers{"sigma": n, "kept": n}, cachingLab{}, true}, // kept is read at the run's end, not kept
		{Answers{"break-gate": n}, cachingLab{}, true},
		{Answers{"bug": n}, cachingLab{}, true},
		{Answers{}, fakeLab{}, false},
	} {
		if got := p.Costly(c.answers, c.lab); got != c.want {
			t.Errorf("Costly(%v, %T) = %v", c.answers, c.lab, got)
		}
	}
}

// A key read at another state than the exercise opens on: the lab is
// asked there, and Costly looks there.
func TestKeyReadAt(t *testing.T) {
	p, err := Decode(strings.NewReader(`{"version": 1, "title": "t", "exercises": [{"id": "s", "lesson": "calibration", "kind": "numeric",
	  "state": "eps=2", "question": "σ at ε = 1?", "answer": {"readout": "sigma", "at": "eps=1", "tolerance": 0.01, "relative": true}, "explanation": "."}]}`))
	if err != nil {
		t.Fatal(err)
	}
	lab := atLab{}
	r, err := p.Grade(Answers{"s": json.RawMessage(`4.8`)}, lab)
	if err != nil || !r.Results[0].Correct {
		t.Errorf("graded %+v (%v)", r, err)
	}
	if p.Costly(Answers{"s": json.RawMessage(`1`)}, lab) {
		t.Error("a key kept at its at-state counted as costly")
	}
}

// atLab shows σ = 4.8 at ε = 1 and 2.4 at ε = 2, and keeps ε = 1's.
type atLab struct{ fakeLab }

func (atLab) Readouts(lesson, state, data string, end bool) ([]Reading, error) {
	if state == "eps=1" {
		return []Reading{{Name: "sigma", Value: 4.8}}, nil
	}
	return []Reading{{Name: "sigma", Value: 2.4}}, nil
}

func (atLab) Kept(lesson, state string, end bool) bool { return state == "eps=1" }
