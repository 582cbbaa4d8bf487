package semisensitive

import (
	"html"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/semisens"
	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/internal/scenetest"
)

// semiApp opens the lesson with settings applied, the run computed.
func semiApp(t *testing.T, set ...[2]string) (*viz.App, *Scene) {
	t.Helper()
	s := New()
	a := viz.NewApp(s)
	a.Settle()
	for _, kv := range set {
		if err := a.Set(kv[0], kv[1]); err != nil {
			t.Fatalf("%s = %s: %v", kv[0], kv[1], err)
		}
		a.Settle()
	}
	return a, s
}

// The lesson opens on a run that answers its 100 queries with a few
// updates; stepping to the end, Ψ has fallen and the beliefs put more mass
// on the true values than 1/k.
func TestSemiSensOpens(t *testing.T) {
	a, s := semiApp(t)
	v := &s.view
	if v.err != nil || len(v.queries) != 100 || v.res.Failed || v.res.Updates == 0 || v.res.Updates >= 20 {
		t.Fatalf("%d queries, %d updates, failed %v, err %v", len(v.queries), v.res.Updates, v.res.Failed, v.err)
	}
	if !a.Key("End") {
		t.Fatal("End did not step")
	}
	q, pos := s.at()
	if pos != 100 || q == nil || q.before+len(q.updates) != v.res.Updates {
		t.Fatalf("at the end: query %d, %+v", pos, q)
	}
	if first, last := v.res.Psi[0], v.res.Psi[100]; !(last < first-0.05) {
		t.Errorf("Ψ %.4f → %.4f", first, last)
	}
	snap := v.snaps[len(v.snaps)-1]
	mean := 0.0
	for r, i := range v.rows {
		mean += snap[r*v.cfg.k+v.truth[i]]
	}
	if mean /= float64(len(v.rows)); !(mean > 1.0/8) {
		t.Errorf("mean belief in the truth %.4f, not above 1/k", mean)
	}
	if len(v.snaps) != v.res.Updates+1 {
		t.Errorf("%d belief snapshots for %d updates", len(v.snaps), v.res.Updates)
	}
	if g := s.Guarantee(); !(math.Abs(g.Eps-4) <= 1e-9) || !g.Certified() {
		t.Errorf("guarantee %v", g)
	}
}

// What the text promises: with no effect Ψ stays at ln k; the paper's
// c = 3 takes η to 1/3 and ends in FAIL; τ below the test noise spends
// every update within twenty queries, and τ = 0.08 fires fewer;
// randomized response then ERM keeps up at ε = 4 and falls behind at 1.
func TestSemiSensLessons(t *testing.T) {
	_, s := semiApp(t, [2]string{"effect", "0"})
	if psi := s.view.res.Psi; !(math.Abs(psi[len(psi)-1]-psi[0]) <= 0.02) {
		t.Errorf("no effect: Ψ %.4f → %.4f", psi[0], psi[len(psi)-1])
	}
	a, s := semiApp(t, [2]string{"c", "3"})
	if s.cfg.eta != 0.333333 || !s.view.res.Failed || s.view.res.Updates != 20 || s.view.res.Queries >= 100 {
		t.Errorf("c = 3: η %v, %d updates, %d queries, failed %v", s.cfg.eta, s.view.res.Updates, s.view.res.Queries, s.view.res.Failed)
	}
	// At the FAIL, the beliefs shown are after the updates the ledger counts.
	if !a.Key("End") {
		t.Fatal("c = 3: End did not step")
	}
	if r, _ := scenetest.Readout(a, "updates"); !strings.HasPrefix(r.Text, "20 of 20 paid for") ||
		!scenetest.HasText(scenetest.Frame(a), "beliefs pᵢ(y) after all 20 updates paid for; FAIL") {
		t.Errorf("c = 3 at the FAIL: the ledger says %q; the beliefs' heading does not say all 20 updates", r.Text)
	}
	_, def := semiApp(t)
	_, s = semiApp(t, [2]string{"tau", "0.01"})
	if !s.view.res.Failed || s.view.res.Queries > 20 {
		t.Errorf("τ = 0.01: FAIL %v after %d queries", s.view.res.Failed, s.view.res.Queries)
	}
	_, s = semiApp(t, [2]string{"tau", "0.08"})
	if s.view.res.Failed || s.view.res.Updates >= def.view.res.Updates {
		t.Errorf("τ = 0.08: %d updates against %d at the default", s.view.res.Updates, def.view.res.Updates)
	}
	// Randomized response then ERM: as good as PVMW at ε = 4 (within
	// 0.01), far behind every other model at ε = 1.
	pr := def.view.res.Problems[0]
	if pr.ExcessRR > pr.Excess+0.01 {
		t.Errorf("ε = 4: randomized response's excess %.4f against PVMW's %.4f", pr.ExcessRR, pr.Excess)
	}
	_, s = semiApp(t, [2]string{"eps", "1"})
	pr = s.view.res.Problems[0]
	if !s.view.res.Failed || pr.ExcessRR < pr.Excess+0.01 || pr.ExcessRR < pr.ExcessGaussian+0.03 {
		t.Errorf("ε = 1: FAIL %v, randomized response's excess %.4f against PVMW's %.4f and the Gaussian's %.4f", s.view.res.Failed, pr.ExcessRR, pr.Excess, pr.ExcessGaussian)
	}
	if _, err := semiAppErr([2]string{"eta", "2"}); err == nil {
		t.Error("η = 2 with c = 1 accepted")
	}
}

