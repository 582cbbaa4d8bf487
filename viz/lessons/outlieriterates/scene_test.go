package outlieriterates

import (
	"context"
	"html"
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/optim"
	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/figure"
	"github.com/uldplab/uldp/viz/internal/scenetest"
)

// stepKinds steps through the whole run with → and returns the kinds of
// the steps, a run of one kind counted once.
func stepKinds(a *viz.App, s *Scene) []string {
	var kinds []string
	for range s.player.Stepper().Len() {
		a.Key("ArrowRight")
		st, _ := s.player.Stepper().Current()
		if len(kinds) == 0 || kinds[len(kinds)-1] != string(st.Kind) {
			kinds = append(kinds, string(st.Kind))
		}
	}
	return kinds
}

// seekOIR moves the stepper to step k.
func seekOIR(t *testing.T, a *viz.App, s *Scene, k int) {
	t.Helper()
	if err := s.player.Stepper().Seek(k); err != nil {
		t.Fatal(err)
	}
	a.Invalidate()
}

// The default run: on seed 5 every gate passes; in phase 1 the far users'
// group (group 1, users 1…10 in file order) ends alone, h = 1, p = 0, and
// is dropped, every other group kept.
func TestOIRDefaultRun(t *testing.T) {
	a, s := scenetest.Open(t, New())
	if len(s.res.Phases) != 3 || s.res.Halted || s.res.Groups != 20 {
		t.Fatalf("%d phases, halted %v, C = %d", len(s.res.Phases), s.res.Halted, s.res.Groups)
	}
	ph := s.res.Phases[0]
	if !slices.Equal(ph.Groups[0], []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}) {
		t.Fatalf("phase 1's group 1 holds users %v, want the ten far ones", ph.Groups[0])
	}
	if ph.Counts[0] != 1 || ph.Keep[0] != 0 || len(ph.Kept) != 19 || slices.Contains(ph.Kept, 0) {
		t.Fatalf("group 1: h = %d, p = %v; kept %v", ph.Counts[0], ph.Keep[0], ph.Kept)
	}
	// Phase 1 ends with its release: 1 phase step, 20 groups, the gate,
	// the coins and the release.
	seekOIR(t, a, s, 1+20+3)
	if r, ok := scenetest.Readout(a, "kept"); !ok || r.Value != 19 || !strings.Contains(r.Text, "dropped: group 1") {
		t.Errorf("kept readout %+v", r)
	}
	l := scenetest.Frame(a)
	if !scenetest.HasText(l, "group 1: h=1") || !scenetest.HasText(l, "kept 19 of 20") {
		t.Error("the figure does not label group 1's count or the phase's outcome")
	}
	hollow := 0
	for _, it := range l.Items {
		if it.Kind == viz.Circle && it.R == 5 && it.Style.Fill == viz.Paper {
			hollow++
		}
	}
	if hollow != 1 {
		t.Errorf("%d end iterates drawn hollow (dropped), want group 1's", hollow)
	}
	scenetest.MustSet(t, a, viz.CtlEnd, "")
	if r, ok := scenetest.Readout(a, "output"); !ok || !(r.Value < 0.5) {
		t.Errorf("output readout %+v: seed 5's release lands within 0.5 of x*", r)
	}
}

// Steps reveal each phase in order: the phase, its groups one by one, the
// gate, the coins, the release; the gradients counter adds T_i per group
// and ends at C·Σ T_i ≤ n·m.
func TestOIRStepsReveal(t *testing.T) {
	a, s := scenetest.Open(t, New())
	kinds := stepKinds(a, s)
	phase := []string{"oir.phase", "oir.group", "oir.gate", "oir.keep", "oir.release"}
	if want := slices.Concat(phase, phase, phase); !slices.Equal(kinds, want) {
		t.Errorf("steps %v, want %v", kinds, want)
	}
	var want int64
	for _, ph := range s.res.Phases {
		want += int64(s.res.Groups * ph.Steps)
	}
	if r, _ := scenetest.Readout(a, "gradients"); r.Value != float64(want) || want != s.res.Gradients || want > 1000*3 {
		t.Errorf("gradients readout %v, run %d, want %d ≤ n·m", r.Value, s.res.Gradients, want)
	}
	// The accelerated variant over three phases on these users: its K_i
	// are capped at n_i, and T_i steps of them cost far more than one pass.
	acc := optim.AccelGradients(s.accel, 3)
	if r, _ := scenetest.Readout(a, "gradients"); len(s.accel) != 3 || acc < 10*want || !strings.Contains(r.Text, format.Sprintf("would take %d", acc)) {
		t.Errorf("accelerated: %d phases, %d gradients; readout %q", len(s.accel), acc, r.Text)
	}
}

