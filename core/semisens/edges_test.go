package semisens

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"

	"github.com/uldplab/uldp/core/cancel"
	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/core/trace"
)

// The lower-bound instance's formulas at values that tell their
// operations apart (μ = 1/4, G = 3, so R = G/(2μ) = 6), evaluated to 30
// digits apart from this code.
func TestLowerBoundFormulas(t *testing.T) {
	sc := LowerBound{N: 2, K: 2, G: 3, Mu: 0.25}
	// Σᵢ (μ/2)(‖w‖² − 2R·w(i)_{yᵢ} + R²)/n with ‖w‖² = 0.3.
	if got := sc.Risk([]float64{0.4, 0.1, -0.2, 0.3}, []int{0, 1}); !(math.Abs(got-4.0125) <= 1e-12) {
		t.Errorf("strongly convex risk %v, want 4.0125", got)
	}
	cv := LowerBound{N: 10, K: 3, R: 2, G: 3}
	if got, want := cv.ConvexExcessBound(4), 0.309915809462273244898; !(math.Abs(got-want) <= 1e-14) {
		t.Errorf("(RG/n)(√n − √(n/2 + |I|/2)) at n = 10, |I| = 4: %v, want %v", got, want)
	}
}

// The logistic model: λ = ¼ + μ, and the loss softplus(−b·⟨w, φ⟩) +
// (μ/2)‖w‖² at a point computed to 30 digits; softplus and the sigmoid
// hold at ±800, where the wrong branch overflows.
func TestLogisticFormulas(t *testing.T) {
	m := Logistic{Mu: 0.5}
	if got := m.Smoothness(); got != 0.75 {
		t.Errorf("smoothness %v, want ¼ + μ = 0.75", got)
	}
	pub := &Public{K: 2, Features: [][]float64{{0.6, 0.8}}, Labels: []float64{1}}
	if got, want := m.Loss(pub, []float64{0.5, -0.2, 0.3, 0.1, 0.2}, 0, 1), 0.681675190496664633653; !(math.Abs(got-want) <= 1e-14) {
		t.Errorf("loss %v, want %v", got, want)
	}
	for _, c := range []struct{ x, softplus, sigmoid float64 }{{800, 800, 1}, {-800, 0, 0}} {
		if got := softplus(c.x); !(math.Abs(got-c.softplus) <= 1e-12) {
			t.Errorf("softplus(%v) = %v, want %v", c.x, got, c.softplus)
		}
		if got := sigmoid(c.x); !(math.Abs(got-c.sigmoid) <= 1e-12) {
			t.Errorf("sigmoid(%v) = %v, want %v", c.x, got, c.sigmoid)
		}
	}
}

