package auditlab

import (
	"math"
	"strings"
	"testing"

	"github.com/uldplab/uldp/core/audit"
	"github.com/uldplab/uldp/core/mech"
	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/internal/scenetest"
	"github.com/uldplab/uldp/viz/lessons/auditlab/internal/lab"
	"github.com/uldplab/uldp/viz/lessons/auditlab/internal/labtest"
)

// Every preset pair: the real mechanism keeps its promise exactly, and the
// broken variant the pair was built for is caught, in the verdict, the
// readout and the figure.
func TestAuditLabPresetPairs(t *testing.T) {
	for _, m := range lab.Mechs {
		for _, p := range labPairs()[m] {
			a, s := scenetest.Open(t, New())
			scenetest.MustSet(t, a, "mech", m)
			scenetest.MustSet(t, a, "pair", p.Name)
			if m == lab.Gauss {
				scenetest.MustSet(t, a, "eps", "10") // where the classical σ fails
			}
			if s.err != nil {
				t.Fatalf("%s/%s: %v", m, p.Name, s.err)
			}
			if v, _ := s.verdictAt(); v.Verdict != audit.Within {
				t.Errorf("%s/%s, real mechanism: %+v", m, p.Name, v)
			}
			if r, ok := scenetest.Readout(a, "exact"); !ok || r.Warn {
				t.Errorf("%s/%s, real mechanism: readout %+v", m, p.Name, r)
			}
			if l := scenetest.Frame(a); !scenetest.HasText(l, "keeps its promise") || !scenetest.HasText(l, "Try the broken variant “"+p.Catches+"”") {
				t.Errorf("%s/%s: the figure does not say the promise holds and what to try", m, p.Name)
			}
			scenetest.MustSet(t, a, "mutant", p.Catches)
			if s.pair != p.Name {
				t.Errorf("choosing a variant reset the pair to %q", s.pair)
			}
			if v, _ := s.verdictAt(); v.Verdict != audit.Violation {
				t.Errorf("%s/%s: %s not caught: %+v", m, p.Name, p.Catches, v)
			}
			if r, _ := scenetest.Readout(a, "exact"); !r.Warn {
				t.Errorf("%s/%s, %s: readout %+v does not warn", m, p.Name, p.Catches, r)
			}
			if !scenetest.HasText(scenetest.Frame(a), "the audit catches “"+p.Catches+"”") {
				t.Errorf("%s/%s: the figure does not name the caught variant", m, p.Name)
			}
			if g := a.Guarantee(); len(g.Preconditions) == 0 || g.Note == "" {
				t.Errorf("%s: the guarantee shown for a broken variant does not say it is not inherited: %+v", p.Catches, g)
			}
		}
	}
}

// A variant on a pair that cannot expose it passes, and the figure says
// where to look instead.
func TestAuditLabHintsOtherPairs(t *testing.T) {
	a, s := scenetest.Open(t, New()) // far outlier
	scenetest.MustSet(t, a, "mutant", "r1-fixed")
	if v, _ := s.verdictAt(); v.Verdict != audit.Within {
		t.Fatalf("r1-fixed on the far-outlier pair: %+v", v)
	}
	if !scenetest.HasText(scenetest.Frame(a), "“three-vs-four-outliers” catches “r1-fixed”") {
		t.Error("no pointer to the pair that catches r1-fixed")
	}
	scenetest.MustSet(t, a, "mutant", "sigma-over-20")
	if !scenetest.HasText(scenetest.Frame(a), "No preset pair catches “sigma-over-20”") {
		t.Error("no word that no preset catches σ/20")
	}
}