// Dragging a far user (in phase 1's group 1) moves its three items by the same
// amount and, on the same seed, changes phase 1's group 1 only: every
// other group's path and end iterate stay where they were.
func TestOIRDragMovesOneGroup(t *testing.T) {
	a, s := scenetest.Open(t, New())
	seekOIR(t, a, s, 1+20)
	before := s.res.Phases[0]
	l := scenetest.Frame(a)
	from, ok := l.Locate(1) // user 1's first item
	if !ok {
		t.Fatal("user 1's first item is not drawn")
	}
	// The far users' items overlap: the one on top there is grabbed.
	u := (l.Hit(from, 4) - 1) / 3
	if u < 0 || u >= 10 {
		t.Fatalf("the pointer at user 1's first item grabs user %d", u+1)
	}
	items := slices.Clone(s.cfg.users[u])
	scenetest.Drag(a, from, 40, -30)
	after := s.res.Phases[0]
	moved := s.cfg.users[u]
	dx, dy := moved[0]-items[0], moved[1]-items[1]
	if math.Hypot(dx, dy) < 0.05 {
		t.Fatalf("user %d moved by (%v, %v)", u+1, dx, dy)
	}
	for k := 0; k < len(items); k += 2 {
		if !(math.Abs(moved[k]-items[k]-dx) <= 1e-12) || !(math.Abs(moved[k+1]-items[k+1]-dy) <= 1e-12) {
			t.Errorf("item %d moved by (%v, %v), item 1 by (%v, %v)", k/2+1, moved[k]-items[k], moved[k+1]-items[k+1], dx, dy)
		}
	}
	if slices.Equal(after.Ends.At(0), before.Ends.At(0)) {
		t.Error("group 1's end iterate did not move")
	}
	for j := 1; j < 20; j++ {
		if !slices.Equal(after.Ends.At(j), before.Ends.At(j)) {
			t.Errorf("group %d's end iterate moved: %v → %v", j+1, before.Ends.At(j), after.Ends.At(j))
		}
	}
	if s.player.Stepper().Pos() != 1+20 {
		t.Errorf("the drag moved the stepper to %d", s.player.Stepper().Pos())
	}
}

