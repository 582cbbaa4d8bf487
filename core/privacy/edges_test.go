package privacy

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// Every check at its edges: the last value refused and the first accepted.
func TestChecksAtTheirEdges(t *testing.T) {
	tiny := math.SmallestNonzeroFloat64
	for _, c := range []struct {
		name string
		err  error
		ok   bool
	}{
		{"eps 0", CheckEps(0), false},
		{"eps tiny", CheckEps(tiny), true},
		{"eps max", CheckEps(math.MaxFloat64), true},
		{"eps +Inf", CheckEps(math.Inf(1)), false},
		{"eps NaN", CheckEps(math.NaN()), false},
		{"delta 0", CheckDelta(0), false},
		{"delta tiny", CheckDelta(tiny), true},
		{"delta below 1", CheckDelta(math.Nextafter(1, 0)), true},
		{"delta 1", CheckDelta(1), false},
		{"spend delta 0", Spend{Eps: 1}.check(), true},
		{"spend delta below 1", Spend{Eps: 1, Delta: math.Nextafter(1, 0)}.check(), true},
		{"spend delta 1", Spend{Eps: 1, Delta: 1}.check(), false},
		{"spend delta −0.1", Spend{Eps: 1, Delta: -0.1}.check(), false},
		{"spend rho 0", Spend{Eps: 1, Rho: 0}.check(), true},
		{"spend rho −1", Spend{Eps: 1, Rho: -1}.check(), false},
		{"spend rho +Inf", Spend{Eps: 1, Rho: math.Inf(1)}.check(), false},
		{"k 0", checkStep(Spend{Eps: 1}, 0), false},
		{"k 1", checkStep(Spend{Eps: 1}, 1), true},
		{"k 10⁹", checkStep(Spend{Eps: 1}, 1e9), true},
		{"k 10⁹+1", checkStep(Spend{Eps: 1}, 1e9+1), false},
		{"ledger slack 0", NewLedger(Advanced, 0).checkSlack(), false},
		{"ledger slack below 1", NewLedger(Advanced, math.Nextafter(1, 0)).checkSlack(), true},
		{"ledger slack 1", NewLedger(Advanced, 1).checkSlack(), false},
		{"basic ledger ignores slack", NewLedger(Basic, 0).checkSlack(), true},
	} {
		if (c.err == nil) != c.ok {
			t.Errorf("%s: error %v, want accepted = %v", c.name, c.err, c.ok)
		}
	}
	// CompareRules says which rules need the slack, before any one rule
	// refuses it in its own words.
	for _, slack := range []float64{0, 1} {
		if _, err := CompareRules(Spend{Eps: 1}, 3, slack); err == nil || !strings.Contains(err.Error(), "advanced, zCDP and optimal composition need") {
			t.Errorf("CompareRules at δ' = %v: error %v", slack, err)
		}
	}
	if _, err := CompareRules(Spend{Eps: 1}, 3, math.Nextafter(1, 0)); err != nil {
		t.Errorf("CompareRules refused δ' just below 1: %v", err)
	}
}

// Each name reads back as itself, and a mode out of range prints as a
// number and is refused as text.
func TestNamesRoundTrip(t *testing.T) {
	for _, r := range Rules {
		if got, err := ParseRule(string(r)); err != nil || got != r {
			t.Errorf("ParseRule(%q) = %q, %v", r, got, err)
		}
	}
	for _, m := range []Mode{Paper, Sound, Teaching, NonPrivate} {
		got, err := ParseMode(m.String())
		if err != nil || got != m {
			t.Errorf("ParseMode(%q) = %v, %v", m.String(), got, err)
		}
		if b, err := m.MarshalText(); err != nil || string(b) != m.String() {
			t.Errorf("%v.MarshalText() = %q, %v", m, b, err)
		}
	}
	if NonPrivate.String() != "non-private" {
		t.Errorf("NonPrivate prints as %q", NonPrivate.String())
	}
	for _, m := range []Mode{-1, NonPrivate + 1} {
		if got, want := m.String(), "Mode("; !strings.HasPrefix(got, want) {
			t.Errorf("mode %d prints as %q, want %s…)", int(m), got, want)
		}
		if _, err := m.MarshalText(); err == nil {
			t.Errorf("mode %d marshalled", int(m))
		}
	}
}

// At equality only the non-strict comparisons are met.
func TestRequireAtEquality(t *testing.T) {
	for op, want := range map[Op]bool{Below: false, AtMost: true, AtLeast: true, Above: false} {
		if got := Require("x", 2, op, 2).Met; got != want {
			t.Errorf("2 %s 2: met = %v, want %v", op, got, want)
		}
	}
}