func semiAppErr(set [2]string) (*Scene, error) {
	s := New()
	a := viz.NewApp(s)
	a.Settle()
	return s, a.Set(set[0], set[1])
}

// A click on a belief cell gives that example the value: a neighbour, run
// with the same seed; the answers move by little. Hidden values take no
// clicks and draw no truth.
func TestSemiSensNeighbour(t *testing.T) {
	a, s := semiApp(t)
	fr, _ := a.Frame(1060, 630)
	k := s.view.cfg.k
	y := (s.view.truth[0] + 1) % k
	c, ok := fr.Locate(semiCell(0, y, k))
	if !ok {
		t.Fatal("no cell for example 1")
	}
	before := s.view.res
	if !s.Pointer(viz.Event{Kind: viz.PointerDown, X: c.X, Y: c.Y}) {
		t.Fatal("the click changed nothing")
	}
	a.Settle()
	if s.view.truth[0] != y || s.cfg.moved[0] != y {
		t.Fatalf("example 1's value %d, want %d", s.view.truth[0], y)
	}
	d := 0.0
	for i, pr := range s.view.res.Problems {
		d = math.Max(d, dist(pr.Private.W, before.Problems[i].Private.W))
	}
	if d > 0.5 {
		t.Errorf("one example's value moved the model by %.3g", d)
	}
	if err := a.Set("reveal", "false"); err != nil {
		t.Fatal(err)
	}
	fr, _ = a.Frame(1060, 630)
	for _, it := range fr.Items {
		if it.Kind == viz.Rect && it.Style.Stroke == viz.Vermillion {
			t.Fatal("hidden values still outlined")
		}
	}
	if s.Pointer(viz.Event{Kind: viz.PointerDown, X: c.X, Y: c.Y}) {
		t.Error("a click changed a hidden value")
	}
}

func dist(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += (a[i] - b[i]) * (a[i] - b[i])
	}
	return math.Sqrt(s)
}

// What the text says about dimension: with 64 public features instead of
// 4 the Gaussian's noise ‖z‖ grows about like √d (√(73/13) ≈ 2.4), while
// its part along the error, the only part an update uses, does not, and
// the run spends as many updates. (Seeded runs; over 9 updates the means
// are within 10% of their expectations, far inside these margins.)
func TestSemiSensDimension(t *testing.T) {
	mean := func(dpub string) (z, along float64, updates int) {
		_, s := semiApp(t, [2]string{"dpub", dpub})
		n := 0
		for i := range s.view.queries {
			if q := &s.view.queries[i]; len(q.updates) > 0 && q.descent != nil {
				c := s.view.seen[q.spent()-1].cond
				z, along, n = z+c.Noise, along+math.Abs(c.NoiseAlong), n+1
			}
		}
		return z / float64(n), along / float64(n), s.view.res.Updates
	}
	z4, a4, u4 := mean("4")
	z64, a64, u64 := mean("64")
	if r := z64 / z4; r < 1.8 || r > 3.2 {
		t.Errorf("‖z‖ grew %.2f times from d = 13 to 73; √(73/13) = 2.37", r)
	}
	if r := a64 / a4; r > 1.6 || r < 1/1.6 {
		t.Errorf("the noise along the error changed %.2f times with d", r)
	}
	if !(math.Abs(float64(u64-u4)) <= 3) {
		t.Errorf("%d updates at d_pub = 4, %d at 64", u4, u64)
	}
}