// The presets that fail, and the modes.
func TestOIRPresetsAndModes(t *testing.T) {
	a, s := scenetest.Open(t, New())
	scenetest.MustSet(t, a, "preset", "tau-too-small")
	if ph := s.res.Phases[0]; ph.Passed || ph.PPass > 0.01 || !s.res.Halted {
		t.Errorf("tau-too-small: phase 1 passed %v with probability %v", ph.Passed, ph.PPass)
	}
	scenetest.MustSet(t, a, viz.CtlEnd, "")
	if !scenetest.HasText(scenetest.Frame(a), "the run halted: it outputs 0") {
		t.Error("tau-too-small: the figure does not say the run halted")
	}
	if r, _ := scenetest.Readout(a, "gate"); !r.Warn {
		t.Errorf("tau-too-small: gate readout %+v", r)
	}

	// Four groups: even all agreeing, the gate passes with probability
	// Pr[Lap(20/ε) ≥ 4C/5 − C] = 1 − e^{−0.32}/2 at ε = 8.
	scenetest.MustSet(t, a, "preset", "too-few-groups")
	if s.res.Groups != 4 {
		t.Fatalf("too-few-groups: C = %d", s.res.Groups)
	}
	if p := s.res.Phases[0].PPass; !(math.Abs(p-(1-math.Exp(-0.32)/2)) <= 1e-12) {
		t.Errorf("too-few-groups: Pr[pass] = %v", p)
	}

	// Paper mode at n = 1,000: C is printed in the hundreds and phase 1
	// cannot give every group a user; the lesson refuses and says why.
	scenetest.MustSet(t, a, "preset", "far-group")
	err := a.Set("mode", "paper")
	if err == nil || !strings.Contains(err.Error(), "no phase can run") || s.cfg.mode.String() != "sound" {
		t.Errorf("paper mode at n = 1000: %v (mode %v)", err, s.cfg.mode)
	}
	scenetest.MustSet(t, a, "n", "5000")
	scenetest.MustSet(t, a, "mode", "paper")
	if c := (optim.OIRParams{Eps: 8, Delta: 1e-5}).GroupCount(5000, 3); s.res.Groups != c || c < 300 {
		t.Errorf("paper mode: C = %d, printed %d", s.res.Groups, c)
	}
	if r, _ := scenetest.Readout(a, "tau"); !strings.HasPrefix(r.Formula, "1000·") {
		t.Errorf("paper τ formula %q", r.Formula)
	}

	// Non-private: no noise, the gate passes, the release is the kept mean.
	scenetest.MustSet(t, a, "mode", "non-private")
	for _, ph := range s.res.Phases {
		if !ph.Passed || ph.Sigma != 0 || !slices.Equal(ph.Output, ph.Mean) {
			t.Errorf("non-private phase %d: passed %v, σ %v, output %v, mean %v", ph.I, ph.Passed, ph.Sigma, ph.Output, ph.Mean)
		}
	}
	// …and says so where the gate would be, rather than "noisy 4.3 vs 4.8: passed".
	a.Key("End")
	if r, _ := scenetest.Readout(a, "gate"); !strings.Contains(r.Text, "no gate is applied") {
		t.Errorf("non-private gate readout %q", r.Text)
	}
	for _, st := range s.player.Stepper().Trace().Steps {
		if st.Kind == optim.KindOIRGate && !strings.Contains(st.Text, "no gate is applied") {
			t.Errorf("non-private gate step %q", st.Text)
		}
	}
}

// The users round-trip through the export: the loaded dataset reruns to
// the same output on the same seed.
func TestOIRLoadDataset(t *testing.T) {
	_, s := scenetest.Open(t, New())
	d := s.Dataset().Clone()
	out := slices.Clone(s.res.Output)
	s2 := New()
	mustNot(t, s2.Set("seed", "9"))
	mustNot(t, s2.Set("seed", "5"))
	mustNot(t, s2.LoadDataset(d))
	if !slices.Equal(s2.res.Output, out) {
		t.Errorf("reloaded run outputs %v, want %v", s2.res.Output, out)
	}
	d.Users = d.Users[:10]
	if err := s2.LoadDataset(d); err == nil {
		t.Error("a dataset of 10 users loaded into a lesson of 1,000")
	}
}

