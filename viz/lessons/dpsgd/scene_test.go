package dpsgd

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/optim"
	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/internal/scenetest"
)

// One stepper step per SGD step; the inset shows that step's users and
// ORME's answer; at the end θ̂ and the baseline's answer are drawn and
// every iterate is in Θ.
func TestDPSGDLesson(t *testing.T) {
	a, s := scenetest.Open(t, New())
	if n := s.player.Stepper().Len(); n != s.params.Steps+1 {
		t.Fatalf("%d stepper steps for T = %d (want T + the answer)", n, s.params.Steps)
	}
	if !scenetest.HasText(scenetest.Frame(a), "step with → to see them") {
		t.Error("the inset is not waiting for a step")
	}
	a.Key("ArrowRight")
	if s.shownStep() != 1 || !scenetest.HasText(scenetest.Frame(a), "step 1: s = ") {
		t.Errorf("after one step: shown %d", s.shownStep())
	}
	scenetest.MustSet(t, a, viz.CtlEnd, "")
	if s.res.Halted != 0 || len(s.res.Iterates) != s.params.Steps {
		t.Fatalf("the default run halted at %d", s.res.Halted)
	}
	for _, it := range append(s.res.Iterates, s.res.Theta, s.base.Theta) {
		if math.Hypot(it[0], it[1]) > 1+1e-12 {
			t.Fatalf("iterate %v outside Θ", it)
		}
	}
	diamonds, lastDiamond, star := 0, -1, -1
	for i, it := range scenetest.Frame(a).Items {
		if it.Kind == viz.Polygon && len(it.P) == 4 && it.Style.Fill == viz.Blue || it.Kind == viz.Polygon && it.Style.Fill == viz.Orange {
			diamonds, lastDiamond = diamonds+1, i
		}
		if it.Kind == viz.Text && it.Text == "★" {
			star = i
		}
	}
	if diamonds != 2 {
		t.Errorf("%d answers drawn, want DP-SGD's and the baseline's", diamonds)
	}
	// The baseline's ◆ lands on ★ at these settings: ★ goes over it.
	if star < lastDiamond {
		t.Errorf("★ (item %d) is drawn under an answer (item %d)", star, lastDiamond)
	}
	if r, ok := scenetest.Readout(a, "baseline"); !ok || !strings.Contains(r.Text, "σ = ") {
		t.Errorf("baseline readout %+v", r)
	}
}

// Shrinking τ far below the gradients' spread makes the gate fail: the run
// halts and answers θ₀, and the lesson says so.
func TestDPSGDLessonHalts(t *testing.T) {
	a, s := scenetest.Open(t, New())
	scenetest.MustSet(t, a, "tau", "0.001")
	scenetest.MustSet(t, a, viz.CtlEnd, "")
	if s.res.Halted == 0 || s.res.Theta[0] != 0 || s.res.Theta[1] != 0 {
		t.Fatalf("halted %d, θ̂ = %v", s.res.Halted, s.res.Theta)
	}
	if r, _ := scenetest.Readout(a, "halted"); !r.Warn || !scenetest.HasText(scenetest.Frame(a), "halted at step") {
		t.Errorf("halt not shown: %+v", r)
	}
}