// The guarantee's line counts its unmet preconditions, names its relation,
// and its JSON writes null for no guarantee and [] for no preconditions.
func TestGuaranteeWords(t *testing.T) {
	met, unmet := Require("a", 1, AtMost, 2), Require("b", 3, AtMost, 2)
	for _, c := range []struct {
		pre  []Precondition
		want string
	}{
		{nil, "(ε = 1, δ = 1e-06)-DP at user level, sound mode: certified"},
		{[]Precondition{met}, "(ε = 1, δ = 1e-06)-DP at user level, sound mode: certified"},
		{[]Precondition{met, unmet}, "(ε = 1, δ = 1e-06)-DP at user level, sound mode: NOT certified, 1 precondition unmet"},
		{[]Precondition{unmet, unmet}, "(ε = 1, δ = 1e-06)-DP at user level, sound mode: NOT certified, 2 preconditions unmet"},
	} {
		if got := (Guarantee{Eps: 1, Delta: 1e-6, Mode: Sound, Preconditions: c.pre}).String(); got != c.want {
			t.Errorf("got  %s\nwant %s", got, c.want)
		}
	}
	semi := Guarantee{Eps: 1, Delta: 1e-6, Mode: Sound, Relation: SemiSensitive}
	if got, want := semi.String(), "(ε = 1, δ = 1e-06)-DP for the sensitive feature (semi-sensitive), sound mode: certified"; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	for _, c := range []struct {
		g    Guarantee
		want string
	}{
		{Guarantee{Eps: 1, Delta: 1e-6, Mode: Sound}, `{"eps":1,"delta":0.000001,"mode":"sound","certified":true,"preconditions":[]}`},
		{Guarantee{Eps: math.Inf(1), Mode: NonPrivate}, `{"eps":null,"delta":null,"mode":"non-private","certified":false,"preconditions":[]}`},
		{Guarantee{Eps: 2, Delta: 1e-6, Mode: NonPrivate}, `{"eps":null,"delta":null,"mode":"non-private","certified":false,"preconditions":[]}`},
		{Guarantee{Eps: 1, Delta: 1e-6, Mode: Paper, Preconditions: []Precondition{unmet}},
			`{"eps":1,"delta":0.000001,"mode":"paper","certified":false,"preconditions":[{"what":"b","have":3,"op":"≤","need":2,"met":false}]}`},
	} {
		b, err := json.Marshal(c.g)
		if err != nil || string(b) != c.want {
			t.Errorf("got  %s (%v)\nwant %s", b, err, c.want)
		}
	}
}

// Two different steps totalled by hand (the expected values are the
// formulas evaluated in Python, not by this package).
func TestLedgerTotalsByHand(t *testing.T) {
	adv := NewLedger(Advanced, 1e-5)
	zc := NewLedger(ZCDP, 1e-5)
	for _, s := range []Spend{{Label: "a", Eps: 0.5, Delta: 1e-6}, {Label: "b", Eps: 1, Delta: 2e-6}} {
		if err := adv.Add(s); err != nil {
			t.Fatal(err)
		}
	}
	// ρ: 1²/2 (approximate, adds its δ) + 0.5²/2 (pure) + 0.3 (known).
	for _, s := range []Spend{{Label: "a", Eps: 1, Delta: 1e-6}, {Label: "b", Eps: 0.5}, {Label: "c", Eps: 2, Delta: 1e-7, Rho: 0.3}} {
		if err := zc.Add(s); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		l    *Ledger
		want Budget
	}{
		// √(2 ln(10⁵)(0.5² + 1²)) + 0.5(e^0.5 − 1) + 1(e − 1)
		{adv, Budget{7.407557529532477, 3e-6 + 1e-5}},
		// ρ = 0.925: ρ + 2√(ρ ln 10⁵)
		{zc, Budget{7.451700868002903, 1e-6 + 1e-5}},
	} {
		got, err := c.l.Total()
		if err != nil {
			t.Fatal(err)
		}
		if !(math.Abs(got.Eps-c.want.Eps) <= 1e-12*c.want.Eps) || !(math.Abs(got.Delta-c.want.Delta) <= 1e-18) {
			t.Errorf("%s: total %+v, want %+v", c.l.Rule(), got, c.want)
		}
		// The explanation's ε and δ are the total's.
		_, _, steps, err := c.l.totalOf(c.l.sum(c.l.Spends()))
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range steps {
			if want, ok := map[string]float64{"ε": got.Eps, "ε'": got.Eps, "δ": got.Delta}[st.Symbol]; ok && st.Value != want {
				t.Errorf("%s: the explanation shows %s = %v, the total has %v", c.l.Rule(), st.Symbol, st.Value, want)
			}
		}
	}
	if got, want := ZCDPToDP(0.5, 1e-5), 5.298525912188081; !(math.Abs(got-want) <= 1e-12*want) {
		t.Errorf("ZCDPToDP(0.5, 1e-5) = %.17g, want %.17g", got, want)
	}
	if got, want := RhoFor(1, 1e-5), 0.0208199383395355; !(math.Abs(got-want) <= 1e-12*want) {
		t.Errorf("RhoFor(1, 1e-5) = %.17g, want %.17g", got, want)
	}
	b, err := json.Marshal(NewLedger(Basic, 0))
	if err != nil || !strings.Contains(string(b), `"spends":[]`) {
		t.Errorf("an empty ledger's JSON %s (%v) does not list its spends as []", b, err)
	}
}

