package classroom

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/uldplab/uldp/core/exercise"
	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/lessons"
)

func index(t *testing.T, p *exercise.Pack, id string) int {
	t.Helper()
	for i, e := range p.Exercises {
		if e.ID == id {
			return i
		}
	}
	t.Fatalf("no exercise %s", id)
	return 0
}

// A desktop session: one answer right, one wrong, one by a scripted drag;
// the hand-in it writes resumes to the same score and grades the same with
// the teacher's command.
func TestSession(t *testing.T) {
	p, key := builtinKey(t)
	path := filepath.Join(t.TempDir(), "handin.json")
	s, err := Resume(p, path, "Ada")
	if err != nil || s.Current != 0 {
		t.Fatalf("a new session: %v, at %d", err, s.Current)
	}
	app := viz.NewApp(lessons.All()...)
	app.AddParts(lessons.Parts()...)
	if err := app.Set("n", "7"); err != nil { // explored before: Open forgets it
		t.Fatal(err)
	}
	if err := s.Open(app); err != nil || app.State() != "scene=user-level&"+p.Exercises[0].State {
		t.Fatalf("open: %v, %s", err, app.State())
	}
	if r, err := s.AnswerNumber(key["user-level-sensitivity"].(float64)); err != nil || !r.Correct {
		t.Fatalf("the key: %+v %v", r, err)
	}
	if _, err := s.AnswerNumber(0); err == nil || !strings.Contains(err.Error(), "answered already") {
		t.Errorf("a second answer: %v", err)
	}
	s.Current = 1
	if r, err := s.AnswerChoice(0); err != nil || r.Correct {
		t.Fatalf("a wrong choice: %+v %v", r, err)
	}
	// Drag the stability lesson's far user into the crowd.
	s.Current = index(t, p, "stability-no-removal")
	if r, err := s.AnswerState(app); err == nil {
		t.Fatalf("answered from another lesson: %+v", r)
	}
	if err := s.Open(app); err != nil {
		t.Fatal(err)
	}
	if err := app.Set(viz.CtlEnd, ""); err != nil {
		t.Fatal(err)
	}
	app.Frame(900, 600)
	from, ok1 := app.LastFrame().Locate(14)
	to, ok2 := app.LastFrame().Locate(1)
	if !ok1 || !ok2 {
		t.Fatal("the stability lesson's users are not in its frame")
	}
	app.Event(viz.Event{Kind: viz.PointerDown, X: from.X, Y: from.Y})
	for i := 1; i <= 12; i++ {
		app.Event(viz.Event{Kind: viz.PointerMove, X: from.X + (to.X-from.X)*float64(i)/12, Y: from.Y})
	}
	app.Event(viz.Event{Kind: viz.PointerUp, X: to.X, Y: to.Y})
	if r, err := s.AnswerState(app); err != nil || !r.Correct {
		t.Fatalf("the dragged state: %+v %v (%s)", r, err, app.State())
	}
	if right, answered := s.Score(); right != 2 || answered != 3 {
		t.Errorf("score %d of %d answered, want 2 of 3", right, answered)
	}
	// The file is the progress: resumed, it scores the same, at the first
	// exercise not answered; graded by the teacher, too.
	again, err := Resume(p, path, "")
	if err != nil {
		t.Fatal(err)
	}
	if right, answered := again.Score(); right != 2 || answered != 3 || again.Current != 2 {
		t.Errorf("resumed: %d right of %d answered, at %d", right, answered, again.Current)
	}
	f, _ := os.Open(path)
	h, err := exercise.DecodeHandin(f)
	f.Close()
	if err != nil || h.Student != "Ada" || h.Pack != p.Title {
		t.Fatalf("the hand-in: %+v %v", h, err)
	}
	rep, err := p.Grade(h.Answers, Lab{})
	if err != nil || rep.Score != 2 {
		t.Errorf("the teacher grades the hand-in %d: %v", rep.Score, err)
	}
	if b, _ := os.ReadFile(path); strings.Contains(string(b), `\u0026`) {
		t.Errorf("the hand-in escapes &: %s", b)
	}
	// A hand-in for another pack is refused, saying so.
	other := *p
	other.Title = "Another"
	if _, err := Resume(&other, path, ""); err == nil || !strings.Contains(err.Error(), "for the pack") {
		t.Errorf("another pack's hand-in: %v", err)
	}
}

// A hand-in is resumed under its own student's name only (its answers
// were worked out on that student's numbers), and a name the hand-in could
// not carry is refused before anything is written.
func TestSessionKeepsItsStudent(t *testing.T) {
	p, err := exercise.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	anon := filepath.Join(dir, "anon.json")
	if err := os.WriteFile(anon, []byte(`{"answers": {"user-level-ratio": 1}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Resume(p, anon, "Ada"); err == nil || !strings.Contains(err.Error(), "a student with no name") {
		t.Errorf("an unnamed hand-in with answers resumed as Ada's: %v", err)
	}
	if s, err := Resume(p, anon, ""); err != nil || !s.Answered("user-level-ratio") {
		t.Errorf("the unnamed hand-in resumed as itself: %v", err)
	}
	if _, err := Resume(p, filepath.Join(dir, "new.json"), "Ada\tLovelace"); err == nil {
		t.Error("a name with a tab was taken")
	}
}
