package outlierremoval

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/mech"
	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/internal/scenetest"
)

// The default run: the crowd's 28 users pass the gate and are kept, the two
// far users (one neighbour each: themselves) get p = 0 and are dropped, and
// the release shows the kept mean next to the mean of everyone.
func TestOutlierDefaultRun(t *testing.T) {
	a, s := scenetest.Open(t, New())
	if s.shown(mech.KindORMEScore) {
		t.Fatal("the score is shown before any step")
	}
	scenetest.MustSet(t, a, viz.CtlEnd, "")
	st := s.step
	if !st.Passed || len(st.Kept) != 28 || st.Counts[28] != 1 || st.Keep[28] != 0 || st.Keep[0] != 1 {
		t.Fatalf("passed %v, kept %d, f = %v, p = %v", st.Passed, len(st.Kept), st.Counts, st.Keep)
	}
	if slices.Contains(st.Kept, 28) || slices.Contains(st.Kept, 29) {
		t.Error("a far user was kept")
	}
	bias, ok := scenetest.Readout(a, "bias")
	if !ok || !(bias.Value > 0.01) {
		t.Errorf("bias readout %+v: dropping two far users moves the mean", bias)
	}
	hollow := 0
	for _, it := range scenetest.Frame(a).Items {
		if it.Kind == viz.Circle && it.ID >= 1 && it.ID <= 30 && it.Style.Fill == viz.None {
			hollow++
		}
	}
	if hollow != 2 {
		t.Errorf("%d users drawn hollow (not kept), want the 2 far ones", hollow)
	}
}

// Steps reveal the story in order: score, gate, ramp and coins, release.
func TestOutlierStepsReveal(t *testing.T) {
	a, s := scenetest.Open(t, New())
	var kinds []string
	for range s.player.Stepper().Len() {
		a.Key("ArrowRight")
		st, _ := s.player.Stepper().Current()
		kinds = append(kinds, string(st.Kind))
	}
	want := []string{"at.threshold", "orme.score", "at.compare", "orme.keep", "orme.release"}
	if !slices.Equal(kinds, want) {
		t.Errorf("steps %v, want %v", kinds, want)
	}
	if !scenetest.HasText(scenetest.Frame(a), "s + ν ≥ Δ̂: ⊤") {
		t.Error("the gate's verdict is not drawn")
	}
}

// Dragging a far user into the crowd: its count jumps to n and it is kept;
// no other user's coin changes (same seed, one coin per user).
func TestOutlierDragIntoCrowd(t *testing.T) {
	a, s := scenetest.Open(t, New())
	scenetest.MustSet(t, a, viz.CtlEnd, "")
	before := slices.Clone(s.step.Kept)
	l := scenetest.Frame(a)
	from, _ := l.Locate(29)
	to, _ := l.Locate(1)
	scenetest.Drag(a, from, to.X-from.X, to.Y-from.Y)
	st := s.step
	if st.Counts[28] < 28 || st.Keep[28] != 1 || !slices.Contains(st.Kept, 28) {
		t.Fatalf("after the drag: f = %d, p = %v, kept %v", st.Counts[28], st.Keep[28], st.Kept)
	}
	if got := slices.DeleteFunc(slices.Clone(st.Kept), func(j int) bool { return j == 28 }); !slices.Equal(got, before) {
		t.Errorf("other users' selections changed: %v → %v", before, st.Kept)
	}
}

// Presets that fail: two equal crowds, and τ below the crowd's spread.
func TestOutlierFailingPresets(t *testing.T) {
	for _, p := range []string{"two-clusters", "tau-too-small"} {
		a, s := scenetest.Open(t, New())
		scenetest.MustSet(t, a, "preset", p)
		scenetest.MustSet(t, a, viz.CtlEnd, "")
		if s.step.Passed || s.step.PPass > 1e-3 {
			t.Errorf("%s: passed %v with probability %v", p, s.step.Passed, s.step.PPass)
		}
		if r, _ := scenetest.Readout(a, "outcome"); !r.Warn || !strings.Contains(r.Text, "halt") {
			t.Errorf("%s: outcome %+v", p, r)
		}
		if !scenetest.HasText(scenetest.Frame(a), "the gate failed") {
			t.Errorf("%s: the figure does not say the gate failed", p)
		}
		if halt := haltText(s); !strings.Contains(halt, "not concentrated enough") {
			t.Errorf("%s: the halt says %q, want that the users are not concentrated", p, halt)
		}
	}
	a, s := scenetest.Open(t, New())
	scenetest.MustSet(t, a, "preset", "too-few-users")
	if s.params.Eps != 1 || s.n != 8 || a.Guarantee().Preconditions[0].Met {
		t.Errorf("too-few-users: ε = %v, n = %d, %v", s.params.Eps, s.n, a.Guarantee())
	}
	// Eight users who agree score 8 ≥ 4n/5, yet the noise halts the run:
	// the trace blames the noise, not the users.
	scenetest.MustSet(t, a, viz.CtlEnd, "")
	if s.step.Passed || s.step.Score < s.step.Threshold {
		t.Fatalf("too-few-users: score %v of gate %v, passed %v; the test needs a met score that fails", s.step.Score, s.step.Threshold, s.step.Passed)
	}
	if halt := haltText(s); !strings.Contains(halt, "meets 4n/5") || strings.Contains(halt, "not concentrated") {
		t.Errorf("too-few-users: the halt says %q", halt)
	}
}

