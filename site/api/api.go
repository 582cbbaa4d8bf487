// Package api is ULDP Lab's HTTP API: JSON over net/http, answered the same
// by `uldp serve` and by the classroom's edge deployment. Every request is
// bounded (body bytes, answers per request, a run's data and steps, work at
// once, wall time) and every answer, errors included, is JSON.
//
//	GET  /api/health     {"status": "ok", "version": …}
//	GET  /api/calibrate  ?mech=…&eps=…&delta=…&sens=… → σ (or b) and its
//	                     derivation, the JSON of `uldp calibrate`
//	GET  /api/pack       the built-in pack's sheet (questions, no keys)
//	POST /api/pack       a pack's JSON → its sheet, or where it is malformed
//	POST /api/grade      {"pack": "builtin" | {…a pack…}, "answers": {id: answer}}
//	                     → {"score", "total", "results": [{"id", "correct", "feedback"}]}
//	POST /api/run        a scenario's JSON → {"result": what `uldp run --scenario`
//	                     prints, "trace": {"steps", "kinds", "last"} or null}
//	/api/class/…         a class server's, with WithClasses (class.go)
//
// Grading reports the exercises answered only (score counts them right, of
// the pack's total): an unanswered exercise's explanation stays on the
// server until the student commits an answer.
package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/uldplab/uldp/core/exercise"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/viz/classroom"
)

// Limits on one request.
const (
	// MaxBody bounds a request's body: a pack of exercise.MaxBytes and the
	// answers beside it.
	MaxBody = exercise.MaxBytes + 256<<10
	// MaxAnswers bounds the answers graded in one request.
	MaxAnswers = classroom.MaxAnswers
)

// drainLimit bounds what is read of a refused body.
const drainLimit = 16 << 20

// GradeTimeout is how long a request waits for its grading (a variable
// for the tests).
var GradeTimeout = 30 * time.Second

// Handler serves the API under /api/.
func Handler(opts ...Option) http.Handler {
	h := &handler{slots: make(chan struct{}, max(1, runtime.NumCPU()))}
	for _, o := range opts {
		o(h)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/api/health", methods{http.MethodGet: func(w http.ResponseWriter, r *http.Request) {
		reply(w, http.StatusOK, map[string]string{"status": "ok", "version": Version()})
	}}.serve)
	mux.HandleFunc("/api/calibrate", methods{http.MethodGet: calibrate}.serve)
	mux.HandleFunc("/api/pack", methods{http.MethodGet: h.builtinSheet, http.MethodPost: h.sheet}.serve)
	mux.HandleFunc("/api/grade", methods{http.MethodPost: h.grade}.serve)
	mux.HandleFunc("/api/run", methods{http.MethodPost: h.run}.serve)
	h.mountClasses(mux)
	mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		fail(w, http.StatusNotFound, fmt.Sprintf("no %s %s: the API has GET /api/health, GET /api/calibrate, GET and POST /api/pack, POST /api/grade, POST /api/run, and a class server's /api/class", r.Method, r.URL.Path))
	})
	return mux
}

// methods routes a path's requests by method, answering the others with
// 405 in JSON (the mux's own 405 is plain text).
type methods map[string]http.HandlerFunc

func (m methods) serve(w http.ResponseWriter, r *http.Request) {
	if f, ok := m[r.Method]; ok {
		f(w, r)
		return
	}
	var allow []string
	for k := range m {
		allow = append(allow, k)
	}
	slices.Sort(allow)
	w.Header().Set("Allow", strings.Join(allow, ", "))
	fail(w, http.StatusMethodNotAllowed, fmt.Sprintf("%s %s: use %s", r.Method, r.URL.Path, strings.Join(allow, " or ")))
}

type handler struct {
	slots   chan struct{} // one per grading or run under way
	classes *Classes      // nil: the server keeps no classes
}

func (h *handler) builtinSheet(w http.ResponseWriter, r *http.Request) {
	if student, ok := studentParam(w, r); ok {
		answerSheet(w, []byte(`"builtin"`), student)
	}
}

func (h *handler) sheet(w http.ResponseWriter, r *http.Request) {
	student, ok := studentParam(w, r)
	if !ok {
		return
	}
	if b, ok := body(w, r); ok {
		answerSheet(w, b, student)
	}
}