// What the lesson says of τ, at its seed: with 5 items a user, lowering τ
// keeps every user down to 0.08 of the theorem's, then the gate halts
// within a few steps — no stage where the ramp drops some; with 50 items
// and 5 % outlying users, at 0.14 the ramp drops up to 13 of the 15
// outlying users in a step, and only them, while the gate passes every step; at 0.12 it halts after a
// dozen steps.
func TestDPSGDTauRamp(t *testing.T) {
	run := func(settings ...string) *Scene {
		a, s := scenetest.Open(t, New())
		for i := 0; i < len(settings); i += 2 {
			scenetest.MustSet(t, a, settings[i], settings[i+1])
		}
		return s
	}
	// dropped is the most users one step dropped, and whether every
	// dropped user was an outlying one (the file's last share·n).
	dropped := func(s *Scene) (most int, outlying bool) {
		outlying = true
		first := s.n - int(math.Round(s.share*float64(s.n)))
		for _, st := range s.res.Steps {
			if st.Next == nil {
				continue // the gate failed here: nobody was kept
			}
			most = max(most, s.n-len(st.ORME.Kept))
			kept := map[int]bool{}
			for _, j := range st.ORME.Kept {
				kept[j] = true
			}
			for j := range first {
				outlying = outlying && kept[j]
			}
		}
		return most, outlying
	}
	for _, tau := range []string{"0.08", "0.1", "0.3", "1", "3"} {
		if s := run("tau", tau); s.res.Halted != 0 {
			t.Errorf("m = 5, τ × %s: halted at step %d", tau, s.res.Halted)
		} else if most, _ := dropped(s); most != 0 {
			t.Errorf("m = 5, τ × %s: a step dropped %d users", tau, most)
		}
	}
	if s := run("tau", "0.075"); s.res.Halted == 0 || s.res.Halted > 5 {
		t.Errorf("m = 5, τ × 0.075: halted at step %d, want within a few", s.res.Halted)
	}
	s := run("m", "50", "share", "0.05", "tau", "0.14")
	most, outlying := dropped(s)
	if s.res.Halted != 0 || most != 13 || !outlying {
		t.Errorf("m = 50, 5 %% outlying, τ × 0.14: halted %d, a step dropped up to %d users, only outlying ones: %v; the text says no halt and up to 13 of the 15 outlying users dropped", s.res.Halted, most, outlying)
	}
	// When: 13 in each of the first four steps, some until the seventh,
	// none from the eighth (a reader who jumps to the end sees none).
	for i, st := range s.res.Steps {
		drop := s.n - len(st.ORME.Kept)
		if (i < 4 && drop != 13) || (i >= 4 && i < 7 && (drop == 0 || drop >= 13)) || (i >= 7 && drop != 0) {
			t.Errorf("m = 50, 5 %% outlying, τ × 0.14: step %d dropped %d users; the text says 13 in steps 1–4, fewer until step 7, none after", i+1, drop)
		}
	}
	if !strings.Contains(Text(), "13 of the 15 in each of the first four steps and fewer\n    until the seventh") || !strings.Contains(Text(), "from the eighth step on every user is kept") {
		t.Error("the text no longer says when the ramp drops the outlying users, which this test checks")
	}
	if s := run("m", "50", "share", "0.05", "tau", "0.12"); s.res.Halted < 8 || s.res.Halted > 20 {
		t.Errorf("m = 50, 5 %% outlying, τ × 0.12: halted at step %d, want after about a dozen", s.res.Halted)
	}
}

// Without privacy and without the baseline, θ̂ lands near the geometric
// median (projected GD on the smoothed loss, 100 steps of Theorem 4.1's η).
func TestDPSGDLessonNonPrivate(t *testing.T) {
	a, s := scenetest.Open(t, New())
	scenetest.MustSet(t, a, "mode", "non-private")
	scenetest.MustSet(t, a, "baseline", "none")
	scenetest.MustSet(t, a, "eta", "20")
	if d := math.Hypot(s.res.Theta[0]-s.best[0], s.res.Theta[1]-s.best[1]); d > 0.15 {
		t.Errorf("non-private θ̂ %v is %v from the median %v", s.res.Theta, d, s.best)
	}
	if s.base.Theta != nil {
		t.Error("a baseline ran though none was chosen")
	}
}

// Dragging the crowd moves the minimiser with it; bad settings are refused
// and leave the lesson as it was.
func TestDPSGDLessonDragAndRejects(t *testing.T) {
	a, s := scenetest.Open(t, New())
	before := append([]float64(nil), s.best...)
	p, _ := scenetest.Frame(a).Locate(dpsgdCrowd)
	scenetest.Drag(a, p, -60, -40)
	if math.Hypot(s.best[0]-before[0], s.best[1]-before[1]) < 0.05 {
		t.Errorf("the minimiser stayed at %v after dragging the crowd", s.best)
	}
	for _, c := range [][2]string{{"baseline", "magic"}, {"mode", "teaching"}, {"steps", "0"}, {"n", "x"}} {
		if err := a.Set(c[0], c[1]); err == nil {
			t.Errorf("Set(%s, %s) accepted", c[0], c[1])
		}
	}
	if s.baseline != optim.BaselineUser || s.params.Steps != 100 {
		t.Errorf("bad settings changed the lesson: %q, T = %d", s.baseline, s.params.Steps)
	}
}

