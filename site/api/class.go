package api

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"mime"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/exercise"
	"github.com/uldplab/uldp/site/class"
	"github.com/uldplab/uldp/viz/classroom"
)

// A class server adds, under /api/class:
//
//	POST /api/class            {"title", "pack": "builtin" | {…}} → the join
//	                           code and the teacher's token (shown once)
//	POST /api/class/join       {"code", "name"} → the student's token, also
//	                           set as a cookie, and their sheet
//	POST /api/class/resume     {"token"} → the cookie again, on another device
//	GET  /api/class/me         the student's sheet and progress
//	POST /api/class/answer     {"id", "answer", "request", "spent"} → graded,
//	                           stored, then answered
//	POST /api/class/leave      forgets the cookie (a shared computer)
//	GET  /api/class/dashboard  the teacher's view (Authorization: Bearer TOKEN)
//	GET  /api/class/gradebook  the gradebook as CSV (the same)
//
// A student's requests carry their token in the cookie (HttpOnly,
// SameSite=Strict), and every POST must be JSON, so another site can
// neither read nor forge them.

// Classes is how a server keeps classes: the store, and a request's
// address as far as rate limits may trust it.
type Classes struct {
	Store *class.Store
	// Addr is the client's address: the peer's natively, the edge's
	// CF-Connecting-IP on Workers.
	Addr func(*http.Request) string
	// Refresh is how often a teacher's dashboard reads the class anew
	// (10 s when zero): each read is every student and answer, which D1
	// counts against its daily reads.
	Refresh time.Duration
}

// Option configures the API.
type Option func(*handler)

// WithClasses serves classes from c.
func WithClasses(c Classes) Option {
	return func(h *handler) {
		h.classes = &c
		if c.Addr == nil {
			h.classes.Addr = PeerAddr
		}
	}
}

// PeerAddr is the address of the peer a request came from: a native
// server's client, whose forwarded-for headers it cannot trust.
func PeerAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// cookieName holds a student's token.
const cookieName = "uldp_student"

// noClasses answers a server that keeps no classes.
func noClasses(w http.ResponseWriter, r *http.Request) {
	fail(w, http.StatusNotFound, "this server keeps no classes: a teacher starts one with uldp serve --class-db FILE (see “Running a class” in the README); exercises still work without one, kept in your browser")
}

func (h *handler) mountClasses(mux *http.ServeMux) {
	if h.classes == nil {
		mux.HandleFunc("/api/class", noClasses)
		mux.HandleFunc("/api/class/", noClasses)
		return
	}
	mux.HandleFunc("/api/class", methods{http.MethodPost: h.createClass}.serve)
	mux.HandleFunc("/api/class/join", methods{http.MethodPost: h.join}.serve)
	mux.HandleFunc("/api/class/resume", methods{http.MethodPost: h.resume}.serve)
	mux.HandleFunc("/api/class/me", methods{http.MethodGet: h.me}.serve)
	mux.HandleFunc("/api/class/answer", methods{http.MethodPost: h.answer}.serve)
	mux.HandleFunc("/api/class/leave", methods{http.MethodPost: h.leave}.serve)
	mux.HandleFunc("/api/class/dashboard", methods{http.MethodGet: h.dashboard}.serve)
	mux.HandleFunc("/api/class/gradebook", methods{http.MethodGet: h.gradebook}.serve)
	mux.HandleFunc("/api/class/", func(w http.ResponseWriter, r *http.Request) {
		fail(w, http.StatusNotFound, fmt.Sprintf("no %s %s: a class is served under /api/class (create), /join, /resume, /me, /answer, /leave, /dashboard and /gradebook", r.Method, r.URL.Path))
	})
}

// jsonBody reads a POST's JSON object into v strictly (no unknown or
// repeated fields), answering what is wrong itself. Requiring JSON keeps
// other sites' forms out: a cross-site request cannot send it without
// the browser asking first.
func jsonBody(w http.ResponseWriter, r *http.Request, v any, shape string) bool {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		fail(w, http.StatusUnsupportedMediaType, "send the request as JSON (Content-Type: application/json): "+shape)
		return false
	}
	b, ok := body(w, r)
	if !ok {
		return false
	}
	if err := exercise.CheckText(b, "the request"); err != nil {
		fail(w, http.StatusBadRequest, err.Error())
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		if _, end := dec.Token(); end != io.EOF {
			err = errors.New("more follows the object")
		}
	}
	if err != nil {
		fail(w, http.StatusBadRequest, fmt.Sprintf("the request is not %s: %v", shape, err))
		return false
	}
	return true
}

