package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/uldplab/uldp/site/class"
	"github.com/uldplab/uldp/site/class/sqlite"
	"github.com/uldplab/uldp/viz/classroom"
)

// triesPack has choice exercises a student may answer ten times each:
// answers graded without a lesson run, so a test can send many.
func triesPack(t *testing.T, exercises int) string {
	t.Helper()
	var xs []string
	for i := range exercises {
		xs = append(xs, fmt.Sprintf(`{"id": "q%d", "lesson": "calibration", "kind": "choice", "question": "Question %d?",
			"answer": {"choices": ["a", "b", "c"], "correct": 2}, "explanation": "c, because."}`, i, i))
	}
	path := filepath.Join(t.TempDir(), "pack.json")
	pack := `{"version": 1, "title": "Ten tries", "tries": 10, "exercises": [` + strings.Join(xs, ",") + `]}`
	if err := os.WriteFile(path, []byte(pack), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// createClass runs uldp class create and returns the code and the
// teacher's token.
func createClass(t *testing.T, db string, args ...string) (string, string) {
	t.Helper()
	r := uldp(t, append([]string{"class", "create", "--db", db, "--title", "DP 101"}, args...)...)
	if r.code != 0 {
		t.Fatalf("class create: %d %s", r.code, r.stderr)
	}
	var out struct{ Code, Teacher string }
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || out.Code == "" || out.Teacher == "" {
		t.Fatalf("class create printed %s (%v)", r.stdout, err)
	}
	return out.Code, out.Teacher
}

func TestClassCommands(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "class.db")
	code, _ := createClass(t, db, "--pack", triesPack(t, 2))
	// The export of a class nobody joined is its header.
	r := uldp(t, "class", "export", "--db", db, "--code", strings.ToLower(code))
	if r.code != 0 || strings.TrimSpace(r.stdout) != "student,file,q0,q1,score,total,error" {
		t.Errorf("export: %d %q %s", r.code, r.stdout, r.stderr)
	}
	text := uldp(t, "class", "create", "--db", db, "--title", "Text", "--format", "text")
	if text.code != 0 || !strings.Contains(text.stdout, "Join code for students:") || !strings.Contains(text.stdout, "uldp serve --class-db "+db) {
		t.Errorf("text: %d %s %s", text.code, text.stdout, text.stderr)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"class"}, "give what to do"},
		{[]string{"class", "drop"}, "give what to do"},
		{[]string{"class", "create", "--db", db}, "missing --title"},
		{[]string{"class", "create", "--title", "x"}, "missing --db"},
		{[]string{"class", "create", "--db", db, "--title", ""}, "title"},
		{[]string{"class", "create", "--db", db, "--title", "a\nb"}, "control character"},
		{[]string{"class", "create", "--db", db, "--title", "x", "--pack", filepath.Join(dir, "none.json")}, "none.json"},
		{[]string{"class", "create", "--db", filepath.Join(dir, "no", "class.db"), "--title", "x"}, "does not exist"},
		{[]string{"class", "create", "--db", dir, "--title", "x"}, "cannot open"},
		{[]string{"class", "export", "--db", filepath.Join(dir, "other.db"), "--code", code}, "no such database"},
		{[]string{"class", "export", "--db", db, "--code", "AAAA-AAAA"}, "no class"},
		{[]string{"class", "export", "--db", db, "--code", code, "--format", "xml"}, "--format"},
	} {
		r := uldp(t, c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%q: exit %d, %q; want 2 and %q", c.args, r.code, r.stderr, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "other.db")); err == nil {
		t.Error("export made a database it did not find")
	}
	if r := uldp(t, "serve", "--class-db", filepath.Join(dir, "no", "class.db")); r.code != 2 || !strings.Contains(r.stderr, "--class-db") {
		t.Errorf("serve with a class database it cannot make: %d %s", r.code, r.stderr)
	}
}

// student is one simulated student: a cookie jar, and the submissions
// the server acknowledged and those still to send.
type student struct {
	name    string
	client  *http.Client
	acked   map[string]bool // request ids the server answered
	pending []submission    // still to send, in order (one lost to a kill is sent again, same id)
}

type submission struct{ id, request string }

// answer sends s's next submission; it reports whether the server
// answered it, whether it had stored it before (sent again after a kill
// that fell between its commit and its answer), and a failure other than
// the server being gone.
func (s *student) answer(base string, sub submission, choice int) (ok, before bool, err error) {
	body := fmt.Sprintf(`{"id": %q, "answer": %d, "request": %q, "spent": 1000}`, sub.id, choice, sub.request)
	res, err := s.client.Post(base+"api/class/answer", "application/json", strings.NewReader(body))
	if err != nil {
		return false, false, nil // the server died: sent again after the restart
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return false, false, nil // died while answering: not acknowledged
	}
	if res.StatusCode != http.StatusOK {
		return false, false, fmt.Errorf("%s %s: %d %s", s.name, sub.request, res.StatusCode, b)
	}
	var v struct {
		ID     string `json:"id"`
		Try    int    `json:"try"`
		Stored bool   `json:"stored"`
	}
	if err := json.Unmarshal(b, &v); err != nil || v.ID != sub.id || v.Try < 1 {
		return false, false, fmt.Errorf("%s %s: answered %s (%v)", s.name, sub.request, b, err)
	}
	return true, !v.Stored, nil
}