// One frame of DP-SGD playing, as the browser asks for it: the next step,
// the display list encoded, and the panel's buffers (into reused buffers,
// as the bridge keeps them). Allocation per frame is what feeds the garbage
// collector, whose pauses land inside whichever call is running in wasm.
func BenchmarkDPSGDFrame(b *testing.B) {
	a := viz.NewApp(New())
	if err := a.Set(viz.CtlSpeed, "50"); err != nil {
		b.Fatal(err)
	}
	var frame, ctl, ro, gu []byte
	b.ReportAllocs()
	for b.Loop() {
		// Playing at 50 steps/s, a 20-ms frame is one step; at the end,
		// start again.
		if !a.Tick(0.02) {
			if err := errors.Join(a.Set(viz.CtlReset, ""), a.Set(viz.CtlPlay, "")); err != nil {
				b.Fatal(err)
			}
		}
		l, _ := a.Frame(900, 640)
		frame = viz.Encode(l, frame[:0])
		ctl = viz.EncodeControls(a.Controls(), ctl)
		ro = viz.EncodeReadouts(a.Readouts(), ro)
		gu = viz.EncodeGuarantee(a.Guarantee(), gu)
	}
}

// A change computes between frames: with no time per slice, each call does
// one step of work. Until the run is done the figure shows the previous
// one with a banner over it, the controls show the new setting, and a newer
// change replaces the computation under way; the run it ends with is the
// one computing it at once would give.
func TestDPSGDComputesBetweenFrames(t *testing.T) {
	defer func(d float64) { computeSlice = d }(computeSlice)
	a, s := scenetest.Open(t, New())
	theta := slices.Clone(s.res.Theta)
	computeSlice = 0
	if err := a.Set("eps", "4"); err != nil {
		t.Fatal(err)
	}
	if !s.Busy() || s.params.Eps != 8 || !slices.Equal(s.res.Theta, theta) {
		t.Fatalf("after one slice: busy %v, ε = %v shown", s.Busy(), s.params.Eps)
	}
	if c := scenetest.Control(a, "eps"); c.Value != "4" {
		t.Errorf("the ε control shows %q while ε = 4 is computed", c.Value)
	}
	if r, ok := scenetest.Readout(a, "computing"); !ok || !strings.Contains(r.Text, "DP-SGD's steps") || !scenetest.HasText(scenetest.Frame(a), "computing: DP-SGD's steps, 0%") ||
		!strings.HasSuffix(r.Text, "show the run the lesson opens on, at its own settings") {
		t.Errorf("no progress shown, or not what the figure shows meanwhile: %+v", r)
	}
	// A refused value neither replaces nor cancels the change under way.
	if err := a.Set("steps", "0"); err == nil || !s.Busy() || scenetest.Control(a, "eps").Value != "4" {
		t.Fatalf("steps = 0 while ε = 4 computes: err %v, busy %v", err, s.Busy())
	}
	a.Tick(0)
	a.Tick(0)
	before, _ := scenetest.Readout(a, "computing")
	scenetest.MustSet(t, a, "n", "100") // a newer change, this time finished
	if s.Busy() || s.params.Eps != 4 || s.n != 100 || s.data.N() != 100 {
		t.Fatalf("after settling: busy %v, ε = %v, n = %d, %d users", s.Busy(), s.params.Eps, s.n, s.data.N())
	}
	if before.Value <= 0 || before.Value >= 1 {
		t.Errorf("progress %v after three slices", before.Value)
	}

	computeSlice = math.Inf(1)
	_, fresh := scenetest.Open(t, New())
	for _, c := range [][2]string{{"eps", "4"}, {"n", "100"}} {
		if err := fresh.Set(c[0], c[1]); err != nil || fresh.Busy() {
			t.Fatalf("Set(%s) with time to spare: %v, busy %v", c[0], err, fresh.Busy())
		}
	}
	if !slices.Equal(s.res.Theta, fresh.res.Theta) || !slices.Equal(s.best, fresh.best) || !slices.Equal(s.heat, fresh.heat) {
		t.Errorf("computed in slices θ̂ = %v, at once %v", s.res.Theta, fresh.res.Theta)
	}
	// The next change's figure meanwhile is a run asked for; new users'
	// first unit is the checks, before any stage (not the last run's).
	computeSlice = 0
	if err := a.Set("m", "9"); err != nil {
		t.Fatal(err)
	}
	if r, _ := scenetest.Readout(a, "computing"); !s.Busy() || !strings.HasSuffix(r.Text, "show the last run computed") || !strings.HasPrefix(r.Text, "starting, 0%") {
		t.Errorf("a change after a change: busy %v, %q", s.Busy(), r.Text)
	}
	a.Settle()
	computeSlice = math.Inf(1)
	// An export restores a link and must wait for its run.
	want, err := viz.NewApp(New()).ExportTraceOf("scene=dp-sgd&eps=4&n=100", nil)
	if err != nil {
		t.Fatal(err)
	}
	computeSlice = 0
	got, err := viz.NewApp(New()).ExportTraceOf("scene=dp-sgd&eps=4&n=100", nil)
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("an export computed in slices differs from one computed at once (err %v)", err)
	}
}