// Every parameter at its edge: the smallest refused and the boundary
// accepted.
func TestSemiSensEdges(t *testing.T) {
	for _, c := range []struct {
		p  MWUParams
		ok bool
	}{{MWUParams{Eta: 1.0 / 3, C: 3}, true}, {MWUParams{Eta: 0.1, C: 0}, false}, {MWUParams{Eta: 0, C: 3}, false}, {MWUParams{Eta: 0.1, C: math.Inf(1)}, false}} {
		if err := c.p.Validate(); (err == nil) != c.ok {
			t.Errorf("%+v: %v, want accepted %v", c.p, err, c.ok)
		}
	}
	if err := (MWUParams{Eta: 0.5, C: 3}).Validate(); err == nil || !strings.Contains(err.Error(), "(0, 1/c] = (0, 0.333333]") {
		t.Errorf("η = 0.5 at c = 3: %v", err)
	}
	if _, err := FromProbs([][]float64{{0, 1}}); err == nil {
		t.Error("a zero belief accepted")
	}
	// A row within 10⁻⁶ of summing to 1 is divided by its sum.
	b, err := FromProbs([][]float64{{0.3, 0.7000001}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := b.P(0, 1), 0.700000029999997; !(math.Abs(got-want) <= 1e-15) {
		t.Errorf("p = %v, want 0.7000001/1.0000001 = %v", got, want)
	}

	// PVMW's parameters: each later check still runs after the earlier
	// ones pass.
	ok := Params{Rho: 0.5, Delta: 1e-6, LMax: DemoLMax, Eta: DemoEta, C: DemoC, Tau: DemoTau}
	if err := ok.Validate(1000); err != nil {
		t.Fatalf("the demo's parameters: %v", err)
	}
	for _, c := range []struct {
		mod  func(*Params)
		want string
	}{
		{func(p *Params) { p.Tau = 0 }, "τ = 0"},
		{func(p *Params) { p.Eta = 2 }, "η = 2"},
		{func(p *Params) { p.Delta = 1 }, "delta = 1"},
	} {
		p := ok
		c.mod(&p)
		if err := p.Validate(1000); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", p, err, c.want)
		}
	}

	// Values at 1…k are inside, k+1 and example n+1 outside.
	d, err := New(3, [][]float64{{0.1}, {0.2}, {0.3}}, []float64{1, -1, 1}, []int{0, 2, 1})
	if err != nil {
		t.Fatal(err)
	}
	// Refusals count examples and values from 1, as the reader does.
	if _, err := New(3, [][]float64{{0.1}}, []float64{1}, []int{3}); err == nil || !strings.Contains(err.Error(), "example 1: sensitive value 4 is outside 1…3") {
		t.Errorf("sensitive value k + 1: %v", err)
	}
	if _, err := d.Neighbour(3, 0); err == nil || !strings.Contains(err.Error(), "example 4: the dataset has examples 1…3") {
		t.Errorf("example n + 1: %v", err)
	}
	if _, err := d.Neighbour(0, 3); err == nil || !strings.Contains(err.Error(), "sensitive value 4: the feature takes values 1…3") {
		t.Errorf("value k + 1: %v", err)
	}
	if e, err := d.Neighbour(2, 2); err != nil {
		t.Fatal(err)
	} else if i, ok := Neighbours(d, e); !ok || i != 2 {
		t.Errorf("neighbours at example 3: (%d, %v)", i, ok)
	}
	// Two examples apart is not a neighbour, the first of them example 1.
	far, _ := New(3, [][]float64{{0.1}, {0.2}, {0.3}}, []float64{1, -1, 1}, []int{1, 2, 2})
	if i, ok := Neighbours(d, far); ok || i != -1 {
		t.Errorf("datasets differing in examples 1 and 3: (%d, %v), want (−1, false)", i, ok)
	}
}

// The CSV form: labels survive the round trip, k = 2 is the fewest
// values, and an error names its line.
func TestCSVEdges(t *testing.T) {
	d, err := Generate(Spec{N: 20, K: 2, DimPub: 2, Effect: 2}, rng.New(5).Get(rng.Data))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteCSV(&b, d); err != nil {
		t.Fatal(err)
	}
	back, err := ReadCSV(bytes.NewReader(b.Bytes()), 2)
	if err != nil {
		t.Fatalf("k = 2: %v", err)
	}
	for i, y := range d.Labels {
		if back.Labels[i] != y {
			t.Fatalf("example %d: label %v read back as %v", i+1, y, back.Labels[i])
		}
	}
	if _, err := ReadCSV(strings.NewReader("a1,label,sensitive\n0.5,1,1\n0.5,7,1\n"), 2); err == nil || !strings.HasPrefix(err.Error(), "line 3:") {
		t.Errorf("a bad label on line 3: %v", err)
	}
	if _, err := ReadCSV(strings.NewReader("a1,label,sensitive\n"), 1); err == nil {
		t.Error("k = 1 accepted")
	}
}

// The calibration's steps print the numbers they use.
func TestCalibrationStepsShowTheirNumbers(t *testing.T) {
	c, err := Calibrate(0.4, 4, 1000, 0.25, CalTight)
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, s := range c.Steps {
		switch s.Symbol {
		case "ρ_G":
			seen++
			if !strings.HasPrefix(s.Formula, "(1 − ζ)·ρ_inst = 0.75·0.1:") {
				t.Errorf("ρ_G's formula %q", s.Formula)
			}
		case "b_thr":
			seen++
			if !strings.HasSuffix(s.Formula, "Δ = 2/n = 0.002") {
				t.Errorf("b_thr's formula %q", s.Formula)
			}
		}
	}
	if seen != 2 {
		t.Errorf("%d of the steps ρ_G and b_thr found in %+v", seen, c.Steps)
	}
}

// Training's bookkeeping on two problems of 8 steps: each problem's
// method and step (1/(2λ) = 2/3 at μ = ½, λ = ¾; R/√q = 2/√8 at μ = 0),
// the Gaussian baseline's σ = (2/n)/√(2(ρ/2)/q) = 0.04 at n = 200, ρ = ½,
// and progress counting up to 2·8q, to its end.
func TestTrainBookkeeping(t *testing.T) {
	p := TrainParams{PVMW: Params{Rho: 0.5, Delta: 1e-6, LMax: DemoLMax, Eta: DemoEta, C: DemoC, Tau: DemoTau}, Steps: 8, Radius: 2, Mus: []float64{0, 0.5}}
	if got := p.descent(0.5); got.Step != 2.0/3 || !got.Last {
		t.Errorf("μ = ½: %+v, want the last iterate at step 2/3", got)
	}
	if got := p.descent(0); got.Step != 2/math.Sqrt(8) || got.Last {
		t.Errorf("μ = 0: %+v, want the average at step 2/√8", got)
	}
	// Validate reads on past valid PVMW settings to the problems.
	bad := p
	bad.Mus = []float64{0, -1}
	if err := bad.Validate(200); err == nil || !strings.Contains(err.Error(), "μ = -1") {
		t.Errorf("μ = −1: %v", err)
	}
	bad.Mus = make([]float64, MaxProblems)
	if err := bad.Validate(200); err != nil {
		t.Errorf("%d problems, the most: %v", MaxProblems, err)
	}
	bad.Mus = make([]float64, MaxProblems+1)
	if err := bad.Validate(200); err == nil {
		t.Errorf("%d problems accepted", MaxProblems+1)
	}
	s := rng.New(3)
	d, err := Generate(Spec{N: 200, K: 3, DimPub: 2, Effect: 2}, s.Get(rng.Data))
	if err != nil {
		t.Fatal(err)
	}
	var last, total int64
	res, _, err := Train(context.Background(), d, p, s, func(done, of int64) {
		if done < last || done > of {
			t.Errorf("progress %d of %d after %d", done, of, last)
		}
		last, total = done, of
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Problems[0].Method != "projected gradient descent, averaged" || res.Problems[1].Method != "inexact-oracle gradient method, last iterate" {
		t.Errorf("methods %q and %q", res.Problems[0].Method, res.Problems[1].Method)
	}
	if !(math.Abs(res.GaussianStd-0.04) <= 1e-15) {
		t.Errorf("the Gaussian baseline's σ %v, want 0.04", res.GaussianStd)
	}
	if want := int64(2 * 8 * 8); total != want || last != want {
		t.Errorf("progress ends at %d of %d, want a total of %d", last, total, want)
	}
}

// The test's trace step shows E + ν and τ + χ as sums (with noise that
// is not zero, so a difference would show), and LastUpdate has nothing
// before the first update.
func TestPVMWTestStepShowsItsSums(t *testing.T) {
	d, tab, p := everyTestPasses(t, 9, 10)
	s := &script{lap: []float64{-0.25, 0.125, 0.0625, -0.5, 0.375}, gauss: 0.01}
	rec := trace.NewRecorder("pvmw", 0)
	m, err := NewPVMW(d, p, s, rec)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := m.LastUpdate(); ok {
		t.Error("an update before any query")
	}
	if _, err := m.Answer(tab); err != nil {
		t.Fatal(err)
	}
	if u, ok := m.LastUpdate(); !ok || u.Query != 1 {
		t.Errorf("after the first query's updates: %+v, %v", u, ok)
	}
	tests := 0
	for _, st := range rec.Trace().Steps {
		ts, ok := st.Data.(TestStep)
		if st.Kind != KindTest || !ok {
			continue
		}
		tests++
		if ts.Nu == 0 || ts.Chi == 0 {
			t.Fatalf("test %d drew ν = %v, χ = %v: the script should give neither 0", tests, ts.Nu, ts.Chi)
		}
		verdict := map[bool]string{true: "≥", false: "<"}[ts.Top]
		want := format.Sprintf("E + ν = %.4g %s = %.4g %s τ + χ = %.4g %s = %.4g → ", ts.Error, trace.Plus(ts.Nu), ts.Error+ts.Nu, verdict, ts.Tau, trace.Plus(ts.Chi), ts.Tau+ts.Chi)
		if !strings.Contains(st.Text, want) {
			t.Errorf("test step %q, want it to contain %q", st.Text, want)
		}
	}
	if tests == 0 {
		t.Error("no test step recorded")
	}
}

// Condition 14 on the golden step again at η = 1/4 (c = ½), where η, η²
// and 1 differ, evaluated to 30 digits apart from this code: the bounds
// (2c² + 7)η = 1.875, ηE = 0.23717…, η² = 0.0625; (iii) = 0.42 now fails;
// (D1) = η(A_true − A_syn) − η²Q = 0.111432….
func TestCheckConditionAtAQuarter(t *testing.T) {
	d, tab := golden(t)
	cond, err := CheckCondition(&d.Public, d.Reveal(), Uniform(2, 3), tab, []float64{0.35, 0.85}, 0.9, MWUParams{Eta: 0.25, C: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		value, bound float64
		holds        bool
	}{{0.25, 2, true}, {0.94868329805051379960, 1.875, false}, {0.03, 0.23717082451262844990, true}, {0.42, 0.0625, false},
		{0, 0.0625, true}, {0.9, 0.25, true}, {0.9, 1.8973665961010275992, true}}
	for j, w := range want {
		pt := cond.Parts[j]
		near(t, pt.Name+" value", pt.Value, w.value, 1e-12)
		near(t, pt.Name+" bound", pt.Bound, w.bound, 1e-12)
		if pt.Holds != w.holds {
			t.Errorf("part %s holds %v, want %v", pt.Name, pt.Holds, w.holds)
		}
	}
	near(t, "η²", cond.Lemma, 0.0625, 0)
	near(t, "(D1)", cond.Exact, 0.11143261316872427984, 1e-12)
	near(t, "z along the error", cond.NoiseAlong, -0.03/math.Sqrt(0.9), 1e-12)
	// (v) asks ι > η strictly: ι = η fails it.
	at, err := CheckCondition(&d.Public, d.Reveal(), Uniform(2, 3), tab, []float64{0.35, 0.85}, 0.25, MWUParams{Eta: 0.25, C: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if pt := at.Parts[5]; pt.Name != "(v)" || pt.Holds {
		t.Errorf("ι = η = 0.25: %+v, want (v) to fail", pt)
	}
}

// A descent by hand: a constant gradient (1, 0) at step ½ from 0 visits
// 0, −½, −1; the last iterate is then −1.5, the average −½; a call that
// fails ends the run with what it had.
func TestDescentByHand(t *testing.T) {
	g := func(w []float64) ([]float64, bool, error) { return []float64{1, 0}, true, nil }
	last, err := Descent{Steps: 3, Radius: 10, Step: 0.5, Last: true}.Run(cancel.Never, 2, g, nil)
	if err != nil {
		t.Fatal(err)
	}
	if last.W[0] != -1.5 || last.Answered != 3 || last.Iterates[2][0] != -1 {
		t.Errorf("last iterate %v after %d calls (iterates %v), want −1.5 after 3", last.W, last.Answered, last.Iterates)
	}
	avg, _ := Descent{Steps: 3, Radius: 10, Step: 0.5}.Run(cancel.Never, 2, g, nil)
	if avg.W[0] != -0.5 {
		t.Errorf("average %v, want −½", avg.W)
	}
	calls := 0
	failing := func(w []float64) ([]float64, bool, error) { calls++; return []float64{1, 0}, calls < 3, nil }
	cut, _ := Descent{Steps: 5, Radius: 10, Step: 0.5, Last: true}.Run(cancel.Never, 2, failing, nil)
	if !cut.Failed || cut.Answered != 2 || cut.W[0] != -0.5 {
		t.Errorf("failing at call 3: %+v, want the last answered iterate −½", cut)
	}
}

// Edges of the lower bound's pointing and the model's unit ball: a block
// (1, 1) has w_y = ‖w‖/√2 exactly, which does not point; a feature of norm
// exactly 1 is inside the ball.
func TestPointingAndUnitBallEdges(t *testing.T) {
	lb := LowerBound{N: 1, K: 2, R: 1, G: 1}
	if got := lb.Pointed([]float64{1, 1}, []int{0}); got != 0 {
		t.Errorf("a block (1, 1) points at value 1: %d", got)
	}
	if got := lb.Pointed([]float64{1, 0.9}, []int{0}); got != 1 {
		t.Errorf("a block (1, 0.9) does not point at value 1: %d", got)
	}
	if err := (Logistic{}).Check(&Public{K: 2, Features: [][]float64{{0.6, 0.8}}, Labels: []float64{1}}); err != nil {
		t.Errorf("a unit feature refused: %v", err)
	}
	if err := (Logistic{}).Check(&Public{K: 2, Features: [][]float64{{0.6, 0.81}}, Labels: []float64{1}}); err == nil || !strings.HasPrefix(err.Error(), "example 1: public features of norm 1.008") {
		t.Errorf("a feature of norm 1.008: %v", err)
	}
}

// The generated labels follow the sensitive value: with effect 8 and k = 3
// the score is (⟨w_a, a⟩ ± 8)/√3 for the end values (|⟨w_a, a⟩| ≤ 2), so
// Pr[b = 1] is below 0.05 for value 1 and above 0.95 for value 3, and
// the middle value's ⟨w_a, a⟩/√3 keeps it within [0.24, 0.76]. Over
// 4,000 examples (about 1,333 a value, fixed seed) the frequencies leave
// those bands by more than 0.1 only with probability below 10⁻¹⁰
// (Hoeffding: exp(−2·1333·0.1²)).
func TestGeneratedLabelsFollowTheValue(t *testing.T) {
	d, err := Generate(Spec{N: 4000, K: 3, DimPub: 1, Effect: 8}, rng.New(6).Get(rng.Data))
	if err != nil {
		t.Fatal(err)
	}
	var ones, count [3]float64
	for i, y := range d.Reveal() {
		count[y]++
		if d.Labels[i] == 1 {
			ones[y]++
		}
	}
	low, mid, high := ones[0]/count[0], ones[1]/count[1], ones[2]/count[2]
	if !(low < 0.15) || !(high > 0.85) || !(mid > 0.14 && mid < 0.86) {
		t.Errorf("Pr[b = 1] by value: %.3f, %.3f, %.3f; want below 0.15, within [0.14, 0.86], above 0.85", low, mid, high)
	}
}

// An update counts the scores it cuts: on the golden step (c = ½) four of
// the six.
func TestMWUCountsItsCuts(t *testing.T) {
	d, tab := golden(t)
	st, err := MWU(&d.Public, Uniform(2, 3), tab, []float64{0.35, 0.85}, 0.9, MWUParams{Eta: 1, C: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if st.Clipped != 4 {
		t.Errorf("%d scores cut, want 4", st.Clipped)
	}
}

// Condition 14 from beliefs that are not uniform, so f(p) = (0.15, −0.15)
// is not 0 and the beliefs' cuts no longer cancel (30-digit goldens, η =
// 1/4, c = ½): (ii) = 0.045, (iii) = 0.51, (iv) = 0.0825,
// (D1) = 0.124180….
func TestCheckConditionFromSkewedBeliefs(t *testing.T) {
	d, tab := golden(t)
	before, err := FromProbs([][]float64{{0.5, 0.3, 0.2}, {0.2, 0.2, 0.6}})
	if err != nil {
		t.Fatal(err)
	}
	cond, err := CheckCondition(&d.Public, d.Reveal(), before, tab, []float64{0.35, 0.85}, 0.9, MWUParams{Eta: 0.25, C: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		value float64
		holds bool
	}{{0.25, true}, {1.0606601717798212866, false}, {0.045, true}, {0.51, false}, {0.0825, false}, {0.9, true}, {0.9, true}}
	for j, w := range want {
		pt := cond.Parts[j]
		near(t, pt.Name, pt.Value, w.value, 1e-12)
		if pt.Holds != w.holds {
			t.Errorf("part %s holds %v, want %v", pt.Name, pt.Holds, w.holds)
		}
	}
	near(t, "(D1)", cond.Exact, 0.12418016975308641975, 1e-12)
	near(t, "z along the error", cond.NoiseAlong, -0.042426406871192851464, 1e-12)
}

// The ledger charges each test and each norm release ε′²/2 of ρ (pure
// ε′-DP as zCDP) and each Gaussian ρ_G: two updates use three
// instances' tests, two norms and two Gaussians.
func TestLedgerCharges(t *testing.T) {
	c := Calibration{EpsPrime: 0.3, RhoG: 0.07, LMax: 5}
	spends := ledger(c, 2)
	if len(spends) != 7 {
		t.Fatalf("%d spends, want 3 tests, 2 norms and 2 Gaussians", len(spends))
	}
	for _, s := range spends {
		want := 0.045 // 0.3²/2
		if strings.HasSuffix(s.Label, "the Gaussian") {
			want = 0.07
		}
		if !(math.Abs(s.Rho-want) <= 1e-15) {
			t.Errorf("%s: ρ = %v, want %v", s.Label, s.Rho, want)
		}
	}
}
