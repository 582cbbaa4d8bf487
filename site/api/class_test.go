package api

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/uldplab/uldp/site/class"
	"github.com/uldplab/uldp/site/class/sqlite"
	"github.com/uldplab/uldp/site/class/sqlite/sqlitetest"
)

// classServer serves the API with classes kept in a fresh SQLite file.
func classServer(t *testing.T) (*httptest.Server, *class.Store) {
	t.Helper()
	store := class.New(sqlitetest.Open(t))
	srv := httptest.NewServer(Handler(WithClasses(Classes{Store: store})))
	t.Cleanup(srv.Close)
	return srv, store
}

// client is a browser: its own cookies.
func client(t *testing.T) *http.Client {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Jar: jar}
}

// call is send without the headers.
func call(t *testing.T, c *http.Client, method, url, contentType, body string, header ...string) (int, map[string]any) {
	t.Helper()
	code, v, _ := send(t, c, method, url, contentType, body, header...)
	return code, v
}

const jsonType = "application/json"

// A class from end to end: a teacher creates it, two students join, each
// answers and reads back only their own work, the teacher's dashboard and
// gradebook count both.
func TestClassEndToEnd(t *testing.T) {
	srv, _ := classServer(t)
	teacher := client(t)
	code, v := call(t, teacher, "POST", srv.URL+"/api/class", jsonType, `{"title": "DP 101", "pack": "builtin"}`)
	if code != http.StatusCreated || v["code"] == nil || v["teacher"] == nil {
		t.Fatalf("create: %d %v", code, v)
	}
	joinCode, token := v["code"].(string), v["teacher"].(string)
	ada, bob := client(t), client(t)
	// In this order: the gradebook lists students as they joined.
	for _, s := range []struct {
		name string
		c    *http.Client
	}{{"Ada", ada}, {"Bob", bob}} {
		name, c := s.name, s.c
		code, v := call(t, c, "POST", srv.URL+"/api/class/join", jsonType, `{"code": "`+strings.ToLower(joinCode)+`", "name": "`+name+`"}`)
		if code != 200 || v["student"] != name || v["class"] != "DP 101" || v["token"] == nil {
			t.Fatalf("%s joins: %d %v", name, code, v)
		}
	}
	// A choice, right for Ada and wrong for Bob; final at once (the
	// built-in pack gives one try).
	for _, c := range []struct {
		who    *http.Client
		answer string
		right  bool
	}{{ada, "1", true}, {bob, "0", false}} {
		code, v := call(t, c.who, "POST", srv.URL+"/api/class/answer", jsonType, `{"id": "user-level-ratio", "answer": `+c.answer+`, "request": "r1", "spent": 65000}`)
		if code != 200 || v["correct"] != c.right || v["final"] != true || v["stored"] != true || !strings.Contains(v["feedback"].(string), "m times") {
			t.Fatalf("answer %s: %d %v", c.answer, code, v)
		}
	}
	// The same request again is the same grading, not a second answer; a
	// new one to the final exercise is refused.
	if code, v := call(t, ada, "POST", srv.URL+"/api/class/answer", jsonType, `{"id": "user-level-ratio", "answer": 0, "request": "r1", "spent": 1}`); code != 200 || v["correct"] != true || v["stored"] != false {
		t.Errorf("resent: %d %v", code, v)
	}
	if code, v := call(t, ada, "POST", srv.URL+"/api/class/answer", jsonType, `{"id": "user-level-ratio", "answer": 0, "request": "r2", "spent": 1}`); code != http.StatusConflict {
		t.Errorf("a second answer: %d %v", code, v)
	}
	// Each reads their own progress, and no one else's.
	code, me := call(t, ada, "GET", srv.URL+"/api/class/me", "", "")
	progress, _ := me["progress"].(map[string]any)
	if code != 200 || me["student"] != "Ada" || len(progress) != 1 || progress["user-level-ratio"].(map[string]any)["correct"] != true {
		t.Errorf("Ada's progress: %d %v", code, me)
	}
	if b, _ := json.Marshal(me); strings.Contains(string(b), "Bob") {
		t.Errorf("Ada reads Bob's work: %s", b)
	}
	// The teacher's view.
	code, d := call(t, teacher, "GET", srv.URL+"/api/class/dashboard", "", "", "Authorization", "Bearer "+token)
	if code != 200 || d["answers"] != 2.0 || len(d["students"].([]any)) != 2 {
		t.Fatalf("dashboard: %d %v", code, d)
	}
	for _, x := range d["exercises"].([]any) {
		x := x.(map[string]any)
		if x["id"] == "user-level-sensitivity" && (x["varies"] != true || !strings.Contains(x["question"].(string), "{n}")) {
			t.Errorf("a varied exercise on the dashboard: %v", x)
		}
		if x["id"] != "user-level-ratio" {
			continue
		}
		if x["varies"] != false {
			t.Errorf("a shared exercise marked varied: %v", x)
		}
		wrong := x["wrong"].([]any)
		if x["answered"] != 2.0 || x["right"] != 1.0 || x["median_seconds"] != 65.0 || len(wrong) != 1 || wrong[0].(map[string]any)["answer"] != "they are equal" {
			t.Errorf("the exercise on the dashboard: %v", x)
		}
	}
	req, _ := http.NewRequest("GET", srv.URL+"/api/class/gradebook", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/csv") || len(lines) != 3 ||
		!strings.HasPrefix(lines[0], "student,file,user-level-sensitivity,user-level-ratio,") ||
		!strings.HasPrefix(lines[1], "Ada,,0,1,") || !strings.HasPrefix(lines[2], "Bob,,0,0,") {
		t.Errorf("gradebook: %d %s %q", res.StatusCode, res.Header.Get("Content-Type"), lines)
	}
	// Another site's form cannot log Ada out (it cannot send JSON without
	// the browser asking first); leaving forgets the device's key.
	if code, _ := call(t, ada, "POST", srv.URL+"/api/class/leave", "application/x-www-form-urlencoded", ""); code != http.StatusUnsupportedMediaType {
		t.Errorf("leave by a form: %d", code)
	}
	if code, _ := call(t, ada, "GET", srv.URL+"/api/class/me", "", ""); code != 200 {
		t.Errorf("a form logged Ada out: %d", code)
	}
	if code, _ := call(t, ada, "POST", srv.URL+"/api/class/leave", jsonType, "{}"); code != 200 {
		t.Errorf("leave: %d", code)
	}
	if code, _ := call(t, ada, "GET", srv.URL+"/api/class/me", "", ""); code != http.StatusUnauthorized {
		t.Errorf("after leaving: %d", code)
	}
	// The key from joining brings Ada back on another device.
	other := client(t)
	adaKey := joinKey(t, srv, joinCode, "Ada2")
	if code, v := call(t, other, "POST", srv.URL+"/api/class/resume", jsonType, `{"token": "`+adaKey+`"}`); code != 200 || v["student"] != "Ada2" {
		t.Errorf("resume: %d %v", code, v)
	}
	if code, v := call(t, other, "GET", srv.URL+"/api/class/me", "", ""); code != 200 || v["student"] != "Ada2" {
		t.Errorf("me after resume: %d %v", code, v)
	}
}

// A join whose reply was lost, sent again from the same device, is the
// same student; from another device, the name is taken. A huge time spent
// is stored as the cap, never as a negative time; an answer longer than
// its kind takes is refused unstored.
func TestClassJoinAgainAndBounds(t *testing.T) {
	srv, store := classServer(t)
	c, teacher, err := store.CreateClass(context.Background(), "DP 101", "builtin", "192.0.2.1")
	if err != nil {
		t.Fatal(err)
	}
	ada := client(t)
	join := `{"code": "` + c.Code + `", "name": "Ada"}`
	_, first := call(t, ada, "POST", srv.URL+"/api/class/join", jsonType, join)
	if code, again := call(t, ada, "POST", srv.URL+"/api/class/join", jsonType, join); code != 200 || again["token"] != first["token"] {
		t.Errorf("joining again from the same device: %d %v", code, again)
	}
	if code, _ := call(t, client(t), "POST", srv.URL+"/api/class/join", jsonType, join); code != http.StatusConflict {
		t.Errorf("the name from another device: %d", code)
	}
	for _, c := range []struct {
		body   string
		status int
	}{
		{`{"id": "user-level-ratio", "answer": ` + strings.Repeat("1", 2000) + `, "request": "big", "spent": 1}`, 400},
		{`{"id": "user-level-ratio", "answer": 1, "request": "r1", "spent": 1e300}`, 200},
	} {
		if code, v := call(t, ada, "POST", srv.URL+"/api/class/answer", jsonType, c.body); code != c.status {
			t.Errorf("%.60s: %d %v", c.body, code, v)
		}
	}
	_, d := call(t, client(t), "GET", srv.URL+"/api/class/dashboard", "", "", "Authorization", "Bearer "+teacher)
	for _, x := range d["exercises"].([]any) {
		if x := x.(map[string]any); x["id"] == "user-level-ratio" && x["median_seconds"] != 86400.0 {
			t.Errorf("a spent of 1e300 ms reads %v s, want the cap of a day", x["median_seconds"])
		}
	}
	if d["answers"] != 1.0 || d["refresh_seconds"] != 10.0 {
		t.Errorf("dashboard: %v answers, refresh %v", d["answers"], d["refresh_seconds"])
	}
}

// joinKey joins name to the class and returns their key.
func joinKey(t *testing.T, srv *httptest.Server, code, name string) string {
	t.Helper()
	status, v := call(t, client(t), "POST", srv.URL+"/api/class/join", jsonType, `{"code": "`+code+`", "name": "`+name+`"}`)
	if status != 200 {
		t.Fatalf("join %s: %d %v", name, status, v)
	}
	return v["token"].(string)
}

// With tries, a wrong answer says how many are left and keeps the
// explanation (which gives the key away) until the answer is final.
func TestClassTries(t *testing.T) {
	srv, _ := classServer(t)
	pack := `{"version": 1, "title": "Three tries", "tries": 3, "exercises": [{"id": "q", "lesson": "calibration", "kind": "choice",
		"question": "Which?", "answer": {"choices": ["a", "b", "c"], "correct": 2}, "explanation": "SECRET c"}]}`
	_, v := call(t, client(t), "POST", srv.URL+"/api/class", jsonType, `{"title": "T", "pack": `+pack+`}`)
	ada := client(t)
	call(t, ada, "POST", srv.URL+"/api/class/join", jsonType, `{"code": "`+v["code"].(string)+`", "name": "Ada"}`)
	for i, want := range []string{"2 more tries", "1 more try", "SECRET"} {
		code, v := call(t, ada, "POST", srv.URL+"/api/class/answer", jsonType, `{"id": "q", "answer": 0, "request": "r`+string(rune('0'+i))+`", "spent": 1}`)
		final := i == 2
		if code != 200 || v["final"] != final || v["try"] != float64(i+1) || !strings.Contains(v["feedback"].(string), want) || !final && strings.Contains(v["feedback"].(string), "SECRET") {
			t.Errorf("try %d: %d %v", i+1, code, v)
		}
		_, me := call(t, ada, "GET", srv.URL+"/api/class/me", "", "")
		if b, _ := json.Marshal(me); !final && strings.Contains(string(b), "SECRET") {
			t.Errorf("try %d: the progress gives the explanation away: %s", i+1, b)
		}
		// The first try resent is answered as things stand now.
		code, v = call(t, ada, "POST", srv.URL+"/api/class/answer", jsonType, `{"id": "q", "answer": 0, "request": "r0", "spent": 1}`)
		if code != 200 || v["try"] != 1.0 || v["stored"] != false || v["final"] != final || !strings.Contains(v["feedback"].(string), want) {
			t.Errorf("try 1 resent after try %d: %d %v", i+1, code, v)
		}
	}
}

// Hostile requests are refused with JSON errors, and store nothing.
func TestClassRefuses(t *testing.T) {
	srv, store := classServer(t)
	ctx := context.Background()
	c, teacher, err := store.CreateClass(ctx, "DP 101", "builtin", "192.0.2.1")
	if err != nil {
		t.Fatal(err)
	}
	other, otherTeacher, _ := store.CreateClass(ctx, "Other", "builtin", "192.0.2.1")
	ada := client(t)
	call(t, ada, "POST", srv.URL+"/api/class/join", jsonType, `{"code": "`+c.Code+`", "name": "Ada"}`)
	bobKey := joinKey(t, srv, other.Code, "Bob")
	anon := client(t)
	long := strings.Repeat("x", 300)
	for _, r := range []struct {
		who                    *http.Client
		method, path, ct, body string
		header                 []string
		status                 int
		want                   string
	}{
		// Joins.
		{anon, "POST", "/api/class/join", "text/plain", `{"code": "` + c.Code + `", "name": "Eve"}`, nil, 415, "JSON"},
		{anon, "POST", "/api/class/join", "application/x-www-form-urlencoded", `code=` + c.Code + `&name=Eve`, nil, 415, "JSON"},
		{anon, "POST", "/api/class/join", jsonType, `{"code": "` + c.Code + `"`, nil, 400, "not"},
		{anon, "POST", "/api/class/join", jsonType, `{"code": "` + c.Code + `", "name": "Eve", "admin": true}`, nil, 400, "admin"},
		{anon, "POST", "/api/class/join", jsonType, `{"code": "` + c.Code + `", "name": "Eve", "name": "Mallory"}`, nil, 400, "name"},
		{anon, "POST", "/api/class/join", jsonType, `{"code": "` + c.Code + `", "name": "Eve"} {}`, nil, 400, "more"},
		{anon, "POST", "/api/class/join", jsonType, `{"code": "AAAA-AAAA", "name": "Eve"}`, nil, 404, "no class"},
		{anon, "POST", "/api/class/join", jsonType, `{"code": "' OR 1=1 --", "name": "Eve"}`, nil, 404, "no class"},
		{anon, "POST", "/api/class/join", jsonType, `{"code": "` + c.Code + `", "name": "` + long + `"}`, nil, 400, "student"},
		{anon, "POST", "/api/class/join", jsonType, `{"code": "` + c.Code + `", "name": ""}`, nil, 400, "name"},
		{anon, "POST", "/api/class/join", jsonType, `{"code": "` + c.Code + `", "name": "Eve\u0007"}`, nil, 400, "control"},
		{anon, "POST", "/api/class/join", jsonType, "{\"code\": \"" + c.Code + "\", \"name\": \"\xff\"}", nil, 400, "UTF-8"},
		{anon, "POST", "/api/class/join", jsonType, `{"code": "` + c.Code + `", "name": "Ada"}`, nil, 409, "joined under that name"},
		// A student's requests without a key, with a forged one, or with
		// another class's.
		{anon, "GET", "/api/class/me", "", "", nil, 401, "not joined"},
		{anon, "GET", "/api/class/me", "", "", []string{"Cookie", cookieName + "=" + teacher}, 401, "names no student"},
		{anon, "GET", "/api/class/me", "", "", []string{"Cookie", cookieName + "=" + forged(bobKey)}, 401, "names no student"},
		{anon, "POST", "/api/class/answer", jsonType, `{"id": "user-level-ratio", "answer": 1, "request": "x", "spent": 1}`, nil, 401, "not joined"},
		{anon, "POST", "/api/class/resume", jsonType, `{"token": "` + teacher + `"}`, nil, 404, "names no student"},
		{anon, "POST", "/api/class/resume", jsonType, `{"token": "u1.` + strings.Repeat("A", 16) + "." + strings.Repeat("A", 43) + `"}`, nil, 404, "names no student"},
		// Answers that are not answers.
		{ada, "POST", "/api/class/answer", jsonType, `{"id": "nope", "answer": 1, "request": "x", "spent": 1}`, nil, 400, "no exercise"},
		{ada, "POST", "/api/class/answer", jsonType, `{"id": "user-level-ratio", "answer": "seven", "request": "x", "spent": 1}`, nil, 400, "user-level-ratio"},
		{ada, "POST", "/api/class/answer", jsonType, `{"id": "user-level-ratio", "answer": 9, "request": "x", "spent": 1}`, nil, 400, "user-level-ratio"},
		{ada, "POST", "/api/class/answer", jsonType, `{"id": "user-level-ratio", "answer": null, "request": "x", "spent": 1}`, nil, 400, "answer"},
		{ada, "POST", "/api/class/answer", jsonType, `{"id": "user-level-ratio", "answer": 1, "spent": 1}`, nil, 400, "request"},
		{ada, "POST", "/api/class/answer", jsonType, `{"id": "user-level-ratio", "answer": 1, "request": "` + long + `", "spent": 1}`, nil, 400, "request"},
		{ada, "POST", "/api/class/answer", jsonType, `{"id": "user-level-ratio", "answer": 1, "request": "x", "spent": -1}`, nil, 400, "spent"},
		{ada, "POST", "/api/class/answer", jsonType, `{"id": "user-level-ratio", "answer": 1, "request": "x", "spent": 1e999}`, nil, 400, "not"},
		{ada, "GET", "/api/class/answer", "", "", nil, 405, "POST"},
		// The teacher's view without the teacher's token.
		{anon, "GET", "/api/class/dashboard", "", "", nil, 401, "teacher token"},
		{anon, "GET", "/api/class/dashboard", "", "", []string{"Authorization", "Basic YTpi"}, 401, "teacher token"},
		{anon, "GET", "/api/class/dashboard", "", "", []string{"Authorization", "Bearer " + bobKey}, 401, "names no class"},
		{anon, "GET", "/api/class/dashboard", "", "", []string{"Authorization", "Bearer " + forged(teacher)}, 401, "names no class"},
		{ada, "GET", "/api/class/gradebook", "", "", nil, 401, "teacher token"},
		// Classes that cannot be made.
		{anon, "POST", "/api/class", jsonType, `{"title": "", "pack": "builtin"}`, nil, 400, "title"},
		{anon, "POST", "/api/class", jsonType, `{"title": "` + strings.Repeat("t", 201) + `"}`, nil, 400, "title"},
		{anon, "POST", "/api/class", jsonType, `{"title": "x", "pack": "mine"}`, nil, 400, "pack"},
		{anon, "POST", "/api/class", jsonType, `{"title": "x", "pack": {"version": 1}}`, nil, 400, "pack"},
		{anon, "GET", "/api/class/nothing", "", "", nil, 404, "/join"},
	} {
		req := r.method + " " + r.path + " " + r.body
		if len(req) > 80 {
			req = req[:80]
		}
		code, v := call(t, r.who, r.method, srv.URL+r.path, r.ct, r.body, r.header...)
		if msg, _ := v["error"].(string); code != r.status || !strings.Contains(msg, r.want) {
			t.Errorf("%s: %d %q, want %d and %q", req, code, msg, r.status, r.want)
		}
	}
	// Nothing of the above was stored: one student in each class, no
	// answers, the two classes only.
	for _, x := range []struct {
		c    class.Class
		name string
	}{{c, "Ada"}, {other, "Bob"}} {
		ro, err := store.Roster(ctx, x.c)
		if err != nil || len(ro.Students) != 1 || ro.Students[0].Name != x.name || len(ro.Submissions) != 0 {
			t.Errorf("class %s holds %+v, %v", x.c.Title, ro, err)
		}
	}
	if _, err := store.ClassByTeacher(ctx, otherTeacher); err != nil {
		t.Error(err)
	}
}

// A server that keeps no classes says so, in JSON, and how to keep them.
func TestNoClasses(t *testing.T) {
	for _, path := range []string{"/api/class", "/api/class/join", "/api/class/dashboard"} {
		code, v, _ := do(t, "POST", path, `{}`)
		if msg, _ := v["error"].(string); code != 404 || !strings.Contains(msg, "--class-db") {
			t.Errorf("%s: %d %v", path, code, v)
		}
	}
}

// The class's store is slow or down: a JSON 503 that says to try again,
// never a 200 and never the database's words only.
func TestClassStoreDown(t *testing.T) {
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "class.db"))
	if err != nil {
		t.Fatal(err)
	}
	store := class.New(db)
	c, _, err := store.CreateClass(context.Background(), "DP 101", "builtin", "192.0.2.1")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(Handler(WithClasses(Classes{Store: store})))
	defer srv.Close()
	db.Close()
	code, v := call(t, client(t), "POST", srv.URL+"/api/class/join", jsonType, `{"code": "`+c.Code+`", "name": "Ada"}`)
	if msg, _ := v["error"].(string); code != http.StatusServiceUnavailable || !strings.Contains(msg, "try again") || strings.Contains(msg, "sql") {
		t.Errorf("a closed store: %d %v (the store's own words are for the log)", code, v)
	}
}

// forged is token with its last character changed (to another one: a
// fixed replacement equals a random token's last character one time in
// 64, and that token is then the real one).
func forged(token string) string {
	last := "Q"
	if strings.HasSuffix(token, last) {
		last = "R"
	}
	return token[:len(token)-1] + last
}
