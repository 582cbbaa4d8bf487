package dpsgd

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/uldplab/uldp/core/optim"
	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/internal/scenetest"
	"github.com/uldplab/uldp/viz/internal/wire"
	"github.com/uldplab/uldp/viz/internal/wiretest"
)

// excessBits compares the excess risks by their bits: without a baseline
// its excess is NaN, which DeepEqual holds unequal to itself.
func excessBits(x [2]float64) [2]uint64 {
	return [2]uint64{math.Float64bits(x[0]), math.Float64bits(x[1])}
}

// remoteStates are runs long enough to compute between frames: with each
// baseline, one that halts at the gate, one without smoothing, one
// non-private.
var remoteStates = []string{
	"scene=dp-sgd&n=200&steps=60&eps=4",
	"scene=dp-sgd&n=200&steps=60&baseline=item-level&smoothing=false",
	"scene=dp-sgd&n=200&steps=60&baseline=none&tau=0.01",
	"scene=dp-sgd&n=120&m=3&steps=60&mode=non-private",
}

// open restores state in a fresh copy of the lesson, busy computing it.
func open(t *testing.T, state string) *viz.App {
	t.Helper()
	a := scenetest.Restored(t, New(), state)
	if !a.Scene().(*Scene).Busy() {
		t.Fatalf("%s: computed in the first slice; the test needs a longer run", state)
	}
	return a
}

// A copy of the lesson that adopts another copy's run shows what it would
// have computed itself — the same run, steps, baseline, landscape and
// guarantee — having computed none of it, and reads the run a slice at a
// time; its progress meanwhile is the other copy's.
func TestDPSGDRunComputedElsewhere(t *testing.T) {
	scenetest.FakeClock(t)
	defer func(n int) { outcomePart = n }(outcomePart)
	outcomePart = 64 << 10
	for _, state := range remoteStates {
		page, worker := open(t, state), open(t, state)
		key := page.RemoteKey()
		if key == "" || key != worker.RemoteKey() {
			t.Fatalf("%s: keys %q and %q: a copy restored to the page's state must name the same run", state, key, worker.RemoteKey())
		}
		page.Hold(key)
		for range 20 {
			page.Tick(1.0 / 60)
		}
		if f := page.Scene().(*Scene).job.Fraction(); f != 0 {
			t.Fatalf("%s: the page computed %.0f%% of a run held elsewhere", state, 100*f)
		}
		worker.Tick(0)
		worker.Tick(0)
		data, done := worker.Outcome()
		if done {
			t.Fatalf("%s: the outcome of a run under way says it is done", state)
		}
		if err := page.Adopt(key, data, false); err != nil {
			t.Fatal(err)
		}
		pr, ps := page.Scene().(*Scene).progress()
		wr, ws := worker.Scene().(*Scene).progress()
		if pr != wire.Computed(wr) || ps != ws || !(pr > 0 && pr < 1) {
			t.Errorf("%s: the page shows %.2f of %q done, the worker has done %.2f of %q", state, pr, ps, wr, ws)
		}
		for worker.Scene().(*Scene).Busy() {
			worker.Tick(0)
		}
		// The run in parts of 64 KiB, the last one done.
		parts := 0
		for done = false; !done; parts++ {
			data, done = worker.Outcome()
			if err := page.Adopt(key, data, done); err != nil {
				t.Fatalf("%s: part %d: %v", state, parts+1, err)
			}
			if !done && page.RemoteKey() != key {
				t.Fatalf("%s: after part %d the page names %q", state, parts+1, page.RemoteKey())
			}
			if f, stage := page.Scene().(*Scene).progress(); !done && (stage != wire.Preparing || !(f > wire.Computed(1) && f < wire.Reading(0))) {
				t.Errorf("%s: after part %d the page shows %.2f of %q", state, parts+1, f, stage)
			}
		}
		if want := (len(encoded(worker)) + outcomePart - 1) / outcomePart; parts != want {
			t.Errorf("%s: the run came in %d parts, want %d", state, parts, want)
		}
		if page.RemoteKey() != "" {
			t.Errorf("%s: reading the adopted run, the page names %q for another copy", state, page.RemoteKey())
		}
		// The panel and the bar say what the page does meanwhile.
		if r, ok := scenetest.Readout(page, "computing"); !ok || !strings.HasPrefix(r.Text, "preparing the figure, 95%") ||
			!scenetest.HasText(scenetest.Frame(page), "computing: preparing the figure, 95%") {
			t.Errorf("%s: reading the adopted run, the panel says %q", state, r.Text)
		}
		slices := 0
		for ; page.Scene().(*Scene).Busy(); slices++ {
			page.Tick(1.0 / 60)
		}
		// A slice reads about 48 steps here (six progress reports, one a
		// millisecond): the longer runs take more than one.
		if steps := len(page.Scene().(*Scene).res.Steps); steps > 48 && slices < 2 {
			t.Errorf("%s: the adopted run of %d steps was read in %d slice", state, steps, slices)
		}
		local := viz.NewApp(New())
		if err := local.Restore(state); err != nil {
			t.Fatal(err)
		}
		local.Settle()
		p, l := page.Scene().(*Scene), local.Scene().(*Scene)
		scenetest.SameRun(t, state, page, local, scenetest.Part{What: "the users", Got: p.data, Want: l.data},
			scenetest.Part{What: "θ*", Got: p.best, Want: l.best}, scenetest.Part{What: "the landscape", Got: p.heat, Want: l.heat},
			scenetest.Part{What: "the excess risks", Got: excessBits(p.excess), Want: excessBits(l.excess)},
			scenetest.Part{What: "the run", Got: p.res, Want: l.res}, scenetest.Part{What: "the baseline", Got: p.base, Want: l.base},
			scenetest.Part{What: "the settings", Got: p.settings, Want: l.settings}, scenetest.Part{What: "the trace", Got: p.Trace(), Want: l.Trace()})
	}
}

