package robustsgd

import (
	"math"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/uldplab/uldp/core/cancel"
	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/mech"
	"github.com/uldplab/uldp/core/optim"
	"github.com/uldplab/uldp/core/trace"
	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/internal/scenetest"
)

// The default run: six batches of 200 concentrated users, every score well
// above v, so every test passes and the average is released; the stepper
// tells it in the order it happens (online: each step, then its test).
func TestRobustSGDDefaultRun(t *testing.T) {
	a, s := scenetest.Open(t, New())
	var kinds []trace.Kind
	for _, st := range s.player.Stepper().Trace().Steps {
		kinds = append(kinds, st.Kind)
	}
	want := []trace.Kind{optim.KindRobustPhase, mech.KindATThreshold}
	for range 6 {
		want = append(want, optim.KindRobustStep, mech.KindATCompare)
	}
	want = append(want, optim.KindRobustAnswer, optim.KindRobustNoise)
	if !slices.Equal(kinds, want) {
		t.Fatalf("steps %v, want %v", kinds, want)
	}
	if _, ok := scenetest.Readout(a, "outcome"); ok {
		t.Error("the outcome is shown before the test has run")
	}
	scenetest.MustSet(t, a, viz.CtlEnd, "")
	ph := s.view.res.Phases[0]
	if !ph.Passed || len(ph.Steps) != 6 {
		t.Fatalf("passed %v after %d steps", ph.Passed, len(ph.Steps))
	}
	for _, st := range ph.Steps {
		if st.Score < ph.Threshold+5 || st.Estimate.Clipped[0] || st.Estimate.Clipped[1] {
			t.Errorf("step %d: score %.4g against v = %.4g, clipped %v", st.T, st.Score, ph.Threshold, st.Estimate.Clipped)
		}
	}
	if r, ok := scenetest.Readout(a, "outcome"); !ok || !strings.HasPrefix(r.Text, "every step passed") {
		t.Errorf("outcome %+v", r)
	}
	// The last batch is drawn, one dot per user, with its users' ids.
	dots := 0
	for _, it := range scenetest.Frame(a).Items {
		if it.Kind == viz.Circle && it.ID > 0 {
			if !slices.Contains(ph.Steps[5].Users, it.ID-1) {
				t.Fatalf("user %d drawn, not in step 6's batch", it.ID)
			}
			dots++
		}
	}
	if dots != 200 {
		t.Errorf("%d users drawn, want step 6's 200", dots)
	}
	// σ = 6ηr√2·√(2 ln(1.25/δ′))/(ε/2), δ′ = δ/(2e^ε).
	dp := 1e-5 / (2 * math.Exp(8))
	if want := 6 * 0.5 * 0.02 * math.Sqrt2 * math.Sqrt(2*math.Log(1.25/dp)) / 4; !(math.Abs(ph.Sigma-want) <= 1e-12*want) {
		t.Errorf("σ = %v, want %v", ph.Sigma, want)
	}
}