// Nothing acknowledged is lost: students submit on loopback while the
// server is killed with SIGKILL and restarted, again and again; afterwards
// every submission the server answered is in the store, once, and a
// submission sent again after a kill (same request id) is never stored
// twice. Each kill falls while answers are in flight: it comes once a
// round has acknowledged its share, not after a fixed time.
func TestClassSurvivesKill(t *testing.T) {
	if testing.Short() {
		t.Skip("restarts the server five times under load")
	}
	const (
		students, exercises, tries = 16, 4, 10
		kills                      = 4
	)
	db := filepath.Join(t.TempDir(), "class.db")
	code, teacher := createClass(t, db, "--pack", triesPack(t, exercises))
	var all []*student
	for i := range students {
		jar, _ := cookiejar.New(nil)
		s := &student{name: fmt.Sprintf("student-%02d", i), client: &http.Client{Jar: jar, Timeout: 30 * time.Second}, acked: map[string]bool{}}
		// Wrong, wrong, …, then right on the last try: every try stored.
		for x := range exercises {
			for try := range tries {
				s.pending = append(s.pending, submission{fmt.Sprint("q", x), fmt.Sprintf("%s-q%d-t%d", s.name, x, try)})
			}
		}
		all = append(all, s)
	}
	total := students * exercises * tries
	perRound := total / (kills + 1)
	acked, cutOff, storedBefore := 0, 0, 0
	for round := 0; round <= kills; round++ {
		base, cmd := serveForTest(t, "--class-db", db)
		if round == 0 {
			for _, s := range all {
				body := fmt.Sprintf(`{"code": %q, "name": %q}`, code, s.name)
				res, err := s.client.Post(base+"api/class/join", "application/json", strings.NewReader(body))
				if err != nil || res.StatusCode != 200 {
					t.Fatalf("%s could not join: %v %v", s.name, err, res)
				}
				res.Body.Close()
			}
		}
		// The students submit at once; the round's last acknowledgement
		// kills the server (not the last round's).
		var mu sync.Mutex
		roundAcks := 0
		killed := make(chan struct{})
		var once sync.Once
		var wg sync.WaitGroup
		for _, s := range all {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for len(s.pending) > 0 {
					select {
					case <-killed:
						return
					default:
					}
					sub := s.pending[0]
					try := int(sub.request[len(sub.request)-1] - '0')
					choice := 0
					if try == tries-1 {
						choice = 2
					}
					ok, before, err := s.answer(base, sub, choice)
					if err != nil {
						t.Error(err)
						return
					}
					if !ok {
						// The server is gone: sent again next round.
						mu.Lock()
						cutOff++
						mu.Unlock()
						return
					}
					mu.Lock()
					s.acked[sub.request] = true
					s.pending = s.pending[1:]
					acked++
					roundAcks++
					if before {
						storedBefore++
					}
					if round < kills && roundAcks >= perRound {
						once.Do(func() { killGroup(cmd); close(killed) })
					}
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if t.Failed() {
			return
		}
		if round < kills {
			select {
			case <-killed:
			default:
				t.Fatalf("round %d ended with %d acknowledged and no kill", round, roundAcks)
			}
		}
		killGroup(cmd)
		cmd.Wait()
	}
	// The store, read directly: every acknowledged submission once (the
	// schema's UNIQUE (student, request) keeps a resent one from being
	// stored twice: counted all the same), each student's tries numbered 1
	// to 10 with no gap.
	sdb, err := sqlite.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer sdb.Close()
	store := class.New(sdb)
	c, err := store.ClassByTeacher(context.Background(), teacher)
	if err != nil {
		t.Fatal(err)
	}
	r, err := store.Roster(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	stored := map[string]int{}
	for _, st := range r.Students { // the roster leaves out the request ids
		subs, err := store.Submissions(context.Background(), st)
		if err != nil {
			t.Fatal(err)
		}
		next := map[string]int{}
		for _, sub := range subs {
			stored[sub.Request]++
			if next[sub.Exercise]++; sub.Try != next[sub.Exercise] {
				t.Errorf("%s %s: try %d stored as try %d", st.Name, sub.Exercise, next[sub.Exercise], sub.Try)
			}
		}
	}
	lost, twice := 0, 0
	for _, s := range all {
		for req := range s.acked {
			if stored[req] == 0 {
				lost++
			}
		}
	}
	for req, n := range stored {
		if n > 1 {
			twice++
			t.Errorf("%s stored %d times", req, n)
		}
	}
	t.Logf("%d kills: %d submissions acknowledged, %d stored, %d lost, %d stored twice; %d submissions were cut off by a kill and sent again, %d of them stored before the kill", kills, acked, len(r.Submissions), lost, twice, cutOff, storedBefore)
	if lost > 0 || acked != total || len(r.Submissions) != total {
		t.Errorf("acknowledged %d of %d, stored %d, lost %d", acked, total, len(r.Submissions), lost)
	}
	// The export agrees: every student right on every exercise.
	var out bytes.Buffer
	p, err := classroom.PackOf([]byte(c.Pack))
	if err != nil {
		t.Fatal(err)
	}
	if err := class.Gradebook(p, r).WriteCSV(&out); err != nil {
		t.Fatal(err)
	}
	rows, _ := csv.NewReader(&out).ReadAll()
	if len(rows) != students+1 {
		t.Fatalf("gradebook has %d rows", len(rows))
	}
	for _, row := range rows[1:] {
		if row[len(row)-3] != fmt.Sprint(exercises) {
			t.Errorf("gradebook row %q: score %s, want %d", row, row[len(row)-3], exercises)
		}
	}
}