// The second panel's other views, at the end of the default run. Every
// update's measured drop in Ψ respects the exact bound (D1), which holds
// for any step; its scores' histogram counts all n·k candidates; the
// analysis' Condition 14 is listed part by part, and only in the
// instructor's view; and randomized response points about e^ε/(e^ε + k − 1)
// of the blocks right (5 standard errors: a correct sampler fails this
// with probability below 6·10⁻⁷).
func TestSemiSensPanels(t *testing.T) {
	a, s := semiApp(t)
	v := &s.view
	if len(v.seen) != v.res.Updates {
		t.Fatalf("%d updates seen of %d", len(v.seen), v.res.Updates)
	}
	for u, seen := range v.seen {
		total := 0
		for _, n := range seen.hist {
			total += n
		}
		if total != v.cfg.n*v.cfg.k {
			t.Errorf("update %d: the histogram counts %d scores, want n·k = %d", u+1, total, v.cfg.n*v.cfg.k)
		}
		c := seen.cond
		if len(c.Parts) != 7 || c.Drop < c.Exact-1e-12 || !c.Parts[0].Holds {
			t.Errorf("update %d: %d parts, drop %.6g against (D1) %.6g, η ≤ 1/c %v", u+1, len(c.Parts), c.Drop, c.Exact, c.Parts[0].Holds)
		}
		// (i) asks E ≥ 9η = 9 at the lesson's η = 1: no error in the unit
		// ball meets it, as the prose says.
		if c.Parts[1].Holds {
			t.Errorf("update %d: (i) holds at E = %.3g", u+1, c.Error)
		}
	}
	if !a.Key("End") {
		t.Fatal("End did not step")
	}
	for _, c := range []struct{ panel, want string }{
		{panelScores, "no score reaches ±c = ±1"},
		{panelNoise, "more features lengthen z across, not along"},
		{panelCondition, "(vi) nor too large, ι against 2E"},
		{panelCondition, "Lemma 16 promises nothing here"},
		{panelGame, "randomized response at ε = 4 points"},
	} {
		if err := a.Set("panel", c.panel); err != nil {
			t.Fatal(err)
		}
		fr, _ := a.Frame(1060, 630)
		if !scenetest.HasText(fr, c.want) {
			t.Errorf("panel %s: no %q", c.panel, c.want)
		}
	}
	// The third panel's training view: every model's curve, PVMW's ending
	// where its run ended.
	if err := a.Set("lower", lowerTraining); err != nil {
		t.Fatal(err)
	}
	if fr, _ := a.Frame(1060, 630); !scenetest.HasText(fr, "excess risk 𝓛(w) − 𝓛(w*) of each model") {
		t.Error("no training view")
	}
	if c := v.res.Problems[0].Curves; c == nil || c.Private.Steps[len(c.Private.Steps)-1] != v.res.Queries || len(c.RR.Steps) != semiCurvePoints {
		t.Errorf("curves %+v", c)
	}
	if err := a.Set("reveal", "false"); err != nil {
		t.Fatal(err)
	}
	if fr, _ := a.Frame(1060, 630); !scenetest.HasText(fr, "the excess risk needs the true values") {
		t.Error("the training view shown with the values hidden")
	}
	if err := a.Set("panel", panelCondition); err != nil {
		t.Fatal(err)
	}
	if fr, _ := a.Frame(1060, 630); scenetest.HasText(fr, "(vi)") || !scenetest.HasText(fr, "needs the true values") {
		t.Error("Condition 14 shown with the values hidden")
	}
	// With 1,000 examples the released answers are five times noisier
	// against the same τ, and the truncation does cut (the prose says up
	// to a tenth of the scores in an update).
	_, small := semiApp(t, [2]string{"n", "1000"})
	most := 0.0
	for _, seen := range small.view.seen {
		most = math.Max(most, seen.cond.Clipped)
	}
	if most < 0.1 {
		t.Errorf("n = 1,000: at most %.3f of an update's scores cut", most)
	}
	keep := semisens.RRKeep(4, v.cfg.k)
	share := float64(v.game.hits) / float64(v.cfg.n)
	if se := math.Sqrt(keep * (1 - keep) / float64(v.cfg.n)); !(math.Abs(share-keep) <= 5*se) {
		t.Errorf("randomized response pointed %.4f right, want %.4f ± %.4f", share, keep, 5*se)
	}
}