// answerSheet answers the sheet of the pack raw names with student's own
// numbers.
func answerSheet(w http.ResponseWriter, raw []byte, student string) {
	s, err := classroom.SheetOf(raw, student)
	if err != nil {
		fail(w, http.StatusBadRequest, err.Error())
		return
	}
	reply(w, http.StatusOK, s)
}

// studentParam reads the ?student= whose own numbers a sheet shows ("" for
// none), answering a bad one itself.
func studentParam(w http.ResponseWriter, r *http.Request) (string, bool) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		fail(w, http.StatusBadRequest, fmt.Sprintf("the query %q cannot be read (%v): write ?student=NAME, the name URL-encoded", r.URL.RawQuery, err))
		return "", false
	}
	student := q.Get("student")
	if err := exercise.CheckStudent(student); err != nil {
		fail(w, http.StatusBadRequest, err.Error())
		return "", false
	}
	return student, true
}

func (h *handler) grade(w http.ResponseWriter, r *http.Request) {
	b, ok := body(w, r)
	if !ok {
		return
	}
	req, err := classroom.DecodeRequest(b)
	if err != nil {
		fail(w, http.StatusBadRequest, err.Error())
		return
	}
	// Graded on the student's own numbers.
	if rep, ok := h.gradeWithin(w, r, req.Pack.For(req.Student), req.Answers); ok {
		reply(w, http.StatusOK, rep)
	}
}

// gradeWithin grades answers against p (the student's own), reporting
// those answered; it answers a failure itself (an answer that cannot be
// graded, no slot free, or GradeTimeout passed) and then returns false.
func (h *handler) gradeWithin(w http.ResponseWriter, r *http.Request, p *exercise.Pack, answers exercise.Answers) (exercise.Report, bool) {
	grade := func() (exercise.Report, error) { return classroom.GradeAnswered(p, answers) }
	// Answers graded against keys already computed are a lookup: they
	// neither wait for a slot nor hold one.
	if !p.Costly(answers, classroom.Lab{}) {
		rep, err := grade()
		if err != nil {
			fail(w, http.StatusBadRequest, err.Error())
			return rep, false
		}
		return rep, true
	}
	ctx, cancel := context.WithTimeout(r.Context(), GradeTimeout)
	defer cancel()
	if !h.acquire(ctx, w) {
		return exercise.Report{}, false
	}
	type outcome struct {
		report exercise.Report
		err    error
	}
	done := make(chan outcome, 1)
	go func() {
		// The lessons cannot be interrupted mid-run: the slot is held
		// until they finish, so abandoned gradings still count as load.
		defer func() { <-h.slots }()
		rep, err := grade()
		done <- outcome{rep, err}
	}()
	select {
	case o := <-done:
		if o.err != nil {
			fail(w, http.StatusBadRequest, o.err.Error())
			return o.report, false
		}
		return o.report, true
	case <-ctx.Done():
		fail(w, http.StatusServiceUnavailable, fmt.Sprintf("grading took longer than %v: the answer's state asks the lesson for too much work; try smaller settings", GradeTimeout))
		return exercise.Report{}, false
	}
}

// acquire takes a slot for work, a free one at once whatever the clock
// says, else waiting until ctx is done; then it answers 503 and false.
func (h *handler) acquire(ctx context.Context, w http.ResponseWriter) bool {
	select {
	case h.slots <- struct{}{}:
		return true
	default:
	}
	select {
	case h.slots <- struct{}{}:
		return true
	case <-ctx.Done():
		w.Header().Set("Retry-After", "5")
		fail(w, http.StatusServiceUnavailable, "busy: the server is grading and running for others; try again in a few seconds")
		return false
	}
}