// New users are drawn by the computation, not by the change: a link's
// settings (n, then m) draw once, and a change that replaces another
// computes its checks only; the users drawn are those of the settings.
func TestDPSGDDrawsUsersInTheComputation(t *testing.T) {
	defer func(d float64) { computeSlice = d }(computeSlice)
	a, s := scenetest.Open(t, New())
	computeSlice = 0
	for _, c := range [][2]string{{"n", "1000"}, {"m", "50"}} { // m replaces n's computation
		if err := a.Set(c[0], c[1]); err != nil {
			t.Fatal(err)
		}
	}
	if !s.Busy() || s.next.data != nil {
		t.Fatalf("after a replacing change: busy %v, users drawn %v", s.Busy(), s.next.data != nil)
	}
	if r, ok := scenetest.Readout(a, "computing"); !ok || r.Value != 0 {
		t.Errorf("progress %+v before any slice", r)
	}
	for s.Busy() {
		a.Tick(0)
	}
	want := &Scene{n: 1000, m: 50, crowd: s.crowd, outliers: s.outliers, share: s.share}
	want.generate()
	if s.data.N() != 1000 || !reflect.DeepEqual(s.data, want.data) {
		t.Errorf("drew %d users, not the settings' 1000 of 50 items", s.data.N())
	}
}

// The loss landscape shades Θ and nothing outside it: every shaded cell,
// those across the edge clipped, lies in the unit disk, and the cells
// cover the disk (their areas add up to π within a sliver).
func TestDPSGDLandscapeStaysInTheDisk(t *testing.T) {
	a, s := scenetest.Open(t, New())
	l := scenetest.Frame(a)
	o, r := s.cam.ToScreen(0, 0), s.cam.Scale
	area := 0.0
	for _, it := range l.Items {
		if it.Style.Fill != viz.Sky {
			continue
		}
		pts := it.P
		if it.Kind == viz.Rect {
			pts = []viz.Point{it.P[0], {X: it.P[1].X, Y: it.P[0].Y}, it.P[1], {X: it.P[0].X, Y: it.P[1].Y}}
		}
		for _, p := range pts {
			if d := math.Hypot(p.X-o.X, p.Y-o.Y); d > r+1e-9 {
				t.Fatalf("a landscape cell reaches %.2f px from the centre, the disk's radius is %.2f", d, r)
			}
		}
		cell := 0.0
		for i := range pts { // shoelace
			j := (i + 1) % len(pts)
			cell += (pts[i].X*pts[j].Y - pts[j].X*pts[i].Y) / 2
		}
		area += math.Abs(cell)
	}
	if ratio := area / (math.Pi * r * r); ratio < 0.99 || ratio > 1.0001 {
		t.Errorf("the landscape covers %.4f of the disk", ratio)
	}
}

// The loss landscape is one layer a backend may paint once: its key stays
// while the steps play, and changes when the users move (a new landscape).
func TestDPSGDLandscapeIsOneLayer(t *testing.T) {
	a, s := scenetest.Open(t, New())
	layer := func() (key string, cells int) {
		key, inside, _ := scenetest.Layer(scenetest.Frame(a))
		for _, it := range inside {
			if it.Kind == viz.Rect || it.Kind == viz.Polygon {
				cells++
			}
		}
		return key, cells
	}
	k0, cells := layer()
	if k0 == "" || cells < 500 {
		t.Fatalf("layer %q holds %d cells", k0, cells)
	}
	for range 5 {
		a.Key("ArrowRight")
	}
	if k, _ := layer(); k != k0 {
		t.Errorf("stepping changed the landscape's key: %q → %q", k0, k)
	}
	// The run finishing inside start's first slice, as it does on a fast
	// machine, is the case a stale frame would hide.
	defer func(d float64) { computeSlice = d }(computeSlice)
	computeSlice = math.Inf(1)
	s.crowd[0] += 0.2 // as a drag of the crowd's handle does
	next := s.latest().copy()
	next.crowd = s.crowd
	next.generate()
	if err := s.start(next, true); err != nil {
		t.Fatal(err)
	}
	a.Settle()
	a.Invalidate() // the change went behind the App's back, past its Tick

	if k, _ := layer(); k == k0 {
		t.Error("moving the crowd kept the landscape's key")
	}
}

