//go:build !js

package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// The Worker as deployed, run locally: make worker-build's program and
// files under wrangler dev (workerd) on a loopback port, each endpoint
// called and its answer checked against the command line's for the same
// input; the static site with its headers; the errors. Skipped without
// Node or the build, except on CI, where a skip would hide a broken edge.
func TestWorkerUnderWrangler(t *testing.T) {
	missing := ""
	switch {
	case exec.Command("node", "--version").Run() != nil:
		missing = "Node"
	case !exists("node_modules/wrangler/package.json"):
		missing = "wrangler (make worker-deps)"
	case !exists("build/app.wasm") || !exists("build/worker.mjs") || !exists("public/index.html"):
		missing = "the Worker's build (make worker-build)"
	}
	if missing != "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI needs %s for the Worker's test: run it through make test", missing)
		}
		t.Skipf("needs %s", missing)
	}
	cli := filepath.Join(t.TempDir(), "uldp")
	if out, err := exec.Command("go", "build", "-o", cli, "../uldp").CombinedOutput(); err != nil {
		t.Fatalf("building the CLI: %v\n%s", err, out)
	}
	base := startWrangler(t)
	t.Run("class", func(t *testing.T) { classAtTheEdge(t, base, cli) })

	// Health, then the cost of requests: workerd starts a fresh Go
	// instance for each.
	var times []time.Duration
	for range 20 {
		t0 := time.Now()
		code, body, _ := call(t, "GET", base+"/api/health", "")
		times = append(times, time.Since(t0))
		if code != 200 || !strings.Contains(body, `"status":"ok"`) {
			t.Fatalf("health: %d %s", code, body)
		}
	}
	t.Logf("GET /api/health: first %v, then median %v of 19", times[0], median(times[1:]))
	// For the record, a short burst: 200 requests, 8 at a time, health and
	// calibrations alternating (each starts its own Go instance).
	lat := make([]time.Duration, 200)
	var next atomic.Int64
	var wg sync.WaitGroup
	t0 := time.Now()
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < len(lat); i = int(next.Add(1) - 1) {
				path := []string{"/api/health", "/api/calibrate?mech=analytic-gaussian&eps=1&delta=1e-05&sens=0.01"}[i%2]
				start := time.Now()
				res, err := http.Get(base + path)
				if err == nil {
					io.Copy(io.Discard, res.Body)
					res.Body.Close()
					if res.StatusCode != 200 {
						err = fmt.Errorf("%s: %s", path, res.Status)
					}
				}
				lat[i] = time.Since(start)
				if err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(t0)
	slices.Sort(lat)
	t.Logf("200 requests at concurrency 8: %.0f requests/s, p50 %v, p99 %v", 200/elapsed.Seconds(), lat[100].Round(time.Millisecond), lat[198].Round(time.Millisecond))

	// Calibration: the CLI's JSON, number for number.
	for _, q := range []string{"mech=gaussian&eps=0.5&delta=1e-05&sens=1", "mech=laplace&eps=1&sens=2", "mech=deloutputpert&eps=1&delta=1e-05&sens=0.1"} {
		code, body, _ := call(t, "GET", base+"/api/calibrate?"+q, "")
		args := []string{"calibrate", "--format", "json"}
		for kv := range strings.SplitSeq(q, "&") {
			k, v, _ := strings.Cut(kv, "=")
			args = append(args, "--"+k, v)
		}
		want, err := exec.Command(cli, args...).Output()
		if err != nil {
			t.Fatalf("uldp %v: %v", args, err)
		}
		if code != 200 || !sameJSON(t, body, string(want)) {
			t.Errorf("/api/calibrate?%s: %d\n%s\nthe CLI says\n%s", q, code, body, want)
		}
	}

	// Grading: the CLI's verdict and feedback on the same answers.
	answers := `{"user-level-ratio": 0, "calibration-more-items": 1, "stability-no-removal": "eps=8&delta=0.1&sens=0.1&values=0%2C0.05%2C-0.05%2C0.1%2C-0.1%2C0.02%2C-0.02%2C0.07%2C-0.07%2C0.03%2C-0.03%2C0.04%2C-0.04%2C0.06&seed=1&lens=false"}`
	code, body, _ := call(t, "POST", base+"/api/grade", `{"pack": "builtin", "answers": `+answers+`}`)
	var got struct {
		Score, Total int
		Results      []struct {
			ID       string
			Correct  bool
			Feedback string
		}
	}
	if code != 200 || json.Unmarshal([]byte(body), &got) != nil || len(got.Results) != 3 {
		t.Fatalf("grade: %d %s", code, body)
	}
	file := filepath.Join(t.TempDir(), "answers.json")
	os.WriteFile(file, []byte(`{"answers": `+answers+`}`), 0o644)
	out, err := exec.Command(cli, "grade", "--answers", file).Output()
	if err != nil {
		t.Fatal(err)
	}
	var cliReport struct {
		Score, Total int
		Results      []struct {
			ID       string
			Correct  bool
			Feedback string
		}
	}
	if err := json.Unmarshal(out, &cliReport); err != nil {
		t.Fatal(err)
	}
	if got.Score != cliReport.Score || got.Total != cliReport.Total {
		t.Errorf("the Worker scores %d of %d, the CLI %d of %d", got.Score, got.Total, cliReport.Score, cliReport.Total)
	}
	for _, r := range got.Results {
		for _, c := range cliReport.Results {
			if c.ID == r.ID && (c.Correct != r.Correct || c.Feedback != r.Feedback) {
				t.Errorf("%s: the Worker says %v %q, the CLI %v %q", r.ID, r.Correct, r.Feedback, c.Correct, c.Feedback)
			}
		}
	}

	// The pack's sheet: every exercise the CLI lists, no keys.
	code, body, _ = call(t, "GET", base+"/api/pack", "")
	list, err := exec.Command(cli, "exercises", "list").Output()
	if err != nil {
		t.Fatal(err)
	}
	var sheet struct{ Exercises []json.RawMessage }
	var listed []json.RawMessage
	json.Unmarshal([]byte(body), &sheet)
	json.Unmarshal(list, &listed)
	if code != 200 || len(sheet.Exercises) == 0 || len(sheet.Exercises) != len(listed) || strings.Contains(body, `"explanation"`) {
		t.Errorf("pack: %d, %d exercises against the CLI's %d", code, len(sheet.Exercises), len(listed))
	}

	// Runs: the CLI's result for the same scenario, and its trace's steps
	// counted: DP-SGD (which records no trace unless asked) and
	// DelOutputPert (whose trace is part of its result).
	for _, f := range []string{"../uldp/testdata/dpsgd.json", "../uldp/testdata/outliers.json"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		code, body, _ := call(t, "POST", base+"/api/run", string(b))
		t.Logf("POST /api/run %s: %v", filepath.Base(f), time.Since(start).Round(time.Millisecond))
		want, err := exec.Command(cli, "run", "--scenario", f).Output()
		if err != nil {
			t.Fatalf("uldp run --scenario %s: %v", f, err)
		}
		var got struct {
			Result json.RawMessage
			Trace  *struct{ Steps int }
		}
		if code != 200 || json.Unmarshal([]byte(body), &got) != nil || !sameJSON(t, string(got.Result), string(want)) {
			t.Errorf("/api/run %s: %d\n%.600s\nthe CLI says\n%.600s", f, code, body, want)
		}
		var cliTrace struct {
			Trace *struct{ Steps []json.RawMessage }
		}
		json.Unmarshal(want, &cliTrace)
		if (got.Trace == nil) != (cliTrace.Trace == nil) || got.Trace != nil && got.Trace.Steps != len(cliTrace.Trace.Steps) {
			t.Errorf("/api/run %s: trace summary %+v, the CLI's trace %+v", f, got.Trace, cliTrace.Trace)
		}
	}

	// Errors, in JSON.
	for _, c := range []struct {
		method, path, body string
		code               int
		want               string
	}{
		{"GET", "/api/nothing", "", 404, "the API has"},
		{"GET", "/api/grade", "", 405, "use POST"},
		{"POST", "/api/grade", "{", 400, "the request is not"},
		{"GET", "/api/calibrate?mech=gaussian&eps=-1&delta=1e-5&sens=1", "", 422, "ε"},
		{"POST", "/api/pack", strings.Repeat(" ", 2<<20), 413, "larger than"},
		{"POST", "/api/run", `{"version": 1, "generator": {"kind": "gaussian", "n": 50, "m": 2, "d": 2}, "mechanism": "dp-sgd", "params": {"eps": 8, "delta": 1e-5, "rk": 1}}`, 422, "set params.steps"},
		{"GET", "/api/health", "", 200, "ok"}, // still up after the large body
		// A page the static assets do not hold reaches the program.
		{"GET", "/no/such/page", "", 404, "no page /no/such/page"},
	} {
		code, body, hd := call(t, c.method, base+c.path, c.body)
		if code != c.code || !strings.Contains(body, c.want) || !strings.HasPrefix(hd.Get("Content-Type"), "application/json") || hd.Get("Content-Security-Policy") == "" {
			t.Errorf("%s %s: %d %q, want %d saying %q in JSON, with a CSP", c.method, c.path, code, body, c.code, c.want)
		}
	}

	// The site, as static assets with the site's headers.
	code, body, hd := call(t, "GET", base+"/", "")
	if code != 200 || !strings.Contains(body, "ULDP Lab") || !strings.Contains(hd.Get("Content-Security-Policy"), "wasm-unsafe-eval") || hd.Get("X-Frame-Options") != "DENY" {
		t.Errorf("GET /: %d, headers %v", code, hd)
	}
	var menu struct{ Lessons []struct{ Module string } }
	_, body, _ = call(t, "GET", base+"/lessons.json", "")
	if err := json.Unmarshal([]byte(body), &menu); err != nil || len(menu.Lessons) == 0 {
		t.Fatalf("lessons.json: %v %s", err, body)
	}
	code, _, hd = call(t, "HEAD", base+"/"+menu.Lessons[0].Module, "")
	if code != 200 || hd.Get("Content-Type") != "application/wasm" || !strings.Contains(hd.Get("Cache-Control"), "immutable") {
		t.Errorf("%s: %d, headers %v", menu.Lessons[0].Module, code, hd)
	}
	for _, page := range []string{"/errata.html", "/lessons/rates.html"} {
		if code, _, _ := call(t, "GET", base+page, ""); code != 200 {
			t.Errorf("%s: %d", page, code)
		}
	}
}