// The runs of a drag under way, and the localisation's, compute here: they
// follow each other as the pointer moves, and the phases are short. Let
// go, the dragged run is named for another copy, and a copy restored to
// the page's link, which carries the handles to the thousandth, names and
// computes the very same run.
func TestDPSGDDraggedRunHandedOutOnRelease(t *testing.T) {
	scenetest.FakeClock(t)
	a := open(t, remoteStates[0])
	if a.RemoteKey() == "" {
		t.Fatal("the linked run is not handed out")
	}
	s := a.Scene().(*Scene)
	scenetest.Frame(a)
	at := s.cam.ToScreen(s.crowd[0], s.crowd[1])
	a.Event(viz.Event{Kind: viz.PointerDown, X: at.X, Y: at.Y})
	if s.grab.ID != dpsgdCrowd || a.RemoteKey() == "" {
		t.Fatalf("pressed on the crowd's handle (held %d): a press alone took the run back from elsewhere", s.grab.ID)
	}
	a.Event(viz.Event{Kind: viz.PointerMove, X: at.X + 31, Y: at.Y + 7})
	if !s.Busy() || s.next.crowd == startCrowd {
		t.Fatalf("the drag started no run: busy %v, crowd %v", s.Busy(), s.next.crowd)
	}
	if k := a.RemoteKey(); k != "" {
		t.Errorf("a run of a drag under way is handed out as %q", k)
	}
	a.Event(viz.Event{Kind: viz.PointerUp, X: at.X + 31, Y: at.Y + 7})
	key := a.RemoteKey()
	if !s.Busy() || key == "" {
		t.Fatalf("let go: busy %v, key %q: the dragged run is not handed out", s.Busy(), key)
	}
	link := a.State()
	if c := scenetest.Control(a, "crowd").Value; !strings.Contains(link, "crowd="+strings.ReplaceAll(c, ",", "%2C")) || len(c) > len("-0.123,-0.123") {
		t.Errorf("the link %q does not carry the crowd's handle %q to the thousandth", link, c)
	}
	worker := open(t, link)
	if k := worker.RemoteKey(); k != key {
		t.Fatalf("a copy restored to %q names %q, the page %q", link, k, key)
	}
	a.Settle()
	worker.Settle()
	w := worker.Scene().(*Scene)
	if !reflect.DeepEqual(s.data, w.data) || !reflect.DeepEqual(s.res.Theta, w.res.Theta) {
		t.Errorf("restored from %q, another copy computes other users or another run", link)
	}
	local := open(t, "scene=dp-sgd&algo=localised&n=1000&m=50")
	if k := local.RemoteKey(); k != "" {
		t.Errorf("the localisation is handed out as %q", k)
	}
}

