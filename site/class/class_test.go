package class_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/uldplab/uldp/site/class"
	"github.com/uldplab/uldp/site/class/sqlite"
	"github.com/uldplab/uldp/site/class/sqlite/sqlitetest"
)

// open is a store in a fresh SQLite file, its clock at a fixed instant
// the test moves by hand.
func open(t *testing.T) (*class.Store, *time.Time) {
	t.Helper()
	s := class.New(sqlitetest.Open(t))
	now := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	s.Now = func() time.Time { return now }
	return s, &now
}

func mustClass(t *testing.T, s *class.Store) (class.Class, string) {
	t.Helper()
	c, teacher, err := s.CreateClass(context.Background(), "DP 101, autumn", "builtin", "192.0.2.1")
	if err != nil {
		t.Fatal(err)
	}
	return c, teacher
}

func mustJoin(t *testing.T, s *class.Store, c class.Class, name string) (class.Student, string) {
	t.Helper()
	st, tok, err := s.Join(context.Background(), c, name, "192.0.2.7")
	if err != nil {
		t.Fatal(err)
	}
	return st, tok
}

func TestClassesAndTokens(t *testing.T) {
	ctx := context.Background()
	s, _ := open(t)
	c, teacher := mustClass(t, s)
	if !strings.HasPrefix(teacher, "u1.") || len(c.Code) != 9 || c.Code[4] != '-' {
		t.Fatalf("teacher token %q, code %q", teacher, c.Code)
	}
	for _, typed := range []string{c.Code, strings.ToLower(c.Code), strings.ReplaceAll(c.Code, "-", ""), " " + c.Code + " "} {
		got, err := s.ClassByCode(ctx, typed)
		if err != nil || got.ID != c.ID || got.Title != "DP 101, autumn" || got.Pack != "builtin" {
			t.Errorf("ClassByCode(%q) = %+v, %v", typed, got, err)
		}
	}
	if got, err := s.ClassByTeacher(ctx, teacher); err != nil || got.ID != c.ID {
		t.Errorf("ClassByTeacher = %+v, %v", got, err)
	}
	ada, adaTok := mustJoin(t, s, c, "Ada")
	if got, gc, err := s.StudentByToken(ctx, adaTok); err != nil || got.ID != ada.ID || got.Name != "Ada" || gc.ID != c.ID {
		t.Errorf("StudentByToken = %+v %+v, %v", got, gc, err)
	}
	// A token is no key to anything else: not the teacher's for a
	// student, not a student's for the teacher, and not with its secret
	// changed in one place, its selector kept.
	other := "A"
	if strings.HasSuffix(adaTok, "A") {
		other = "B"
	}
	forged := adaTok[:len(adaTok)-1] + other
	for _, tok := range []string{forged, teacher, "", "u1.", "u1.x.y", strings.Repeat("u1.", 100), adaTok + "x"} {
		if _, _, err := s.StudentByToken(ctx, tok); !errors.Is(err, class.ErrNotFound) {
			t.Errorf("StudentByToken(%.20q…) = %v, want ErrNotFound", tok, err)
		}
	}
	// The teacher's with its last character changed (^1: always another).
	for _, tok := range []string{adaTok, teacher[:len(teacher)-1] + string(teacher[len(teacher)-1]^1), ""} {
		if _, err := s.ClassByTeacher(ctx, tok); !errors.Is(err, class.ErrNotFound) {
			t.Errorf("ClassByTeacher(%.20q…) = %v, want ErrNotFound", tok, err)
		}
	}
	if _, err := s.ClassByCode(ctx, "AAAA-AAAA"); !errors.Is(err, class.ErrNotFound) {
		t.Errorf("an unknown code: %v", err)
	}
	// A name is the class's once; the same name in another class is
	// another student.
	if _, _, err := s.Join(ctx, c, "Ada", "192.0.2.8"); !errors.Is(err, class.ErrNameTaken) {
		t.Errorf("Ada again: %v, want ErrNameTaken", err)
	}
	c2, _ := mustClass(t, s)
	if ada2, _ := mustJoin(t, s, c2, "Ada"); ada2.ID == ada.ID {
		t.Error("Ada of another class is the same student")
	}
}

func TestNamesAndTitlesRefused(t *testing.T) {
	ctx := context.Background()
	s, _ := open(t)
	c, _ := mustClass(t, s)
	for _, name := range []string{"", " Ada", "Ada\n", "a\tb", strings.Repeat("x", 257), "\xff"} {
		if _, _, err := s.Join(ctx, c, name, "192.0.2.7"); err == nil || errors.Is(err, class.ErrNameTaken) {
			t.Errorf("Join(%q) = %v, want a refusal", name, err)
		}
	}
	// SQL's own characters are a name like any other.
	for _, name := range []string{"Robert'); DROP TABLE students;--", `"; SELECT * FROM classes`, "O'Brien"} {
		st, tok := mustJoin(t, s, c, name)
		if got, _, err := s.StudentByToken(ctx, tok); err != nil || got.Name != name || got.ID != st.ID {
			t.Errorf("%q came back as %+v, %v", name, got, err)
		}
	}
	for _, title := range []string{"", "  ", strings.Repeat("t", class.MaxTitle+1), "a\nb", "\xfe"} {
		if _, _, err := s.CreateClass(ctx, title, "builtin", "192.0.2.1"); err == nil {
			t.Errorf("CreateClass(%q) accepted", title)
		}
	}
}