// haltText is the run's halting step's words, "" if it did not halt.
func haltText(s *Scene) string {
	for _, st := range s.Trace().Steps {
		if st.Kind == mech.KindORMEHalt {
			return st.Text
		}
	}
	return ""
}

// Sound constants: the same run with the corrected scales, σ far larger,
// and the sound proof's user requirement shown unmet at n = 30.
func TestOutlierSoundMode(t *testing.T) {
	a, s := scenetest.Open(t, New())
	paper := s.cal.Sigma
	scenetest.MustSet(t, a, "mode", "sound")
	if s.cal.Sigma < 20*paper || s.cal.ScoreSens != 2*29.0/30 {
		t.Errorf("sound σ = %v (paper %v), Δ_s = %v", s.cal.Sigma, paper, s.cal.ScoreSens)
	}
	if g := a.Guarantee(); g.Certified() || !strings.Contains(g.Preconditions[0].What, "7.5") {
		t.Errorf("sound guarantee %v", g)
	}
	scenetest.MustSet(t, a, "mode", "non-private")
	scenetest.MustSet(t, a, viz.CtlEnd, "")
	if s.cal.Sigma != 0 || !s.step.Passed || !slices.Equal(s.step.Output, s.step.Mean) {
		t.Errorf("non-private: σ %v, passed %v, output %v vs mean %v", s.cal.Sigma, s.step.Passed, s.step.Output, s.step.Mean)
	}
}

func TestOutlierRejectsAndRestores(t *testing.T) {
	a, s := scenetest.Open(t, New())
	for _, c := range [][2]string{{"preset", "ring"}, {"mode", "teaching"}, {"tau", "0"}, {"n", "1000"}, {"eps", "x"}} {
		if err := a.Set(c[0], c[1]); err == nil {
			t.Errorf("Set(%s, %s) accepted", c[0], c[1])
		}
	}
	if s.preset != "outliers" || s.params.Tau != 0.5 || s.n != 30 {
		t.Errorf("bad settings changed the lesson: %s τ = %v n = %d", s.preset, s.params.Tau, s.n)
	}
	scenetest.MustSet(t, a, "preset", "heavy-tails")
	scenetest.MustSet(t, a, "tau", "0.8")
	scenetest.MustSet(t, a, "n", "50")
	b, s2 := scenetest.Open(t, New())
	if err := b.Restore(a.State()); err != nil {
		t.Fatal(err)
	}
	if s2.preset != "heavy-tails" || s2.params.Tau != 0.8 || s2.n != 50 || !(math.Abs(s2.step.Score-s.step.Score) <= 0) {
		t.Errorf("restored %s τ = %v n = %d s = %v (want s = %v)", s2.preset, s2.params.Tau, s2.n, s2.step.Score, s.step.Score)
	}
}