// A drag's moves wait for the drag's run under way rather than replace it:
// the run is seen to its end (replaced at each move, a run longer than a
// slice showed nothing until the pointer rested), the next starts where
// the pointer is then, and the held handle stays under the pointer
// throughout. Let go mid-run, the run where the drag ended replaces it and
// is named for another copy (handed out if it has long to go).
func TestDPSGDDragFollowsARunAtATime(t *testing.T) {
	scenetest.FakeClock(t) // a slice is 8 progress reports: a run takes many
	a, s := scenetest.Open(t, New())
	scenetest.Frame(a)
	at := s.cam.ToScreen(s.crowd[0], s.crowd[1])
	move := func(kind viz.EventKind, dx float64) [2]float64 {
		a.Event(viz.Event{Kind: kind, X: at.X + dx, Y: at.Y})
		return s.crowd
	}
	move(viz.PointerDown, 0)
	first := move(viz.PointerMove, 20)
	if !s.Busy() || s.next.crowd != first {
		t.Fatalf("the drag's first move: busy %v, the run's crowd %v, the handle %v", s.Busy(), s.latest().crowd, first)
	}
	move(viz.PointerMove, 40)
	last := move(viz.PointerMove, 60)
	if s.next.crowd != first || last == first {
		t.Fatalf("later moves replaced the run under way (its crowd %v, moved from %v to %v)", s.next.crowd, first, last)
	}
	for s.Busy() && s.next.crowd == first {
		a.Tick(0)
	}
	if !s.Busy() || s.next.crowd != last || s.crowd != last {
		t.Fatalf("the first run done: busy %v, the next run's crowd %v, the handle %v; want both at %v", s.Busy(), s.latest().crowd, s.crowd, last)
	}
	if d := crowdMean(s); math.Hypot(d[0]-first[0], d[1]-first[1]) > 0.1 {
		t.Errorf("the run shown has its crowd around %v, not around %v where it was computed", d, first)
	}
	end := move(viz.PointerMove, 80)
	a.Event(viz.Event{Kind: viz.PointerUp, X: at.X + 80, Y: at.Y})
	if !s.Busy() || s.next.crowd != end || a.RemoteKey() == "" {
		t.Fatalf("let go at %v: busy %v, the run's crowd %v, key %q: the run where the drag ended is not the one under way, handed out", end, s.Busy(), s.latest().crowd, a.RemoteKey())
	}
	a.Settle()
	if d := crowdMean(s); s.crowd != end || math.Hypot(d[0]-end[0], d[1]-end[1]) > 0.1 {
		t.Errorf("settled: the handle at %v, the crowd around %v; want both at %v", s.crowd, d, end)
	}
}

// crowdMean is the mean of the crowd's items (the users before the
// file's last tenth, the outlying ones).
func crowdMean(s *Scene) [2]float64 {
	var mean [2]float64
	crowd := s.data.Users[:len(s.data.Users)-len(s.data.Users)/10]
	for _, u := range crowd {
		for j := 0; j < len(u.Points); j += 2 {
			mean[0], mean[1] = mean[0]+u.Points[j], mean[1]+u.Points[j+1]
		}
	}
	items := float64(len(crowd) * s.m)
	return [2]float64{mean[0] / items, mean[1] / items}
}

// A handle typed while a run computes is the run's: dragging the other
// one then, until the run is done, leaves it where it was typed.
func TestDPSGDTypedHandleSurvivesADrag(t *testing.T) {
	defer func(d float64) { computeSlice = d }(computeSlice)
	a, s := scenetest.Open(t, New())
	computeSlice = 0
	if err := a.Set("crowd", "0.5,0.5"); err != nil || !s.Busy() {
		t.Fatalf("crowd = 0.5,0.5: %v, busy %v", err, s.Busy())
	}
	scenetest.Frame(a)
	at := s.cam.ToScreen(s.outliers[0], s.outliers[1])
	a.Event(viz.Event{Kind: viz.PointerDown, X: at.X, Y: at.Y})
	a.Event(viz.Event{Kind: viz.PointerMove, X: at.X + 20, Y: at.Y})
	for s.Busy() {
		a.Tick(0)
	}
	if s.crowd != [2]float64{0.5, 0.5} || !strings.Contains(a.State(), "crowd=0.5%2C0.5") {
		t.Errorf("the crowd's handle typed at 0.5,0.5 is at %v after a drag of the other, the link %q", s.crowd, a.State())
	}
	if s.outliers == startOutliers || s.grab.ID != dpsgdOutliers {
		t.Errorf("the outliers' handle held at %v (held %d)", s.outliers, s.grab.ID)
	}
}