// The figure says what it shows, and a step changes what it says.
func TestDPSGDDescribes(t *testing.T) {
	a, _ := scenetest.Open(t, New())
	scenetest.Describes(t, a, func() { a.Key("ArrowRight") })
}

// The keyboard moves the crowd's handle as a mouse drag does.
func TestDPSGDKeyboardDrag(t *testing.T) {
	scenetest.KeyboardMatchesMouse(t, scenetest.Opens(t, New), "ArrowDown")
}

// The iterates scribble over the disk at the opening settings (ORME's σ
// is several times the disk's radius); the bold line is their running
// average, which is what the run answers: at step t it ends at the mean
// of θ_1..θ_t, and at the end at θ̂.
func TestDPSGDDrawsTheRunningAverage(t *testing.T) {
	a, s := scenetest.Open(t, New())
	bold := func() []viz.Point {
		var out []viz.Point
		for _, it := range scenetest.Frame(a).Items {
			if it.Kind == viz.Polyline && it.Style.Stroke == viz.Blue && it.Style.Width >= 2 {
				out = it.P
			}
		}
		return out
	}
	for range 10 {
		a.Key("ArrowRight")
	}
	var mx, my float64
	for _, it := range s.res.Iterates[:10] {
		mx, my = mx+it[0]/10, my+it[1]/10
	}
	if p := bold(); len(p) != 10 || math.Hypot(p[9].X-s.cam.ToScreen(mx, my).X, p[9].Y-s.cam.ToScreen(mx, my).Y) > 1e-6 {
		t.Fatalf("after 10 steps the bold line has %d points and ends at %v, want the mean of θ_1..θ_10 at %v", len(p), p[len(p)-1:], s.cam.ToScreen(mx, my))
	}
	scenetest.MustSet(t, a, viz.CtlEnd, "")
	p := bold()
	end := s.cam.ToScreen(s.res.Theta[0], s.res.Theta[1])
	if len(p) != len(s.res.Iterates) || math.Hypot(p[len(p)-1].X-end.X, p[len(p)-1].Y-end.Y) > 1e-6 {
		t.Errorf("at the end the bold line has %d points and ends at %v, want θ̂ at %v", len(p), p[len(p)-1], end)
	}
}