// Each preset shows what it says it shows.
func TestRobustSGDPresets(t *testing.T) {
	run := func(preset string) (*viz.App, *Scene) {
		a, s := scenetest.Open(t, New(), [2]string{"preset", preset})
		scenetest.MustSet(t, a, viz.CtlEnd, "")
		return a, s
	}
	// Step 3's two crowds each draw as one spot, with its count.
	bad, _ := run("bad-batch")
	piles := 0
	for _, it := range scenetest.Frame(bad).Items {
		if n, err := strconv.Atoi(strings.TrimPrefix(it.Text, "×")); it.Kind == viz.Text && err == nil && strings.HasPrefix(it.Text, "×") {
			piles++
			if n < 2 {
				t.Errorf("a count %q on a lone dot", it.Text)
			}
		}
	}
	if piles < 2 {
		t.Errorf("bad-batch's step 3 shows %d counted piles, want its two crowds", piles)
	}
	if _, s := run("bad-batch"); s.view.res.Phases[0].FailedAt != 3 {
		t.Errorf("bad-batch: failed at %d, want step 3", s.view.res.Phases[0].FailedAt)
	} else if ph := s.view.res.Phases[0]; ph.Output[0] != ph.Start[0]+ph.Noise[0] || ph.Steps[2].Score > 0.55*200 {
		t.Errorf("bad-batch: output %v from start %v; step 3 scores %.4g", ph.Output, ph.Start, ph.Steps[2].Score)
	}
	if _, s := run("r-too-small"); s.view.res.Phases[0].FailedAt != 1 {
		t.Errorf("r-too-small: failed at %d, want step 1", s.view.res.Phases[0].FailedAt)
	}
	if _, s := run("too-few-users"); s.view.res.Phases[0].Passed || !(s.view.res.Phases[0].Threshold > 20) {
		t.Errorf("too-few-users: v = %.4g, passed %v", s.view.res.Phases[0].Threshold, s.view.res.Phases[0].Passed)
	}
	a, s := run("outliers")
	for _, st := range s.view.res.Phases[0].Steps {
		e := st.Estimate
		// A third of the batch 4r out pulls the mean 4r/3 from the crowd:
		// out of the band in coordinate 1, clipped back to its edge.
		if !e.Clipped[0] || e.Clipped[1] || !(math.Abs(e.Est[0]-(e.Stat[0]+s.view.cfg.radius)) <= 1e-12) {
			t.Errorf("outliers, step %d: clipped %v, estimate %v, median %v", st.T, e.Clipped, e.Est, e.Stat)
		}
	}
	if r, _ := scenetest.Readout(a, "estimate"); !strings.Contains(r.Text, "clipped to the band in coordinate 1") {
		t.Errorf("outliers: estimate readout %q", r.Text)
	}
	a, _ = run("coupled")
	if r, ok := scenetest.Readout(a, "gap"); !ok || !r.Warn || !strings.Contains(r.Text, "it grew at step 2") {
		t.Errorf("coupled: gap readout %+v", r)
	}
	_, s = run("localisation")
	ph := s.view.res.Phases
	if len(ph) != 5 {
		t.Fatalf("localisation: %d phases, want 5 (6,400 users, B = 200)", len(ph))
	}
	for k := 1; k < len(ph); k++ {
		if ph[k].Users != ph[k-1].Users/2 || !(math.Abs(ph[k].Sigma-ph[k-1].Sigma/2) <= 1e-12) || !slices.Equal(ph[k].Start, ph[k-1].Output) {
			t.Errorf("phase %d: %d users, σ %.4g after %.4g; starts at %v, the last release %v", k+1, ph[k].Users, ph[k].Sigma, ph[k-1].Sigma, ph[k].Start, ph[k-1].Output)
		}
	}
}

// The neighbour: a user dragged at step 1 moves in the copy only; the two
// runs share their batches and noise, part at step 1 by at most 6ηr, and
// the gap never grows afterwards (Lemma 3.2 with the squared loss).
func TestRobustSGDNeighbourGap(t *testing.T) {
	a, s := scenetest.Open(t, New(), [2]string{"order", "given"}, [2]string{"neighbour", "true"})
	data := s.cfg.data
	for range 3 {
		a.Key("ArrowRight")
	}
	at, ok := scenetest.Frame(a).Locate(150)
	if !ok {
		t.Fatal("user 150 is not drawn at step 1")
	}
	scenetest.Drag(a, at, 120, -60)
	if s.cfg.data != data || s.cfg.nbUser != 149 || slices.Equal(s.cfg.nbItems, data.Users[149].Points) {
		t.Fatalf("the drag changed the data (%v) or not the copy's user 150 (%d)", s.cfg.data != data, s.cfg.nbUser+1)
	}
	scenetest.MustSet(t, a, viz.CtlEnd, "")
	g := s.view.gapSeries(math.MaxInt)
	if g.jumpAt != 1 || !(g.jump > 0) || g.jump > g.bound || g.grewAt != 0 {
		t.Fatalf("jump %v at %d (bound %v), grew at %d", g.jump, g.jumpAt, g.bound, g.grewAt)
	}
	for k := 1; k < len(g.gap); k++ {
		// ½ per step: η = 0.5 and the loss's Hessian is I.
		if !(math.Abs(g.gap[k]-g.gap[k-1]/2) <= 1e-9*g.gap[0]) {
			t.Errorf("gap %v after %v", g.gap[k], g.gap[k-1])
		}
	}
	for k, ph := range s.view.nbRes.Phases {
		if !slices.Equal(ph.Noise, s.view.res.Phases[k].Noise) || ph.NoisyThreshold != s.view.res.Phases[k].NoisyThreshold {
			t.Error("the neighbour drew other noise")
		}
	}
	if r, _ := scenetest.Readout(a, "gap"); !strings.Contains(r.Text, "it never grew") {
		t.Errorf("gap readout %q", r.Text)
	}
}