// Neighbour mode on spec §9.5's circle: moving user 1 far in the copy gives
// ‖p − p′‖₁ = 3.5 > 2 (the lemma's claim fails; the slope bound 6.5 holds),
// the original stays put, and the coins are shared: the kept sets differ
// only where a coin falls between p and p′.
func TestOutlierNeighbourCircle(t *testing.T) {
	a, s := scenetest.Open(t, New())
	scenetest.MustSet(t, a, "preset", "circle")
	scenetest.MustSet(t, a, "mode", "non-private") // every gate passes: the ramps are the point
	scenetest.MustSet(t, a, "neighbour", "true")
	scenetest.MustSet(t, a, viz.CtlEnd, "")
	orig := slices.Clone(s.users[0])
	p, _ := scenetest.Frame(a).Locate(1)
	scenetest.Drag(a, p, 300, -200)
	if !slices.Equal(s.users[0], orig) || s.nbUser != 0 {
		t.Fatalf("the drag moved the original (%v → %v) or not the copy (%d)", orig, s.users[0], s.nbUser)
	}
	for j := range 12 {
		if s.step.Keep[j] != 0.5 {
			t.Fatalf("user %d: p = %v, want 1/2 on the circle", j+1, s.step.Keep[j])
		}
	}
	l1, diff := s.keepDistance()
	if l1 != 3.5 {
		t.Errorf("‖p − p′‖₁ = %v, want 3.5", l1)
	}
	r, _ := scenetest.Readout(a, "keep-distance")
	if !r.Warn || !strings.Contains(r.Text, "6.5") {
		t.Errorf("readout %+v", r)
	}
	// Shared coins: a user kept in one run and not the other has its coin
	// between p and p′, so only users whose p changed can differ.
	for _, j := range s.nbStep.Kept {
		if s.nbStep.Keep[j] == 0 {
			t.Errorf("user %d kept with p′ = 0", j+1)
		}
	}
	if diff > 8 {
		t.Errorf("%d coins fell differently, but only 8 users' p changed", diff)
	}
	if !scenetest.HasText(scenetest.Frame(a), "coins falling differently") {
		t.Error("the comparison is not drawn")
	}
}

// At the release the crowd of the default preset is a blob in the plane's
// view; an inset shows it magnified, at the page's wide and phone sizes,
// with its users far enough apart to tell and grab, and a drag in the
// inset moves the user by the inset's scale.
func TestOutlierCrowdInset(t *testing.T) {
	for _, size := range [][2]float64{{1060, 630}, {358, 590}} {
		a, s := scenetest.Open(t, New())
		scenetest.MustSet(t, a, viz.CtlEnd, "")
		l, _ := a.Frame(size[0], size[1])
		in := s.inset
		if in.W == 0 || in.Scale < 3*s.cam.Scale {
			t.Fatalf("%v: no inset (camera %+v, main scale %g)", size, in, s.cam.Scale)
		}
		// The crowd's users in the inset: at least 3 in 4 of them are more
		// than a dot's radius (5 px) and a fifth from any other.
		var pts []viz.Point
		for j := range s.users[:28] {
			p, ok := l.Locate(s.n + 1 + j)
			if !ok {
				t.Fatalf("%v: crowd user %d is not in the inset", size, j+1)
			}
			pts = append(pts, p)
		}
		apart := 0
		for i, p := range pts {
			near := math.Inf(1)
			for k, q := range pts {
				if k != i {
					near = math.Min(near, math.Hypot(p.X-q.X, p.Y-q.Y))
				}
			}
			if near > 6 {
				apart++
			}
		}
		if apart < 21 {
			t.Errorf("%v: only %d of 28 crowd users stand apart in the inset", size, apart)
		}
		// Grab a user in the inset and move it 24 px to the right.
		a.Event(viz.Event{Kind: viz.PointerDown, X: pts[0].X, Y: pts[0].Y})
		j := s.grab.ID - 1
		if j < 0 {
			t.Fatalf("%v: nothing grabbed at user 1 in the inset", size)
		}
		before := slices.Clone(s.users[j])
		a.Event(viz.Event{Kind: viz.PointerMove, X: pts[0].X + 24, Y: pts[0].Y})
		a.Event(viz.Event{Kind: viz.PointerUp, X: pts[0].X + 24, Y: pts[0].Y})
		if got, want := s.users[j][0]-before[0], 24/in.Scale; !(math.Abs(got-want) <= 1e-9) || s.users[j][1] != before[1] {
			t.Errorf("%v: user %d moved by (%g, %g), want (%g, 0)", size, j+1, got, s.users[j][1]-before[1], want)
		}
	}
}

// The figure says what it shows, and stepping to the ramp changes what it
// says.
func TestOutlierDescribes(t *testing.T) {
	a, _ := scenetest.Open(t, New())
	scenetest.Describes(t, a, func() { a.Key("End") })
	if d := a.Describe(); !strings.Contains(d, "The keep ramp keeps") {
		t.Errorf("at the end: %q", d)
	}
}

// The keyboard moves the user it names: user 1, though others cover it
// where it is drawn; and user 30, the far one, as a mouse drag does.
func TestOutlierKeyboardDrag(t *testing.T) {
	scenetest.KeyboardMatchesMouse(t, scenetest.Opens(t, New), "End", "ArrowDown")
	scenetest.KeyboardMatchesMouse(t, scenetest.Opens(t, New), append([]string{"End"}, slices.Repeat([]string{"ArrowDown"}, 30)...)...)
}