// The Monte Carlo audit runs a slice per frame and agrees with the exact
// one: the real mechanism passes and the broken ones are caught. Seeds are
// fixed; a correct mechanism is falsely flagged with probability ≤ α =
// 10⁻³ per run, and the mutants' true ε (≥ 1.4 for AboveThreshold, ≈ ∞
// for the skipped stability test) sits far above what the runs resolve.
func TestAuditLabMonteCarlo(t *testing.T) {
	a, s := scenetest.Open(t, New())
	scenetest.MustSet(t, a, "runs", "20000")
	if r := labtest.RunMC(t, a, &s.MC); r.Verdict != "pass" || r.Runs != 20_000 {
		t.Errorf("real DelOutputPert: %+v", r)
	}
	// 20 000 runs reach only ε ≈ 7.3 < 8: the pass proves nothing, and the
	// lab must say so rather than look reassuring.
	if r, _ := scenetest.Readout(a, "mc"); !strings.Contains(r.Text, "cannot refute ε = 8") {
		t.Errorf("no warning that 20 000 runs cannot refute ε = 8: %q", r.Text)
	}
	if !scenetest.HasText(scenetest.Frame(a), "raise the runs") {
		t.Error("the figure does not ask for more runs")
	}
	noCollisions(t, a, "the result and its warning")
	scenetest.MustSet(t, a, "mutant", "no-stability")
	if s.MC.Run() != nil {
		t.Error("changing the variant kept a stale Monte Carlo result")
	}
	// The lesson's horizon claim: 20 000 runs miss this violation (they
	// see ε only up to ≈ 7.3) and say so; 10⁵ runs catch it.
	if r := labtest.RunMC(t, a, &s.MC); r.Verdict != "pass" || r.EpsReach > 7.4 || r.EpsLower > r.EpsReach {
		t.Errorf("no-stability at 20 000 runs: %v, ε ≥ %v, reach %v", r.Verdict, r.EpsLower, r.EpsReach)
	}
	if r, _ := scenetest.Readout(a, "mc"); !strings.Contains(r.Text, "cannot refute") {
		t.Errorf("a missed violation is not flagged as out of reach: %q", r.Text)
	}
	scenetest.MustSet(t, a, "runs", "100000")
	if r := labtest.RunMC(t, a, &s.MC); r.Verdict != "violation" || r.EpsLower <= 8 {
		t.Errorf("no-stability: %v, ε ≥ %v", r.Verdict, r.EpsLower)
	}
	if !scenetest.HasText(scenetest.Frame(a), "violation") {
		t.Error("the figure does not show the Monte Carlo violation")
	}
	noCollisions(t, a, "the violation and the variant it catches")

	scenetest.MustSet(t, a, "mech", lab.AT)
	scenetest.MustSet(t, a, "mutant", "no-threshold-noise")
	scenetest.MustSet(t, a, "runs", "100000")
	if r := labtest.RunMC(t, a, &s.MC); r.Verdict != "violation" || r.EpsLower <= 1 {
		t.Errorf("AboveThreshold without threshold noise: %v, ε ≥ %v", r.Verdict, r.EpsLower)
	}
}

// Dragging keeps the pair neighbours: B differs from A in at most one user,
// and a user moved in A that B shares moves in both.
func TestAuditLabDragKeepsNeighbours(t *testing.T) {
	a, s := scenetest.Open(t, New())
	dragID := func(id int, dx float64) {
		p, ok := scenetest.Frame(a).Locate(id)
		if !ok {
			t.Fatalf("id %d not drawn", id)
		}
		scenetest.Drag(a, p, dx, 0)
	}
	differ := func() []int {
		var d []int
		for i := range s.a {
			if s.a[i] != s.b[i] {
				d = append(d, i)
			}
		}
		return d
	}
	before := s.points
	dragID(lab.RowB+1+2, 200) // B's user 3
	if d := differ(); len(d) != 1 || d[0] != 2 {
		t.Fatalf("after moving B's user 3, users %v differ", d)
	}
	if s.b[2] <= mech.ExampleInliers()[2] {
		t.Errorf("B's user 3 did not move right: %v", s.b[2])
	}
	if &before[0] == &s.points[0] {
		t.Error("the profile was not recomputed after the drag")
	}
	dragID(lab.RowB+1+5, -200) // B's user 6: user 3 snaps back
	if d := differ(); len(d) != 1 || d[0] != 5 {
		t.Fatalf("after moving B's user 6, users %v differ", d)
	}
	a5 := s.a[0]
	dragID(1, 100) // A's user 1, shared with B
	if s.a[0] == a5 || s.a[0] != s.b[0] {
		t.Errorf("A's user 1 moved to %v, B's to %v: want both moved together", s.a[0], s.b[0])
	}
	if d := differ(); len(d) != 1 {
		t.Errorf("users %v differ", d)
	}
	if v, _ := s.verdictAt(); v.Verdict != audit.Within {
		t.Errorf("the real mechanism on a dragged pair: %+v", v)
	}
}

// AboveThreshold's B queries stay within the sensitivity 1 of A's.
func TestAuditLabQueryDragClampsToSensitivity(t *testing.T) {
	a, s := scenetest.Open(t, New())
	scenetest.MustSet(t, a, "mech", lab.AT)
	p, _ := scenetest.Frame(a).Locate(lab.RowB + 1 + 3)
	scenetest.Drag(a, p, 0, -300) // far up
	if s.qb[3] != s.qa[3]+1 {
		t.Errorf("B's query 4 = %v, A's = %v: want clamped to A + 1", s.qb[3], s.qa[3])
	}
	p, _ = scenetest.Frame(a).Locate(1 + 3)
	scenetest.Drag(a, p, 0, 40) // A's query 4 drags B's along
	if s.qb[3]-s.qa[3] != 1 && s.qa[3] > -atRange {
		t.Errorf("A's query 4 = %v, B's = %v: the gap was not kept", s.qa[3], s.qb[3])
	}
	if v, _ := s.verdictAt(); v.Verdict != audit.Within {
		t.Errorf("the real AboveThreshold on a dragged pair: %+v", v)
	}
}

