package sgdlab

import (
	"errors"
	"strings"
	"testing"

	"github.com/uldplab/uldp/core/audit"
	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/internal/scenetest"
	"github.com/uldplab/uldp/viz/lessons/auditlab/internal/lab"
	"github.com/uldplab/uldp/viz/lessons/auditlab/internal/labtest"
)

// Every preset pair of DP-SGD and robust SGD (the localisation's:
// TestSGDLabLocalisation): the exact part shows, the real mechanism passes
// the Monte Carlo audit, and the broken variant the pair was built for is
// caught, in the readout and the figure.
func TestSGDLabPresetPairs(t *testing.T) {
	for _, m := range []string{lab.SGD, lab.RSGD} {
		for _, p := range sgdPairs()[m] {
			a, s := scenetest.Open(t, New())
			scenetest.MustSet(t, a, "mech", m)
			scenetest.MustSet(t, a, "pair", p.Name)
			if m == lab.SGD {
				sampledPresetPair(t, a, s, p)
			} else {
				rsgdPresetPair(t, a, s, p)
			}
		}
	}
}

// The lab's other mechanisms are in its other parts: choosing one answers
// with the lesson's link for it.
func TestSGDLabPointsToTheOtherParts(t *testing.T) {
	a, _ := scenetest.Open(t, New())
	for _, m := range []string{lab.Del, lab.OIR, lab.PVMW} {
		var el viz.ElsewhereError
		if err := a.Set("mech", m); !errors.As(err, &el) || el.State != "scene=audit&mech="+m {
			t.Errorf("mech %s: %v", m, err)
		}
	}
}

// Dragging B's far user moves it alone, and the runs are prepared afresh;
// the keyboard drags as the mouse does.
func TestSGDLabDrag(t *testing.T) {
	a, s := scenetest.Open(t, New())
	scenetest.MustSet(t, a, "mech", lab.RSGD)
	far := len(s.b) - 1 // B's far user, the pair's changed one
	p, ok := scenetest.Frame(a).Locate(lab.RowB + 1 + far)
	if !ok {
		t.Fatal("B's far user is not drawn")
	}
	scenetest.Drag(a, p, -200, 0)
	var differ []int
	for i := range s.a {
		if s.a[i] != s.b[i] {
			differ = append(differ, i)
		}
	}
	if len(differ) != 1 || differ[0] != far || !(s.b[far] < 1e6) {
		t.Errorf("after moving B's far user left, users %v differ (it is at %v)", differ, s.b[far])
	}
	if s.err != nil || s.rsgd[1].Sample == nil || s.rtest.Step == 0 {
		t.Errorf("the dragged pair's runs: error %v, test law %+v", s.err, s.rtest)
	}
	scenetest.KeyboardMatchesMouse(t, scenetest.Opens(t, New), "ArrowUp")
}

// The figure says what it audits and finds, and another pair changes what
// it says.
func TestSGDLabDescribes(t *testing.T) {
	a, _ := scenetest.Open(t, New())
	scenetest.Describes(t, a, func() { scenetest.MustSet(t, a, "pair", "two-crowds") })
}

// sampledPresetPair checks a preset pair of a mechanism with no closed
// form: the exact halting probabilities show, the real mechanism passes the
// Monte Carlo audit and the variant the pair was built for is caught, in the
// readout and the figure. Seeds are fixed; a correct mechanism is flagged
// with probability ≤ α = 10⁻³.
func sampledPresetPair(t *testing.T, a *viz.App, s *Scene, p lab.Pair) {
	t.Helper()
	if r, ok := scenetest.Readout(a, "halt"); !ok || !strings.Contains(r.Text, "exact") {
		t.Errorf("%s: no exact halting readout: %+v", p.Name, r)
	}
	if _, ok := scenetest.Readout(a, "exact"); ok {
		t.Errorf("%s: an exact verdict for a mechanism with no closed form", p.Name)
	}
	if l := scenetest.Frame(a); !scenetest.HasText(l, "No closed form") || !scenetest.HasText(l, "Try the broken variant “"+p.Catches+"”") {
		t.Errorf("%s: the figure does not say what is exact and what to try", p.Name)
	}
	if r := labtest.RunMC(t, a, &s.MC); r.Verdict != "pass" {
		t.Errorf("%s, real mechanism: %+v", p.Name, r)
	}
	if !scenetest.HasText(scenetest.Frame(a), "halted runs (θ₀)") {
		t.Errorf("%s: no histogram of the sampled answers", p.Name)
	}
	scenetest.MustSet(t, a, "mutant", p.Catches)
	if r := labtest.RunMC(t, a, &s.MC); r.Verdict != "violation" {
		t.Errorf("%s: %s not caught: ε ≥ %v", p.Name, p.Catches, r.EpsLower)
	}
	if r, _ := scenetest.Readout(a, "mc"); !r.Warn {
		t.Errorf("%s, %s: readout %+v does not warn", p.Name, p.Catches, r)
	}
	if !scenetest.HasText(scenetest.Frame(a), "the audit catches “"+p.Catches+"”") {
		t.Errorf("%s: the figure does not name the caught variant", p.Name)
	}
}