// Dragging a user moves its gradient with the pointer: with the squared
// loss exactly (its items move by the opposite of the drag), in the lesson's
// own data when the neighbour is off.
func TestRobustSGDDragMovesTheGradient(t *testing.T) {
	a, s := scenetest.Open(t, New(), [2]string{"order", "given"})
	for range 3 {
		a.Key("ArrowRight")
	}
	l := scenetest.Frame(a)
	at, _ := l.Locate(7)
	q0 := s.view.res.Phases[0].Steps[0].Q.Flat[12:14]
	cam := s.cam
	scenetest.Drag(a, at, 40, 30)
	x0, y0 := cam.ToWorld(at)
	x1, y1 := cam.ToWorld(viz.Point{X: at.X + 40, Y: at.Y + 30})
	q1 := s.view.res.Phases[0].Steps[0].Q.Flat[12:14]
	if d := math.Hypot(q1[0]-q0[0]-(x1-x0), q1[1]-q0[1]-(y1-y0)); d > 1e-9*math.Abs(x1-x0) {
		t.Errorf("user 7's gradient moved by (%g, %g), the pointer by (%g, %g)", q1[0]-q0[0], q1[1]-q0[1], x1-x0, y1-y0)
	}
	if s.cfg.nbUser != -1 || s.view.nbRes.Phases != nil {
		t.Error("a drag with the neighbour off made a neighbour")
	}
}

// Settings the run refuses leave the lesson as it was, with the reason.
func TestRobustSGDRefuses(t *testing.T) {
	a, s := scenetest.Open(t, New())
	before := s.cfg
	for _, c := range []struct{ name, value, why string }{
		{"loss", "coupled", "diagonally dominant"},
		{"n", "100", "B ≤ n"},
	} {
		err := a.Set(c.name, c.value)
		if err == nil || !strings.Contains(err.Error(), c.why) {
			t.Errorf("%s = %s: %v, want a refusal naming %q", c.name, c.value, err, c.why)
		}
	}
	if err := a.Set("algo", "a-loc"); err != nil {
		t.Fatal(err)
	}
	scenetest.MustSet(t, a, "batch", "300")
	if err := a.Set("n", "500"); err == nil || !strings.Contains(err.Error(), "phase") {
		t.Errorf("A-LOC with 500 users in batches of 300: %v", err)
	}
	if s.cfg.n != before.n || s.cfg.data != s.view.cfg.data {
		t.Error("a refused change altered the lesson")
	}
	if err := s.LoadDataset(&dataset.Dataset{Dim: 2, Users: []dataset.User{{ID: "1", Points: []float64{0, 0}}}}); err == nil {
		t.Error("a dataset of one user was loaded into a lesson of 1,200")
	}
	// In teaching mode the coupled loss runs.
	scenetest.MustSet(t, a, "mode", "teaching")
	scenetest.MustSet(t, a, "loss", "coupled")
}