func answer(t *testing.T, s *class.Store, st class.Student, id, request string, right bool, tries int) (class.Submission, bool, error) {
	t.Helper()
	return s.Submit(context.Background(), st, class.Submission{
		Exercise: id, Request: request, Answer: json.RawMessage(`4.84`), Correct: right,
		Feedback: "feedback of " + request, Variant: "eps=0.7", Spent: 1500 * time.Millisecond,
	}, tries)
}

func TestTriesAndResentRequests(t *testing.T) {
	ctx := context.Background()
	s, now := open(t)
	c, _ := mustClass(t, s)
	ada, _ := mustJoin(t, s, c, "Ada")
	bob, _ := mustJoin(t, s, c, "Bob")

	// Final once checked (1 try): the first answer, wrong, is final.
	if sub, stored, err := answer(t, s, ada, "x1", "r1", false, 1); err != nil || !stored || sub.Try != 1 || sub.Correct || sub.Variant != "eps=0.7" || sub.Spent != 1500*time.Millisecond || !sub.At.Equal(*now) {
		t.Fatalf("first answer: %+v stored=%v %v", sub, stored, err)
	}
	if _, _, err := answer(t, s, ada, "x1", "r2", true, 1); !errors.Is(err, class.ErrFinal) {
		t.Errorf("a second answer with one try: %v, want ErrFinal", err)
	}
	// The same request again is the first answer, not a second.
	if sub, stored, err := answer(t, s, ada, "x1", "r1", true, 1); err != nil || stored || sub.Correct || sub.Feedback != "feedback of r1" {
		t.Errorf("a resent request: %+v stored=%v %v", sub, stored, err)
	}
	// Three tries: wrong, wrong, right is three rows; nothing after a
	// right answer, tries left or not.
	for i, right := range []bool{false, false, true} {
		sub, stored, err := answer(t, s, ada, "x2", fmt.Sprint("t", i), right, 3)
		if err != nil || !stored || sub.Try != i+1 {
			t.Fatalf("try %d: %+v %v %v", i+1, sub, stored, err)
		}
	}
	if _, _, err := answer(t, s, ada, "x3", "u0", true, 3); err != nil {
		t.Fatal(err)
	}
	if _, _, err := answer(t, s, ada, "x3", "u1", true, 3); !errors.Is(err, class.ErrFinal) {
		t.Errorf("an answer after a right one: %v, want ErrFinal", err)
	}
	if a, err := s.Attempted(ctx, ada, "x2"); err != nil || a.Tries != 3 || !a.Right || !a.Final(3) {
		t.Errorf("Attempted(x2) = %+v, %v", a, err)
	}
	if a, err := s.Attempted(ctx, ada, "x4"); err != nil || a.Tries != 0 || a.Right || a.Final(1) {
		t.Errorf("Attempted(x4) = %+v, %v", a, err)
	}
	// Request ids are each student's own: Bob's r1 is his first answer.
	if _, stored, err := answer(t, s, bob, "x1", "r1", true, 1); err != nil || !stored {
		t.Errorf("Bob's r1: stored=%v %v", stored, err)
	}
	for _, req := range []string{"", strings.Repeat("r", class.MaxRequest+1)} {
		if _, _, err := answer(t, s, bob, "x2", req, true, 1); err == nil {
			t.Errorf("request %q accepted", req)
		}
	}
	subs, err := s.Submissions(ctx, ada)
	if err != nil || len(subs) != 5 {
		t.Fatalf("Ada's submissions: %d, %v", len(subs), err)
	}
	r, err := s.Roster(ctx, c)
	if err != nil || len(r.Students) != 2 || len(r.Submissions) != 6 || r.Students[0].Name != "Ada" {
		t.Errorf("roster: %+v, %v", r, err)
	}
}

// TestLastTryRace sends many answers to one exercise at once, each with
// its own request: exactly tries of them are stored, numbered 1 to tries.
func TestLastTryRace(t *testing.T) {
	ctx := context.Background()
	s, _ := open(t)
	c, _ := mustClass(t, s)
	ada, _ := mustJoin(t, s, c, "Ada")
	const tries, racers = 3, 16
	var wg sync.WaitGroup
	var mu sync.Mutex
	stored, final := 0, 0
	for i := range racers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, ok, err := answer(t, s, ada, "x", fmt.Sprint("race", i), false, tries)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case ok:
				stored++
			case errors.Is(err, class.ErrFinal):
				final++
			default:
				t.Errorf("racer %d: %v", i, err)
			}
		}()
	}
	wg.Wait()
	if stored != tries || final != racers-tries {
		t.Errorf("%d stored and %d refused as final, want %d and %d", stored, final, tries, racers-tries)
	}
	subs, _ := s.Submissions(ctx, ada)
	for i, sub := range subs {
		if sub.Try != i+1 {
			t.Errorf("stored try %d is numbered %d", i+1, sub.Try)
		}
	}
}