// With μ > 0 the problem is strongly convex: on a log scale the exact
// gradients' excess falls geometrically to nothing within the 100 steps,
// and PVMW's stops on the plateau its oracle's error allows, orders of
// magnitude above, as the prose says; the figure fits at every size.
func TestSemiSensStronglyConvex(t *testing.T) {
	a, s := semiApp(t, [2]string{"mu", "0.1"}, [2]string{"lower", lowerTraining})
	pr := s.view.res.Problems[0]
	if pr.Method != "inexact-oracle gradient method, last iterate" || pr.ExcessNonPrivate > 1e-8 || pr.Excess < 1e-6 || pr.Excess > 1e-2 {
		t.Errorf("μ = 0.1: %s, excess %.3g, non-private %.3g", pr.Method, pr.Excess, pr.ExcessNonPrivate)
	}
	if !a.Key("End") {
		t.Fatal("End did not step")
	}
	for _, size := range scenetest.FigureSizes {
		fr, _ := a.Frame(size[0], size[1])
		for _, bad := range append(scenetest.Outside(fr), scenetest.Clashes(fr)...) {
			t.Errorf("at %.0f × %.0f: %s", size[0], size[1], bad)
		}
		if size[0] > 800 && !scenetest.HasText(fr, "log scale, μ = 0.1") {
			t.Errorf("at %.0f × %.0f: no log scale", size[0], size[1])
		}
	}
}

// The figure says what it shows, and a step changes what it says.
func TestSemiSensDescribes(t *testing.T) {
	a, _ := semiApp(t)
	scenetest.Describes(t, a, func() { a.Key("End") })
}

// End pressed as the lesson opens, while its first run computes, takes the
// stepper to the run's end once the run is there.
func TestSemiSensEndWhileComputing(t *testing.T) {
	s := New()
	a := viz.NewApp(s)
	if !s.Busy() || !a.Key("End") {
		t.Fatalf("busy %v: End pressed at once was dropped", s.Busy())
	}
	a.Settle()
	if st := s.player.Stepper(); st == nil || st.Pos() != st.Len() || st.Len() == 0 {
		t.Errorf("after the run arrived: %+v", st)
	}
}

// The text's links do not pile up: each shows the state it names however
// the reader got there (after "effect → 0", the "c = 3" link still
// FAILs), so each link names every setting.
func TestSemiSensLinksNameTheirWholeState(t *testing.T) {
	var links []string
	for _, m := range regexp.MustCompile(`href="#(scene=semi-sensitive[^"]*)"`).FindAllStringSubmatch(Text(), -1) {
		links = append(links, html.UnescapeString(m[1]))
	}
	if len(links) < 10 {
		t.Fatalf("%d links to the lesson found in its text", len(links))
	}
	fresh := func(link string) string {
		a := viz.NewApp(New())
		if err := a.Restore(link); err != nil {
			t.Fatalf("%s: %v", link, err)
		}
		return a.State()
	}
	want := make([]string, len(links))
	for i, l := range links {
		want[i] = fresh(l)
	}
	a := viz.NewApp(New())
	// Before each link: every other link, and a reader's own settings.
	for _, before := range append(links, "scene=semi-sensitive&eta=0.1&tau=0.02&seed=7&panel=noise") {
		for i, l := range links {
			if err := a.Restore(before); err != nil {
				t.Fatal(err)
			}
			if err := a.Restore(l); err != nil {
				t.Fatalf("%s after %s: %v", l, before, err)
			}
			if got := a.State(); got != want[i] {
				t.Errorf("the link %s after %s shows\n%s, not\n%s", l, before, got, want[i])
			}
		}
	}
}

// ticks returns the numeric labels drawn with alignment al whose anchor
// satisfies where, as value → anchor.
func ticks(l *viz.List, al viz.Align, where func(viz.Point) bool) map[float64]viz.Point {
	out := map[float64]viz.Point{}
	for _, it := range l.Items {
		if it.Kind != viz.Text || it.Align != al || !where(it.P[0]) {
			continue
		}
		if v, err := strconv.ParseFloat(strings.ReplaceAll(it.Text, "−", "-"), 64); err == nil {
			out[v] = it.P[0]
		}
	}
	return out
}

