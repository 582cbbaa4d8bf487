package privacy

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

func TestComposeBasicAndAdvanced(t *testing.T) {
	c, err := Compose(Basic, Spend{Eps: 0.1, Delta: 1e-7}, 100, 0)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "basic ε", c.Total.Eps, 10, 1e-12)
	near(t, "basic δ", c.Total.Delta, 1e-5, 1e-12)

	// Worked by hand: √(200·ln 1e5)·0.1 + 100·0.1·(e^0.1 − 1) = 4.798526 + 1.051709 = 5.850235.
	c, err = Compose(Advanced, Spend{Eps: 0.1, Delta: 0}, 100, 1e-5)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "advanced ε", c.Total.Eps, 5.850235, 1e-6)
	near(t, "advanced δ", c.Total.Delta, 1e-5, 1e-12)
	near(t, "basic for comparison", c.Basic.Eps, 10, 1e-12)

	if _, err := Compose(Advanced, Spend{Eps: 0.1, Delta: 0}, 100, 0); err == nil || !strings.Contains(err.Error(), "delta-slack") {
		t.Errorf("advanced without slack: %v", err)
	}
	if _, err := Compose(Basic, Spend{Eps: 0.1, Delta: 0}, 0, 0); err == nil {
		t.Error("k = 0 accepted")
	}
	if _, err := Compose("sum", Spend{Eps: 0.1, Delta: 0}, 1, 0); err == nil {
		t.Error("unknown rule accepted")
	}
}

func TestComposeZCDP(t *testing.T) {
	// Pure steps: ρ = kε²/2 = 0.05; ε = 0.05 + 2√(0.05 ln 1e6).
	c, err := Compose(ZCDP, Spend{Eps: 0.01, Delta: 0}, 1000, 1e-6)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "ρ", c.Rho, 0.05, 1e-12)
	near(t, "zCDP ε", c.Total.Eps, 0.05+2*math.Sqrt(0.05*math.Log(1e6)), 1e-12)
	if c.Total.Eps >= c.Basic.Eps {
		t.Errorf("zCDP %v should beat basic %v for many small steps", c.Total.Eps, c.Basic.Eps)
	}
	// Gaussian steps: ρ per step is 1/(2(σ/Δ)²) for their real σ, and
	// they add no δ.
	g, _ := AnalyticGaussianSigma(0.5, 1e-5, 1)
	c, err = Compose(ZCDP, GaussianStep("g", 0.5, 1e-5, g.Scale), 10, 1e-6)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "ρ Gaussian", c.Rho, 10/(2*g.Scale*g.Scale), 1e-12)
	near(t, "δ Gaussian", c.Total.Delta, 1e-6, 1e-12)
	near(t, "basic δ beside it", c.Basic.Delta, 1e-4, 1e-12)
}

// The soundness bug this package had: under zCDP an (ε, δ) step was read
// as an analytic Gaussian calibrated to (ε, δ), so 3 steps of (1, 10⁻⁸)
// claimed (1.687, 10⁻⁵) — but randomized response with a 10⁻⁸ atom is a
// (1, 10⁻⁸)-DP step, and 3 of them are not (1.687, 0.28)-DP: the exact
// optimal composition (Kairouz, Oh & Viswanath) at ε' = 1.687 needs δ =
// 1 − (1 − 10⁻⁸)³(1 − 0.285606) ≈ 0.2856. A generic step now enters zCDP as
// δ-approximately ε²/2-zCDP: ρ = 1.5, ε = 1.5 + 2√(1.5 ln 10⁵) = 10.91,
// δ = 3·10⁻⁸ + 10⁻⁵ — loose, but sound.
func TestComposeZCDPGenericStepIsSound(t *testing.T) {
	step := Spend{Eps: 1, Delta: 1e-8}
	z, err := Compose(ZCDP, step, 3, 1e-5)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "ρ", z.Rho, 1.5, 1e-15)
	near(t, "ε", z.Total.Eps, 1.5+2*math.Sqrt(1.5*math.Log(1e5)), 1e-12)
	near(t, "δ", z.Total.Delta, 3e-8+1e-5, 1e-12)
	if d := 1 - math.Pow(1-1e-8, 3)*(1-optimalDeltaRR(3, 1, 1.687)); !(math.Abs(d-0.2856057) <= 1e-6) {
		t.Errorf("the counterexample's δ at ε' = 1.687 is %v, want 0.2856", d)
	}
	// Whatever the rule, no total may claim less than the optimal one.
	o, err := Compose(Optimal, step, 3, 1e-5)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range Rules {
		c, err := Compose(r, step, 3, 1e-5)
		if err != nil {
			t.Fatal(err)
		}
		if c.Total.Eps < o.Total.Eps*(1-1e-12) {
			t.Errorf("%s claims ε = %v below the optimal %v", r, c.Total.Eps, o.Total.Eps)
		}
	}
}

