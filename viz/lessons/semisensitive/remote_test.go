package semisensitive

import (
	"errors"
	"strings"
	"testing"

	"github.com/uldplab/uldp/core/semisens"
	"github.com/uldplab/uldp/core/trace"
	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/internal/scenetest"
	"github.com/uldplab/uldp/viz/internal/wire"
	"github.com/uldplab/uldp/viz/internal/wiretest"
)

// remoteStates are runs of every shape: the default's, one that fails
// (FAIL: every update spent), one with a changed value, a strongly convex
// one, a non-private one.
var remoteStates = []string{
	"scene=semi-sensitive&n=500&steps=20",
	"scene=semi-sensitive&n=500&steps=30&lmax=2&tau=0.005",
	"scene=semi-sensitive&n=600&k=5&steps=20&moved=3=2",
	"scene=semi-sensitive&n=500&steps=20&mu=0.2&dpub=7",
	"scene=semi-sensitive&n=500&steps=20&mode=non-private",
}

// open restores state in a fresh copy of the lesson, its run asked for.
func open(t *testing.T, state string) *viz.App {
	t.Helper()
	a := scenetest.Restored(t, New(), state)
	if a.RemoteKey() == "" {
		t.Fatalf("%s: no run to hand out", state)
	}
	return a
}

// local is state's run computed here.
func local(t *testing.T, state string) *viz.App {
	t.Helper()
	a := open(t, state)
	a.Settle()
	return a
}

// sendAll gives page every outcome of worker's finished run.
func sendAll(t *testing.T, page, worker *viz.App, key string) {
	t.Helper()
	for done := false; !done; {
		var data []byte
		data, done = worker.Outcome()
		if err := page.Adopt(key, data, done); err != nil {
			t.Fatal(err)
		}
	}
}

// sameView compares what the page's copy shows with the run computed
// here, field by field: all but the examples, which a run adopted leaves
// with the worker, and the stage, which names the work while it is done.
func sameView(t *testing.T, state string, page, here *viz.App) {
	t.Helper()
	p, l := page.Scene().(*Scene).view, here.Scene().(*Scene).view
	type part = scenetest.Part
	scenetest.SameRun(t, state, page, here, part{What: "the settings", Got: p.cfg, Want: l.cfg},
		part{What: "the parameters", Got: p.params, Want: l.params}, part{What: "the true values", Got: p.truth, Want: l.truth},
		part{What: "the dimension", Got: p.dim, Want: l.dim}, part{What: "the rows", Got: p.rows, Want: l.rows},
		part{What: "the beliefs", Got: p.snaps, Want: l.snaps}, part{What: "the updates seen", Got: p.seen, Want: l.seen},
		part{What: "the game", Got: p.game, Want: l.game}, part{What: "the result", Got: p.res, Want: l.res},
		part{What: "the trace", Got: p.run, Want: l.run}, part{What: "the queries", Got: p.queries, Want: l.queries},
		part{What: "the error", Got: p.err, Want: l.err}, part{What: "the stepper's trace", Got: p.st.Trace(), Want: l.st.Trace()})
}

// A copy of the lesson that adopts another copy's run shows what it would
// have computed itself, having computed none of it, and reads the run a
// slice at a time; its progress meanwhile is the other copy's.
func TestSemiSensRunComputedElsewhere(t *testing.T) {
	scenetest.FakeClock(t)
	for _, state := range remoteStates {
		page, worker := open(t, state), open(t, state)
		key := page.RemoteKey()
		if key != worker.RemoteKey() {
			t.Fatalf("%s: keys %q and %q: a copy restored to the page's state must name the same run", state, key, worker.RemoteKey())
		}
		page.Hold(key)
		for range 20 {
			page.Tick(1.0 / 60)
		}
		if s := page.Scene().(*Scene); s.bg.Busy() || !s.pending {
			t.Fatalf("%s: the page started a run held elsewhere", state)
		}
		for range 3 {
			worker.Tick(0)
		}
		data, done := worker.Outcome()
		if done {
			t.Fatalf("%s: the outcome of a run under way says it is done", state)
		}
		if err := page.Adopt(key, data, false); err != nil {
			t.Fatal(err)
		}
		wf, ws := worker.Scene().(*Scene).progress()
		if r, ok := scenetest.Readout(page, "computing"); !ok || !strings.HasPrefix(r.Text, ws+", ") || r.Value != wire.Computed(wf) || !(wf > 0) {
			t.Errorf("%s: the page says %q (%v), the worker has done %.2f of %q", state, r.Text, r.Value, wf, ws)
		}
		worker.Settle()
		sendAll(t, page, worker, key)
		s := page.Scene().(*Scene)
		if page.RemoteKey() != "" || !s.remote.Decoding {
			t.Fatalf("%s: after the last part the page names %q, reading %v", state, page.RemoteKey(), s.remote.Decoding)
		}
		if r, _ := scenetest.Readout(page, "computing"); !strings.HasPrefix(r.Text, "preparing the figure, 95%") {
			t.Errorf("%s: reading the adopted run, the panel says %q", state, r.Text)
		}
		slices := 0
		for ; s.Busy(); slices++ {
			page.Tick(1.0 / 60)
		}
		if s.remote.FellBack || slices == 0 || s.view.data != nil {
			t.Fatalf("%s: the adopted run was computed here (fell back %v, examples %v) or not read a slice at a time (%d slices)",
				state, s.remote.FellBack, s.view.data != nil, slices)
		}
		sameView(t, state, page, local(t, state))
	}
}