// The best rule: a smaller ε wins by more than 0.1 %; within that, the
// smaller δ; at the same δ, the smaller ε.
func TestBetterBreaksTies(t *testing.T) {
	for _, c := range []struct {
		a, b Budget
		want bool
	}{
		{Budget{0.998, 1}, Budget{1, 0}, true},
		{Budget{0.9995, 1}, Budget{1, 0}, false},
		{Budget{0.9995, 0}, Budget{1, 1}, true},
		{Budget{1.0005, 0}, Budget{1, 1}, true},
		{Budget{1.002, 0}, Budget{1, 1}, false},
		{Budget{0.9995, 1}, Budget{1, 1}, true},
		{Budget{1, 1}, Budget{1, 1}, false},
		{Budget{1.0005, 1}, Budget{1, 1}, false},
	} {
		if got := better(c.a, c.b); got != c.want {
			t.Errorf("better(%v, %v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

// DelOutputPert's Gaussian step is proven for ε̄ = ε/2 < 1: ε = 2 is out.
func TestDelOutputPertValidAtEdge(t *testing.T) {
	for eps, want := range map[float64]bool{math.Nextafter(2, 0): true, 2: false} {
		c, err := DelOutputPert(eps, 1e-6, 1)
		if err != nil {
			t.Fatal(err)
		}
		if c.Valid != want {
			t.Errorf("ε = %v: valid = %v, want %v", eps, c.Valid, want)
		}
	}
}

// Stirling's error and the binomial's log-pmf against 40-digit arithmetic
// (mpmath: loggamma at mp.dps = 40), on both sides of each of the series'
// switch points and of bd0's, where a wrong coefficient or sign shows
// above 10⁻¹⁵.
func TestLogBinomPMFDigits(t *testing.T) {
	for _, c := range []struct{ n, want float64 }{
		{1, 0.08106146679532725822},
		{15, 0.005554733551962801371},
		{16, 0.0052076559196096404407},
		{35, 0.0023808876082341119857},
		{36, 0.0023147552905146838668},
		{80, 0.0010416612415616190685},
		{81, 0.0010288013577107775094},
		{500, 0.00016666664444446984119},
		{501, 0.00016633397657993270518},
		{100000, 8.3333333333055555556e-7},
	} {
		if got := stirlerr(c.n); !(math.Abs(got-c.want) <= 1e-16+1e-13*c.want) {
			t.Errorf("stirlerr(%v) = %.17g, want %.17g", c.n, got, c.want)
		}
	}
	pe := 1 / (1 + math.E)
	for _, c := range []struct {
		n, x    int
		p, want float64
	}{
		{10, 3, 0.3, -1.321151277766888636},
		{30, 7, pe, -1.8714512055463085066},
		{60, 40, 0.5, -5.6169135854360078365},
		{200, 17, 0.1, -2.5581101565707606477},
		{1000, 269, pe, -3.5599724944088829858},
		{100000, 50123, 0.5, -6.2848338645237849588},
		{5000, 4999, 0.9, -520.48260967505148809},
		{1000000, 268942, pe, -7.013433996642071487},
	} {
		got := logBinomPMF(c.n, c.x, math.Log(c.p), math.Log1p(-c.p))
		if !(math.Abs(got-c.want) <= 1e-13*math.Abs(c.want)) {
			t.Errorf("log P[Bin(%d, %.4g) = %d] = %.17g, want %.17g (rel. error %.2g)", c.n, c.p, c.x, got, c.want, math.Abs(got-c.want)/math.Abs(c.want))
		}
	}
}
