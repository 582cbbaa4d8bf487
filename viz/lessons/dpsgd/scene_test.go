package dpsgd

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

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
	diamonds := 0
	for _, it := range scenetest.Frame(a).Items {
		if it.Kind == viz.Polygon && len(it.P) == 4 && it.Style.Fill == viz.Blue || it.Kind == viz.Polygon && it.Style.Fill == viz.Orange {
			diamonds++
		}
	}
	if diamonds != 2 {
		t.Errorf("%d answers drawn, want DP-SGD's and the baseline's", diamonds)
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
// one with a progress bar, the controls show the new setting, and a newer
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
	if r, ok := scenetest.Readout(a, "computing"); !ok || !strings.Contains(r.Text, "DP-SGD's steps") || !scenetest.HasText(scenetest.Frame(a), "computing DP-SGD's steps") {
		t.Errorf("no progress shown: %+v", r)
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
		in := false
		for _, it := range scenetest.Frame(a).Items {
			switch {
			case it.Kind == viz.Layer:
				key, in = it.Text, true
			case it.Kind == viz.LayerEnd:
				in = false
			case in && (it.Kind == viz.Rect || it.Kind == viz.Polygon):
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