// A handle typed in draws its users as a drag there would; what is not
// x,y within reach is refused, and the lesson stays as it was.
func TestDPSGDHandlesTyped(t *testing.T) {
	a, s := scenetest.Open(t, New())
	for _, bad := range []string{"", "0.5", "a,b", "0.1,0.2,0.3", "2.5,0", "0,-3", "NaN,0", "Inf,0"} {
		if err := a.Set("outliers", bad); err == nil || !strings.Contains(err.Error(), "x,y") {
			t.Errorf("outliers = %q: %v", bad, err)
		}
	}
	if s.Busy() || s.outliers != startOutliers {
		t.Fatalf("refused values changed the lesson: busy %v, outliers %v", s.Busy(), s.outliers)
	}
	scenetest.MustSet(t, a, "outliers", " 0.5 , -0.125 ")
	if s.outliers != [2]float64{0.5, -0.125} || scenetest.Control(a, "outliers").Value != "0.5,-0.125" {
		t.Fatalf("outliers typed as 0.5, -0.125: %v, shown %q", s.outliers, scenetest.Control(a, "outliers").Value)
	}
	// The outlying users (the file's last tenth) now sit around it.
	var mean [2]float64
	out := s.data.Users[len(s.data.Users)-len(s.data.Users)/10:]
	for _, u := range out {
		for j := 0; j < len(u.Points); j += 2 {
			mean[0], mean[1] = mean[0]+u.Points[j], mean[1]+u.Points[j+1]
		}
	}
	items := float64(len(out) * s.m)
	if d := math.Hypot(mean[0]/items-0.5, mean[1]/items+0.125); d > 0.1 {
		t.Errorf("the outlying users' items' mean is %.3f from the handle typed", d)
	}
}

// encoded is the run a's lesson shows, as a copy computing it sends it.
func encoded(a *viz.App) []byte {
	return wiretest.Finished(nil, a.Scene().(*Scene).encodeRun)
}

// An outcome for another run, of the wrong kind or out of place is
// refused; a run that does not decode is computed here instead; a refusal
// computed elsewhere is shown as if computed here.
func TestDPSGDRunElsewhereRefused(t *testing.T) {
	scenetest.FakeClock(t)
	state := remoteStates[0]
	page, worker := open(t, state), open(t, state)
	key := page.RemoteKey()
	page.Hold(key)
	progress, _ := worker.Outcome()
	// A part's header: its kind, the bytes before it, the run's total.
	huge := wiretest.Last([]byte{0})
	copy(huge[5:9], []byte{255, 255, 255, 255})
	late := wiretest.Last([]byte{0})
	late[1], late[5] = 1, 2 // the second byte of two
	for _, c := range []struct {
		what string
		key  string
		data []byte
		done bool
	}{
		{"an outcome for another run", key + " ", progress, false},
		{"a progress report said to be done", key, progress, true},
		{"a progress report cut short", key, progress[:5], false},
		{"a last part said to be under way", key, wiretest.Last([]byte{0}), false},
		{"a part said to be the last", key, wiretest.Last([]byte{0})[:7], true},
		{"a run of 4 GB", key, huge, false},
	} {
		if page.Adopt(c.key, c.data, c.done) == nil {
			t.Errorf("%s was adopted", c.what)
		}
	}
	// A part not from the start (parts of a run restarted meanwhile): the
	// page computes the run itself once the parts end, and the same run.
	if err := page.Adopt(key, late, true); err != nil {
		t.Errorf("a part out of place: %v", err)
	}
	if s := page.Scene().(*Scene); !s.Busy() || page.RemoteKey() != key {
		t.Fatalf("after a part out of place: busy %v, key %q", s.Busy(), page.RemoteKey())
	}
	page.Settle()
	local := viz.NewApp(New())
	if err := local.Restore(state); err != nil {
		t.Fatal(err)
	}
	local.Settle()
	if !bytes.Equal(scenetest.Seen(page), scenetest.Seen(local)) {
		t.Error("after a part out of place, the page shows another run than the one computed here")
	}
	page = open(t, state)
	page.Hold(key)

	worker.Settle()
	run := encoded(worker)
	// Cut short: decoded partway, then computed here, the same run.
	if err := page.Adopt(key, wiretest.Last(run[:len(run)/2]), true); err != nil {
		t.Fatal(err)
	}
	page.Settle()
	if !bytes.Equal(scenetest.Seen(page), scenetest.Seen(local)) {
		t.Error("after a run cut short, the page shows another run than the one computed here")
	}

	// A refusal: the change's own error, shown as one computed here is,
	// the run shown before kept.
	if err := page.Restore(state + "&seed=9"); err != nil {
		t.Fatal(err)
	}
	key = page.RemoteKey()
	page.Hold(key)
	if err := page.Adopt(key, wiretest.Last(wiretest.Finished(errors.New("the worker refused this"), nil)), true); err != nil {
		t.Fatal(err)
	}
	s := page.Scene().(*Scene)
	if s.Busy() || s.seed != 1 {
		t.Errorf("after a refusal adopted: busy %v, seed %d shown", s.Busy(), s.seed)
	}
	if r, ok := scenetest.Readout(page, "refused"); !ok || r.Text != "the worker refused this" {
		t.Errorf("the refusal reads %+v", r)
	}
}