func mustNot(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// One drag step of lesson 10, at the default 1,000 users × 3 items and at
// the slider's top, 5,000 × 10: the pointer move reruns the whole
// algorithm and the stepper's trace, then draws the display list at phase
// 1's release. The bare run of the same settings is the baseline.
func BenchmarkOIRDrag(b *testing.B) {
	for _, size := range [][2]string{{"1000", "3"}, {"5000", "10"}} {
		s := New()
		a := viz.NewApp(s)
		if err := a.Set("n", size[0]); err != nil {
			b.Fatal(err)
		}
		if err := a.Set("m", size[1]); err != nil {
			b.Fatal(err)
		}
		_ = s.player.Stepper().Seek(1 + 20 + 3)
		l, _ := a.Frame(1000, 700)
		from, _ := l.Locate(1)
		b.Run("n="+size[0]+"/drag", func(b *testing.B) {
			a.Event(viz.Event{Kind: viz.PointerDown, X: from.X, Y: from.Y})
			for i := range b.N {
				a.Event(viz.Event{Kind: viz.PointerMove, X: from.X + float64(i%40), Y: from.Y})
				a.Frame(1000, 700)
			}
			a.Event(viz.Event{Kind: viz.PointerUp})
		})
		b.Run("n="+size[0]+"/run", func(b *testing.B) {
			p, d := s.cfg.params(), s.cfg.data()
			for range b.N {
				if _, _, err := optim.OutlierIterateRemoval(context.Background(), p, d, rng.New(5), nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// The accelerated switch: from sound mode it opens in teaching mode (the
// variant has no sound calibration); on the far group in file order the
// first minibatch holds the ten far users, scores about K·(30² + 10²)/K²
// and halts phase 1, whose output 0 starts phase 2; the counter adds K·m
// a step and quotes one pass of outlier-iterate removal.
func TestOIRAccelerated(t *testing.T) {
	a, s := scenetest.Open(t, New())
	scenetest.MustSet(t, a, "algo", "accelerated")
	if s.cfg.mode.String() != "teaching" || len(s.acc.Phases) != 3 {
		t.Fatalf("mode %v, %d phases", s.cfg.mode, len(s.acc.Phases))
	}
	ph := s.acc.Phases[0]
	if !ph.Halted || len(ph.Steps) != 1 || ph.Steps[0].Passed || !(math.Abs(ph.Steps[0].Score-25) <= 1) {
		t.Fatalf("phase 1: halted %v after %d steps, score %v", ph.Halted, len(ph.Steps), ph.Steps[0].Score)
	}
	if far := ph.Steps[0].Users[:10]; !slices.Equal(far, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}) {
		t.Errorf("the first minibatch starts with users %v", far)
	}
	if !slices.Equal(s.acc.Phases[1].Start, []float64{0, 0}) {
		t.Errorf("phase 2 starts at %v, want phase 1's 0", s.acc.Phases[1].Start)
	}
	kinds := stepKinds(a, s)
	if want := []string{"accel.phase", "at.threshold", "at.compare", "at.halt", "accel.halt", "accel.phase", "at.threshold", "at.compare", "accel.step"}; !slices.Equal(kinds[:9], want) {
		t.Errorf("steps begin %v, want %v", kinds[:9], want)
	}
	r, _ := scenetest.Readout(a, "gradients")
	if r.Value != float64(s.acc.Gradients) || !strings.Contains(r.Text, format.Sprintf("outlier-iterate removal takes %d", s.res.Gradients)) {
		t.Errorf("gradients readout %+v (run %d, one pass %d)", r, s.acc.Gradients, s.res.Gradients)
	}
	if _, ok := scenetest.Readout(a, "output"); !ok {
		t.Error("no output readout at the end")
	}
	if !scenetest.HasText(scenetest.Frame(a), "step 10: the K users' gradients") {
		t.Error("the last step's gradients inset is not drawn")
	}
	if err := a.Set("mode", "sound"); err == nil || !strings.Contains(err.Error(), "no corrected calibration") {
		t.Errorf("sound mode for the accelerated variant: %v", err)
	}

	// The crowd passes every check; non-private has no check at all.
	scenetest.MustSet(t, a, "preset", "crowd")
	for _, ph := range s.acc.Phases {
		if ph.Halted {
			t.Errorf("crowd: phase %d halted", ph.I)
		}
	}
	scenetest.MustSet(t, a, "mode", "non-private")
	for _, ph := range s.acc.Phases {
		for _, st := range ph.Steps {
			if !st.Passed || st.Sigma != 0 {
				t.Fatalf("non-private phase %d step %d: passed %v, σ %v", ph.I, st.T, st.Passed, st.Sigma)
			}
		}
	}
	// Paper mode: the printed K_i are capped at n_i, and outlier-iterate
	// removal's printed C cannot run at n = 1,000 — which the counter says
	// instead of refusing the view.
	scenetest.MustSet(t, a, "mode", "paper")
	if r, _ := scenetest.Readout(a, "gradients"); !strings.Contains(r.Text, "outlier-iterate removal cannot run these settings") {
		t.Errorf("paper mode's counter: %q", r.Text)
	}
	for _, ph := range s.acc.Phases {
		if ph.Batch != ph.Users {
			t.Errorf("paper phase %d: K = %d of %d users, want capped at n_i", ph.I, ph.Batch, ph.Users)
		}
	}
	scenetest.MustSet(t, a, "mode", "teaching")
	scenetest.MustSet(t, a, "algo", "oir")
	if s.acc.Phases != nil || s.player.Stepper().Trace().Steps[0].Kind != optim.KindOIRPhase {
		t.Error("back to outlier-iterate removal, the accelerated run is still shown")
	}
}

// The figure says what it shows, and a step changes what it says.
func TestOIRDescribes(t *testing.T) {
	a, _ := scenetest.Open(t, New())
	scenetest.Describes(t, a, func() { a.Key("ArrowRight") })
}

// The keyboard moves a user's items as a mouse drag does, and the release
// moves with them.
func TestOIRKeyboardDrag(t *testing.T) {
	scenetest.KeyboardMatchesMouse(t, scenetest.Opens(t, New), "End", "ArrowDown")
}

// In non-private mode no gate is applied: the figure shows the score
// against 4C/5 and says so, and never reads it as a noisy score that passed
// (it did read "ŝ = 4.33 ≥ 4C/5 = 4.8: pass").
func TestOIRNonPrivateGateSaysNoGate(t *testing.T) {
	a, s := scenetest.Open(t, New(), [2]string{"mode", "non-private"})
	for k := range s.player.Stepper().Len() {
		seekOIR(t, a, s, k)
		if st, _ := s.player.Stepper().Current(); st.Kind == optim.KindOIRGate {
			break
		}
	}
	fr := scenetest.Frame(a)
	if !scenetest.HasText(fr, "non-private, so no gate is applied and the phase goes on") || scenetest.HasText(fr, "ŝ = ") {
		t.Error("the non-private gate panel does not say that no gate is applied")
	}
	if r, _ := scenetest.Readout(a, "gate"); !strings.Contains(r.Text, "no gate is applied") {
		t.Errorf("gate readout %q", r.Text)
	}
}

// Phase 1's release rings run off the domain at the opening settings
// (σ = 0.581: the 2σ ring's radius, 1.16, exceeds the domain's, 1): the legend
// says that is phase 1 localising and how much smaller phase 2's σ is,
// and says nothing of the sort once the rings fit.
func TestOIRSaysWhyTheRingsRunOffTheDomain(t *testing.T) {
	a, s := scenetest.Open(t, New())
	const note = "2σ = 1.16 is wider than the domain: it only localises, and phase 2's σ is 0.0859, 7× smaller"
	for i := 0; ; i++ {
		if at := s.at(); at.release && at.idx == 1 {
			break
		}
		if scenetest.HasText(scenetest.Frame(a), note) {
			t.Fatalf("the note shows before phase 1's release, at %+v", s.at())
		}
		if i > 500 || !a.Key("ArrowRight") {
			t.Fatal("never reached phase 1's release")
		}
	}
	if l := scenetest.Frame(a); !scenetest.HasText(l, note) {
		t.Error("phase 1's release: the legend does not say why its rings run off the domain")
	}
	a.Key("End")
	if scenetest.HasText(scenetest.Frame(a), "wider than the domain") {
		t.Error("the last phase's rings fit, yet the legend says they do not")
	}
}

// The end iterates' inset keeps off the domain: on a phone a corner free
// of items covered part of the unit ball, with room beside it to spare.
func TestOIRInsetKeepsOffTheDomain(t *testing.T) {
	a, s := scenetest.Open(t, New())
	scenetest.MustSet(t, a, viz.CtlEnd, "")
	for _, size := range [][2]float64{{358, 590}, {1000, 700}, {700, 500}} {
		a.Frame(size[0], size[1])
		in := s.inset
		if in.W == 0 {
			t.Errorf("%v: no inset at the end", size)
			continue
		}
		c, r := s.cam.ToScreen(0, 0), oirRadius*s.cam.Scale
		nx, ny := figure.Clamp(c.X, in.X0, in.X0+in.W), figure.Clamp(c.Y, in.Y0, in.Y0+in.H)
		if d := math.Hypot(c.X-nx, c.Y-ny); d < r {
			t.Errorf("%v: the inset at (%.0f, %.0f), %.0f wide, reaches %.0f px into the domain", size, in.X0, in.Y0, in.W, r-d)
		}
	}
}

// The nearest certified settings run every phase asked for (C = 381
// groups, each with a user in each of the 3 phases), not one phase of
// lone users that stops for want of more; the line says how many users
// that takes, and fewer would stop early.
func TestOIRCertifiesAWholeRun(t *testing.T) {
	a, s := scenetest.Open(t, New())
	why, _, _ := s.Certify()
	if !scenetest.Certifies(t, a, "outlier-iterates") {
		return
	}
	if len(s.res.Phases) != s.cfg.phases || s.res.Stop != "" || s.res.Halted {
		t.Errorf("certified at n = %d, C = %d: %d of %d phases, stop %q, halted %v", s.cfg.n, s.cfg.groups, len(s.res.Phases), s.cfg.phases, s.res.Stop, s.res.Halted)
	}
	if want := format.Sprintf("need at least %d users, to give each one a user in each of %d phases", s.cfg.n, s.cfg.phases); !strings.Contains(why, want) {
		t.Errorf("the line %q does not say %q", why, want)
	}
	c := s.cfg
	if got := len(c.params().Schedule(c.n-usersStep, c.m, 2)); got >= c.phases {
		t.Errorf("%d users, fewer than the settings', also run %d phases", c.n-usersStep, got)
	}
}

// The domain's label keeps off the users' items: on a phone the far group,
// at the domain's lower edge, sat under it.
func TestOIRDomainLabelKeepsOffTheItems(t *testing.T) {
	a, s := scenetest.Open(t, New())
	for _, size := range [][2]float64{{358, 675}, {358, 590}, {320, 560}, {1000, 700}, {0, 0}, {358, 675}, {358, 590}, {320, 560}, {1000, 700}} {
		if size[0] == 0 { // opened, then at the end
			scenetest.MustSet(t, a, viz.CtlEnd, "")
			continue
		}
		l, _ := a.Frame(size[0], size[1])
		found := false
		for _, it := range l.Items {
			if it.Kind != viz.Text || it.Text != "the domain: the unit ball" {
				continue
			}
			found = true
			// The label's box grown by a dot's radius: a dot touching it
			// is covered in part.
			w, r := viz.TextWidth(it.Text, it.Size), 2.5
			x0, x1, y0, y1 := it.P[0].X-w/2-r, it.P[0].X+w/2+r, it.P[0].Y-it.Size/2-r, it.P[0].Y+it.Size/2+r
			for u, items := range s.cfg.users {
				for k := 0; k+1 < len(items); k += 2 {
					if p := s.cam.ToScreen(items[k], items[k+1]); p.X > x0 && p.X < x1 && p.Y > y0 && p.Y < y1 {
						t.Errorf("%v: the domain's label covers user %d's item at (%.0f, %.0f)", size, u+1, p.X, p.Y)
					}
				}
			}
		}
		if !found {
			t.Errorf("%v: the domain is not named", size)
		}
	}
}

// The text's links do not pile up: each shows the state it names however
// the reader got there (after crowd and End, the accelerated link still
// shows the far group halting phase 1, from its first step), so each link
// names the algorithm, the preset and the seed.
func TestOIRLinksNameTheirWholeState(t *testing.T) {
	var links []string
	for _, m := range regexp.MustCompile(`href="#(scene=outlier-iterates[^"]*)"`).FindAllStringSubmatch(Text(), -1) {
		links = append(links, html.UnescapeString(m[1]))
	}
	if len(links) < 6 {
		t.Fatalf("%d links to the lesson found in its text", len(links))
	}
	want := make([]string, len(links))
	for i, l := range links {
		a := viz.NewApp(New())
		if err := a.Restore(l); err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		want[i] = a.State()
	}
	a := viz.NewApp(New())
	s := a.Scene().(*Scene)
	// Before each link: every other link at its end, and a reader's own
	// settings.
	for _, before := range append(links, "scene=outlier-iterates&n=500&groups=10&tau=0.1&mode=non-private&seed=7") {
		for i, l := range links {
			if err := a.Restore(before); err != nil {
				t.Fatal(err)
			}
			scenetest.MustSet(t, a, viz.CtlEnd, "")
			wasAccel := s.cfg.algo == algoAccel
			if err := a.Restore(l); err != nil {
				t.Fatalf("%s after %s: %v", l, before, err)
			}
			if got := a.State(); got != want[i] {
				t.Errorf("the link %s after %s shows\n%s, not\n%s", l, before, got, want[i])
			}
			if pos := s.player.Stepper().Pos(); wasAccel != (s.cfg.algo == algoAccel) && pos != 0 {
				t.Errorf("the link %s after %s at its end: the other algorithm's run opens at step %d, not its first", l, before, pos)
			}
		}
	}
	// The accelerated link's claim: the far group's first minibatch halts
	// phase 1 at its first step.
	if err := a.Restore(links[4]); err != nil {
		t.Fatal(err)
	}
	if ph := s.acc.Phases; s.cfg.algo != algoAccel || len(ph) == 0 || !ph[0].Halted || len(ph[0].Steps) != 1 {
		t.Errorf("%s: phase 1 does not halt at its first step", links[4])
	}
}
