package api

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/uldplab/uldp/core/exercise"
	"github.com/uldplab/uldp/viz/classroom"
)

// do sends one request to the API and decodes its JSON answer.
func do(t *testing.T, method, path, body string) (int, map[string]any, http.Header) {
	t.Helper()
	srv := httptest.NewServer(Handler())
	defer srv.Close()
	req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s %s: not JSON (%v): %s", method, path, err, b)
	}
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("%s %s: Content-Type %q", method, path, ct)
	}
	return res.StatusCode, v, res.Header
}

func TestHealthAndSheet(t *testing.T) {
	if code, v, _ := do(t, "GET", "/api/health", ""); code != 200 || v["ok"] != true {
		t.Errorf("health: %d %v", code, v)
	}
	code, v, _ := do(t, "GET", "/api/pack", "")
	p, _ := exercise.Builtin()
	if code != 200 || v["title"] != p.Title || len(v["exercises"].([]any)) != len(p.Exercises) {
		t.Fatalf("sheet: %d %v", code, v["title"])
	}
	b, _ := json.Marshal(v)
	for _, e := range p.Exercises {
		if strings.Contains(string(b), e.Explanation) {
			t.Errorf("the sheet shows %s's explanation", e.ID)
		}
	}
}

// Grading answers only what was answered, right and wrong, and says why.
func TestGrade(t *testing.T) {
	p, _ := exercise.Builtin()
	key, err := p.Key(classroom.Lab{})
	if err != nil {
		t.Fatal(err)
	}
	right, _ := json.Marshal(key["user-level-sensitivity"])
	body := `{"pack": "builtin", "answers": {"user-level-sensitivity": ` + string(right) + `, "calibration-more-items": 0}}`
	code, v, _ := do(t, "POST", "/api/grade", body)
	if code != 200 {
		t.Fatalf("grade: %d %v", code, v)
	}
	res := v["results"].([]any)
	if len(res) != 2 {
		t.Fatalf("results for %d exercises, want the 2 answered: %v", len(res), res)
	}
	first, second := res[0].(map[string]any), res[1].(map[string]any)
	if first["id"] != "user-level-sensitivity" || first["correct"] != true || second["correct"] != false ||
		!strings.Contains(second["feedback"].(string), "the answer is “it stays the same”") {
		t.Errorf("results %v", res)
	}
	// A pack of one's own, sent whole.
	own := `{"version": 1, "title": "Mine", "exercises": [{"id": "two", "lesson": "calibration", "kind": "numeric",
		"question": "1 + 1?", "answer": {"value": 2}, "explanation": "Two."}]}`
	code, v, _ = do(t, "POST", "/api/grade", `{"pack": `+own+`, "answers": {"two": 2}}`)
	if code != 200 || v["results"].([]any)[0].(map[string]any)["correct"] != true {
		t.Errorf("own pack: %d %v", code, v)
	}
	code, v, _ = do(t, "POST", "/api/pack", own)
	if code != 200 || v["title"] != "Mine" {
		t.Errorf("own pack's sheet: %d %v", code, v)
	}
}

// Every error is JSON that says what is wrong and how to fix it.
func TestErrors(t *testing.T) {
	for _, c := range []struct {
		method, path, body string
		code               int
		want               string
	}{
		{"GET", "/api/grade", "", 405, "use POST"},
		{"DELETE", "/api/pack", "", 405, "use GET or POST"},
		{"GET", "/api/nothing", "", 404, "the API has"},
		{"POST", "/api/grade", `{"pack": "builtin"}`, 400, "give 1 to 64 answers"},
		{"POST", "/api/grade", `{"answers": {"x": 1}}`, 400, "pack is missing"},
		{"POST", "/api/grade", `{"pack": "mine", "answers": {"x": 1}}`, 400, `give "builtin"`},
		{"POST", "/api/grade", `{"pack": "builtin", "answers": {"x": 1}, "extra": 1}`, 400, `unknown field "extra"`},
		{"POST", "/api/grade", `{"pack": "builtin", "answers": {"x": 1}}`, 400, "the pack has no exercise"},
		{"POST", "/api/grade", `{"pack": "builtin", "answers": {"user-level-ratio": "none"}}`, 400, "none of the choices"},
		{"POST", "/api/pack", `{"version": 2}`, 400, "version = 2"},
		{"POST", "/api/pack", `{"version": 1, "title": "t", "exercises": [{"id": "a", "lesson": "nope", "kind": "numeric",
			"question": "q", "answer": {"value": 1}, "explanation": "e"}]}`, 400, "no lesson of ULDP Lab: a (nope)"},
		{"POST", "/api/pack", strings.Repeat(" ", MaxBody+1), 413, "larger than"},
	} {
		code, v, _ := do(t, c.method, c.path, c.body)
		msg, _ := v["error"].(string)
		if code != c.code || !strings.Contains(msg, c.want) {
			t.Errorf("%s %s %.60s: %d %q, want %d saying %q", c.method, c.path, c.body, code, msg, c.code, c.want)
		}
	}
}

// The API and the site share one server: /api/ goes to the API, the rest
// to the site.
func TestWithSite(t *testing.T) {
	site := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "site") })
	srv := httptest.NewServer(WithSite(site))
	defer srv.Close()
	for path, want := range map[string]string{"/api/health": `{"ok":true}`, "/index.html": "site", "/": "site"} {
		res, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if strings.TrimSpace(string(b)) != want {
			t.Errorf("%s: %q, want %q", path, b, want)
		}
	}
}

// A grading that outlasts GradeTimeout is answered 503, not waited for.
func TestGradeTimeout(t *testing.T) {
	defer func(d time.Duration) { GradeTimeout = d }(GradeTimeout)
	GradeTimeout = time.Nanosecond
	// A whole run of lesson 10 takes milliseconds, a million nanoseconds.
	code, v, _ := do(t, "POST", "/api/grade", `{"pack": "builtin", "answers": {"oir-halt": "algo=oir&preset=far-group&tau=0.001&seed=5"}}`)
	if msg, _ := v["error"].(string); code != 503 || !strings.Contains(msg, "took longer") && !strings.Contains(msg, "busy") {
		t.Errorf("%d %v", code, v)
	}
}