// A user dragged past the plane's edge waits at it, not over the keep-ramp
// chart beside the plane, with the neighbour on or off; one taken from the
// crowd's inset leaves the inset's window, out of the crowd.
func TestOutlierDragStaysInThePlane(t *testing.T) {
	a, s := scenetest.Open(t, New())
	scenetest.MustSet(t, a, viz.CtlEnd, "")
	l := scenetest.Frame(a)
	in, ok := l.Locate(s.n + 1)
	if !ok || s.inset.W == 0 {
		t.Fatal("no crowd inset to drag from")
	}
	win := s.inset // the window as the drag starts: it follows the crowd after
	x0, y1 := win.ToWorld(viz.Point{X: win.X0, Y: win.Y0})
	x1, y0 := win.ToWorld(viz.Point{X: win.X0 + win.W, Y: win.Y0 + win.H})
	a.Event(viz.Event{Kind: viz.PointerDown, X: in.X, Y: in.Y})
	if s.grab.ID == 0 {
		t.Fatal("nothing grabbed in the inset")
	}
	u := s.grab.ID - 1
	for k := 1; k <= 4; k++ {
		a.Event(viz.Event{Kind: viz.PointerMove, X: in.X, Y: in.Y - win.H*float64(k)/4})
	}
	a.Event(viz.Event{Kind: viz.PointerUp, X: in.X, Y: in.Y - win.H})
	if p := s.users[u]; p[0] >= x0 && p[0] <= x1 && p[1] >= y0 && p[1] <= y1 {
		t.Errorf("user %d dragged up out of the inset stayed in its window: %v", u+1, p)
	}
	for _, nb := range []string{"false", "true"} {
		a, s := scenetest.Open(t, New())
		scenetest.MustSet(t, a, "neighbour", nb)
		l := scenetest.Frame(a)
		from, _ := l.Locate(1)
		scenetest.Drag(a, from, 5*scenetest.W, 3*scenetest.H)
		u := s.users[0]
		if nb == "true" {
			u = s.nbAt
		}
		p, c := s.cam.ToScreen(u[0], u[1]), s.cam
		if p.X < c.X0-0.5 || p.X > c.X0+c.W+0.5 || p.Y < c.Y0-0.5 || p.Y > c.Y0+c.H+0.5 {
			t.Errorf("neighbour %s: the user dragged to (%.0f, %.0f), outside the plane [%.0f, %.0f] × [%.0f, %.0f]", nb, p.X, p.Y, c.X0, c.X0+c.W, c.Y0, c.Y0+c.H)
		}
		if nb == "false" {
			continue
		}
		// Its label stays in the plane too, off the charts beside it.
		found := false
		for _, it := range scenetest.Frame(a).Items {
			if it.Kind != viz.Text || it.Text != format.Sprintf("user %d in the neighbour", s.nbUser+1) {
				continue
			}
			found = true
			left := it.P[0].X
			if it.Align == viz.Right {
				left -= viz.TextWidth(it.Text, it.Size)
			}
			if right := left + viz.TextWidth(it.Text, it.Size); left < c.X0 || right > c.X0+c.W {
				t.Errorf("the neighbour's label spans x %.0f…%.0f, past the plane's %.0f…%.0f", left, right, c.X0, c.X0+c.W)
			}
		}
		if !found {
			t.Error("the neighbour's moved user is not labelled")
		}
	}
}

// The text's figures for sound mode: σ about 110 times paper mode's at the
// lesson's defaults, and 263 users for the proof (the certify button's).
func TestORMETextQuotesSoundMode(t *testing.T) {
	a := viz.NewApp(New())
	paper := scenetest.ReadoutValue(a, "sigma")
	scenetest.MustSet(t, a, "mode", "sound")
	ratio := scenetest.ReadoutValue(a, "sigma") / paper
	if !strings.Contains(Text(), "a factor of about 110,") || math.Abs(ratio-110) > 11 {
		t.Errorf("sound mode's σ is %.1f times paper mode's; the text says about 110", ratio)
	}
	_, settings, _ := a.Scene().(viz.Certifier).Certify()
	if !strings.Contains(Text(), "the proof wants 263 users") || !slices.Contains(settings, [2]string{"n", "263"}) {
		t.Errorf("the certified settings %v; the text says 263 users", settings)
	}
}