// A change computes between frames: the figure keeps the previous run until
// the new one is done, and the run it ends with is the one computing it at
// once would give.
func TestRobustSGDComputesBetweenFrames(t *testing.T) {
	defer func(d float64) { viz.FrameSlice = d }(viz.FrameSlice)
	a, s := scenetest.Open(t, New(), [2]string{"algo", "a-loc"}, [2]string{"n", "20000"})
	before := s.view.res.Output
	viz.FrameSlice = 0
	if err := a.Set("eps", "4"); err != nil {
		t.Fatal(err)
	}
	if !s.Busy() || s.view.cfg.eps != 8 || scenetest.Control(a, "eps").Value != "4" {
		t.Fatalf("after no time: busy %v, ε = %v shown, control %q", s.Busy(), s.view.cfg.eps, scenetest.Control(a, "eps").Value)
	}
	if r, ok := scenetest.Readout(a, "computing"); !ok || !strings.Contains(r.Text, "the run's steps") {
		t.Errorf("no progress shown: %+v", r)
	}
	for s.Busy() {
		a.Tick(0)
	}
	if s.view.cfg.eps != 4 || slices.Equal(s.view.res.Output, before) {
		t.Fatalf("settled on ε = %v", s.view.cfg.eps)
	}
	viz.FrameSlice = math.Inf(1)
	_, fresh := scenetest.Open(t, New(), [2]string{"algo", "a-loc"}, [2]string{"n", "20000"}, [2]string{"eps", "4"})
	if !slices.Equal(s.view.res.Output, fresh.view.res.Output) {
		t.Errorf("computed in slices %v, at once %v", s.view.res.Output, fresh.view.res.Output)
	}
}

// New users are drawn between frames too: the figure keeps the old ones
// (and refuses drags) until they are drawn, the users drawn in slices are
// the users drawn at once, and a drawing abandoned for a newer change
// stops drawing.
func TestRobustSGDDrawsUsersBetweenFrames(t *testing.T) {
	defer func(d float64) { viz.FrameSlice = d }(viz.FrameSlice)
	a, s := scenetest.Open(t, New())
	if s.cfg.data == nil || s.cfg.data != s.view.cfg.data {
		t.Fatal("the lesson opens without its users in its settings, so it refuses drags")
	}
	viz.FrameSlice = 0
	if err := a.Set("n", "30000"); err != nil {
		t.Fatal(err)
	}
	// Before the first slice nothing is drawn (nor allocated): a link's
	// settings n, m each start a drawing.
	if r, ok := scenetest.Readout(a, "computing"); !s.Busy() || !ok || !strings.Contains(r.Text, "drawing the users") || r.Value != 0 {
		t.Fatalf("busy %v, progress %+v", s.Busy(), r)
	}
	if s.Pointer(viz.Event{Kind: viz.PointerDown}) || s.view.cfg.n != 1200 {
		t.Fatalf("a drag began while users were drawn, or the figure left its %d users", s.view.cfg.n)
	}
	for s.Busy() {
		a.Tick(0)
	}
	viz.FrameSlice = math.Inf(1)
	_, fresh := scenetest.Open(t, New(), [2]string{"n", "30000"})
	if !reflect.DeepEqual(s.cfg.data, fresh.cfg.data) || s.cfg.data != s.view.cfg.data {
		t.Error("the users drawn in slices are not the users drawn at once, or the settings lost them")
	}

	// Abandoned during its first report, a drawing stops at its second.
	var draws int
	ctx := &stopAfter{}
	r := &countedNormal{r: countNormal{&draws}, ctx: ctx, total: 1 << 20, progress: func(done, total int64) { ctx.stopped = true }}
	defer func() {
		if a, ok := recover().(abandoned); !ok || a.err != viz.ErrStopped || draws != 1<<15-1 {
			t.Errorf("%d draws made, want %d, then %v", draws, 1<<15-1, a)
		}
	}()
	for range 1 << 16 {
		r.NormFloat64()
	}
}

type stopAfter struct{ stopped bool }

func (s *stopAfter) Err() error {
	if s.stopped {
		return viz.ErrStopped
	}
	return nil
}

type countNormal struct{ n *int }

func (c countNormal) NormFloat64() float64 { *c.n++; return 1 }

// The figure says what it shows, and a step changes what it says.
func TestRobustSGDDescribes(t *testing.T) {
	a, _ := scenetest.Open(t, New())
	scenetest.Describes(t, a, func() { a.Key("ArrowRight") })
}

// The keyboard moves a user's gradient as a mouse drag does.
func TestRobustSGDKeyboardDrag(t *testing.T) {
	scenetest.KeyboardMatchesMouse(t, scenetest.Opens(t, New, [2]string{"order", "given"}), "ArrowRight", "ArrowRight", "ArrowRight", "ArrowDown")
}