// storeFailed answers an error of the store: its own kinds by their
// status, anything else as the store being unavailable (logged: the
// message is the server's to read, not the client's).
func storeFailed(w http.ResponseWriter, err error, what string) {
	switch {
	case errors.Is(err, class.ErrTooMany):
		w.Header().Set("Retry-After", "60")
		fail(w, http.StatusTooManyRequests, "too many requests from here: wait a minute and try again")
	case errors.Is(err, class.ErrNotFound):
		fail(w, http.StatusNotFound, what)
	case errors.Is(err, class.ErrNameTaken):
		fail(w, http.StatusConflict, "someone in this class has joined under that name: if it is you, on another device, use the key shown when you joined (Continue on another device); else add your initial or student id")
	case errors.Is(err, class.ErrFull):
		fail(w, http.StatusConflict, fmt.Sprintf("the class is full (%d students): ask your teacher", class.MaxStudents))
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		fail(w, http.StatusServiceUnavailable, "the class's store took too long: try again in a few seconds")
	case errors.As(err, new(class.InputError)):
		fail(w, http.StatusBadRequest, err.Error())
	case errors.As(err, new(packError)):
		log.Printf("class: %v", err)
		fail(w, http.StatusInternalServerError, err.Error())
	default:
		// The store's own words are for the server's log: they name its
		// tables and files, which are no client's business.
		log.Printf("class store: %v", err)
		fail(w, http.StatusServiceUnavailable, "the class's store failed: try again in a few seconds; if it goes on, tell your teacher")
	}
}

func (h *handler) createClass(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Title string          `json:"title"`
		Pack  json.RawMessage `json:"pack"`
	}
	if !jsonBody(w, r, &req, `{"title": …, "pack": "builtin" or a pack}`) {
		return
	}
	if len(req.Pack) == 0 {
		req.Pack = json.RawMessage(`"builtin"`)
	}
	p, err := classroom.PackOf(req.Pack)
	if err != nil {
		fail(w, http.StatusBadRequest, err.Error())
		return
	}
	pack := "builtin"
	if !p.IsBuiltin() {
		pack = string(req.Pack)
	}
	c, teacher, err := h.classes.Store.CreateClass(r.Context(), req.Title, pack, h.classes.Addr(r))
	if err != nil {
		storeFailed(w, err, "")
		return
	}
	reply(w, http.StatusCreated, map[string]any{"code": c.Code, "title": c.Title, "pack": p.Title, "teacher": teacher})
}

// session is a student's reply: who they are, their class, their sheet
// and where they stand on each exercise.
type session struct {
	Class    string              `json:"class"`
	Code     string              `json:"code"`
	Student  string              `json:"student"`
	Token    string              `json:"token,omitempty"`
	Sheet    exercise.Sheet      `json:"sheet"`
	Progress map[string]standing `json:"progress"`
}

// standing is one exercise as the student may see it: the explanation
// only once the answer is final.
type standing struct {
	Tries    int             `json:"tries"`
	Correct  bool            `json:"correct"`
	Final    bool            `json:"final"`
	Answer   json.RawMessage `json:"answer"`
	Feedback string          `json:"feedback"`
}

func (h *handler) join(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Code string `json:"code"`
		Name string `json:"name"`
	}
	if !jsonBody(w, r, &req, `{"code": "ABCD-EFGH", "name": …}`) {
		return
	}
	c, err := h.classes.Store.ClassByCode(r.Context(), req.Code)
	if err != nil {
		storeFailed(w, err, fmt.Sprintf("no class has the code %s: check it with your teacher (it reads like ABCD-EFGH)", dataset.Excerpt(req.Code)))
		return
	}
	st, tok, err := h.classes.Store.Join(r.Context(), c, req.Name, h.classes.Addr(r))
	if errors.Is(err, class.ErrNameTaken) {
		// This device joined under the name already (the reply to its
		// first join was lost): the same student, not a clash.
		if ck, cerr := r.Cookie(cookieName); cerr == nil {
			if mine, mc, merr := h.classes.Store.StudentByToken(r.Context(), ck.Value); merr == nil && mc.ID == c.ID && mine.Name == req.Name {
				h.welcome(w, r, mine, mc, ck.Value)
				return
			}
		}
	}
	if err != nil {
		storeFailed(w, err, "")
		return
	}
	h.welcome(w, r, st, c, tok)
}

