package exercise

import (
	"encoding/json"
	"strings"
	"testing"
)

// onePack is a pack of one numeric exercise with the given id and state,
// padded with spaces to size bytes when size is larger.
func onePack(id, state string, size int) string {
	s := `{"version": 1, "title": "t", "exercises": [{"id": "` + id + `", "lesson": "calibration", "kind": "numeric", "state": "` + state +
		`", "question": "σ?", "answer": {"readout": "sigma", "tolerance": 0}, "explanation": "…"}]}`
	if size > len(s) {
		s += strings.Repeat(" ", size-len(s))
	}
	return s
}

// Every cap holds at its limit and refuses one byte more.
func TestCapsAtTheirLimits(t *testing.T) {
	for _, c := range []struct {
		name, pack string
		ok         bool
	}{
		{"pack of MaxBytes", onePack("a", "eps=1", MaxBytes), true},
		{"pack of MaxBytes+1", onePack("a", "eps=1", MaxBytes+1), false},
		{"id of MaxID", onePack(strings.Repeat("a", MaxID), "eps=1", 0), true},
		{"id of MaxID+1", onePack(strings.Repeat("a", MaxID+1), "eps=1", 0), false},
		{"state of MaxState", onePack("a", "eps="+strings.Repeat("1", MaxState-4), 0), true},
		{"state of MaxState+1", onePack("a", "eps="+strings.Repeat("1", MaxState-3), 0), false},
	} {
		if _, err := Decode(strings.NewReader(c.pack)); (err == nil) != c.ok {
			t.Errorf("%s: error %v, want accepted = %v", c.name, err, c.ok)
		}
	}
	answers := `{"answers": {"a": 1}}`
	for size, ok := range map[int]bool{MaxBytes: true, MaxBytes + 1: false} {
		h := answers + strings.Repeat(" ", size-len(answers))
		if _, err := DecodeHandin(strings.NewReader(h)); (err == nil) != ok {
			t.Errorf("answers of %d bytes: error %v, want accepted = %v", size, err, ok)
		}
	}
}

// A choice's key and a student's index both run from 0 to len − 1.
func TestChoiceIndicesAtTheirEnds(t *testing.T) {
	choices := `"choices": ["a", "b"]`
	for correct, want := range map[string]string{"1": "", "2": "correct = 2: an index from 0 to 1", "-1": "correct = -1: an index from 0 to 1"} {
		p := `{"version": 1, "title": "t", "exercises": [{"id": "c", "lesson": "calibration", "kind": "choice", "question": "?", "answer": {` +
			choices + `, "correct": ` + correct + `}, "explanation": "…"}]}`
		_, err := Decode(strings.NewReader(p))
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("correct = %s: error %v, want %q", correct, err, want)
		}
	}
	s := Spec{Choices: []string{"the crowd", "the far users"}}
	for raw, want := range map[string]int{`0`: 0, `1`: 1, `"  The Far Users "`: 1, `-1`: -1, `2`: -1, `"nobody"`: -1} {
		i, err := s.choice(json.RawMessage(raw), "answers.c")
		if want < 0 && err == nil || want >= 0 && (err != nil || i != want) {
			t.Errorf("choice %s: %d, %v; want %d", raw, i, err, want)
		}
	}
}

// A manipulation's bounds are strict: a readout equal to above or below
// does not meet the goal; the goal and the reading are worded as shown.
func TestManipulationGoalAtItsEdges(t *testing.T) {
	one, three, yes, no := 1.0, 3.0, true, false
	s := Spec{Readout: "kept", Above: &one, Below: &three}
	for v, want := range map[float64]bool{1: false, 1.001: true, 2.999: true, 3: false} {
		if got := s.meets(Reading{Value: v}); got != want {
			t.Errorf("%v in (1, 3): %v, want %v", v, got, want)
		}
	}
	flagged := Spec{Readout: "outcome", Warn: &yes, Contains: "gate failed"}
	for _, c := range []struct {
		r    Reading
		want bool
	}{
		{Reading{Warn: true, Text: "the gate failed: output 0"}, true},
		{Reading{Warn: false, Text: "the gate failed: output 0"}, false},
		{Reading{Warn: true, Text: "every user kept"}, false},
	} {
		if got := flagged.meets(c.r); got != c.want {
			t.Errorf("%+v: met %v, want %v", c.r, got, c.want)
		}
	}
	for _, c := range []struct {
		s    Spec
		want string
	}{
		{s, "kept above 1, below 3"},
		{flagged, "outcome flagged, saying “gate failed”"},
		{Spec{Readout: "outcome", Warn: &no}, "outcome not flagged"},
	} {
		if got := c.s.goal(); got != c.want {
			t.Errorf("goal %q, want %q", got, c.want)
		}
	}
	if got := shown(Reading{Value: 2.5}); got != "2.5" {
		t.Errorf("a reading without text shows as %q, want its number", got)
	}
	if got := shown(Reading{Value: 2.5, Text: "two and a half"}); got != "“two and a half”" {
		t.Errorf("a reading with text shows as %q, want its text", got)
	}
}

// Numeric answers are judged on both sides of the key, at the tolerance's
// edge: a grader that only looked above (or forgot the absolute value)
// would take every low answer.
func TestNumericAnswersOnBothSides(t *testing.T) {
	p := mustPack(t)
	for _, c := range []struct {
		id, answer string
		right      bool
	}{
		{"sigma", "4.7525", true}, // 4.8 ± 1 % = ±0.048
		{"sigma", "4.8475", true},
		{"sigma", "4.751", false},
		{"sigma", "4.849", false},
		{"kept", "28", true}, // tolerance 0
		{"kept", "27", false},
		{"kept", "29", false},
		{"literal", "3", false},
		{"literal", "4", true},
		{"literal", "-4", false},
	} {
		r, err := p.Grade(Answers{c.id: json.RawMessage(c.answer)}, fakeLab{})
		if err != nil {
			t.Fatal(err)
		}
		for _, res := range r.Results {
			if res.ID == c.id && res.Correct != c.right {
				t.Errorf("%s = %s: graded right = %v, want %v (%s)", c.id, c.answer, res.Correct, c.right, res.Feedback)
			}
		}
	}
}