// The nearest certified settings certify wherever the lesson offers them:
// from the coupled loss in teaching mode (the loss is changed before the
// mode, which refuses it), from A-LOC on few users (whose phases must
// still fill), from a threshold of its own (kept when it certifies), and
// never while a run is being computed.
func TestRobustSGDCertifiedSettings(t *testing.T) {
	for _, settings := range [][][2]string{
		{{"preset", "coupled"}},
		{{"algo", algoLOC}, {"n", "1600"}, {"batch", "100"}},
		{{"threshold", "0.95B"}},
	} {
		a, s := scenetest.Open(t, New(), settings...)
		if a.Guarantee().Certified() {
			t.Fatalf("%v: certified before the button", settings)
		}
		if !scenetest.Certifies(t, a, format.Sprint(settings)) {
			continue
		}
		if settings[0][0] == "threshold" && s.cfg.thresh != "0.95B" {
			t.Errorf("the threshold 0.95B, which certifies at B = %d, became %s", s.cfg.batch, s.cfg.thresh)
		}
	}
	// A-LOC on 400 users: its first phase holds 200, too few for any
	// batch to certify; the lesson says so, and offers nothing.
	a, _ := scenetest.Open(t, New(), [2]string{"algo", algoLOC}, [2]string{"n", "400"}, [2]string{"batch", "100"})
	if c := scenetest.Control(a, viz.CtlCertify); !c.Disabled || !strings.Contains(c.Help, "No batch up to B = 200") {
		t.Errorf("A-LOC on 400 users: %+v", c)
	}
	// On 600, a first phase of 300 certifies at sound mode's v from
	// B = 259, where the printed v needs more than 300 (errata A28).
	a, s := scenetest.Open(t, New(), [2]string{"algo", algoLOC}, [2]string{"n", "600"}, [2]string{"batch", "100"})
	if !scenetest.Certifies(t, a, "A-LOC on 600 users") {
		t.Fatal("A-LOC on 600 users: no certified settings")
	}
	if s.cfg.thresh != threshSound || s.cfg.batch != 259 {
		t.Errorf("A-LOC on 600 users certified at v %s, B = %d; want sound's v at B = 259", s.cfg.thresh, s.cfg.batch)
	}
	a, _ = scenetest.Open(t, New())
	if err := a.Set("n", "100000"); err != nil {
		t.Fatal(err)
	}
	if !a.Busy() {
		t.Fatal("100,000 users computed at once: the test needs a run under way")
	}
	if c := scenetest.Control(a, viz.CtlCertify); c.Name != "" {
		t.Errorf("offers certified settings while computing: %q", c.Help)
	}
}

// Where the batch agrees, the mean, the statistic and the estimate are one
// spot: the legend says so and how to pull them apart (a reader looked for
// three marks); where the outliers preset clips the mean, it does not.
func TestRobustSGDSaysWhenTheMarksCoincide(t *testing.T) {
	const note = "all three lie within r/20"
	a, _ := scenetest.Open(t, New())
	if !scenetest.HasText(scenetest.Frame(a), note) {
		t.Error("the default crowd's marks coincide and the figure does not say so")
	}
	a, s := scenetest.Open(t, New(), [2]string{"preset", "outliers"})
	a.Key("ArrowRight")
	if st, _ := s.view.shownStep(s.view.at()); st == nil || !(st.Estimate.Clipped[0] || st.Estimate.Clipped[1]) {
		t.Fatal("the outliers preset's first step clips nothing: the test needs a clipped mean")
	}
	if scenetest.HasText(scenetest.Frame(a), note) {
		t.Error("the outliers preset's clipped mean is said to coincide")
	}
}

// A pile's count does not depend on the screen: a phone's smaller scale
// once made dots that merely touch into piles of ×2 and ×3 whose labels
// covered the batch; nor are jittered users a pile.
func TestRobustSGDPilesDoNotDependOnTheScreen(t *testing.T) {
	for _, preset := range []string{"", "bad-batch"} {
		var settings [][2]string
		if preset != "" {
			settings = append(settings, [2]string{"preset", preset})
		}
		a, _ := scenetest.Open(t, New(), settings...)
		scenetest.MustSet(t, a, viz.CtlEnd, "")
		counts := func(w, h float64) (n int) {
			l, _ := a.Frame(w, h)
			for _, it := range l.Items {
				if it.Kind == viz.Text && strings.HasPrefix(it.Text, "×") {
					n++
				}
			}
			return n
		}
		phone, wide := counts(390, 675), counts(1200, 640)
		if phone != wide {
			t.Errorf("preset %q: %d counted piles on a phone, %d on a wide screen", preset, phone, wide)
		}
		// The default batch's 200 users are drawn apart, jittered: a pile
		// there is dots drawn as one, which a wide screen shows apart.
		if preset == "" && wide > 2 {
			t.Errorf("the default batch shows %d piles of distinct users", wide)
		}
	}
}