func (h *handler) resume(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Token string `json:"token"`
	}
	if !jsonBody(w, r, &req, `{"token": …}`) {
		return
	}
	st, c, err := h.classes.Store.StudentByToken(r.Context(), strings.TrimSpace(req.Token))
	if err != nil {
		storeFailed(w, err, "that key names no student: copy it again from the device you joined on (Continue on another device)")
		return
	}
	h.welcome(w, r, st, c, strings.TrimSpace(req.Token))
}

// welcome sets the student's cookie and answers their session.
func (h *handler) welcome(w http.ResponseWriter, r *http.Request, st class.Student, c class.Class, tok string) {
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: tok, Path: "/api/class", MaxAge: 365 * 24 * 3600,
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: secure(r)})
	s, err := h.session(r.Context(), st, c)
	if err != nil {
		storeFailed(w, err, "")
		return
	}
	s.Token = tok
	reply(w, http.StatusOK, s)
}

// secure reports whether the request came over HTTPS, where the cookie
// must say so (the edge always; loopback never).
func secure(r *http.Request) bool {
	return r.TLS != nil || r.URL.Scheme == "https" || r.Header.Get("X-Forwarded-Proto") == "https"
}

func (h *handler) session(ctx context.Context, st class.Student, c class.Class) (session, error) {
	p, err := h.packOf(c)
	if err != nil {
		return session{}, err
	}
	subs, err := h.classes.Store.Submissions(ctx, st)
	if err != nil {
		return session{}, err
	}
	s := session{Class: c.Title, Code: c.Code, Student: st.Name, Sheet: p.Sheet(st.Name), Progress: map[string]standing{}}
	for _, sub := range subs {
		x := s.Progress[sub.Exercise]
		x.Tries, x.Answer = sub.Try, sub.Answer
		x.Correct = x.Correct || sub.Correct
		x.Final = x.Correct || x.Tries >= p.TriesEach()
		x.Feedback = feedbackOf(sub, x.Final, x.Tries, p.TriesEach())
		s.Progress[sub.Exercise] = x
	}
	return s, nil
}

// feedbackOf is a stored grading as the student may read it, of tries in
// all with used given: whole once final, else the verdict and the tries
// left (the whole feedback gives the key away).
func feedbackOf(sub class.Submission, final bool, used, tries int) string {
	if final {
		return sub.Feedback
	}
	left := tries - used
	return fmt.Sprintf("Not right yet: you have %d more %s. The explanation comes once your answer is right or your tries are used.", left, plural(left, "try", "tries"))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// student reads the student a request's cookie names, answering 401
// itself when it names none.
func (h *handler) student(w http.ResponseWriter, r *http.Request) (class.Student, class.Class, bool) {
	ck, err := r.Cookie(cookieName)
	if err != nil {
		fail(w, http.StatusUnauthorized, "you have not joined a class on this device: join with your class's code and your name, or continue with the key from the device you joined on")
		return class.Student{}, class.Class{}, false
	}
	st, c, err := h.classes.Store.StudentByToken(r.Context(), ck.Value)
	if err != nil {
		if errors.Is(err, class.ErrNotFound) {
			fail(w, http.StatusUnauthorized, "this device's class key names no student (the class was removed, or the key is damaged): join again")
			return class.Student{}, class.Class{}, false
		}
		storeFailed(w, err, "")
		return class.Student{}, class.Class{}, false
	}
	return st, c, true
}

func (h *handler) me(w http.ResponseWriter, r *http.Request) {
	st, c, ok := h.student(w, r)
	if !ok {
		return
	}
	s, err := h.session(r.Context(), st, c)
	if err != nil {
		storeFailed(w, err, "")
		return
	}
	reply(w, http.StatusOK, s)
}

func (h *handler) leave(w http.ResponseWriter, r *http.Request) {
	// JSON, as every class POST: another site's form must not log a
	// student out (a top-level POST would carry the cookie's deletion).
	var req struct{}
	if !jsonBody(w, r, &req, "{}") {
		return
	}
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: "", Path: "/api/class", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: secure(r)})
	reply(w, http.StatusOK, map[string]string{"status": "left: this device no longer holds your class key"})
}

// verdict is the answer to a submission.
type verdict struct {
	ID       string `json:"id"`
	Correct  bool   `json:"correct"`
	Final    bool   `json:"final"`
	Try      int    `json:"try"`
	Tries    int    `json:"tries"`
	Feedback string `json:"feedback"`
	// Stored is false for a request stored before (resent): this is its
	// first grading.
	Stored bool `json:"stored"`
}