// encoded is the run a's lesson shows, as a copy computing it sends it.
func encoded(a *viz.App) []byte {
	return wiretest.Finished(nil, a.Scene().(*Scene).view.encode)
}

// An outcome for another run is refused; a run corrupt anywhere (a length
// made huge or small, four bytes left out) is read or computed here
// without a panic, and the page ends on a run it can draw (a changed
// number reads as another run: nothing tells it from one); a run cut
// short is computed here, the run computed here; a refusal computed
// elsewhere is shown as if computed here.
func TestSemiSensRunElsewhereRefused(t *testing.T) {
	scenetest.FakeClock(t)
	state := remoteStates[1]
	worker := local(t, state)
	page := open(t, state)
	key := page.RemoteKey()
	if page.Adopt(key+" ", wiretest.Last([]byte{0}), true) == nil {
		t.Error("an outcome for another run was adopted")
	}
	here := local(t, state)
	run := encoded(worker)
	grow := 1.0
	if testing.Short() {
		grow = 3
	}
	for at := 1; at+4 <= len(run); at += 1 + int(grow*float64(at)) {
		for _, bad := range [][]byte{
			append(append([]byte(nil), run[:at]...), run[at+4:]...),
			append(append(append([]byte(nil), run[:at]...), 0xfe, 0xff, 0xff, 0xff), run[at+4:]...),
			append(append(append([]byte(nil), run[:at]...), 0x07, 0, 0, 0), run[at+4:]...),
		} {
			page := open(t, state)
			page.Hold(key)
			if err := page.Adopt(key, wiretest.Last(bad), true); err != nil {
				t.Fatalf("byte %d: %v", at, err)
			}
			page.Settle()
			scenetest.Seen(page)
		}
	}
	page = open(t, state)
	page.Hold(key)
	if err := page.Adopt(key, wiretest.Last(run[:len(run)/2]), true); err != nil {
		t.Fatal(err)
	}
	page.Settle()
	if !page.Scene().(*Scene).remote.FellBack {
		t.Error("a run cut short was not computed here")
	}
	sameView(t, state+" (cut short)", page, here)

	page = local(t, remoteStates[0])
	if err := page.Restore(state); err != nil {
		t.Fatal(err)
	}
	page.Hold(key)
	if err := page.Adopt(key, wiretest.Last(wiretest.Finished(errors.New("the worker refused this"), nil)), true); err != nil {
		t.Fatal(err)
	}
	s := page.Scene().(*Scene)
	if s.Busy() || s.cfg.steps != 20 {
		t.Errorf("after a refusal adopted: busy %v, the settings of %d queries shown", s.Busy(), s.cfg.steps)
	}
	if r, ok := scenetest.Readout(page, "refused"); !ok || r.Text != "the worker refused this" {
		t.Errorf("the refusal reads %+v", r)
	}
}

// A run changed so that it parses but the figure cannot read it (a vector
// of another dimension, a beliefs' snapshot missing) is computed here.
func TestSemiSensUnsoundRunComputedHere(t *testing.T) {
	scenetest.FakeClock(t)
	state := remoteStates[0]
	here := local(t, state)
	for what, cut := range map[string]func(v *semiView){
		"an update's direction":   cutUpdate,
		"a snapshot of beliefs":   func(v *semiView) { v.snaps = v.snaps[:len(v.snaps)-1] },
		"an update seen":          func(v *semiView) { v.seen = v.seen[:len(v.seen)-1] },
		"the model":               func(v *semiView) { v.res.Problems[0].Private.W = v.res.Problems[0].Private.W[1:] },
		"a point of a curve":      func(v *semiView) { v.res.Problems[0].Curves.RR.Excess = v.res.Problems[0].Curves.RR.Excess[1:] },
		"a true value beyond k":   func(v *semiView) { v.truth[3] = v.cfg.k },
		"a histogram of one bin":  func(v *semiView) { v.seen[0].hist = v.seen[0].hist[:1] },
		"updates beyond the paid": func(v *semiView) { v.res.Updates = v.cfg.lmax + 1 },
	} {
		w := local(t, state)
		v := &w.Scene().(*Scene).view
		if v.res.Updates == 0 {
			t.Fatal("the run made no update: the test needs one")
		}
		cut(v)
		page := open(t, state)
		key := page.RemoteKey()
		page.Hold(key)
		if err := page.Adopt(key, wiretest.Last(encoded(w)), true); err != nil {
			t.Fatal(err)
		}
		page.Settle()
		if !page.Scene().(*Scene).remote.FellBack {
			t.Errorf("a run with %s changed was adopted", what)
		}
		sameView(t, state+" ("+what+")", page, here)
	}
}