// What the text says of the default's certified run: at the lesson's seed
// the test halts the crowd's first batch; S draws a seed (the next) at
// which all four steps pass.
func TestRobustSGDCertifiedRunAtTheSeed(t *testing.T) {
	a, s := scenetest.Open(t, New())
	if !scenetest.Certifies(t, a, "the default") {
		return
	}
	scenetest.MustSet(t, a, viz.CtlEnd, "")
	if ph := s.view.res.Phases[0]; ph.FailedAt != 1 {
		t.Errorf("seed %d: the test halted at step %d; the text says the first", s.cfg.seed, ph.FailedAt)
	}
	if !a.Key("s") {
		t.Fatal("S did not draw a new seed")
	}
	a.Settle()
	scenetest.MustSet(t, a, viz.CtlEnd, "")
	if ph := s.view.res.Phases[0]; s.cfg.seed != 2 || ph.FailedAt != 0 || len(ph.Steps) != 4 {
		t.Errorf("seed %d: halted at %d after %d steps; the text says all four pass", s.cfg.seed, ph.FailedAt, len(ph.Steps))
	}
}

// Drawing the users allocates as it goes, a pause for a frame never more
// than a few MB away: the items allocated in one piece (16 MB at the
// sliders' maxima) zeroed memory the page had never touched in one unit
// of work, a 170 ms call into Go in a browser on a busy machine. Counted
// in bytes, not milliseconds, so a loaded machine cannot fail it.
func TestRobustSGDDrawAllocatesBetweenPauses(t *testing.T) {
	c := presetConfig("crowd")
	c.algo, c.n, c.m = algoLOC, robustMaxUsers, 10
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	last, most := ms.TotalAlloc, uint64(0)
	err := c.draw(cancel.Never, func(done, total int64) {
		runtime.ReadMemStats(&ms)
		most, last = max(most, ms.TotalAlloc-last), ms.TotalAlloc
	})
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&ms)
	most = max(most, ms.TotalAlloc-last)
	// The largest pieces are the users' table (4 MB) and the preset's
	// table of their items (2.4 MB), each made at once; the items, 16 MB,
	// are not.
	const limit = 5 << 20
	t.Logf("most between pauses: %.1f MB", float64(most)/1e6)
	if most > limit {
		t.Errorf("drawing %d users of %d items allocated %.1f MB between two pauses, over %d MB", c.n, c.m, float64(most)/1e6, limit>>20)
	}
}

// Every item's mean, the run's last piece (10⁶ items at the maxima, 8 ms
// natively), pauses between blocks of 8,192 users, and a run replaced
// there stops.
func TestRobustSGDMeanPausesBetweenBlocks(t *testing.T) {
	c := presetConfig("crowd")
	c.n, c.m = robustMaxUsers, 2
	v := &robustView{cfg: c}
	pauses := 0
	v.compute(cancel.Never, func(done, total int64) {
		if done == total-1 && total%1000 == 0 {
			pauses++
		}
	})
	if want := (robustMaxUsers + 1<<13 - 1) >> 13; v.err != nil || pauses != want || len(v.mean) != 2 {
		t.Fatalf("%d pauses in the mean, want %d (err %v, mean %v)", pauses, want, v.err, v.mean)
	}
	ctx := &stopAfter{}
	v = &robustView{cfg: c}
	v.compute(ctx, func(done, total int64) {
		if done == total-1 && total%1000 == 0 {
			ctx.stopped = true
		}
	})
	if v.err != viz.ErrStopped || v.mean != nil {
		t.Errorf("replaced in the mean: %v, mean %v", v.err, v.mean)
	}
}
