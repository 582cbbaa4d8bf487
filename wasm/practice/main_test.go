//go:build js && wasm

package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/uldplab/uldp/core/exercise"
	"github.com/uldplab/uldp/viz/classroom"
)

// The practice grader built for the browser answers as the server does:
// a student's own sheet, with no key on it, and gradings against her own
// numbers, right on her key and wrong off it; what it refuses is an error.
func TestPracticeGradesAsTheServer(t *testing.T) {
	const id, ada = "calibration-user-sigma", "Ada Lovelace"
	raw, err := sheet(`"builtin"`, ada)
	if err != nil {
		t.Fatal(err)
	}
	var s exercise.Sheet
	if err := json.Unmarshal(raw, &s); err != nil || len(s.Exercises) == 0 {
		t.Fatalf("sheet %.200s: %v", raw, err)
	}
	if strings.Contains(string(raw), "explanation") || strings.Contains(string(raw), `"answer"`) {
		t.Errorf("the sheet carries keys: %.300s", raw)
	}
	p, err := exercise.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	key, err := oneKey(p.For(ada), id)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		answer float64
		right  bool
	}{{key, true}, {2*key + 1, false}} {
		req := fmt.Sprintf(`{"pack": "builtin", "student": %q, "answers": {%q: %v}}`, ada, id, c.answer)
		out, err := grade(req, "")
		if err != nil {
			t.Fatal(err)
		}
		var rep exercise.Report
		if err := json.Unmarshal(out, &rep); err != nil || len(rep.Results) != 1 {
			t.Fatalf("report %s: %v", out, err)
		}
		if rep.Results[0].Correct != c.right || rep.Score != map[bool]int{true: 1}[c.right] || rep.Total != len(p.Exercises) {
			t.Errorf("answer %v (key %v): %s, want correct=%v", c.answer, key, out, c.right)
		}
	}
	for _, bad := range []struct{ fn, a, b string }{
		{"sheet", `"nosuch"`, ""},
		{"sheet", `"builtin"`, "bad\x00name"},
		{"grade", `{"pack": "builtin", "answers": {}}`, ""},
		{"grade", `{"pack": "builtin", "answers": {"no-such-exercise": 1}}`, ""},
	} {
		f := map[string]func(a, b string) ([]byte, error){"sheet": sheet, "grade": grade}[bad.fn]
		if out, err := f(bad.a, bad.b); err == nil {
			t.Errorf("%s(%q, %q) = %s, want an error", bad.fn, bad.a, bad.b, out)
		}
	}
}

// oneKey is the key of exercise id of p, computed by the classroom's own
// lab as the native grader does.
func oneKey(p *exercise.Pack, id string) (float64, error) {
	for _, x := range p.Exercises {
		if x.ID == id {
			key, err := (&exercise.Pack{Version: p.Version, Title: p.Title, Exercises: []exercise.Exercise{x}}).Key(classroom.Lab{})
			if err != nil {
				return 0, err
			}
			k, ok := key[id].(float64)
			if !ok {
				return 0, fmt.Errorf("key %v is no number", key[id])
			}
			return k, nil
		}
	}
	return 0, fmt.Errorf("no exercise %s", id)
}