// maxAnswer bounds what an answer of kind may hold, as stored: a number
// or a choice is a few bytes; a manipulation may carry a dataset the
// student dragged (a lesson's users as CSV).
func maxAnswer(kind exercise.Kind) int {
	switch kind {
	case exercise.Manipulate:
		return 256 << 10
	case exercise.FindTheBug:
		return exercise.MaxState + 512
	}
	return 1 << 10
}

// maxSpent bounds the time a submission says it took: a page left open
// overnight says nothing about the exercise.
const maxSpent = 24 * time.Hour

func (h *handler) answer(w http.ResponseWriter, r *http.Request) {
	st, c, ok := h.student(w, r)
	if !ok {
		return
	}
	var req struct {
		ID      string          `json:"id"`
		Answer  json.RawMessage `json:"answer"`
		Request string          `json:"request"`
		Spent   float64         `json:"spent"`
	}
	if !jsonBody(w, r, &req, `{"id": …, "answer": …, "request": …, "spent": milliseconds}`) {
		return
	}
	switch {
	case req.Request == "" || len(req.Request) > class.MaxRequest:
		fail(w, http.StatusBadRequest, fmt.Sprintf("request: give each submission an id of 1 to %d characters (the page draws one; a resent submission keeps it)", class.MaxRequest))
		return
	case len(req.Answer) == 0 || string(req.Answer) == "null":
		fail(w, http.StatusBadRequest, "answer is missing")
		return
	case !(req.Spent >= 0):
		fail(w, http.StatusBadRequest, "spent: give the milliseconds the exercise was open, 0 or more")
		return
	}
	// Clamped as a float: converted first, 1e300 ms overflows to a
	// negative time natively (and saturates under wasm).
	spent := time.Duration(min(req.Spent, float64(maxSpent.Milliseconds()))) * time.Millisecond
	p, err := h.packOf(c)
	if err != nil {
		storeFailed(w, err, "")
		return
	}
	tries, store := p.TriesEach(), h.classes.Store
	if old, ok, err := store.Resent(r.Context(), st, req.Request); err != nil || ok {
		if err != nil {
			storeFailed(w, err, "")
			return
		}
		h.replyVerdict(w, r, st, p, old, false)
		return
	}
	i := p.Index(req.ID)
	if i < 0 {
		fail(w, http.StatusBadRequest, fmt.Sprintf("id: the class's pack has no exercise %s", dataset.Excerpt(req.ID)))
		return
	}
	if limit := maxAnswer(p.Exercises[i].Kind); len(req.Answer) > limit {
		fail(w, http.StatusBadRequest, fmt.Sprintf("answer: %d bytes, more than a %s answer takes (%d)", len(req.Answer), p.Exercises[i].Kind, limit))
		return
	}
	a, err := store.Attempted(r.Context(), st, req.ID)
	if err == nil && a.Final(tries) {
		fail(w, http.StatusConflict, "your answer to this exercise is final already: move on to the next")
		return
	}
	busy, berr := store.Busy(r.Context(), st)
	if err = errors.Join(err, berr); err != nil {
		storeFailed(w, err, "")
		return
	}
	if busy {
		storeFailed(w, class.ErrTooMany, "")
		return
	}
	own := p.For(st.Name)
	answers := exercise.Answers{req.ID: req.Answer}
	rep, ok := h.gradeWithin(w, r, own, answers)
	if !ok {
		return
	}
	if len(rep.Results) != 1 {
		fail(w, http.StatusInternalServerError, "grading gave no result")
		return
	}
	res := rep.Results[0]
	sub := class.Submission{Exercise: req.ID, Request: req.Request, Answer: req.Answer, Correct: res.Correct, Feedback: res.Feedback,
		Variant: p.Variant(p.Exercises[i], st.Name), Spent: spent}
	// Committed before the answer: a student told "stored" finds it
	// stored whatever happens to the server next.
	got, stored, err := store.Submit(context.WithoutCancel(r.Context()), st, sub, tries)
	switch {
	case errors.Is(err, class.ErrFinal):
		fail(w, http.StatusConflict, "your answer to this exercise is final already (another of your devices answered it meanwhile): move on to the next")
		return
	case err != nil:
		storeFailed(w, err, "")
		return
	}
	h.replyVerdict(w, r, st, p, got, stored)
}

