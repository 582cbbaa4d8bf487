package viz

import "testing"

// remoteScene is a workScene another copy can compute for: its outcome is
// the ticks left.
type remoteScene struct{ *workScene }

func (r *remoteScene) RemoteKey() string {
	if r.Busy() {
		return "run"
	}
	return ""
}
func (r *remoteScene) Outcome() ([]byte, bool) { return []byte{byte(r.left)}, !r.Busy() }
func (r *remoteScene) Adopt(key string, data []byte, done bool) error {
	r.left = int(data[0])
	if done {
		r.left, r.run = 0, &r.stepScene.player
	}
	return nil
}

// Held, the scene's ticks wait for the other copy; its outcomes show, a
// finished one ends the computation (and a key pressed meanwhile acts),
// and a scene that computes nothing elsewhere refuses outcomes.
func TestHoldAndAdopt(t *testing.T) {
	r := &remoteScene{&workScene{stepScene: newStepScene(t, 5), left: 3, run: &Player{}}}
	a := NewApp(r, newDragScene())
	if a.RemoteKey() != "run" {
		t.Fatalf("remote key %q while computing", a.RemoteKey())
	}
	a.Hold("run")
	a.Key("End")
	for range 5 {
		a.Tick(1.0 / 60)
	}
	if r.left != 3 {
		t.Fatalf("held, the scene ticked: %d ticks left of 3", r.left)
	}
	if err := a.Adopt("other", []byte{1}, false); err == nil {
		t.Error("an outcome for another computation was adopted")
	}
	if err := a.Adopt("run", []byte{1}, false); err != nil || r.left != 1 || !a.Busy() {
		t.Fatalf("a partial outcome: %v; %d left, busy %v", err, r.left, a.Busy())
	}
	if err := a.Adopt("run", []byte{0}, true); err != nil {
		t.Fatal(err)
	}
	if a.Busy() || a.RemoteKey() != "" || a.away != "" {
		t.Error("a finished outcome left the app computing or holding")
	}
	a.Tick(1.0 / 60)
	if got := r.stepScene.player.Stepper().Pos(); got != 5 {
		t.Errorf("End pressed while held left the stepper at %d, want its end (5)", got)
	}
	// Released, it computes itself.
	r2 := &remoteScene{&workScene{stepScene: newStepScene(t, 5), left: 3, run: &Player{}}}
	b := NewApp(r2)
	b.Hold("run")
	b.Hold("")
	b.Tick(1.0 / 60)
	if r2.left != 2 {
		t.Errorf("released, the scene did not tick: %d left", r2.left)
	}
	if data, _ := b.Outcome(); len(data) != 1 {
		t.Errorf("outcome %v", data)
	}
	// Settling computes here, held or not.
	b.Hold("run")
	b.Settle()
	if b.Busy() || r2.left != 0 {
		t.Errorf("a held app did not settle: %d left", r2.left)
	}
	c := NewApp(newDragScene())
	if data, _ := c.Outcome(); data != nil {
		t.Error("a scene that computes nothing elsewhere gave an outcome")
	}
	if err := c.Adopt("run", nil, true); err == nil {
		t.Error("a scene that computes nothing elsewhere adopted an outcome")
	}
}