func TestAuditLabRejectsBadSettings(t *testing.T) {
	a, s := scenetest.Open(t, New())
	for _, c := range [][2]string{
		{"mech", "laplace"},
		{"pair", "ones-vs-zeros"}, // an AboveThreshold pair
		{"mutant", "no-threshold-noise"},
		{"runs", "10"},
		{"runs", "many"},
		{"colour", "red"},
	} {
		err := a.Set(c[0], c[1])
		if err == nil {
			t.Errorf("Set(%s, %s) accepted", c[0], c[1])
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, c[0]) && !strings.Contains(msg, c[1]) && !strings.Contains(msg, "outside") {
			t.Errorf("Set(%s, %s): %q does not name the bad value", c[0], c[1], err)
		}
	}
	if s.mech != lab.Del || s.pair != "far-outlier" || s.mutant != audit.NoMutant || s.MC.Runs != 100_000 {
		t.Errorf("bad settings changed the lab: %s %s %s %d", s.mech, s.pair, s.mutant, s.MC.Runs)
	}
}

func TestAuditLabLinkRoundTrip(t *testing.T) {
	a, _ := scenetest.Open(t, New())
	scenetest.MustSet(t, a, "pair", "three-vs-four-outliers")
	scenetest.MustSet(t, a, "mutant", "r1-fixed")
	scenetest.MustSet(t, a, "runs", "5000")
	state := a.State()
	b, s := scenetest.Open(t, New())
	if err := b.Restore(state); err != nil {
		t.Fatal(err)
	}
	if s.pair != "three-vs-four-outliers" || s.mutant != "r1-fixed" || s.MC.Runs != 5000 {
		t.Errorf("restored %s %s %d from %q", s.pair, s.mutant, s.MC.Runs, state)
	}
	if b.State() != state {
		t.Errorf("state %q, want %q", b.State(), state)
	}
}

// The lab has no run trace or single dataset; the front ends grey those
// downloads out (the export test checks the lessons with a run offer both).
func TestAuditLabOffersNoTraceExports(t *testing.T) {
	a, _ := scenetest.Open(t, New())
	if tr, csv := a.Exportable(); tr || csv {
		t.Errorf("audit lab exportable: trace %v, csv %v", tr, csv)
	}
}

// The button that starts the Monte Carlo audit stops it (M both ways): no
// verdict from a partial run, and the next press starts afresh.
func TestAuditLabStopMonteCarlo(t *testing.T) {
	a, s := scenetest.Open(t, New())
	scenetest.MustSet(t, a, "runs", "1000000")
	scenetest.MustSet(t, a, "monte-carlo", "")
	for range 3 {
		if !a.Tick(1.0 / 60) {
			t.Fatal("the audit is not advancing")
		}
	}
	if c := scenetest.Control(a, "monte-carlo"); !strings.HasPrefix(c.Label, "stop") {
		t.Errorf("while sampling the button reads %q", c.Label)
	}
	if !a.Key("m") {
		t.Fatal("M did not reach the lab")
	}
	if r, _ := scenetest.Readout(a, "mc"); !strings.HasPrefix(r.Text, "stopped at") || r.Warn {
		t.Errorf("after stopping: %+v", r)
	}
	if a.Tick(1.0/60) || s.MC.Run() != nil {
		t.Error("sampling goes on after stop")
	}
	if !scenetest.HasText(scenetest.Frame(a), "press M to start again") {
		t.Error("the figure does not say the audit was stopped")
	}
	a.Key("m")
	if done, _ := s.MC.Run().Progress(); done != 0 || s.MC.Stopped() != 0 {
		t.Errorf("a new audit starts at %d samples, stopped = %v", done, s.MC.Stopped())
	}
}