func (h *handler) replyVerdict(w http.ResponseWriter, r *http.Request, st class.Student, p *exercise.Pack, sub class.Submission, stored bool) {
	// Where the student stands now, not when sub was made: a resent early
	// try must not promise tries that were used since.
	a, err := h.classes.Store.Attempted(r.Context(), st, sub.Exercise)
	if err != nil {
		storeFailed(w, err, "")
		return
	}
	tries := p.TriesEach()
	final := a.Final(tries)
	reply(w, http.StatusOK, verdict{ID: sub.Exercise, Correct: sub.Correct, Final: final, Try: sub.Try, Tries: tries,
		Feedback: feedbackOf(sub, final, a.Tries, tries), Stored: stored})
}

// teacher reads the class a request's teacher token names, answering 401
// itself when it names none.
func (h *handler) teacher(w http.ResponseWriter, r *http.Request) (class.Class, bool) {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		w.Header().Set("WWW-Authenticate", `Bearer realm="ULDP Lab class"`)
		fail(w, http.StatusUnauthorized, "a teacher's request carries the class's teacher token: Authorization: Bearer TOKEN (uldp class create printed it)")
		return class.Class{}, false
	}
	c, err := h.classes.Store.ClassByTeacher(r.Context(), strings.TrimSpace(tok))
	if err != nil {
		if errors.Is(err, class.ErrNotFound) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="ULDP Lab class", error="invalid_token"`)
			fail(w, http.StatusUnauthorized, "that teacher token names no class: copy it again from where the class was created")
			return class.Class{}, false
		}
		storeFailed(w, err, "")
		return class.Class{}, false
	}
	return c, true
}

func (h *handler) roster(w http.ResponseWriter, r *http.Request) (class.Class, *exercise.Pack, class.Roster, bool) {
	c, ok := h.teacher(w, r)
	if !ok {
		return c, nil, class.Roster{}, false
	}
	p, err := h.packOf(c)
	if err != nil {
		storeFailed(w, err, "")
		return c, nil, class.Roster{}, false
	}
	ro, err := h.classes.Store.Roster(r.Context(), c)
	if err != nil {
		storeFailed(w, err, "")
		return c, nil, class.Roster{}, false
	}
	return c, p, ro, true
}

func (h *handler) dashboard(w http.ResponseWriter, r *http.Request) {
	if c, p, ro, ok := h.roster(w, r); ok {
		d := class.Summarize(c, p, ro, h.classes.Store.Now())
		d.RefreshSeconds = int(cmp.Or(h.classes.Refresh, 10*time.Second) / time.Second)
		reply(w, http.StatusOK, d)
	}
}

func (h *handler) gradebook(w http.ResponseWriter, r *http.Request) {
	c, p, ro, ok := h.roster(w, r)
	if !ok {
		return
	}
	var b strings.Builder
	if err := class.Gradebook(p, ro).WriteCSV(&b); err != nil {
		fail(w, http.StatusInternalServerError, "writing the gradebook: "+err.Error())
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", "text/csv; charset=utf-8")
	hd.Set("Content-Disposition", fmt.Sprintf(`attachment; filename="uldp-gradebook-%s.csv"`, c.Code))
	hd.Set("Cache-Control", "no-store")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Content-Security-Policy", CSP)
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte(b.String()))
}

// packs keeps the classes' packs decoded, by the pack's text (a class's
// pack does not change, and decoding one is most of a cheap request), up
// to maxPacks of them: packs are up to a MiB each.
var packs struct {
	sync.Mutex
	m map[string]*exercise.Pack
}

const maxPacks = 64

// packOf is class c's pack.
func (h *handler) packOf(c class.Class) (*exercise.Pack, error) {
	packs.Lock()
	p, ok := packs.m[c.Pack]
	packs.Unlock()
	if ok {
		return p, nil
	}
	raw := json.RawMessage(`"builtin"`)
	if c.Pack != "builtin" {
		raw = json.RawMessage(c.Pack)
	}
	p, err := classroom.PackOf(raw)
	if err != nil {
		return nil, packError{fmt.Errorf("the class's pack no longer reads (%v): ask your teacher; this server's exercises have changed since the class was made", err)}
	}
	packs.Lock()
	if packs.m == nil {
		packs.m = map[string]*exercise.Pack{}
	}
	if len(packs.m) < maxPacks {
		packs.m[c.Pack] = p
	}
	packs.Unlock()
	return p, nil
}

// packError is a class's pack that no longer reads: trying again will not
// help.
type packError struct{ error }