// classAtTheEdge runs a class on the Worker, its store the local D1: a
// teacher creates it, two students join and answer (one resends an answer
// whose reply it lost), each reads only their own work, the dashboard
// counts both, and the gradebook is the one uldp class export writes for
// the same answers kept in SQLite. Hostile requests are refused in JSON.
func classAtTheEdge(t *testing.T, base, cli string) {
	// send asks the Worker as a student (cookie) or a teacher.
	send := func(method, path, cookie, teacher, body string) (int, string, http.Header) {
		t.Helper()
		req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
		if method == "POST" {
			req.Header.Set("Content-Type", "application/json")
		}
		if cookie != "" {
			req.Header.Set("Cookie", cookie)
		}
		if teacher != "" {
			req.Header.Set("Authorization", "Bearer "+teacher)
		}
		res, err := (&http.Client{Timeout: time.Minute}).Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b), res.Header
	}
	post := func(path, cookie, body string) (int, string, http.Header) {
		return send("POST", path, cookie, "", body)
	}
	get := func(path, cookie, teacher string) (int, string, http.Header) {
		return send("GET", path, cookie, teacher, "")
	}
	code, body, _ := post("/api/class", "", `{"title": "At the edge", "pack": "builtin"}`)
	var created struct{ Code, Teacher string }
	if code != 201 || json.Unmarshal([]byte(body), &created) != nil || created.Code == "" {
		t.Fatalf("create: %d %s", code, body)
	}
	cookies := map[string]string{}
	for _, name := range []string{"Ada", "Bob"} {
		code, body, hd := post("/api/class/join", "", `{"code": "`+created.Code+`", "name": "`+name+`"}`)
		ck := hd.Get("Set-Cookie")
		if code != 200 || !strings.Contains(body, `"student":"`+name+`"`) || !strings.Contains(ck, "HttpOnly") || !strings.Contains(ck, "SameSite=Strict") {
			t.Fatalf("%s joins: %d %s, cookie %q", name, code, body, ck)
		}
		cookies[name], _, _ = strings.Cut(ck, ";")
	}
	answers := map[string]string{"Ada": "1", "Bob": "0"}
	for _, name := range []string{"Ada", "Bob", "Ada"} { // Ada's again: a resent request
		code, body, _ := post("/api/class/answer", cookies[name], `{"id": "user-level-ratio", "answer": `+answers[name]+`, "request": "r1", "spent": 20000}`)
		if code != 200 || !strings.Contains(body, `"final":true`) {
			t.Errorf("%s answers: %d %s", name, code, body)
		}
	}
	if code, body, _ := get("/api/class/me", cookies["Bob"], ""); code != 200 || strings.Contains(body, "Ada") || !strings.Contains(body, `"user-level-ratio":{"tries":1,"correct":false`) {
		t.Errorf("Bob's progress: %d %.300s", code, body)
	}
	code, body, _ = get("/api/class/dashboard", "", created.Teacher)
	if code != 200 || !strings.Contains(body, `"answers":2`) || !strings.Contains(body, `"wrong":[{"answer":"they are equal","students":1}]`) {
		t.Errorf("dashboard: %d %.400s", code, body)
	}
	code, edge, hd := get("/api/class/gradebook", "", created.Teacher)
	if code != 200 || !strings.HasPrefix(hd.Get("Content-Type"), "text/csv") {
		t.Fatalf("gradebook: %d %s", code, edge)
	}
	// The same class natively: the CSVs agree.
	db := filepath.Join(t.TempDir(), "class.db")
	out, err := exec.Command(cli, "class", "create", "--db", db, "--title", "Native").Output()
	var nativeClass struct{ Code string }
	if err != nil || json.Unmarshal(out, &nativeClass) != nil {
		t.Fatalf("uldp class create: %v %s", err, out)
	}
	native := storeAnswers(t, cli, db, nativeClass.Code, answers)
	if edge != native {
		t.Errorf("the Worker's gradebook\n%s\nuldp class export's\n%s", edge, native)
	}
	// Ada's key with its last character changed, to another one.
	forgedAda := cookies["Ada"][:len(cookies["Ada"])-1] + map[bool]string{false: "Q", true: "R"}[strings.HasSuffix(cookies["Ada"], "Q")]
	for _, c := range []struct {
		method, path, cookie, body string
		code                       int
		want                       string
	}{
		{"POST", "/api/class/join", "", `{"code": "AAAA-AAAA", "name": "Eve"}`, 404, "no class"},
		{"POST", "/api/class/join", "", `{"code": "` + created.Code + `", "name": "` + strings.Repeat("x", 300) + `"}`, 400, "student"},
		{"POST", "/api/class/join", "", `{"code": "` + created.Code + `", "name": "Robert'); DROP TABLE students;--"}`, 200, "DROP TABLE"},
		{"POST", "/api/class/join", "", `{"code": "` + created.Code + `", "name": "Ada"}`, 409, "that name"},
		{"POST", "/api/class/answer", "", `{"id": "user-level-ratio", "answer": 1, "request": "x", "spent": 1}`, 401, "not joined"},
		{"POST", "/api/class/answer", forgedAda, `{"id": "user-level-ratio", "answer": 1, "request": "x", "spent": 1}`, 401, "names no student"},
		{"POST", "/api/class/answer", cookies["Bob"], `{"id": "user-level-ratio", "answer": 1, "request": "r2", "spent": 1}`, 409, "final"},
		{"GET", "/api/class/dashboard", "", "", 401, "teacher token"},
	} {
		code, body, hd := send(c.method, c.path, c.cookie, "", c.body)
		if code != c.code || !strings.Contains(body, c.want) || hd.Get("Content-Security-Policy") == "" {
			t.Errorf("%s %s %.60s: %d %s, want %d saying %q", c.method, c.path, c.body, code, body, c.code, c.want)
		}
	}
}