// One copy computing two runs in a row sends the second, not the first
// again: what it sent is forgotten when a new computation starts.
func TestDPSGDWorkerSendsEachRun(t *testing.T) {
	scenetest.FakeClock(t)
	worker := open(t, remoteStates[0])
	worker.Settle()
	for _, done := false, false; !done; {
		_, done = worker.Outcome()
	}
	// As the page asks: its whole state, every setting named.
	page := open(t, remoteStates[1])
	if err := worker.Restore(page.State()); err != nil {
		t.Fatal(err)
	}
	key := page.RemoteKey()
	if worker.RemoteKey() != key {
		t.Fatalf("keys %q and %q for the page's state", key, worker.RemoteKey())
	}
	page.Hold(key)
	worker.Settle()
	for done := false; !done; {
		var data []byte
		data, done = worker.Outcome()
		if err := page.Adopt(key, data, done); err != nil {
			t.Fatal(err)
		}
	}
	page.Settle()
	local := open(t, remoteStates[1])
	local.Settle()
	if !bytes.Equal(scenetest.Seen(page), scenetest.Seen(local)) {
		t.Error("the second run adopted from one copy is not the run computed here")
	}
}

// stopped is the context of a job that was replaced.
type stopped struct{}

func (stopped) Err() error { return viz.ErrStopped }

// A replaced job's reading ends at its next report of progress: Job.Stop
// waits for it, inside the call that made the newer change.
func TestDPSGDReadingStopsWhenReplaced(t *testing.T) {
	scenetest.FakeClock(t)
	worker := open(t, remoteStates[0])
	worker.Settle()
	page := open(t, remoteStates[0])
	next := page.Scene().(*Scene).next
	reports := 0
	err := next.decodeRun(stopped{}, &wire.Reader{B: encoded(worker)[1:]}, func(int64, int64) { reports++ })
	if err != viz.ErrStopped || reports != 1 {
		t.Errorf("a replaced reading: %v after %d reports of progress", err, reports)
	}
}

// A run corrupted anywhere — a length made huge, a byte changed — is
// read or computed here without a panic, and the page ends on a run it
// can draw.
func TestDPSGDCorruptRunsDoNotPanic(t *testing.T) {
	scenetest.FakeClock(t)
	const state = "scene=dp-sgd&n=20&m=3&steps=60"
	worker := open(t, state)
	worker.Settle()
	run := encoded(worker)
	// The first bytes one by one, then ever sparser: further on are more
	// users and steps, read by the same code.
	grow := 1.0
	if testing.Short() {
		grow = 2
	}
	for at := 1; at+4 <= len(run); at += 1 + int(grow*float64(at)) {
		for _, patch := range [][]byte{{0xfe, 0xff, 0xff, 0xff}, {0x07, 0, 0, 0}} {
			bad := append([]byte(nil), run...)
			copy(bad[at:], patch)
			page := open(t, state)
			key := page.RemoteKey()
			page.Hold(key)
			if err := page.Adopt(key, wiretest.Last(bad), true); err != nil {
				t.Fatalf("byte %d: %v", at, err)
			}
			page.Settle()
			scenetest.Seen(page)
		}
	}
	// A run that parses but holds a point of one coordinate, where the
	// figure reads two, is computed here.
	for _, cut := range []func(st *optim.SGDStep){
		func(st *optim.SGDStep) { st.Next = st.Next[:1] },
		func(st *optim.SGDStep) { st.Theta = st.Theta[:1] },
		func(st *optim.SGDStep) { st.ORME.Mean = st.ORME.Mean[:1] },
		func(st *optim.SGDStep) { st.ORME.Output = st.ORME.Output[:1] },
		func(st *optim.SGDStep) { st.ORME.AllMean = st.ORME.AllMean[:1] },
	} {
		w := open(t, state)
		w.Settle()
		cut(&w.Scene().(*Scene).res.Steps[3])
		page := open(t, state)
		key := page.RemoteKey()
		page.Hold(key)
		if err := page.Adopt(key, wiretest.Last(encoded(w)), true); err != nil {
			t.Fatal(err)
		}
		page.Settle()
		if !reflect.DeepEqual(page.Scene().(*Scene).res, worker.Scene().(*Scene).res) {
			t.Error("a run with a point of one coordinate was adopted")
		}
	}
}