// body reads a request's body within MaxBody, answering the error itself.
func body(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	if r.ContentLength > MaxBody {
		// Declared too large: refused before reading, or a client that
		// claims 10¹⁹ bytes and sends two would be waited for.
		fail(w, http.StatusRequestEntityTooLarge, tooLarge)
		return nil, false
	}
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody))
	var over *http.MaxBytesError
	switch {
	case errors.As(err, &over):
		// Read on (to a bound) before answering: a client still sending
		// when the answer comes meets a broken pipe, and workerd's local
		// server (wrangler dev) dies of it.
		_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, drainLimit))
		fail(w, http.StatusRequestEntityTooLarge, tooLarge)
		return nil, false
	case err != nil:
		fail(w, http.StatusBadRequest, "reading the request: "+err.Error())
		return nil, false
	}
	return b, true
}

// tooLarge is the answer to a body over MaxBody.
var tooLarge = fmt.Sprintf("the request is larger than %d KiB: send one pack or scenario of at most %d MiB", MaxBody>>10, exercise.MaxBytes>>20)

// reply answers v as JSON.
func reply(w http.ResponseWriter, status int, v any) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Encoded before the header is written, so a value JSON cannot
		// carry (a NaN that slipped through) is an error, never a 200
		// with an empty body.
		b.Reset()
		_ = enc.Encode(map[string]string{"error": "the answer could not be written as JSON: " + err.Error()})
		status = http.StatusInternalServerError
	}
	writeJSON(w, status, b.Bytes())
}

// writeJSON answers b, a JSON document.
func writeJSON(w http.ResponseWriter, status int, b []byte) {
	hd := w.Header()
	hd.Set("Content-Type", "application/json; charset=utf-8")
	hd.Set("Cache-Control", "no-store")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Content-Security-Policy", CSP)
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// CSP is every answer's Content-Security-Policy: JSON, which nothing may
// run, load or frame.
const CSP = "default-src 'none'; frame-ancestors 'none'"

// fail answers an error as {"error": msg}.
func fail(w http.ResponseWriter, status int, msg string) {
	reply(w, status, map[string]string{"error": msg})
}

// Missing answers 404 in JSON, with the API's headers, to whatever it is
// asked: the Worker's answer to a path its static assets do not hold (the
// runtime hands those to the program).
func Missing() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fail(w, http.StatusNotFound, fmt.Sprintf("no page %s: the lessons are at / and the errata at /errata.html; the API is under /api/", r.URL.Path))
	})
}

// WithSite serves the API under /api/ and everything else from site: how
// ULDP Lab is served, natively and at the edge alike.
func WithSite(site http.Handler, opts ...Option) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/api/", Handler(opts...))
	mux.Handle("/", site)
	return mux
}

// calibrate answers GET /api/calibrate: the query's mech, eps, delta (not
// for laplace) and sens, calibrated as `uldp calibrate` does.
func calibrate(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	for k := range q {
		if !slices.Contains([]string{"mech", "eps", "delta", "sens"}, k) {
			fail(w, http.StatusBadRequest, fmt.Sprintf("%s: not a parameter of /api/calibrate (mech, eps, delta, sens)", k))
			return
		}
	}
	mech := q.Get("mech")
	if mech == "" {
		fail(w, http.StatusBadRequest, "mech is missing: one of "+strings.Join(privacy.CalibratorNames(), ", "))
		return
	}
	need := []string{"eps", "sens", "delta"}
	if mech == privacy.MechLaplace {
		if q.Has("delta") {
			fail(w, http.StatusBadRequest, "delta does not apply to laplace, which is pure ε-DP: leave it out")
			return
		}
		need = need[:2]
	}
	vals := map[string]float64{}
	for _, k := range need {
		v, err := strconv.ParseFloat(q.Get(k), 64)
		switch {
		case !q.Has(k):
			fail(w, http.StatusBadRequest, k+" is missing")
			return
		case err != nil:
			fail(w, http.StatusBadRequest, fmt.Sprintf("%s = %q is not a number", k, q.Get(k)))
			return
		}
		vals[k] = v
	}
	report, _, _, err := privacy.Explain(mech, vals["eps"], vals["delta"], vals["sens"])
	if err != nil {
		fail(w, http.StatusUnprocessableEntity, err.Error())
		return
	}
	reply(w, http.StatusOK, report)
}

// Version is the build's version control revision (12 hex digits, and
// "+dirty" for a modified tree), or "devel" when the build has none.
func Version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	var rev, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if len(rev) < 12 {
		return "devel"
	}
	return rev[:12] + dirty
}