// storeAnswers answers as the Worker's students did, on a native server
// keeping db, and returns the class's export.
func storeAnswers(t *testing.T, cli, db, code string, answers map[string]string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	srv := exec.Command(cli, "serve", "--addr", addr, "--class-db", db)
	srv.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { syscall.Kill(-srv.Process.Pid, syscall.SIGKILL); srv.Wait() }()
	base := "http://" + addr
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		if res, err := http.Get(base + "/api/health"); err == nil {
			res.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("uldp serve did not answer within a minute")
		}
	}
	for _, name := range []string{"Ada", "Bob"} {
		res, err := http.Post(base+"/api/class/join", "application/json", strings.NewReader(`{"code": "`+code+`", "name": "`+name+`"}`))
		if err != nil || res.StatusCode != 200 {
			t.Fatalf("native join: %v %v", err, res)
		}
		res.Body.Close()
		req, _ := http.NewRequest("POST", base+"/api/class/answer", strings.NewReader(`{"id": "user-level-ratio", "answer": `+answers[name]+`, "request": "r1", "spent": 20000}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Cookie", strings.Split(res.Header.Get("Set-Cookie"), ";")[0])
		if res, err := http.DefaultClient.Do(req); err != nil || res.StatusCode != 200 {
			t.Fatalf("native answer: %v %v", err, res)
		} else {
			res.Body.Close()
		}
	}
	out, err := exec.Command(cli, "class", "export", "--db", db, "--code", code).Output()
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// The Worker's program within Cloudflare's old free-plan limit of 3 MiB
// after compression (wrangler reports it gzipped): the class store added
// database/sql, and SQLite must stay out of it.
func TestWorkerSize(t *testing.T) {
	b, err := os.ReadFile("build/app.wasm")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI needs the Worker's build (make worker-build): %v", err)
		}
		t.Skip("needs the Worker's build (make worker-build)")
	}
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	w.Write(b)
	w.Close()
	const limit = 3 << 20
	t.Logf("build/app.wasm: %.2f MiB, %.2f MiB gzip (limit %d MiB)", float64(len(b))/(1<<20), float64(z.Len())/(1<<20), limit>>20)
	if z.Len() > limit {
		t.Errorf("the Worker is %d bytes gzip, over %d", z.Len(), limit)
	}
	if bytes.Contains(b, []byte("modernc.org/sqlite")) {
		t.Error("the Worker links SQLite: only the native server may (site/class/sqlite)")
	}
}

// startWrangler runs wrangler dev on a free loopback port until the test
// ends, and returns its address once the Worker answers.
func startWrangler(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	// The classes' D1, local (SQLite under workerd), fresh for the test:
	// its schema applied by wrangler from the store's migrations, as on
	// Cloudflare.
	env := append(os.Environ(), "WRANGLER_SEND_METRICS=false", "CI=true", "NO_COLOR=1")
	state := t.TempDir()
	migrate := exec.Command("npx", "wrangler", "d1", "migrations", "apply", "CLASSES", "--local", "--persist-to", state)
	migrate.Env = env
	if out, err := migrate.CombinedOutput(); err != nil || !bytes.Contains(out, []byte("0001_classes.sql")) {
		t.Fatalf("applying the classes' schema to the local D1: %v\n%s", err, out)
	}
	var log bytes.Buffer
	cmd := exec.Command("npx", "wrangler", "dev", "--ip", "127.0.0.1", "--port", fmt.Sprint(port), "--inspector-port", "0", "--persist-to", state)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = &log, &log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its workerd children go with it
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		cmd.Wait()
		if t.Failed() {
			t.Logf("wrangler's output:\n%s", log.String())
		}
	})
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	// A deadline, not a sleep: wrangler starts workerd and compiles the
	// Worker, seconds on a busy machine.
	deadline := time.Now().Add(3 * time.Minute)
	for time.Now().Before(deadline) {
		res, err := http.Get(base + "/api/health")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return base
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("wrangler dev did not answer on %s within 3 minutes", base)
	return ""
}

func call(t *testing.T, method, url, body string) (int, string, http.Header) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	res, err := (&http.Client{Timeout: time.Minute}).Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b), res.Header
}

func sameJSON(t *testing.T, a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func exists(name string) bool { _, err := os.Stat(name); return err == nil }