// The localisation (Algorithm 4): 300 users of 5 items make 4 phases on
// groups of 18, 37, 75 and 150 users in file order, each starting at the
// last one's answer; the stepper walks every phase's steps and then its
// answer; the strip, the inset and the readouts follow the phase shown;
// items lie in the disk (R_X = 1) and the outlying users are spread over
// the groups. At these sizes the proof's balls are wider than Θ, and
// phase 1's 18 users are too few for the gate: it halts and passes its
// start on.
func TestDPSGDLocalisation(t *testing.T) {
	a, s := scenetest.Open(t, New())
	scenetest.MustSet(t, a, "algo", algoLocal)
	ph := s.sc.Phases
	if len(ph) != 4 || ph[0].Users != 18 || ph[3].Users != 150 || ph[0].Halted == 0 {
		t.Fatalf("%d phases: %+v", len(ph), ph)
	}
	steps := 0
	for i, p := range ph {
		shown := p.Settings.Steps
		if p.Halted > 0 {
			shown = p.Halted - 1 // the failed step ends the phase
		}
		steps += shown + 1
		if i > 0 && !slices.Equal(p.Start, ph[i-1].Theta) {
			t.Errorf("phase %d starts at %v, the last answer %v", i+1, p.Start, ph[i-1].Theta)
		}
	}
	if !slices.Equal(ph[0].Theta, []float64{0, 0}) {
		t.Errorf("halted phase 1 answers %v, not its start θ₀", ph[0].Theta)
	}
	if n := s.player.Stepper().Len(); n != steps {
		t.Errorf("%d stepper steps, want every phase's steps and answers, %d", n, steps)
	}
	outliers := 0
	means := s.data.Means()
	for i := range s.data.Users {
		for j := range s.data.Items(i) {
			if it := s.data.Item(i, j); math.Hypot(it[0], it[1]) > localRX+1e-12 {
				t.Fatalf("item %v outside the disk R_X", it)
			}
		}
		if i < 18 && math.Hypot(means[i][0]-s.outliers[0], means[i][1]-s.outliers[1]) < 0.3 {
			outliers++
		}
	}
	if outliers == 0 {
		t.Error("phase 1's group holds no outlying user")
	}
	l := scenetest.Frame(a)
	if !scenetest.HasText(l, "users by phase: phase 1 takes 18 fresh ones; R̂ = 4, wider than Θ") || !scenetest.HasText(l, "step with → to see them") {
		t.Error("the opening frame does not show phase 1's strip and wait for a step")
	}
	a.Key("ArrowRight")
	if at := s.localAt(); at != (localAt{phase: 0, step: 1}) || !scenetest.HasText(scenetest.Frame(a), "step 1: s = ") {
		t.Errorf("after one step: %+v", at)
	}
	if r, _ := scenetest.Readout(a, "phase"); !strings.HasPrefix(r.Text, "1 of 4: 18 fresh users (1 to 18 in file order)") {
		t.Errorf("phase readout %q", r.Text)
	}
	_ = s.player.Stepper().Seek(ph[0].Halted - 1)
	a.Key("ArrowRight") // the figure is drawn again after a key
	if at := s.localAt(); at != (localAt{phase: 0, step: ph[0].Halted, done: 1, ended: true}) ||
		!scenetest.HasText(scenetest.Frame(a), format.Sprintf("phase 1 halted at step %d → its answer is its start", ph[0].Halted)) {
		t.Errorf("phase 1's end: %+v", at)
	}
	a.Key("ArrowRight")
	if at := s.localAt(); at != (localAt{phase: 1, step: 1, done: 1}) || !scenetest.HasText(scenetest.Frame(a), "users by phase: phase 2 takes 37 fresh ones") {
		t.Errorf("one step into phase 2: %+v", at)
	}
	scenetest.MustSet(t, a, viz.CtlEnd, "")
	l = scenetest.Frame(a)
	diamonds := 0
	for _, it := range l.Items {
		if it.Kind == viz.Polygon && len(it.P) == 4 && it.Style.Fill == viz.Blue {
			diamonds++
		}
	}
	if diamonds != 4 || !scenetest.HasText(l, "θ̂ (the answer)") {
		t.Errorf("%d answers drawn at the end, want the 4 phases'", diamonds)
	}
	if r, _ := scenetest.Readout(a, "phases"); r.Text != "users 18, 37, 75, 150 of n = 300 (the last 20 unused); R̂ 4, 4.74, 4.13, 3.21" {
		t.Errorf("phases readout %q", r.Text)
	}
	if r, _ := scenetest.Readout(a, "halted"); !r.Warn || !strings.Contains(r.Text, format.Sprintf("phase 1 at step %d", ph[0].Halted)) {
		t.Errorf("halted readout %+v", r)
	}
	if g := a.Guarantee(); !strings.Contains(g.Note, "4 DP-SGD phases") || !slices.Equal(s.sc.Theta, ph[3].Theta) {
		t.Errorf("guarantee %+v, θ̂ %v", g, s.sc.Theta)
	}
	// Sound mode certifies each phase's ORME only on a group of about a
	// thousand users: the first holds 625 of 20,000 and 1,250 of 40,000.
	if s.localCertified(maxUsers) || s.localCertified(20_000) || !s.localCertified(40_000) {
		t.Error("sound mode's certificate for the localisation: want none within the slider, none at 20,000 users, one at 40,000")
	}
	if why, set, ok := s.Certify(); !ok || set != nil || !strings.Contains(why, "the first holds only n/2^k users (18 here)") {
		t.Errorf("certify: %q, %v", why, set)
	}
	if d := a.Describe(); !strings.Contains(d, "in phases on fresh groups") || !strings.Contains(d, "the items' mean θ*") {
		t.Errorf("description: %s", d)
	}
	state := a.State()
	b, s2 := scenetest.Open(t, New())
	err := b.Restore(state)
	b.Settle()
	if err != nil || s2.algo != algoLocal || !slices.Equal(s2.sc.Theta, s.sc.Theta) {
		t.Errorf("restored from %q: %v, %v", state, err, s2.sc.Theta)
	}
	scenetest.MustSet(t, a, "algo", algoConvex)
	if s.res.Iterates == nil || s.base.Theta == nil {
		t.Error("back to the convex run: no run or baseline")
	}
}