// The mutant "classical Gaussian σ used at ε = 3" keeps its promise
// at ε = 3 (exactly, on the worst pair: answers one sensitivity apart), so
// the lab shows a pass and says where it fails; at ε = 10 it is caught, and
// the real (analytic) σ meets δ = 10⁻⁵ with equality at every claimed ε.
func TestAuditLabClassicalGaussian(t *testing.T) {
	a, s := scenetest.Open(t, New())
	scenetest.MustSet(t, a, "mech", lab.Gauss)
	if s.gaussEps != 3 || s.a[0] != 0 || s.b[0] != 1 {
		t.Fatalf("gaussian preset: ε = %v, answers %v, %v", s.gaussEps, s.a, s.b)
	}
	for _, eps := range []string{"0.5", "3", "10"} {
		scenetest.MustSet(t, a, "eps", eps)
		scenetest.MustSet(t, a, "mutant", audit.NoMutant)
		if v, _ := s.verdictAt(); v.Verdict != audit.Within || !(math.Abs(v.DeltaAB-gaussDelta) <= 1e-9*gaussDelta) {
			t.Errorf("analytic σ at ε = %s: %+v, want δ = 10⁻⁵ exactly", eps, v)
		}
		scenetest.MustSet(t, a, "mutant", audit.GaussianClassical)
		v, _ := s.verdictAt()
		if caught := v.Verdict == audit.Violation; caught != (eps == "10") {
			t.Errorf("classical σ at ε = %s: %+v", eps, v)
		}
		if eps == "3" && !scenetest.HasText(scenetest.Frame(a), "Raise the claimed ε to 10") {
			t.Error("no hint that the classical σ fails only at larger ε")
		}
	}
	// B's answer stays within the sensitivity of A's.
	p, _ := scenetest.Frame(a).Locate(lab.RowB + 1)
	scenetest.Drag(a, p, 400, 0)
	if s.b[0]-s.a[0] > 1+1e-12 {
		t.Errorf("answers %v and %v are more than the sensitivity apart", s.a[0], s.b[0])
	}
}

// ORME in the lab: 300 users drawn as a crowd dot, the sampled audit of the
// keep-all variant on the far user agrees with the exact one, and half the
// score noise is shown as uncaught (it is no violation at T = 1), with a
// pointer to the gate's audit, which catches it.
func TestAuditLabORME(t *testing.T) {
	a, s := scenetest.Open(t, New())
	scenetest.MustSet(t, a, "mech", lab.ORME)
	if len(s.a) != 300 || !scenetest.HasText(scenetest.Frame(a), "×299") {
		t.Fatalf("far-user pair: %d users, crowd label missing", len(s.a))
	}
	scenetest.MustSet(t, a, "mutant", audit.ORMEKeepAll)
	scenetest.MustSet(t, a, "runs", "100000") // 2·10⁴ runs can show ε only up to ≈ 7.3 < 8
	if r := labtest.RunMC(t, a, &s.MC); r.Verdict != "violation" {
		t.Errorf("keep-all by sampling: %v, ε ≥ %v", r.Verdict, r.EpsLower)
	}
	scenetest.MustSet(t, a, "mutant", audit.ORMEHalfScoreNoise)
	if v, _ := s.verdictAt(); v.Verdict != audit.Within || !scenetest.HasText(scenetest.Frame(a), "mechanism “orme-gate” with the pair “flipping” catches it") {
		t.Errorf("half-score-noise: %+v", v)
	}
}

// ORME's gate alone, over 8 queries: the flipping pair's bars sit 2·268/300
// apart, a B bar cannot be dragged further than 2(n−1)/n from its A bar,
// and the Monte Carlo audit catches half the score noise as the exact
// profile does.
func TestAuditLabGate(t *testing.T) {
	a, s := scenetest.Open(t, New())
	scenetest.MustSet(t, a, "mech", lab.Gate)
	if len(s.qa) != 8 || !(math.Abs(s.qa[0]-s.qb[0]-2*268.0/300) <= 1e-9) || !scenetest.HasText(scenetest.Frame(a), "4n/5 = 240") {
		t.Fatalf("flipping pair: %v vs %v", s.qa, s.qb)
	}
	if g := s.guarantee(); g.Eps != 4 || g.Delta != 0 {
		t.Errorf("the gate's share: %+v, want (ε/2, 0) = (4, 0)", g)
	}
	scenetest.MustSet(t, a, "mutant", audit.ORMEHalfScoreNoise)
	if v, _ := s.verdictAt(); v.Verdict != audit.Violation {
		t.Errorf("half-score-noise: %+v", v)
	}
	if r := labtest.RunMC(t, a, &s.MC); r.Verdict != "violation" {
		t.Errorf("half-score-noise by sampling: %v, ε ≥ %v", r.Verdict, r.EpsLower)
	}
	scenetest.MustSet(t, a, "mutant", audit.ORMEKeepAll)
	if !scenetest.HasText(scenetest.Frame(a), "mechanism “orme” with the pair “far-user” catches it") {
		t.Error("keep-all: no pointer to the audit that catches it")
	}
	// Drag B's first bar far up: it stops a sensitivity above A's.
	scenetest.Frame(a)
	bar := s.ax.SlotX(1) + 6
	a.Event(viz.Event{Kind: viz.PointerDown, X: bar, Y: s.ax.YOf(s.qb[0]) + 1})
	a.Event(viz.Event{Kind: viz.PointerMove, X: bar, Y: s.ax.YOf(5)})
	a.Event(viz.Event{Kind: viz.PointerUp})
	if d := s.qb[0] - s.qa[0]; !(math.Abs(d-2*299.0/300) <= 0.01) {
		t.Errorf("dragged B bar sits %.4g above A's, want 2(n−1)/n", d)
	}
}

