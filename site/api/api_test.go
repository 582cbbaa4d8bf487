package api

import (
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/uldplab/uldp/core/exercise"
	"github.com/uldplab/uldp/viz/classroom"
)

// do sends one request to the API (a server without classes) and
// decodes its JSON answer, checking the API's headers.
func do(t *testing.T, method, path, body string) (int, map[string]any, http.Header) {
	t.Helper()
	srv := httptest.NewServer(Handler())
	defer srv.Close()
	return send(t, http.DefaultClient, method, srv.URL+path, "", body)
}

// send sends one request with c, decodes its JSON answer, and checks the
// API's headers on every answer, errors included; header gives more
// headers, name and value in turn.
func send(t *testing.T, c *http.Client, method, url, contentType, body string, header ...string) (int, map[string]any, http.Header) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s %s: %d, not JSON (%v): %.200s", method, url, res.StatusCode, err, b)
	}
	if csp := res.Header.Get("Content-Security-Policy"); csp != CSP {
		t.Errorf("%s %s: %d with Content-Security-Policy %q", method, url, res.StatusCode, csp)
	}
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("%s %s: Content-Type %q", method, url, ct)
	}
	return res.StatusCode, v, res.Header
}

func TestHealthAndSheet(t *testing.T) {
	if code, v, _ := do(t, "GET", "/api/health", ""); code != 200 || v["status"] != "ok" || v["version"] == "" {
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
	key, err := p.For("").Key(classroom.Lab{}) // a request naming no student
	if err != nil {
		t.Fatal(err)
	}
	right, _ := json.Marshal(key["user-level-sensitivity"])
	body := `{"pack": "builtin", "answers": {"user-level-sensitivity": ` + string(right) + `, "calibration-more-items": 0}}`
	code, v, _ := do(t, "POST", "/api/grade", body)
	if code != 200 {
		t.Fatalf("grade: %d %v", code, v)
	}
	if v["score"] != 1.0 || v["total"] != float64(len(p.Exercises)) {
		t.Errorf("score %v of %v, want 1 of %d", v["score"], v["total"], len(p.Exercises))
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
		{"GET", "/api/calibrate?eps=1&sens=1", "", 400, "mech is missing: one of"},
		{"GET", "/api/calibrate?mech=laplace&eps=1&sens=1&delta=0.1", "", 400, "delta does not apply to laplace"},
		{"GET", "/api/calibrate?mech=gaussian&eps=1&sens=1", "", 400, "delta is missing"},
		{"GET", "/api/calibrate?mech=gaussian&eps=one&sens=1&delta=1e-5", "", 400, `eps = "one" is not a number`},
		{"GET", "/api/calibrate?mech=gaussian&eps=1&sens=1&delta=1e-5&sigma=2", "", 400, "sigma: not a parameter"},
		{"GET", "/api/calibrate?mech=gaussian&eps=-1&sens=1&delta=1e-5", "", 422, "ε"},
		{"GET", "/api/calibrate?mech=nope&eps=1&sens=1&delta=1e-5", "", 422, `mechanism "nope"`},
		// Valid numbers whose noise scale overflows: refused, never 200 with nothing.
		{"GET", "/api/calibrate?mech=laplace&eps=1&sens=1e308", "", 200, ""},
		{"GET", "/api/calibrate?mech=laplace&eps=5e-324&sens=1", "", 422, "not a finite number"},
		{"GET", "/api/calibrate?mech=gaussian&eps=1&sens=1&delta=5e-324", "", 422, "not a finite number"},
		{"GET", "/api/calibrate?mech=deloutputpert&eps=1&sens=1e308&delta=1e-5", "", 422, "not a finite number"},
		{"POST", "/api/calibrate?mech=laplace&eps=1&sens=1", "", 405, "use GET"},
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
		// Hostile bodies: deep nesting, a number beyond float64, wrong types, trailing data.
		{"POST", "/api/grade", `{"pack": ` + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + `, "answers": {"x": 1}}`, 400, "the request is not"},
		{"POST", "/api/grade", `{"pack": "builtin", "answers": {"user-level-sensitivity": 1e999}}`, 400, "expected a number"},
		{"POST", "/api/grade", `{"pack": "builtin", "answers": [1, 2]}`, 400, "the request is not"},
		{"POST", "/api/grade", `{"pack": 7, "answers": {"x": 1}}`, 400, "pack"},
		{"POST", "/api/grade", `{"pack": "builtin", "answers": {"user-level-ratio": 1}} {"more": 1}`, 400, "more after its object"},
		{"POST", "/api/grade", `{"pack": "builtin", "answers": {"stability-no-removal": {"state": 5}}}`, 400, "expected the lesson's state"},
		{"POST", "/api/grade", `{"pack": "builtin", "answers": {"user-level-ratio": 1, "user-level-ratio": 2}}`, 400, `the request.answers: "user-level-ratio" is given twice`},
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
	for path, want := range map[string]string{"/api/nothing": `"error"`, "/index.html": "site", "/": "site"} {
		res, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if got := strings.TrimSpace(string(b)); got != want && !strings.Contains(got, want) {
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

// /api/calibrate answers what `uldp calibrate --format json` prints: the
// same derivation, from the same function.
func TestCalibrate(t *testing.T) {
	for _, q := range []string{"mech=gaussian&eps=0.5&delta=1e-5&sens=1", "mech=laplace&eps=1&sens=2", "mech=deloutputpert&eps=1&delta=1e-5&sens=0.1"} {
		code, v, _ := do(t, "GET", "/api/calibrate?"+q, "")
		if code != 200 || v["scale"] == nil || v["steps"] == nil {
			t.Errorf("%s: %d %v", q, code, v)
		}
		if strings.Contains(q, "deloutputpert") && v["kappa"] == nil {
			t.Errorf("%s: no κ in %v", q, v)
		}
	}
}

// A value JSON cannot carry is answered as an error with a JSON body,
// encoded before the header goes out, never as a 200 with nothing.
func TestReplyRefusesWhatJSONCannotCarry(t *testing.T) {
	rec := httptest.NewRecorder()
	reply(rec, http.StatusOK, map[string]float64{"scale": math.Inf(1)})
	var v map[string]string
	if err := json.Unmarshal(rec.Body.Bytes(), &v); rec.Code != http.StatusInternalServerError || err != nil || !strings.Contains(v["error"], "could not be written as JSON") {
		t.Errorf("reply of +Inf: %d %q (%v)", rec.Code, rec.Body.String(), err)
	}
}

// A body declared larger than the API takes is refused at once, before a
// byte of it is read: a client that claims 2⁶³−1 bytes and sends two is
// not waited for.
func TestDeclaredTooLarge(t *testing.T) {
	h := Handler()
	for _, path := range []string{"/api/grade", "/api/pack", "/api/run"} {
		body := &stalled{release: make(chan struct{})}
		defer close(body.release)
		req := httptest.NewRequest("POST", path, body)
		req.ContentLength = math.MaxInt64
		rec := httptest.NewRecorder()
		done := make(chan struct{})
		go func() { h.ServeHTTP(rec, req); close(done) }()
		select {
		case <-done:
		case <-time.After(time.Minute): // far beyond an answer; the body stalls
			t.Fatalf("POST %s with Content-Length 2⁶³−1 and two bytes sent is still being read", path)
		}
		if rec.Code != http.StatusRequestEntityTooLarge || !strings.Contains(rec.Body.String(), "larger than") || rec.Header().Get("Content-Security-Policy") != CSP {
			t.Errorf("POST %s: %d %s", path, rec.Code, rec.Body)
		}
	}
}

// stalled is a body that sends "{}" and then nothing until released, as a
// client that declared more than it sends.
type stalled struct {
	sent    bool
	release chan struct{}
}

func (s *stalled) Read(p []byte) (int, error) {
	if !s.sent {
		s.sent = true
		return copy(p, "{}"), nil
	}
	<-s.release
	return 0, io.EOF
}

// The Worker's program answers a path its static assets do not hold with
// the API's JSON 404, naming where the pages are.
func TestMissing(t *testing.T) {
	srv := httptest.NewServer(WithSite(Missing()))
	defer srv.Close()
	res, err := http.Get(srv.URL + "/no/such/page")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != 404 || res.Header.Get("Content-Security-Policy") != CSP || !strings.Contains(string(b), `"error":"no page /no/such/page`) {
		t.Errorf("%d %q %s", res.StatusCode, res.Header.Get("Content-Security-Policy"), b)
	}
}

// A grading against keys already computed is a lookup: it is answered
// while every slot is taken, where one that must compute its key waits
// and is answered 503.
func TestKeyedGradingsDoNotWait(t *testing.T) {
	defer func(d time.Duration) { GradeTimeout = d }(GradeTimeout)
	GradeTimeout = 50 * time.Millisecond
	h := &handler{slots: make(chan struct{}, 1)}
	// A state of its own, so that no other grading has computed its key.
	const req = `{"pack": {"version": 1, "title": "t", "exercises": [{"id": "s", "lesson": "calibration", "kind": "numeric",
	  "state": "eps=0.77&delta=1e-6", "question": "σ?", "answer": {"readout": "user-scale", "tolerance": 0}, "explanation": "."}]},
	  "answers": {"s": 1}}`
	grade := func() *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		h.grade(w, httptest.NewRequest("POST", "/api/grade", strings.NewReader(req)))
		return w
	}
	h.slots <- struct{}{} // every slot taken
	if w := grade(); w.Code != http.StatusServiceUnavailable {
		t.Fatalf("a grading whose key is not computed yet, every slot taken: %d %s", w.Code, w.Body)
	}
	<-h.slots
	GradeTimeout = time.Minute
	if w := grade(); w.Code != http.StatusOK {
		t.Fatalf("with a slot free: %d %s", w.Code, w.Body)
	}
	h.slots <- struct{}{}
	GradeTimeout = 50 * time.Millisecond
	if w := grade(); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"correct":false`) {
		t.Errorf("its key computed, every slot taken: %d %s", w.Code, w.Body)
	}
}

// A sheet shows the named student's own numbers; a query that cannot be
// read is refused, not served as nobody's.
func TestSheetPerStudent(t *testing.T) {
	question := func(student string) string {
		code, v, _ := do(t, "GET", "/api/pack?student="+url.QueryEscape(student), "")
		if code != 200 {
			t.Fatalf("%s: %d %v", student, code, v)
		}
		return v["exercises"].([]any)[0].(map[string]any)["question"].(string)
	}
	if a, d := question("Ada"), question("Dee"); a == d || strings.Contains(a, "{") {
		t.Errorf("Ada and Dee see %q and %q", a, d)
	}
	if code, v, _ := do(t, "GET", "/api/pack?student=%zz", ""); code != 400 || !strings.Contains(v["error"].(string), "cannot be read") {
		t.Errorf("a malformed query: %d %v", code, v)
	}
	if code, v, _ := do(t, "POST", "/api/grade", `{"pack": "builtin", "student": "A\tB", "answers": {"user-level-ratio": 1}}`); code != 400 || !strings.Contains(v["error"].(string), "control character") {
		t.Errorf("a name with a tab: %d %v", code, v)
	}
}