func TestRateLimits(t *testing.T) {
	ctx := context.Background()
	s, now := open(t)
	for range class.ClassesPerHour {
		if _, _, err := s.CreateClass(ctx, "c", "builtin", "198.51.100.1"); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := s.CreateClass(ctx, "c", "builtin", "198.51.100.1"); !errors.Is(err, class.ErrTooMany) {
		t.Errorf("class %d from one address in an hour: %v, want ErrTooMany", class.ClassesPerHour+1, err)
	}
	if _, _, err := s.CreateClass(ctx, "c", "builtin", "198.51.100.2"); err != nil {
		t.Errorf("another address: %v", err)
	}
	*now = now.Add(time.Hour + time.Millisecond)
	c, _, err := s.CreateClass(ctx, "c", "builtin", "198.51.100.1")
	if err != nil {
		t.Errorf("an hour later: %v", err)
	}
	ada, _ := mustJoin(t, s, c, "Ada")
	for i := range class.AnswersPerMinute {
		if busy, err := s.Busy(ctx, ada); err != nil || busy {
			t.Fatalf("answer %d: busy=%v %v", i, busy, err)
		}
		if _, _, err := answer(t, s, ada, fmt.Sprint("x", i), fmt.Sprint("r", i), true, 1); err != nil {
			t.Fatal(err)
		}
	}
	if busy, err := s.Busy(ctx, ada); err != nil || !busy {
		t.Errorf("after %d answers in a minute: busy=%v %v", class.AnswersPerMinute, busy, err)
	}
	*now = now.Add(time.Minute)
	if busy, _ := s.Busy(ctx, ada); busy {
		t.Error("still busy a minute later")
	}
}

func TestJoinLimits(t *testing.T) {
	if testing.Short() {
		t.Skip("joins a class full: a few seconds")
	}
	ctx := context.Background()
	s, now := open(t)
	c, _ := mustClass(t, s)
	for i := range class.JoinsPer10Min {
		if _, _, err := s.Join(ctx, c, fmt.Sprint("s", i), "203.0.113.9"); err != nil {
			t.Fatal(i, err)
		}
	}
	if _, _, err := s.Join(ctx, c, "late", "203.0.113.9"); !errors.Is(err, class.ErrTooMany) {
		t.Errorf("join %d from one address: %v, want ErrTooMany", class.JoinsPer10Min+1, err)
	}
	for i := class.JoinsPer10Min; i < class.MaxStudents; i++ {
		if _, _, err := s.Join(ctx, c, fmt.Sprint("s", i), fmt.Sprint("203.0.113.", 10+i/500)); err != nil {
			t.Fatal(i, err)
		}
	}
	*now = now.Add(time.Hour)
	if _, _, err := s.Join(ctx, c, "one-too-many", "203.0.113.200"); !errors.Is(err, class.ErrFull) {
		t.Errorf("student %d: %v, want ErrFull", class.MaxStudents+1, err)
	}
}

// An IPv6 subscriber's block counts as one address: its /64.
func TestIPv6CountsByItsBlock(t *testing.T) {
	ctx := context.Background()
	s, _ := open(t)
	for i := range class.ClassesPerHour {
		if _, _, err := s.CreateClass(ctx, "c", "builtin", fmt.Sprintf("2001:db8:1:2::%x", i+1)); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := s.CreateClass(ctx, "c", "builtin", "2001:db8:1:2:ffff::1"); !errors.Is(err, class.ErrTooMany) {
		t.Errorf("another address of the same /64: %v, want ErrTooMany", err)
	}
	if _, _, err := s.CreateClass(ctx, "c", "builtin", "2001:db8:1:3::1"); err != nil {
		t.Errorf("the next /64: %v", err)
	}
}

func TestMigrateTwice(t *testing.T) {
	path := filepath.Join(t.TempDir(), "class.db")
	for range 2 {
		db, err := sqlite.Open(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		var n int
		if err := db.QueryRow(`SELECT COUNT(*) FROM d1_migrations`).Scan(&n); err != nil || n != 1 {
			t.Errorf("%d migrations recorded, %v", n, err)
		}
		db.Close()
	}
}

func TestOpenRefuses(t *testing.T) {
	dir := t.TempDir()
	for _, path := range []string{"", filepath.Join(dir, "missing", "class.db"), dir} {
		if db, err := sqlite.Open(context.Background(), path); err == nil {
			db.Close()
			t.Errorf("Open(%q) accepted", path)
		}
	}
}