// With 1,000 users of 50 items the proof's balls shrink into Θ (R̂ = 4,
// 1.88, 1.07, 0.68) and every phase's gate passes; the figure draws the
// ball of the phase shown.
func TestDPSGDLocalisationShrinks(t *testing.T) {
	a, s := scenetest.Open(t, New(), [2]string{"algo", algoLocal}, [2]string{"n", "1000"}, [2]string{"m", "50"})
	for i, p := range s.sc.Phases {
		if p.Halted != 0 || i > 0 && !(p.RHat < s.sc.Phases[i-1].RHat) {
			t.Errorf("phase %d: halted %d, R̂ %v", i+1, p.Halted, p.RHat)
		}
	}
	scenetest.MustSet(t, a, viz.CtlEnd, "")
	last := s.sc.Phases[3]
	ring := false
	for _, it := range scenetest.Frame(a).Items {
		ring = ring || it.Kind == viz.Circle && it.Style.Stroke == viz.Green && math.Abs(it.R-last.RHat*s.cam.Scale) < 1e-9
	}
	if !ring || !(last.RHat < 1) {
		t.Errorf("no ball of radius R̂ = %v drawn around phase 4's start", last.RHat)
	}
}

// Without noise each phase's answer is closer to its own users' item mean
// than its start was, and the run's answer lands near the items' mean.
func TestDPSGDLocalisationNonPrivate(t *testing.T) {
	_, s := scenetest.Open(t, New(), [2]string{"algo", algoLocal}, [2]string{"mode", "non-private"})
	lo := 0
	for _, p := range s.sc.Phases {
		group, err := s.data.Delete(append(seq(0, lo), seq(lo+p.Users, s.n)...)...)
		if err != nil {
			t.Fatal(err)
		}
		lo += p.Users
		mean := itemMean(group, 1)
		dist := func(x []float64) float64 { return math.Hypot(x[0]-mean[0], x[1]-mean[1]) }
		if !(dist(p.Theta) < dist(p.Start)) {
			t.Errorf("phase %d: %.3g → %.3g from its users' mean", p.I, dist(p.Start), dist(p.Theta))
		}
	}
	if d := math.Hypot(s.sc.Theta[0]-s.best[0], s.sc.Theta[1]-s.best[1]); d > 0.1 {
		t.Errorf("θ̂ %v is %.3g from the items' mean %v", s.sc.Theta, d, s.best)
	}
}

// seq is lo, lo+1, …, hi−1.
func seq(lo, hi int) []int {
	out := make([]int, 0, hi-lo)
	for i := lo; i < hi; i++ {
		out = append(out, i)
	}
	return out
}

// Too few users for the halving groups is refused with what to change.
func TestDPSGDLocalisationRefusesFewUsers(t *testing.T) {
	a, s := scenetest.Open(t, New(), [2]string{"algo", algoLocal})
	scenetest.MustSet(t, a, "m", "50")
	err := a.Set("n", "20")
	if err == nil || !strings.Contains(err.Error(), "bring 32 users or more") || s.n != 300 {
		t.Errorf("n = 20, m = 50: %v (n now %d)", err, s.n)
	}
}

// The certify line is found again when the settings change (the app keeps
// it while they stay the same, and compares them every frame).
func TestDPSGDCertifyLineFollowsTheSettings(t *testing.T) {
	a, _ := scenetest.Open(t, New())
	first := scenetest.Control(a, viz.CtlCertify).Help
	scenetest.MustSet(t, a, "eps", "4")
	second := scenetest.Control(a, viz.CtlCertify).Help
	scenetest.MustSet(t, a, "algo", algoLocal)
	third := scenetest.Control(a, viz.CtlCertify).Help
	if !strings.Contains(first, "from 890 users") || second == first || !strings.Contains(third, "no localisation") {
		t.Errorf("certify lines:\n%s\n%s\n%s", first, second, third)
	}
}