// A link may set a control that only a choice in the same link brings: the
// Gaussian mechanism's claimed ε.
func TestAuditLabLinkWithDependentControl(t *testing.T) {
	a, s := scenetest.Open(t, New())
	if err := a.Restore("scene=audit&eps=10&mech=" + lab.Gauss); err != nil {
		t.Fatal(err)
	}
	if s.mech != lab.Gauss || s.gaussEps != 10 {
		t.Errorf("restored mech %s, claimed ε %v", s.mech, s.gaussEps)
	}
	if !strings.Contains(a.State(), "mech="+lab.Gauss) || !strings.Contains(a.State(), "eps=10") {
		t.Errorf("state %s", a.State())
	}
}

// The figure says what it audits and finds, and another pair changes what
// it says.
func TestAuditLabDescribes(t *testing.T) {
	a, _ := scenetest.Open(t, New())
	scenetest.Describes(t, a, func() { scenetest.MustSet(t, a, "pair", "three-vs-four-outliers") })
}

// The keyboard moves A's first user as a mouse drag does.
func TestAuditLabKeyboardDrag(t *testing.T) {
	scenetest.KeyboardMatchesMouse(t, scenetest.Opens(t, New), "ArrowDown")
	a, _ := scenetest.Open(t, New())
	scenetest.Chooses(t, a, "row B's user 14 at 0", "ArrowUp")
}

// noCollisions fails t if the figure prints two lines into each other at
// any width from a phone's to a desktop's (a wrapped result and the line
// below it).
func noCollisions(t *testing.T, a *viz.App, what string) {
	t.Helper()
	for w := 320.0; w <= 1400; w += 40 {
		l, _ := a.Frame(w, 800)
		for _, c := range scenetest.Collisions(l) {
			t.Errorf("%s at %v px: %q runs into %q", what, w, c[0], c[1])
			return
		}
	}
}

// The lab opens on DelOutputPert at ε = 8, outside its proof (ε̄ = 4 ≥ 1):
// its claim says so, as lessons 2 and 4 do at such settings, and the
// line saying why holds — κ = 3 and 14 users per pair, which ε < 2 would
// not allow. A broken variant's claim speaks for itself.
func TestAuditLabSaysWhyItAuditsOutsideTheProof(t *testing.T) {
	a, s := scenetest.Open(t, New())
	g := a.Guarantee()
	if g.Certified() || len(g.Unmet()) != 1 || !strings.Contains(g.Unmet()[0].What, "ε̄ = ε/2 < 1") {
		t.Fatalf("DelOutputPert at ε = 8 claims %+v; want NOT certified for ε̄ alone", g)
	}
	why, settings, ok := s.Certify()
	if !ok || settings != nil || !strings.Contains(why, "outside its proof") {
		t.Errorf("Certify() = %q, %v, %v", why, settings, ok)
	}
	cal, err := s.del.DelCalibration()
	if err != nil || cal.Kappa != 3 || len(s.a) != 4*3+2 || len(s.b) != len(s.a) {
		t.Errorf("the line says κ = 3 and 14 users; κ = %d (%v), %d and %d users", cal.Kappa, err, len(s.a), len(s.b))
	}
	below := s.del
	below.Eps = 1.99
	if cal, _ := below.DelCalibration(); 4*cal.Kappa+2 <= len(s.a) {
		t.Errorf("at ε = 1.99, κ = %d would suffice for the pairs' %d users: the lab could audit within the proof", cal.Kappa, len(s.a))
	}
	scenetest.MustSet(t, a, "mutant", labPairs()[lab.Del][0].Catches)
	if _, _, ok := s.Certify(); ok {
		t.Error("a broken variant's claim got the real mechanism's line")
	}
	scenetest.MustSet(t, a, "mech", lab.AT)
	if g := a.Guarantee(); !g.Certified() {
		t.Errorf("AboveThreshold's claim: %v", g.Unmet())
	}
}