// The potential panel draws Ψ for the queries asked so far, not the whole
// run at step 0, on a labelled scale that starts at 0: the point for each
// query sits where its value falls between the axis's labels (the old
// panel spread 1.9–2.08 over its height with only its ends labelled).
func TestSemiSensPsiGrowsOnAScaleFromZero(t *testing.T) {
	a, s := semiApp(t)
	psi := s.view.res.Psi
	line := func() []viz.Point {
		var out []viz.Point
		for _, it := range scenetest.Frame(a).Items {
			if it.Kind == viz.Polyline && it.Style.Stroke == viz.Blue {
				if out != nil {
					t.Fatal("two blue polylines: which is Ψ?")
				}
				out = it.P
			}
		}
		return out
	}
	if p := line(); p != nil {
		t.Errorf("at step 0 Ψ is drawn over %d queries", len(p)-1)
	}
	for range 10 {
		a.Key("ArrowRight")
	}
	p := line()
	if len(p) != 11 {
		t.Fatalf("after 10 queries Ψ is drawn over %d points, want 11", len(p))
	}
	x0 := p[0].X
	axis := ticks(scenetest.Frame(a), viz.Right, func(q viz.Point) bool { return math.Abs(q.X-(x0-5)) < 0.5 })
	zero, ok := axis[0]
	if !ok || len(axis) < 3 {
		t.Fatalf("Ψ's axis is labelled %v: want 0 and at least two more", axis)
	}
	var top float64
	for v := range axis {
		top = math.Max(top, v)
	}
	perUnit := (zero.Y - axis[top].Y) / top
	for i, q := range p {
		if want := zero.Y - psi[i]*perUnit; math.Abs(q.Y-want) > 0.01 {
			t.Errorf("query %d: Ψ = %.4f drawn at y %.2f, the axis puts it at %.2f", i, psi[i], q.Y, want)
		}
	}
	if !scenetest.HasText(scenetest.Frame(a), format.Sprintf("Ψ = %.4g", psi[10])) {
		t.Errorf("the marker does not say Ψ = %.4g", psi[10])
	}
	a.Key("End")
	if p := line(); len(p) != len(psi) {
		t.Errorf("at the end Ψ is drawn over %d points of %d", len(p), len(psi))
	}
}

// The tests' number line has a scale in the query's units: τ's mark sits
// at τ between the labelled ticks.
func TestSemiSensTestsHaveAScale(t *testing.T) {
	a, s := semiApp(t)
	a.Key("ArrowRight")
	l := scenetest.Frame(a)
	var tau viz.Point
	for _, it := range l.Items {
		if it.Kind == viz.Text && it.Text == "τ" {
			tau = it.P[0]
		}
	}
	if tau == (viz.Point{}) {
		t.Fatal("no τ on the tests' line")
	}
	right := tau.X >= l.Width/2
	scale := ticks(l, viz.Centre, func(q viz.Point) bool { return q.Y > tau.Y && (q.X >= l.Width/2) == right })
	if len(scale) < 3 {
		t.Fatalf("the tests' line is labelled %v: want a scale", scale)
	}
	var vs []float64
	for v := range scale {
		vs = append(vs, v)
	}
	slices.Sort(vs)
	lo, hi := vs[0], vs[len(vs)-1]
	x := scale[lo].X + (scale[hi].X-scale[lo].X)*(s.cfg.tau-lo)/(hi-lo)
	if math.Abs(x-tau.X) > 0.01 {
		t.Errorf("τ = %g drawn at x %.2f, the scale puts it at %.2f", s.cfg.tau, tau.X, x)
	}
}

// Randomized response's share of right guesses is a sample: where it lands
// above the bound on the average (at ε = 1, 0.283 against 0.2797), the
// readout says that is chance, and only there.
func TestSemiSensGuessAboveTheBoundIsChance(t *testing.T) {
	for _, eps := range []string{"4", "1"} {
		a, s := semiApp(t, [2]string{"eps", eps})
		r, ok := scenetest.Readout(a, "guess-bound")
		if !ok {
			t.Fatal("no guess-bound readout")
		}
		above := float64(s.view.game.hits)/float64(s.cfg.n) > r.Value
		if said := strings.Contains(r.Text, "above the bound by chance"); said != above {
			t.Errorf("ε = %s: the sample is above the bound: %v; the readout says so: %v (%q)", eps, above, said, r.Text)
		}
		if eps == "1" && !above {
			t.Errorf("ε = 1: the sample no longer lands above the bound, so this test checks one side only (%q)", r.Text)
		}
	}
}