// rsgdPresetPair checks a robust SGD pair: the real phase keeps the
// test's ε/2 exactly and passes the Monte Carlo audit of whole runs; the
// pair's variant is caught, by the exact test law (it breaks the test) or
// by sampling (it breaks the estimate). Seeds are fixed; a correct
// mechanism is flagged with probability ≤ α = 10⁻³.
func rsgdPresetPair(t *testing.T, a *viz.App, s *Scene, p lab.Pair) {
	t.Helper()
	if r, ok := scenetest.Readout(a, "halt"); !ok || !strings.Contains(r.Text, "exact") {
		t.Errorf("%s: no exact halting readout: %+v", p.Name, r)
	}
	if r, ok := scenetest.Readout(a, "test"); !ok || r.Warn || !strings.Contains(r.Text, audit.Within) {
		t.Errorf("%s, real mechanism: test readout %+v", p.Name, r)
	}
	if l := scenetest.Frame(a); !scenetest.HasText(l, "the test keeps its ε/2") || !scenetest.HasText(l, "Try the broken variant “"+p.Catches+"”") {
		t.Errorf("%s: the figure does not say the test holds and what to try", p.Name)
	}
	if g := a.Guarantee(); !g.Certified() {
		t.Errorf("%s: the lab's robust SGD is not certified: %v", p.Name, g.Unmet())
	}
	if r := labtest.RunMC(t, a, &s.MC); r.Verdict != "pass" {
		t.Errorf("%s, real mechanism: %+v", p.Name, r)
	}
	scenetest.MustSet(t, a, "mutant", p.Catches)
	if r, _ := scenetest.Readout(a, "test"); r.Warn {
		if !scenetest.HasText(scenetest.Frame(a), "the audit catches “"+p.Catches+"”") {
			t.Errorf("%s: the figure does not name the caught variant", p.Name)
		}
		return
	}
	if r := labtest.RunMC(t, a, &s.MC); r.Verdict != "violation" {
		t.Errorf("%s: %s not caught, exactly or by sampling: ε ≥ %v", p.Name, p.Catches, r.EpsLower)
	}
	if !scenetest.HasText(scenetest.Frame(a), "the audit catches “"+p.Catches+"”") {
		t.Errorf("%s: the figure does not name the caught variant", p.Name)
	}
}

// DP-SGD is audited by sampling only: its promise is the sound one its
// proof covers at 600 users; on two crowds the gate halts every run
// (exactly), and half the score noise passes — a run shows only whether
// its gate failed — with a pointer to the gate's own audit.
func TestSGDLabDPSGD(t *testing.T) {
	a, s := scenetest.Open(t, New())
	scenetest.MustSet(t, a, "mech", lab.SGD)
	if g := a.Guarantee(); !g.Certified() || g.Eps != 8 || g.Delta != 0.1 {
		t.Errorf("DP-SGD's promise at 600 users: %+v", g)
	}
	scenetest.MustSet(t, a, "pair", "two-crowds")
	if r, _ := scenetest.Readout(a, "halt"); r.Text != "1 on A, 1 on B (exact); a halted run answers θ₀" {
		t.Errorf("two crowds: %q", r.Text)
	}
	scenetest.MustSet(t, a, "pair", "far-user")
	scenetest.MustSet(t, a, "mutant", audit.ORMEHalfScoreNoise)
	if r := labtest.RunMC(t, a, &s.MC); r.Verdict != "pass" {
		t.Errorf("half-score-noise through whole runs: %v, ε ≥ %v", r.Verdict, r.EpsLower)
	}
	if !scenetest.HasText(scenetest.Frame(a), "mechanism “orme-gate” with the pair “flipping” catches it") {
		t.Error("half-score-noise: no pointer to the gate's audit")
	}
	state := a.State()
	b, s2 := scenetest.Open(t, New())
	if err := b.Restore(state); err != nil || s2.mech != lab.SGD || s2.mutant != audit.ORMEHalfScoreNoise {
		t.Errorf("restored %s/%s from %q: %v", s2.mech, s2.mutant, state, err)
	}
}

