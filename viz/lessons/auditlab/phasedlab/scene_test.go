package phasedlab

import (
	"strings"
	"testing"

	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/internal/scenetest"
	"github.com/uldplab/uldp/viz/lessons/auditlab/internal/lab"
)

// Outlier-iterate removal in the lab: the real phase keeps its promise on
// both preset pairs, its gate spending exactly its budget on far-member;
// keep-all and weak-gate are caught there, no-score-noise on gate-edge.
func TestPhasedLabCatchesTheMutants(t *testing.T) {
	s := New()
	a := viz.NewApp(s)
	check := func(pair, mutant string, caught bool) {
		t.Helper()
		scenetest.MustSet(t, a, "pair", pair)
		scenetest.MustSet(t, a, "mutant", mutant)
		gate, _ := scenetest.Readout(a, "gate")
		exact, ok := scenetest.Readout(a, "exact")
		if !ok {
			t.Fatalf("%s, %s: no exact verdict (%+v)", pair, mutant, a.Readouts())
		}
		if got := gate.Warn || exact.Warn; got != caught {
			t.Errorf("%s, %s: caught %v (gate %q, exact %q), want %v", pair, mutant, got, gate.Text, exact.Text, caught)
		}
	}
	check("far-member", "none", false)
	if l := s.law; l.Phase != 1 || l.Group != 1 || l.C != 20 || l.GateLoss < l.GateBudget-1e-12 {
		t.Errorf("far-member: phase %d group %d of %d, gate loss %v of %v", l.Phase, l.Group, l.C, l.GateLoss, l.GateBudget)
	}
	check("far-member", "keep-all", true)
	check("far-member", "weak-gate", true)
	check("gate-edge", "none", false)
	check("gate-edge", "no-score-noise", true)
	if !scenetest.HasText(scenetest.Frame(a), "the audit catches") && !scenetest.HasText(scenetest.Frame(a), "VIOLATION") && !scenetest.HasText(scenetest.Frame(a), "violation") {
		t.Error("the figure does not show the catch")
	}
}

// Sampling: whole phases of outlier-iterate removal and whole runs of the
// accelerated variant, a slice per tick, to a verdict.
func TestPhasedLabMonteCarlo(t *testing.T) {
	s := New()
	a := viz.NewApp(s)
	for _, m := range []string{lab.OIR, lab.Accel} {
		scenetest.MustSet(t, a, "mech", m)
		sample(t, a, "2000")
		if r, ok := scenetest.Readout(a, "mc"); !ok || !strings.Contains(r.Text, "ε ≥") {
			t.Errorf("%s: Monte Carlo readout %+v", m, r)
		}
		if n := blueBars(scenetest.Frame(a)); m == lab.Accel && n < 3 {
			t.Errorf("%s: the figure draws %d bars of sampled answers", m, n)
		}
	}
}

// The figure says what it audits and finds, and a broken variant changes
// what it says.
func TestPhasedLabDescribes(t *testing.T) {
	a, _ := scenetest.Open(t, New())
	scenetest.Describes(t, a, func() { scenetest.MustSet(t, a, "mutant", "keep-all") })
}

// The localisation is audited by sampling whole runs: its promise is the
// sound one its proof covers at 8,192 users (each phase's group past 502),
// each phase's halting probability shows exactly — every phase halts on two
// crowds, none on one — and each preset pair passes with the real
// mechanism and catches the variant it was built for. α = 10⁻³ per audit.
func TestPhasedLabLocalisation(t *testing.T) {
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
			sample(t, a, format.Sprint(s.Runs))
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
	if !scenetest.HasText(l, "runs that every phase halted (θ₀) at the left") || blueBars(l) < 3 {
		t.Errorf("the figure draws %d bars of sampled answers", blueBars(l))
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

// sample runs a Monte Carlo audit of so many runs a side to its end, a
// slice per tick.
func sample(t *testing.T, a *viz.App, runs string) {
	t.Helper()
	scenetest.MustSet(t, a, "runs", runs)
	scenetest.MustSet(t, a, "monte-carlo", "")
	for range 1_000_000 {
		if !a.Tick(1.0 / 60) {
			return
		}
	}
	t.Fatal("the audit did not end")
}

// blueBars counts the filled bars of A's sampled answers in l.
func blueBars(l *viz.List) int {
	n := 0
	for _, it := range l.Items {
		if it.Kind == viz.Rect && it.Style.Fill == viz.Blue {
			n++
		}
	}
	return n
}