// Every rule side by side: the best is the smallest ε, and each rule's δ
// stays within kδ + δ'. Advanced loses to basic at few large steps and wins
// at many small ones; optimal never loses.
func TestCompareRules(t *testing.T) {
	for _, c := range []struct {
		step Spend
		k    int
	}{
		{Spend{Eps: 1, Delta: 1e-6}, 3},
		{Spend{Eps: 0.1, Delta: 1e-7}, 100},
		{Spend{Eps: 0.01}, 1000},
		{GaussianStep("g", 0.5, 1e-5, 7.3), 50},
	} {
		cmp, err := CompareRules(c.step, c.k, 1e-6)
		if err != nil {
			t.Fatal(err)
		}
		if len(cmp.Rules) != len(Rules) {
			t.Fatalf("%d rules compared", len(cmp.Rules))
		}
		for _, r := range cmp.Rules {
			if r.Total.Eps < cmp.Total.Eps*(1-1e-3) {
				t.Errorf("%s gives ε = %v below the best (%s, %v)", r.Rule, r.Total.Eps, cmp.Best, cmp.Total.Eps)
			}
			if r.Total.Delta > float64(c.k)*c.step.Delta+1e-6+1e-18 {
				t.Errorf("%s spends δ = %v > kδ + δ'", r.Rule, r.Total.Delta)
			}
		}
	}
	few, _ := CompareRules(Spend{Eps: 1, Delta: 1e-6}, 3, 1e-6)
	if adv, basic := few.Rules[1].Total.Eps, few.Rules[0].Total.Eps; adv <= basic {
		t.Errorf("3 steps of ε = 1: advanced %v should lose to basic %v", adv, basic)
	}
	// Optimal's ε' = 2.99997 ties with basic's 3 (within 0.1 %), and basic
	// spends less δ.
	if few.Best != Basic {
		t.Errorf("3 steps of ε = 1: best is %s", few.Best)
	}
	many, _ := CompareRules(Spend{Eps: 0.1}, 100, 1e-6)
	if many.Best != Optimal {
		t.Errorf("100 steps of ε = 0.1: best is %s", many.Best)
	}
	if _, err := CompareRules(Spend{Eps: 1}, 3, 0); err == nil {
		t.Error("no δ' accepted")
	}
}

func TestRhoConversionsInvert(t *testing.T) {
	for _, eps := range []float64{0.1, 1, 8} {
		for _, delta := range []float64{1e-9, 1e-5, 0.1} {
			near(t, "ZCDPToDP(RhoFor)", ZCDPToDP(RhoFor(eps, delta), delta), eps, 1e-12)
		}
	}
	near(t, "GaussianRho", GaussianRho(2, 4), 0.125, 0)
}

func TestLedgerSequentialAndParallel(t *testing.T) {
	l := NewLedger(Basic, 0)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(l.Add(Spend{Label: "AboveThreshold", Eps: 0.5}))
	must(l.Add(Spend{Label: "phase 1", Eps: 0.5, Delta: 1e-6, Group: "A"}))
	must(l.Add(Spend{Label: "phase 2", Eps: 0.25, Delta: 1e-6, Group: "B"}))
	must(l.Add(Spend{Label: "phase 2b", Eps: 0.25, Delta: 1e-6, Group: "B"}))
	tot, err := l.Total()
	must(err)
	// Group A: 0.5 + 0.5; group B: 0.5 + 0.25 + 0.25; worst is 1.0 with δ 2e-6 (B).
	near(t, "ε", tot.Eps, 1.0, 1e-15)
	near(t, "δ", tot.Delta, 2e-6, 1e-15)
	if len(l.Spends()) != 4 {
		t.Error("spends lost")
	}
	b, _ := json.Marshal(l)
	if !strings.Contains(string(b), `"total":{"eps":1,"delta":0.000002}`) {
		t.Errorf("ledger JSON: %s", b)
	}
	if err := l.Add(Spend{Label: "bad", Eps: -1}); err == nil || !strings.Contains(err.Error(), `"bad"`) {
		t.Errorf("negative ε accepted or unnamed: %v", err)
	}
}