// The printed test noise is within the test's ε/2 on the lab's two-step
// phases, and the lab says so instead of pointing at a pair.
func TestSGDLabRobustSGDPaperNoise(t *testing.T) {
	a, s := scenetest.Open(t, New())
	scenetest.MustSet(t, a, "mech", lab.RSGD)
	scenetest.MustSet(t, a, "mutant", audit.RSGDPaperNoise)
	if r, _ := scenetest.Readout(a, "test"); r.Warn || s.rtest.WorstLoss > s.rtest.Budget/2+1e-3 {
		t.Errorf("printed noise over 2 steps: %+v", s.rtest)
	}
	if !scenetest.HasText(scenetest.Frame(a), "leaks on long phases") {
		t.Error("the figure does not say where the printed noise leaks")
	}
}

// The huber-edge pair does what the lesson's text says: the indicator's
// step-2 score is 400 on A and 200 on B, the exp kernel's nearly equal.
func TestSGDLabHuberEdge(t *testing.T) {
	a, s := scenetest.Open(t, New())
	scenetest.MustSet(t, a, "mech", lab.RSGD)
	scenetest.MustSet(t, a, "pair", "huber-edge")
	if d := s.rtest.ScoresA[1] - s.rtest.ScoresB[1]; d > 0.01 || d < 0 {
		t.Errorf("exp kernel, step 2: %v vs %v", s.rtest.ScoresA[1], s.rtest.ScoresB[1])
	}
	scenetest.MustSet(t, a, "mutant", audit.RSGDIndicator)
	if s.rtest.ScoresA[1] != 400 || s.rtest.ScoresB[1] != 200 {
		t.Errorf("indicator, step 2: %v vs %v, want 400 and 200", s.rtest.ScoresA[1], s.rtest.ScoresB[1])
	}
}

// The localisation is audited by sampling whole runs: its promise is the
// sound one its proof covers at 8,192 users (each phase's group past 502),
// each phase's halting probability shows exactly — every phase halts on two
// crowds, none on one — and each preset pair passes with the real
// mechanism and catches the variant it was built for. α = 10⁻³ per audit.
func TestSGDLabLocalisation(t *testing.T) {
	a, s := scenetest.Open(t, New())
	scenetest.MustSet(t, a, "mech", lab.SGDSC)
	if s.Runs != 100_000 {
		t.Errorf("the localisation's audit samples %d runs a side unless told: too few to refute ε = 8", s.Runs)
	}
	if g := a.Guarantee(); !g.Certified() || g.Eps != 8 || g.Delta != 0.1 || !strings.Contains(g.Note, "4 DP-SGD phases") {
		t.Errorf("the localisation's promise at %d users: %+v", scUsers, g)
	}
	if r, _ := scenetest.Readout(a, "halt"); !strings.HasPrefix(r.Text, "phase by phase, < 10⁻¹², < 10⁻¹², < 10⁻¹², < 10⁻¹² on A") {
		t.Errorf("one crowd: %q", r.Text)
	}
	for _, p := range scPairs() {
		scenetest.MustSet(t, a, "pair", p.Name)
		if p.Name == "two-crowds" {
			if r, _ := scenetest.Readout(a, "halt"); !strings.HasPrefix(r.Text, "phase by phase, 1, 1, 1, 1 on A and 1, 1, 1, 1 on B (exact, independent)") {
				t.Errorf("two crowds: %q", r.Text)
			}
		}
		for _, mutant := range []string{"none", p.Catches} {
			scenetest.MustSet(t, a, "mutant", mutant)
			labtest.Sample(t, a, format.Sprint(s.Runs))
			r, _ := scenetest.Readout(a, "mc")
			if caught := strings.Contains(r.Text, "violation"); caught != (mutant != "none") || !strings.Contains(r.Text, "ε ≥") {
				t.Errorf("%s, %s: %q", p.Name, mutant, r.Text)
			}
		}
	}
	l := scenetest.Frame(a)
	if !scenetest.HasText(l, "Pr[a phase's gate halts it]") {
		t.Error("the figure does not say which probabilities are exact")
	}
	// The broken variant's answers, sampled, show as a histogram beside
	// the real one's words: the first module drew one, this one did not.
	if !scenetest.HasText(l, "runs that every phase halted (θ₀) at the left") || labtest.BlueBars(l) < 3 {
		t.Errorf("the figure draws %d bars of sampled answers", labtest.BlueBars(l))
	}
	if !scenetest.HasText(l, "the event that tells A from B best") || !scenetest.HasText(l, "an output projected on the direction u") {
		t.Error("the figure names the audit's worst event without saying what it is")
	}
	state := a.State()
	b, s2 := scenetest.Open(t, New())
	if err := b.Restore(state); err != nil || s2.mech != lab.SGDSC || s2.mutant != "no-gate" || s2.pair != "two-crowds" {
		t.Errorf("restored %s/%s/%s from %q: %v", s2.mech, s2.pair, s2.mutant, state, err)
	}
}