// cutUpdate shortens the first update's direction in the trace.
func cutUpdate(v *semiView) {
	for i, st := range v.run.Steps {
		if u, ok := st.Data.(semisens.UpdateStep); ok {
			u.Phi = u.Phi[1:]
			v.run.Steps[i].Data = u
			return
		}
	}
}

// The views chosen while a run computes, here or elsewhere, are the ones
// the run shows once done.
func TestSemiSensViewsChosenWhileComputing(t *testing.T) {
	scenetest.FakeClock(t)
	for _, elsewhere := range []bool{false, true} {
		page := open(t, remoteStates[0])
		key := page.RemoteKey()
		if elsewhere {
			page.Hold(key)
			sendAll(t, page, local(t, remoteStates[0]), key)
		}
		if !elsewhere {
			page.Tick(1.0 / 60) // the run computing (one read is under way once adopted)
		}
		if s := page.Scene().(*Scene); !s.bg.Busy() || s.remote.Decoding != elsewhere {
			t.Fatalf("computed elsewhere %v: the run is not under way (reading %v)", elsewhere, s.remote.Decoding)
		}
		for _, kv := range [][2]string{{"panel", "scores"}, {"lower", "training"}, {"reveal", "false"}} {
			if err := page.Set(kv[0], kv[1]); err != nil {
				t.Fatal(err)
			}
		}
		page.Settle()
		if c := page.Scene().(*Scene).view.cfg; c.panel != "scores" || c.lower != "training" || c.reveal {
			t.Errorf("computed elsewhere %v: the run shows panel %q, lower %q, reveal %v", elsewhere, c.panel, c.lower, c.reveal)
		}
	}
}

// The fewest bytes the reader counts on per element are what the smallest
// element takes: larger, and valid runs would be refused.
func TestSemiSensElementSizes(t *testing.T) {
	size := func(encode func(w *wire.Writer)) int {
		var w wire.Writer
		encode(&w)
		return len(w.B)
	}
	for _, c := range []struct {
		what      string
		got, want int
	}{
		{"a FAIL step", size(func(w *wire.Writer) { encodeStep(w, trace.Step{Kind: semisens.KindFail, Data: 3}) }), minStepBytes},
		{"an update seen", size(func(w *wire.Writer) { encodeSeen(w, semiSeen{}) }), minSeenBytes},
		{"a part", size(func(w *wire.Writer) { encodePart(w, semisens.ConditionPart{}) }), minPartBytes},
		{"a problem", size(func(w *wire.Writer) { encodeProblem(w, semisens.Problem{}) }), minProblemBytes},
	} {
		if c.got != c.want {
			t.Errorf("%s with nothing in it takes %d bytes; the reader counts on %d", c.what, c.got, c.want)
		}
	}
	// Every other step is at least as long.
	for _, st := range local(t, remoteStates[1]).Scene().(*Scene).view.run.Steps {
		if n := size(func(w *wire.Writer) { encodeStep(w, st) }); n < minStepBytes {
			t.Fatalf("a %s step of %d bytes", st.Kind, n)
		}
	}
}

// A run whose η the lesson derived (a larger c takes η down to 1/c) is one
// a copy restored to the page's state computes too: η takes a value the
// link carries exactly.
func TestSemiSensDerivedEtaHandedOut(t *testing.T) {
	for _, c := range []string{"1.5", "3", "2.5"} {
		page := viz.NewApp(New())
		page.Settle()
		if err := page.Set("c", c); err != nil {
			t.Fatal(err)
		}
		worker := viz.NewApp(New())
		if err := worker.Restore(page.State()); err != nil {
			t.Fatalf("c = %s: the worker refuses the page's state %q: %v", c, page.State(), err)
		}
		if k := page.RemoteKey(); k == "" || worker.RemoteKey() != k {
			t.Errorf("c = %s: the page names %q, the worker restored to its state %q", c, k, worker.RemoteKey())
		}
	}
}