// Under zCDP a Gaussian spend adds its ρ and no δ, a pure one ε²/2, and a
// generic (ε, δ) one ε²/2 with its δ added to the total's.
func TestLedgerZCDPKnowsEachStep(t *testing.T) {
	l := NewLedger(ZCDP, 1e-6)
	if err := l.Add(Spend{Label: "gauss", Eps: 1, Delta: 1e-5, Rho: 0.02}); err != nil {
		t.Fatal(err)
	}
	if err := l.Add(Spend{Label: "lap", Eps: 0.2}); err != nil {
		t.Fatal(err)
	}
	tot, err := l.Total()
	if err != nil {
		t.Fatal(err)
	}
	near(t, "ε", tot.Eps, ZCDPToDP(0.02+0.02, 1e-6), 1e-12)
	near(t, "δ", tot.Delta, 1e-6, 1e-12)
	if err := l.Add(Spend{Label: "approx", Eps: 1, Delta: 1e-5}); err != nil {
		t.Fatal(err)
	}
	tot, err = l.Total()
	if err != nil {
		t.Fatal(err)
	}
	near(t, "ε with a generic step", tot.Eps, ZCDPToDP(0.02+0.02+0.5, 1e-6), 1e-12)
	near(t, "δ with a generic step", tot.Delta, 1e-5+1e-6, 1e-12)
}

// Optimal composition in a ledger needs identical steps, and says so.
func TestLedgerOptimal(t *testing.T) {
	l := NewLedger(Optimal, 1e-6)
	for range 3 {
		if err := l.Add(Spend{Label: "q", Eps: 1, Delta: 1e-8}); err != nil {
			t.Fatal(err)
		}
	}
	tot, err := l.Total()
	if err != nil {
		t.Fatal(err)
	}
	c, _ := Compose(Optimal, Spend{Eps: 1, Delta: 1e-8}, 3, 1e-6)
	if tot != c.Total {
		t.Errorf("ledger %v, Compose %v", tot, c.Total)
	}
	if err := l.Add(Spend{Label: "other", Eps: 0.5}); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Total(); err == nil || !strings.Contains(err.Error(), "identical steps only") {
		t.Errorf("different steps under optimal: %v", err)
	}
	b, _ := json.Marshal(l)
	if !strings.Contains(string(b), `"error"`) {
		t.Errorf("ledger JSON should carry the error: %s", b)
	}
}

func TestGuarantee(t *testing.T) {
	g := Guarantee{Eps: 1, Delta: 1e-5, Mode: Paper, Preconditions: []Precondition{
		Require("n ≥ 4κ+2", 14, AtLeast, 14),
		Require("ε ≤ 1", 1, AtMost, 1),
	}}
	if !g.Certified() || len(g.Unmet()) != 0 || !strings.Contains(g.String(), "certified") {
		t.Errorf("all preconditions met: %v", g)
	}
	g.Preconditions = append(g.Preconditions, Require("ε̄ < 1", 4, Below, 1))
	if g.Certified() || len(g.Unmet()) != 1 || !strings.Contains(g.String(), "NOT certified") {
		t.Errorf("one unmet: %v", g)
	}
	if s := g.Preconditions[2].String(); s != "ε̄ < 1: 4 < 1, NOT met" {
		t.Errorf("precondition text %q", s)
	}
	f := Guarantee{Eps: 1, Delta: 1e-5, Mode: Paper, Preconditions: []Precondition{Fact("the code is the proof's mechanism", false)}}
	if f.Certified() || f.Preconditions[0].String() != "the code is the proof's mechanism: does NOT hold" {
		t.Errorf("a failed fact: %v, %q", f, f.Preconditions[0])
	}
	if p := Fact("x", true); !p.Met || p.String() != "x: holds" {
		t.Errorf("a fact that holds: %+v", p)
	}
	np := Guarantee{Eps: math.Inf(1), Mode: NonPrivate}
	b, err := json.Marshal(np)
	if err != nil || !strings.Contains(string(b), `"eps":null`) || !strings.Contains(string(b), `"certified":false`) {
		t.Errorf("non-private JSON %s, %v", b, err)
	}
	if np.Certified() {
		t.Error("non-private run certified")
	}
}

func TestModeRoundTrip(t *testing.T) {
	for _, m := range []Mode{Paper, Sound, Teaching, NonPrivate} {
		b, err := m.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back Mode
		if err := back.UnmarshalText(b); err != nil || back != m {
			t.Errorf("%v → %s → %v, %v", m, b, back, err)
		}
	}
	if _, err := ParseMode("toy"); err == nil || !strings.Contains(err.Error(), "teaching") {
		t.Errorf("bad mode error should list the choices: %v", err)
	}
}
