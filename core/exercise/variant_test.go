package exercise

import (
	"encoding/json"
	"math"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// varyPack has one exercise whose key is read at a student's own ε.
const varyPack = `{"version": 1, "title": "t", "exercises": [
  {"id": "s", "lesson": "calibration", "kind": "numeric", "state": "eps=2",
   "question": "σ at ε = {eps}?", "answer": {"readout": "sigma", "at": "eps=1&delta=1e-5", "tolerance": 0.001, "relative": true},
   "explanation": "σ ∝ 1/ε: at ε = {eps} it is …", "vary": {"eps": {"min": 0.5, "max": 4, "step": 0.5}}},
  {"id": "fixed", "lesson": "calibration", "kind": "numeric", "question": "2 + 2?", "answer": {"value": 4}, "explanation": "four"}]}`

// epsLab shows σ = 4.8/ε at any ε.
type epsLab struct{ fakeLab }

func (epsLab) Readouts(lesson, state, data string, end bool) ([]Reading, error) {
	q, _ := url.ParseQuery(state)
	eps, err := strconv.ParseFloat(q.Get("eps"), 64)
	if err != nil {
		return nil, err
	}
	return []Reading{{Name: "sigma", Value: 4.8 / eps}}, nil
}

func mustVary(t *testing.T) *Pack { t.Helper(); return mustDecode(t, varyPack) }

// Each student's ε is on the range's grid, the same every time, shown in
// the question and the explanation and set in the key's state; students
// get different values; the pack itself is left as written.
func TestVariantsPerStudent(t *testing.T) {
	p := mustVary(t)
	seen := map[string]bool{}
	for i := range 40 {
		student := "student " + strconv.Itoa(i)
		e := p.For(student).Exercises[0]
		again := p.For(student).Exercises[0]
		q, _ := url.ParseQuery(e.Answer.At)
		eps := q.Get("eps")
		x, err := strconv.ParseFloat(eps, 64)
		if err != nil || x < 0.5 || x > 4 || math.Mod(x, 0.5) != 0 || q.Get("delta") != "1e-05" && q.Get("delta") != "1e-5" {
			t.Fatalf("%s: key state %q", student, e.Answer.At)
		}
		if e.Question != "σ at ε = "+eps+"?" || !strings.Contains(e.Explanation, "at ε = "+eps+" it") || e.Answer.At != again.Answer.At || len(e.Vary) != 0 || e.State != "eps=2" {
			t.Errorf("%s: %+v", student, e)
		}
		seen[eps] = true
	}
	if len(seen) < 6 {
		t.Errorf("40 students share %d values of 8", len(seen))
	}
	if p.Exercises[0].Answer.At != "eps=1&delta=1e-5" || len(p.Exercises[0].Vary) != 1 || !strings.Contains(p.Exercises[0].Question, "{eps}") {
		t.Error("For changed the pack")
	}
	if s := p.Sheet("Ada").Exercises; !s[0].Varies || s[1].Varies || strings.Contains(s[0].Question, "{") {
		t.Errorf("sheet: %+v", s)
	}
}

// Two students' answers: each right against their own key and wrong
// against the other's; a pack that still varies is not graded at all.
func TestVariantsGradeAgainstTheirOwnKey(t *testing.T) {
	p := mustVary(t)
	ada, bob := p.For("Ada"), p.For("Bob")
	if ada.Exercises[0].Answer.At == bob.Exercises[0].Answer.At {
		t.Fatal("Ada and Bob share a variant: pick two students who do not")
	}
	key := func(q *Pack) json.RawMessage {
		k, err := q.Key(epsLab{})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(k["s"])
		return b
	}
	for _, c := range []struct {
		pack   *Pack
		answer json.RawMessage
		right  bool
	}{{ada, key(ada), true}, {bob, key(bob), true}, {ada, key(bob), false}, {bob, key(ada), false}} {
		r, err := c.pack.Grade(Answers{"s": c.answer}, epsLab{})
		if err != nil || r.Results[0].Correct != c.right {
			t.Errorf("%s graded %s: %+v %v", c.pack.Exercises[0].Answer.At, c.answer, r.Results, err)
		}
	}
	if _, err := p.Grade(Answers{"s": key(ada)}, epsLab{}); err == nil || !strings.Contains(err.Error(), "Pack.For(student)") {
		t.Errorf("a varying pack graded as is: %v", err)
	}
	if _, err := p.Key(epsLab{}); err == nil {
		t.Error("a varying pack solved as is")
	}
}

// The values are written as the step is: no float noise, no "-0".
func TestRangeValues(t *testing.T) {
	for _, c := range []struct {
		r    Range
		k    int
		want string
	}{
		{Range{0.5, 4, 0.5}, 2, "1.5"}, {Range{0.1, 0.9, 0.1}, 2, "0.3"}, {Range{20, 40, 1}, 5, "25"},
		{Range{-1, 1, 0.25}, 4, "0"}, {Range{0.01, 0.1, 0.01}, 6, "0.07"}, {Range{1e-6, 1e-5, 1e-6}, 2, "0.000003"},
		{Range{0.25, 2, 0.5}, 1, "0.75"}, // Min's digits count too
	} {
		if got := c.r.value(c.k); got != c.want {
			t.Errorf("%+v value %d = %q, want %q", c.r, c.k, got, c.want)
		}
	}
	if n := (Range{0.1, 0.9, 0.1}).count(); n != 9 {
		t.Errorf("0.1 to 0.9 by 0.1: %d values", n)
	}
}

// A vary block is checked where it is written.
func TestVaryRefusals(t *testing.T) {
	for _, c := range []struct{ from, to, want string }{
		{`"vary": {"eps": {"min": 0.5, "max": 4, "step": 0.5}}`, `"vary": {"n": {"min": 0.5, "max": 4, "step": 0.5}}`, "vary.n: the key's state (answer.at) has no setting n"},
		{`σ at ε = {eps}?`, `σ at ε?`, "write {eps} in it"},
		{`"step": 0.5`, `"step": 0`, "step above 0"},
		{`"step": 0.5`, `"stp": 0.5`, `unknown field "stp"`},
		{`"max": 4`, `"max": 0.5`, "2 to 1000 values"},
		{`"max": 4`, `"max": 4000`, "2 to 1000 values"},
		{`"vary": {"eps"`, `"vary": {"Eps"`, "lower-case"},
	} {
		in := strings.Replace(varyPack, c.from, c.to, 1)
		if _, err := Decode(strings.NewReader(in)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s → %s: %v, want %q", c.from, c.to, err, c.want)
		}
	}
	choice := `{"version": 1, "title": "t", "exercises": [{"id": "c", "lesson": "l", "kind": "choice", "question": "{eps}?", "explanation": "e",
	  "answer": {"choices": ["x", "y"], "correct": 0}, "vary": {"eps": {"min": 1, "max": 2, "step": 1}}}]}`
	if _, err := Decode(strings.NewReader(choice)); err == nil || !strings.Contains(err.Error(), "only a numeric or predict") {
		t.Errorf("a varying choice: %v", err)
	}
}

func TestCheckStudent(t *testing.T) {
	for name, ok := range map[string]bool{"": true, "Ada Lovelace": true, "Zoë Ødegård": true, strings.Repeat("a", 256): true,
		strings.Repeat("a", 257): false, "Ada\nLovelace": false, "\xff": false,
		"Bob\u200b": false, "\u202eboB": false, "\ufeffAda": false, "Ли Вэй 李伟": true, "محمد": true} {
		if err := CheckStudent(name); (err == nil) != ok {
			t.Errorf("CheckStudent(%q): %v", name, err)
		}
	}
}

// A student's variant names the values For gave them, and nothing for an
// exercise that varies nothing.
func TestVariantNamesTheOwnNumbers(t *testing.T) {
	p := mustVary(t)
	for i := range 20 {
		student := "student " + strconv.Itoa(i)
		q, _ := url.ParseQuery(p.For(student).Exercises[0].Answer.At)
		if got, want := p.Variant(p.Exercises[0], student), "eps="+q.Get("eps"); got != want {
			t.Errorf("%s: variant %q, want %q", student, got, want)
		}
		if got := p.Variant(p.Exercises[1], student); got != "" {
			t.Errorf("%s: a fixed exercise's variant %q", student, got)
		}
	}
}

// Tries are 1 (final once checked) unless the pack says, between 1 and
// MaxTries (null reads as absent, as for every field of a pack); the
// sheet says how many.
func TestTries(t *testing.T) {
	const tail = `"exercises": [{"id": "fixed", "lesson": "calibration", "kind": "numeric", "question": "2 + 2?", "answer": {"value": 4}, "explanation": "four"}]}`
	for _, c := range []struct {
		tries string
		want  int
	}{{"", 1}, {`"tries": null,`, 1}, {`"tries": 1,`, 1}, {`"tries": 3,`, 3}, {`"tries": 10,`, 10}} {
		p := mustDecode(t, `{"version": 1, "title": "t", `+c.tries+tail)
		if p.TriesEach() != c.want || p.Sheet("").Tries != c.want {
			t.Errorf("%s: %d tries, sheet %d, want %d", c.tries, p.TriesEach(), p.Sheet("").Tries, c.want)
		}
	}
	for _, tries := range []string{"-1", "0", "11", "1.5", `"3"`} {
		_, err := Decode(strings.NewReader(`{"version": 1, "title": "t", "tries": ` + tries + ", " + tail))
		if err == nil || !strings.Contains(err.Error(), "tries") {
			t.Errorf("tries %s: %v, want a refusal naming tries", tries, err)
		}
	}
}
