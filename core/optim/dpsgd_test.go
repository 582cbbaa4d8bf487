package optim

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/loss"
	"github.com/uldplab/uldp/core/noise"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/core/trace"
)

func gaussianUsers(t *testing.T, n, m int, spread float64, seed uint64) *dataset.Dataset {
	t.Helper()
	d, err := dataset.Generate(dataset.Spec{Kind: dataset.Gaussian, N: n, M: m, D: 2, Spread: spread, Center: []float64{0.4, -0.2}}, rng.New(seed))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// DP-SGD asks its one ORME instance all T queries at δ/(2Tmnd), so the run
// is (ε, δ/(2Tmnd))-DP and (ε, δ) a fortiori: the calibration a run uses
// has that δ and the paper σ it gives, √(8τ²T·ln(e^ε T/δ′)·ln(e^{ε/2}/δ′))/(nε)
// at δ′ = 10⁻⁵/(2·10·4·50·2) = 1.25·10⁻⁹, evaluated in mpmath.
func TestDPSGDGivesORMEItsShareOfDelta(t *testing.T) {
	d := gaussianUsers(t, 50, 4, 0.3, 1)
	p := DPSGDParams{Eps: 1, Delta: 1e-5, Loss: loss.Distance{}, Radius: 1, Steps: 10, Eta: 0.1, Tau: 0.5, Mode: privacy.Paper}
	res, _, err := DPSGD(context.Background(), p, d, rng.New(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	c := res.ORME
	if !(math.Abs(c.Params.Delta-1.25e-9) <= 1e-15*1.25e-9) || c.Params.Queries != 10 || c.Params.Eps != 1 || c.Params.Tau != 0.5 {
		t.Errorf("ORME runs at %+v, want ε = 1, δ = 1.25e-9, T = 10, τ = 0.5", c.Params)
	}
	if !(math.Abs(c.Sigma-1.9997195116921195) <= 1e-12*c.Sigma) {
		t.Errorf("ORME's σ = %.17g, want 1.9997195116921195", c.Sigma)
	}
}

// Spec §B-5 oracle 1: without noise (gate always passes, σ = 0), without
// smoothing and with τ so large that every user is kept, DP-SGD is
// projected full-batch subgradient descent with averaging — the same
// numbers as a plain reference loop, bit for bit.
func TestDPSGDWithoutNoiseIsProjectedGD(t *testing.T) {
	data := gaussianUsers(t, 30, 4, 0.5, 3)
	p := DPSGDParams{Eps: 1, Delta: 1e-5, Loss: loss.Distance{}, Radius: 1, Theta0: []float64{-0.9, 0.3},
		Steps: 50, Eta: 0.05, Tau: 1e6, Mode: privacy.NonPrivate}
	res, _, err := DPSGD(context.Background(), p, data, rng.New(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	dom := loss.Ball{Centre: []float64{0, 0}, Radius: 1}
	theta := slices.Clone(p.Theta0)
	avg := make([]float64, 2)
	g := make([]float64, 2)
	for range p.Steps {
		for k := range avg {
			avg[k] += theta[k] / float64(p.Steps)
		}
		// Mean over users of each user's mean item gradient, in the same
		// order the algorithm sums (so the floats agree exactly).
		users := make([][]float64, data.N())
		for i := range users {
			users[i] = make([]float64, 2)
			for j := range 4 {
				loss.Distance{}.Grad(theta, data.Item(i, j), g)
				for k := range g {
					users[i][k] += g[k] / 4
				}
			}
		}
		mean := make([]float64, 2)
		for _, u := range users {
			for k := range u {
				mean[k] += u[k]
			}
		}
		for k := range mean {
			mean[k] /= float64(len(users))
		}
		next := []float64{theta[0] - p.Eta*mean[0], theta[1] - p.Eta*mean[1]}
		theta = dom.Project(next, next)
	}
	if !slices.Equal(res.Theta, avg) {
		t.Errorf("DP-SGD %v, reference %v", res.Theta, avg)
	}
	if res.Halted != 0 || len(res.Iterates) != 50 {
		t.Errorf("halted %d, %d iterates", res.Halted, len(res.Iterates))
	}
}

// Oracle 3: users pairwise farther than τ make the score 1, the gate fails
// (P(⊤) ≈ 3·10⁻⁵ at n = 100, ε = 1) and the answer is θ₀ exactly.
func TestDPSGDHaltsToTheta0(t *testing.T) {
	d := &dataset.Dataset{Dim: 2}
	for i := range 100 {
		a := 2 * math.Pi * float64(i) / 100
		d.Users = append(d.Users, dataset.User{ID: "u", Points: []float64{30 * math.Cos(a), 30 * math.Sin(a)}})
	}
	p := DPSGDParams{Eps: 1, Delta: 1e-5, Loss: loss.Squared{Mu: 1}, Radius: 2, Theta0: []float64{0.5, 0.5}, Record: true,
		Steps: 20, Eta: 0.1, Tau: 0.01}
	res, tr, err := DPSGD(context.Background(), p, d, rng.New(2), nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Halted != 1 || !slices.Equal(res.Theta, []float64{0.5, 0.5}) || tr.Steps[len(tr.Steps)-1].Kind != KindSGDDone {
		t.Errorf("halted at %d with θ̂ = %v", res.Halted, res.Theta)
	}
}

// Oracle 2 and 6: a private run stays in Θ at every iterate and in the
// answer, and its excess risk never exceeds G·R (R the diameter).
func TestDPSGDStaysInTheDomain(t *testing.T) {
	data := gaussianUsers(t, 60, 5, 0.3, 4)
	s := Theorem41(4, 1e-5, 1, 2, 60, 5, 2, 300)
	p := DPSGDParams{Eps: 4, Delta: 1e-5, Loss: loss.Distance{}, Radius: 1, Steps: s.Steps, Eta: s.Eta, Smoothing: s.Smoothing, Tau: s.Tau}
	res, _, err := DPSGD(context.Background(), p, data, rng.New(5), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range append(res.Iterates, res.Theta) {
		if math.Hypot(it[0], it[1]) > 1+1e-12 {
			t.Fatalf("iterate %v outside Θ", it)
		}
	}
	risk := func(th []float64) float64 {
		var s float64
		for i := range data.Users {
			for j := range 5 {
				s += loss.Dist(th, data.Item(i, j))
			}
		}
		return s / float64(data.N()*5)
	}
	if ex := risk(res.Theta) - risk([]float64{0.4, -0.2}); ex > 2 {
		t.Errorf("excess risk %v > G·R = 2", ex)
	}
}

// Theorem 4.1's η is the least of three terms; each is the least at one
// of these settings (A: √m·n·ε/(T√d·ln(mnd/δ)), B: T^{−3/4}, C:
// √(nm)/T). The settings were evaluated to 30 digits apart from this code.
func TestTheorem41EachTermOfTheStep(t *testing.T) {
	for _, c := range []struct {
		least               string
		eps, delta, g, diam float64
		n, m, d, steps      int
		want                DPSGDSettings
	}{
		{"A", 1, 1e-5, 1, 2, 20, 10, 2, 0, DPSGDSettings{Steps: 40282, Eta: 0.00012684898227564882, Smoothing: 0.011850371954638947, Tau: 9.20477362780381}},
		{"B", 64, 1e-5, 2, 3, 4, 4, 1, 10, DPSGDSettings{Steps: 10, Eta: 0.26674191150583842, Smoothing: 0.9486832980505138, Tau: 80.588099280204055}},
		{"C", 100, 1e-3, 1, 2, 400, 1, 1, 1000000, DPSGDSettings{Steps: 1000000, Eta: 4.0e-5, Smoothing: 0.002, Tau: 126.71473038405439}},
	} {
		s := Theorem41(c.eps, c.delta, c.g, c.diam, c.n, c.m, c.d, c.steps)
		near := func(got, want float64) bool { return math.Abs(got-want) <= 1e-12*want }
		if s.Steps != c.want.Steps || !near(s.Eta, c.want.Eta) || !near(s.Smoothing, c.want.Smoothing) || !near(s.Tau, c.want.Tau) {
			t.Errorf("term %s least: %+v, want %+v", c.least, s, c.want)
		}
	}
}

// Oracle 4: Theorem 4.1's settings by hand for n = 20, m = 10, d = 2,
// ε = 1, δ = 10⁻⁵, G = 1, R = 2: T = m²n² + mn√d = 40,282 (the spec's
// "≈ 40,283" rounds the same sum).
func TestTheorem41Settings(t *testing.T) {
	s := Theorem41(1, 1e-5, 1, 2, 20, 10, 2, 0)
	T := 40000 + 200*math.Sqrt2
	if s.Steps != int(T) {
		t.Fatalf("T = %d, want %d", s.Steps, int(T))
	}
	tf := float64(s.Steps)
	want := DPSGDSettings{
		Steps:     s.Steps,
		Smoothing: math.Pow(2, 0.25) * 2 / math.Sqrt(tf),
		Tau:       math.Log(20*2*10*math.E*tf/1e-5) / math.Sqrt(10),
		Eta:       2 * math.Min(math.Sqrt(10)*20/(tf*math.Sqrt(2)*math.Log(400/1e-5)), math.Min(math.Pow(tf, -0.75), math.Sqrt(200)/tf)),
	}
	for _, c := range [][3]float64{{s.Smoothing, want.Smoothing, 0}, {s.Tau, want.Tau, 1}, {s.Eta, want.Eta, 2}} {
		if !(math.Abs(c[0]-c[1]) <= 1e-12*c[1]) {
			t.Errorf("setting %v: %v, want %v", c[2], c[0], c[1])
		}
	}
}

// Spec §9.6 with d = 1, ℓ = |θ|, r = 0.5: ℓ̂(θ) = E|θ + y| = (θ² + r²)/(2r)
// inside [−r, r] and |θ| beyond; 2·10⁵ draws of the ball sampler agree to
// 3 decimals (its standard error is ≤ 0.3/√(2·10⁵) ≈ 7·10⁻⁴; the band is
// 4 standard errors, false failure < 10⁻⁴). ℓ ≤ ℓ̂ ≤ ℓ + Gr holds on the
// closed form, and ℓ̂′(θ) = θ/r inside by finite differences.
func TestSmoothingOracles(t *testing.T) {
	const r = 0.5
	closed := func(th float64) float64 {
		if math.Abs(th) <= r {
			return (th*th + r*r) / (2 * r)
		}
		return math.Abs(th)
	}
	for _, c := range [][2]float64{{0, 0.25}, {0.2, 0.29}, {0.5, 0.5}, {1, 1}} {
		if !(math.Abs(closed(c[0])-c[1]) <= 1e-12) {
			t.Errorf("ℓ̂(%v) = %v, spec %v", c[0], closed(c[0]), c[1])
		}
		b := noise.Ball{Dim: 1, Radius: r, Src: rng.New(uint64(7 + 10*c[0])).Get(rng.Smoothing)}
		y := make([]float64, 1)
		var s float64
		const draws = 200_000
		for range draws {
			b.Rand(y)
			s += math.Abs(c[0] + y[0])
		}
		if !(math.Abs(s/draws-c[1]) <= 4*0.3/math.Sqrt(draws)) {
			t.Errorf("Monte Carlo ℓ̂(%v) = %v, want %v", c[0], s/draws, c[1])
		}
	}
	for th := -2.0; th <= 2; th += 0.01 {
		if l := math.Abs(th); closed(th) < l-1e-15 || closed(th) > l+r+1e-15 {
			t.Fatalf("ℓ ≤ ℓ̂ ≤ ℓ + Gr fails at %v", th)
		}
		if math.Abs(th) < r-0.01 {
			if d := (closed(th+1e-6) - closed(th-1e-6)) / 2e-6; !(math.Abs(d-th/r) <= 1e-6) {
				t.Fatalf("ℓ̂′(%v) = %v, want θ/r = %v", th, d, th/r)
			}
		}
	}
}

// Spec target: one DP-SGD step at n = 1,000 users, m = 20, d = 2 ≤ 1 ms
// (20,000 smoothed gradients and one ORME query), at Theorem 4.1's τ
// (≈ 6 here: the users' gradients, norms ≤ 1, are all within it) and at
// τ = 0.5, where a wide band of pairs straddles τ and 2τ and most pairs
// must be tested one by one.
func BenchmarkDPSGDStep(b *testing.B) {
	data, _ := dataset.Generate(dataset.Spec{Kind: dataset.Gaussian, N: 1000, M: 20, D: 2, Spread: 0.5}, rng.New(1))
	s := Theorem41(1, 1e-5, 1, 2, 1000, 20, 2, 100)
	for _, tau := range []float64{s.Tau, 0.5} {
		b.Run(fmt.Sprintf("tau=%.2g", tau), func(b *testing.B) {
			p := DPSGDParams{Eps: 1, Delta: 1e-5, Loss: loss.Distance{}, Radius: 1, Steps: 100, Eta: 0.01, Smoothing: 0.05, Tau: tau}
			for b.Loop() {
				if _, _, err := DPSGD(context.Background(), p, data, rng.New(2), nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/100/1e6, "ms/step")
		})
	}
}

// pointDistance is ‖θ − z‖ behind another type, so DP-SGD takes its general
// loop instead of the fused one for loss.Distance.
type pointDistance struct{ loss.Distance }

// The fused distance loop gives the general loop's numbers exactly, with
// smoothing on.
func TestDistanceFastPathMatchesGeneral(t *testing.T) {
	data := gaussianUsers(t, 40, 6, 0.4, 9)
	p := DPSGDParams{Eps: 2, Delta: 1e-5, Loss: loss.Distance{}, Radius: 1, Steps: 30, Eta: 0.05, Smoothing: 0.3, Tau: 2, KeepValues: true, Mode: privacy.NonPrivate}
	fast, _, err := DPSGD(context.Background(), p, data, rng.New(4), nil)
	if err != nil {
		t.Fatal(err)
	}
	p.Loss = pointDistance{}
	slow, _, err := DPSGD(context.Background(), p, data, rng.New(4), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(fast.Theta, slow.Theta) || len(fast.Steps) != 30 {
		t.Errorf("fused %v, general %v", fast.Theta, slow.Theta)
	}
	for st := range fast.Steps {
		if fast.Steps[st].Values.Len() != slow.Steps[st].Values.Len() || fast.Steps[st].Values.Len() == 0 {
			t.Fatalf("step %d: %d vs %d users' values kept", st+1, fast.Steps[st].Values.Len(), slow.Steps[st].Values.Len())
		}
		for i := range fast.Steps[st].Values.Len() {
			if !slices.Equal(fast.Steps[st].Values.At(i), slow.Steps[st].Values.At(i)) {
				t.Fatalf("step %d user %d: %v vs %v", st+1, i+1, fast.Steps[st].Values.At(i), slow.Steps[st].Values.At(i))
			}
		}
	}
}

// The baselines' σ by hand (zCDP: ρ per step Δ²/(2σ²), T steps at
// ρ(ε, δ)), their item/user ratio m, and a run that shares DP-SGD's
// smoothing draws: without noise all three walk the same path.
func TestBaselines(t *testing.T) {
	rho := privacy.RhoFor(1, 1e-5)
	item, _ := BaselineSigma(BaselineItem, 1, 1e-5, 1, 100, 10, 50)
	user, _ := BaselineSigma(BaselineUser, 1, 1e-5, 1, 100, 10, 50)
	if want := 2.0 / 100 * math.Sqrt(50/(2*rho)); !(math.Abs(user-want) <= 1e-12*want) || !(math.Abs(user/item-10) <= 1e-12) {
		t.Errorf("σ_user = %v (want %v), σ_user/σ_item = %v (want m = 10)", user, want, user/item)
	}
	if _, err := BaselineSigma("magic", 1, 1e-5, 1, 100, 10, 50); err == nil {
		t.Error("unknown baseline accepted")
	}
	data := gaussianUsers(t, 30, 4, 0.5, 3)
	p := DPSGDParams{Eps: 1, Delta: 1e-5, Loss: loss.Distance{}, Radius: 1, Steps: 40, Eta: 0.05, Smoothing: 0.2, Tau: 1e6, Mode: privacy.NonPrivate}
	ref, _, err := DPSGD(context.Background(), p, data, rng.New(8), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{BaselineItem, BaselineUser} {
		got, _, err := BaselineDPSGD(context.Background(), kind, 1, p, data, rng.New(8), nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := range ref.Iterates {
			if d := loss.Dist(got.Iterates[i], ref.Iterates[i]); d > 1e-12 {
				t.Fatalf("%s, iterate %d: %v vs DP-SGD's %v", kind, i+1, got.Iterates[i], ref.Iterates[i])
			}
		}
	}
	q := p
	q.Mode = privacy.Paper
	got, _, err := BaselineDPSGD(context.Background(), BaselineItem, 1, q, data, rng.New(8), nil)
	if err != nil || got.ORME.Sigma <= 0 || got.Guarantee.Certified() {
		t.Errorf("private item-level run: σ = %v, guarantee %v, %v", got.ORME.Sigma, got.Guarantee, err)
	}
	// DP-SGD claims the run's (ε, δ), not ORME's δ/(2Tmnd).
	if res, _, err := DPSGD(context.Background(), q, data, rng.New(8), nil); err != nil || res.Guarantee.Eps != 1 || res.Guarantee.Delta != 1e-5 || !strings.HasPrefix(res.Guarantee.Note, "Paper B Thm 4.1") {
		t.Errorf("private DP-SGD guarantee %+v, %v", res.Guarantee, err)
	}
}

// Spec §B-6 oracles: k = ⌈log₂ log₂(mn)⌉ halving groups, disjoint and in
// order; R̂₁ = 2G/μ; D_{i+1}/(16E_{i+1}) = √(D_i/(16E_i)); E_i/E_{i+1} ≤ 4.
func TestDPSGDSCPlan(t *testing.T) {
	p := DPSGDSCParams{Eps: 1, Delta: 1e-5, Mu: 1, Radius: 1, RX: 2}
	plan := p.Plan(1000, 10, 2)
	if len(plan) != 4 {
		t.Fatalf("k = %d, want ⌈log₂ log₂ 10⁴⌉ = 4", len(plan))
	}
	for i, want := range []int{62, 125, 250, 500} {
		if plan[i].Users != want {
			t.Errorf("phase %d: %d users, want %d", i+1, plan[i].Users, want)
		}
	}
	// Each phase's E_i, D_i and R̂_i, from the formulas in Plan's comment
	// (erratum A23's D_i) evaluated to 30 digits apart from this code: G =
	// μ(R + R_X) = 3, C = 3, E_0 at n/2^{k+1} = 31.25 users.
	for i, want := range []struct{ e, d, rhat float64 }{
		{6.3770473660570084, 22.856792261090926, 6.0},
		{1.8099146616018538, 13.706163515001259, 6.7611821837739184},
		{0.54557002143363346, 6.0053648104311998, 5.2356782779313817},
		{0.17611441120911606, 2.3372186050584895, 3.4656499564818141},
	} {
		ph := plan[i]
		if !(math.Abs(ph.E-want.e) <= 1e-12*want.e && math.Abs(ph.D-want.d) <= 1e-12*want.d && math.Abs(ph.RHat-want.rhat) <= 1e-12*want.rhat) {
			t.Errorf("phase %d: E = %v, D = %v, R̂ = %v; want %v, %v, %v", i+1, ph.E, ph.D, ph.RHat, want.e, want.d, want.rhat)
		}
	}
	// The same at ε = 4 and μ = 2 (G = 6), where ·ε and /ε, ·μ and /μ
	// differ.
	q := DPSGDSCParams{Eps: 4, Delta: 1e-5, Mu: 2, Radius: 1, RX: 2}
	for i, want := range []struct{ e, d, rhat float64 }{
		{1.7769696304345454, 19.575580927718904, 6.0},
		{0.71223933270023173, 9.4559087285865349, 4.424430011619452},
		{0.31119625267920418, 4.5355818541992233, 3.0750461343834396},
		{0.14351430140113951, 2.1915657156122501, 2.1296905536249212},
	} {
		ph := q.Plan(1000, 10, 2)[i]
		if !(math.Abs(ph.E-want.e) <= 1e-12*want.e && math.Abs(ph.D-want.d) <= 1e-12*want.d && math.Abs(ph.RHat-want.rhat) <= 1e-12*want.rhat) {
			t.Errorf("ε = 4, μ = 2, phase %d: E = %v, D = %v, R̂ = %v; want %v, %v, %v", i+1, ph.E, ph.D, ph.RHat, want.e, want.d, want.rhat)
		}
	}
	if g := p.G(); !(math.Abs(plan[0].RHat-2*g/p.Mu) <= 1e-12) {
		t.Errorf("R̂₁ = %v, want 2G/μ = %v", plan[0].RHat, 2*g/p.Mu)
	}
	for i := 0; i+1 < len(plan); i++ {
		a, b := plan[i].D/(16*plan[i].E), plan[i+1].D/(16*plan[i+1].E)
		if !(math.Abs(b-math.Sqrt(a)) <= 1e-12*b) {
			t.Errorf("phases %d→%d: D/16E %v → %v, want the square root", i+1, i+2, a, b)
		}
		if r := plan[i].E / plan[i+1].E; r > 4+1e-12 {
			t.Errorf("E_%d/E_%d = %v > 4", i+1, i+2, r)
		}
		if !(math.Abs(plan[i+1].RHat-math.Sqrt(2*plan[i].D/p.Mu)) <= 1e-12*plan[i+1].RHat) {
			t.Errorf("R̂_%d is not √(2D_%d/μ)", i+2, i+1)
		}
	}
}

// Without noise the phases contract toward θ* on a quadratic: each phase
// ends closer to the sample mean than it started, on its own users.
func TestDPSGDSCNonPrivateContracts(t *testing.T) {
	data := gaussianUsers(t, 64, 4, 0.3, 12)
	p := DPSGDSCParams{Eps: 1, Delta: 1e-5, Mu: 1, Radius: 1, RX: 3, Theta0: []float64{-0.8, 0.5}, Mode: privacy.NonPrivate, Steps: 2000}
	res, tr, err := DPSGDSC(context.Background(), p, data, rng.New(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	var mean [2]float64
	for _, u := range data.Means() {
		mean[0] += u[0] / 64
		mean[1] += u[1] / 64
	}
	dist := func(x []float64) float64 { return loss.Dist(x, mean[:]) }
	for _, ph := range res.Phases {
		if !(dist(ph.Theta) < dist(ph.Start)) {
			t.Errorf("phase %d: %v → %v from θ*", ph.I, dist(ph.Start), dist(ph.Theta))
		}
	}
	if dist(res.Theta) > 0.15 || len(tr.Steps) != len(res.Phases) {
		t.Errorf("θ̂ %v is %v from θ* %v", res.Theta, dist(res.Theta), mean)
	}
	if _, _, err := DPSGDSC(context.Background(), DPSGDSCParams{Eps: 1, Delta: 1e-5, Mu: 1, Radius: 1, RX: 3, C: 1.5}, data, rng.New(1), nil); err == nil {
		t.Error("C ≤ 2 accepted")
	}
	// A start of another dimension than the data's is refused, not cut or
	// padded with zeros.
	for _, theta0 := range [][]float64{{1}, {1, 0, 0}} {
		q := p
		q.Theta0 = theta0
		if _, _, err := DPSGDSC(context.Background(), q, data, rng.New(1), nil); err == nil || !strings.Contains(err.Error(), "theta0 has") {
			t.Errorf("θ₀ = %v on 2-D data: %v", theta0, err)
		}
	}
}

// DP-SGD-SC at its edges: each phase's T is the theorem's m²n_i² +
// m·n_i·√d unless Steps caps it lower; phase 1 starts at θ₀; the groups
// are consecutive and disjoint (outside lists the rest); the guarantee is
// (ε, δ), or none without privacy; μ, R_X and C refused at their bounds;
// a first group of two users runs, of one is refused, saying how many
// users it takes.
func TestDPSGDSCEdges(t *testing.T) {
	data := gaussianUsers(t, 64, 4, 0.3, 12)
	p := DPSGDSCParams{Eps: 1, Delta: 1e-5, Mu: 1, Radius: 1, RX: 3, Theta0: []float64{-0.3, 0.2}, Mode: privacy.NonPrivate, Steps: 1050}
	res, _, err := DPSGDSC(context.Background(), p, data, rng.New(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	// k = ⌈log₂ log₂ 256⌉ = 3 phases of 8, 16 and 32 users: T_1 = 16·64 +
	// 32√2 = 1,069 (capped at 1,050), T_2 = 16·256 + 64√2 = 4,186 (capped).
	if len(res.Phases) != 3 || res.Phases[0].Settings.Steps != 1050 || res.Phases[1].Settings.Steps != 1050 ||
		!slices.Equal(res.Phases[0].Start, p.Theta0) || !math.IsInf(res.Guarantee.Eps, 1) {
		t.Errorf("phases %d, T_1 %d, T_2 %d, start %v, guarantee ε %v", len(res.Phases), res.Phases[0].Settings.Steps, res.Phases[1].Settings.Steps, res.Phases[0].Start, res.Guarantee.Eps)
	}
	p.Steps = 1069
	if res, _, _ := DPSGDSC(context.Background(), p, data, rng.New(1), nil); res.Phases[0].Settings.Steps != 1069 {
		t.Errorf("T_1 = %d at a cap of exactly 1,069, want 1,069", res.Phases[0].Settings.Steps)
	}
	p.Steps = 1100
	if res, _, _ := DPSGDSC(context.Background(), p, data, rng.New(1), nil); res.Phases[0].Settings.Steps != 1069 {
		t.Errorf("T_1 = %d under a cap of 1,100, want the theorem's 1,069", res.Phases[0].Settings.Steps)
	}
	p.Mode, p.Steps = privacy.Sound, 20
	if res, _, err := DPSGDSC(context.Background(), p, data, rng.New(1), nil); err != nil || res.Guarantee.Eps != 1 || res.Guarantee.Delta != 1e-5 {
		t.Errorf("private guarantee %+v, %v", res.Guarantee, err)
	}
	for _, c := range []struct {
		want  []int
		n, lo int
		hi    int
	}{{[]int{0, 3, 4}, 5, 1, 3}, {[]int{}, 3, 0, 3}, {[]int{0, 1, 2}, 3, 3, 3}, {[]int{1, 2}, 3, 0, 1}} {
		if got := outside(c.n, c.lo, c.hi); !slices.Equal(got, c.want) || cap(got) != len(c.want) {
			t.Errorf("outside(%d, %d, %d) = %v (cap %d), want %v", c.n, c.lo, c.hi, got, cap(got), c.want)
		}
	}
	q := DPSGDSCParams{Eps: 1, Delta: 1e-5, Mu: 1, Radius: 1, RX: 3, Mode: privacy.NonPrivate, Steps: 5}
	for name, change := range map[string]func(*DPSGDSCParams){
		"μ = 0":       func(p *DPSGDSCParams) { p.Mu = 0 },
		"R_X = 0":     func(p *DPSGDSCParams) { p.RX = 0 },
		"μ = ∞":       func(p *DPSGDSCParams) { p.Mu = math.Inf(1) },
		"μ = R_X = ∞": func(p *DPSGDSCParams) { p.Mu, p.RX = math.Inf(1), math.Inf(1) },
		"C = 2":       func(p *DPSGDSCParams) { p.C = 2 },
	} {
		bad := q
		change(&bad)
		want := "needs μ > 0 and a data radius R_X > 0"
		if name == "C = 2" {
			want = "must exceed 2"
		}
		if _, _, err := DPSGDSC(context.Background(), bad, data, rng.New(1), nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want a refusal saying it %s", name, err, want)
		}
	}
	q.C = 2.001
	if _, _, err := DPSGDSC(context.Background(), q, data, rng.New(1), nil); err != nil {
		t.Errorf("C = 2.001: %v", err)
	}
	// 16 users of 4 items: k = ⌈log₂ log₂ 64⌉ = 3 phases, the first of
	// 16 >> 3 = 2 users, the fewest DP-SGD compares; 15 leave it one.
	if _, _, err := DPSGDSC(context.Background(), q, gaussianUsers(t, 16, 4, 0.3, 1), rng.New(1), nil); err != nil {
		t.Errorf("16 users: %v", err)
	}
	if _, _, err := DPSGDSC(context.Background(), q, gaussianUsers(t, 15, 4, 0.3, 1), rng.New(1), nil); err == nil || !strings.Contains(err.Error(), "bring 16 users or more") {
		t.Errorf("15 users: %v, want a refusal asking for 16", err)
	}
	// Where more users mean more phases, the count asked for is one that
	// runs: 15 users of 17 items make k = 3, but 16 would make k = 4 and a
	// first group of one again; 32 (k = 4, a first group of 2) run.
	if got := scUsersNeeded(15, 17); got != 32 {
		t.Errorf("users needed at m = 17: %d, want 32", got)
	}
	// Everywhere a first group is short, the count is the fewest that
	// run, found by trying each.
	for m := 1; m < 60; m++ {
		for n := 2; n < 200; n++ {
			if n>>scPhases(m*n) >= 2 {
				continue
			}
			least := n + 1
			for least>>scPhases(m*least) < 2 {
				least++
			}
			if got := scUsersNeeded(n, m); got != least {
				t.Fatalf("n = %d, m = %d: %d users asked for, %d run", n, m, got, least)
			}
		}
	}
}

// Small formulas at values that tell their operations apart (at μ = 1 or
// G = 1, ·μ and /μ agree): AC-SA's restart ⌈4√(2L/μ)⌉, the baseline's
// σ ∝ 2G/n, an enum's name out of range, and the start on the domain's
// edge (inside) and just past it.
func TestSmallFormulasAwayFromOne(t *testing.T) {
	if got := ACSAStage(9, 2); got != 12 {
		t.Errorf("ACSAStage(9, 2) = %d, want ⌈4·3⌉ = 12", got)
	}
	rho := privacy.RhoFor(1, 1e-5)
	if got, _ := BaselineSigma(BaselineUser, 1, 1e-5, 1.5, 40, 10, 50); !(math.Abs(got-3.0/40*math.Sqrt(50/(2*rho))) <= 1e-12*got) {
		t.Errorf("σ at G = 1.5, n = 40: %v", got)
	}
	if got := enumName([]string{"a", "b"}, 2); got != "2" {
		t.Errorf("enumName past the end: %q", got)
	}
	for i, want := range []string{"a", "b"} {
		if got := enumName([]string{"a", "b"}, i); got != want {
			t.Errorf("enumName(%d): %q, want %q", i, got, want)
		}
	}
	var edge, past checks
	edge.startInBall([]float64{0.6, 0.8}, 2, 1)
	past.startInBall([]float64{0.6, 0.8000001}, 2, 1)
	if len(edge) != 0 || len(past) != 1 {
		t.Errorf("a start on the unit circle: %v; just past it: %v", edge, past)
	}
}

// Recorded, a run keeps each phase's DP-SGD run and traces its steps
// before the phase's own step; the same seed without Record gives the same
// answer. Unsmoothed zeroes r and nothing else.
func TestDPSGDSCRecordsPhases(t *testing.T) {
	data := gaussianUsers(t, 64, 4, 0.3, 12)
	p := DPSGDSCParams{Eps: 8, Delta: 1e-5, Mu: 1, Radius: 1, RX: 3, Mode: privacy.NonPrivate, Steps: 7}
	plain, _, err := DPSGDSC(context.Background(), p, data, rng.New(3), nil)
	if err != nil {
		t.Fatal(err)
	}
	p.Record, p.KeepValues = true, true
	var last float64
	res, tr, err := DPSGDSC(context.Background(), p, data, rng.New(3), func(done, total int64) {
		f := float64(done) / float64(total)
		if f < last || f > 1 {
			t.Fatalf("progress %v after %v: one bar for the whole run", f, last)
		}
		last = f
	})
	if err != nil {
		t.Fatal(err)
	}
	if last < 0.75 {
		t.Errorf("progress ends at %v", last)
	}
	if !slices.Equal(res.Theta, plain.Theta) {
		t.Errorf("recorded θ̂ %v, unrecorded %v", res.Theta, plain.Theta)
	}
	for _, mode := range []privacy.Mode{privacy.NonPrivate, privacy.Paper, privacy.Sound} {
		q := p
		q.Mode = mode
		run, _, err := DPSGDSC(context.Background(), q, data, rng.New(3), nil)
		if err != nil {
			t.Fatal(err)
		}
		if g, err := q.Promise(64, 4, 2); err != nil || !reflect.DeepEqual(g, run.Guarantee) {
			t.Errorf("%v: promised before the run %+v (%v), the run's %+v", mode, g, err, run.Guarantee)
		}
	}
	if _, err := p.Promise(15, 4, 2); err == nil || !strings.Contains(err.Error(), "bring 16 users or more") {
		t.Errorf("15 users: %v", err)
	}
	// Each phase's preconditions are named by its 1-based number, in
	// order: the first phase's come first.
	q := p
	q.Mode = privacy.Paper
	g, err := q.Promise(64, 4, 2)
	if err != nil || len(g.Preconditions) < 2 {
		t.Fatalf("paper mode's promise: %+v, %v", g, err)
	}
	first, final := g.Preconditions[0].What, g.Preconditions[len(g.Preconditions)-1].What
	if !strings.HasPrefix(first, "phase 1: ") || !strings.HasPrefix(final, fmt.Sprintf("phase %d: ", len(res.Phases))) {
		t.Errorf("the preconditions run from %q to %q over %d phases", first, final, len(res.Phases))
	}
	var kinds []trace.Kind
	for _, st := range tr.Steps {
		if st.Kind == KindSGDStep || st.Kind == KindSCPhase {
			kinds = append(kinds, st.Kind)
		}
	}
	var want []trace.Kind
	for i, ph := range res.Phases {
		if len(ph.Run.Iterates) != ph.Settings.Steps || len(ph.Run.Steps) != ph.Settings.Steps || ph.Run.Steps[0].Values.Len() != ph.Users {
			t.Errorf("phase %d kept %d iterates, %d steps of %d users; it ran %d steps on %d", i+1, len(ph.Run.Iterates), len(ph.Run.Steps), ph.Run.Steps[0].Values.Len(), ph.Settings.Steps, ph.Users)
		}
		for range ph.Settings.Steps {
			want = append(want, KindSGDStep)
		}
		want = append(want, KindSCPhase)
	}
	if !slices.Equal(kinds, want) {
		t.Errorf("trace %v, want %v", kinds, want)
	}
	p.Unsmoothed = true
	flat, _, err := DPSGDSC(context.Background(), p, data, rng.New(3), nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, ph := range flat.Phases {
		was := res.Phases[i].Settings
		was.Smoothing = 0
		if ph.Settings != was || res.Phases[i].Settings.Smoothing == 0 {
			t.Errorf("phase %d unsmoothed: %+v, smoothed %+v", i+1, ph.Settings, res.Phases[i].Settings)
		}
	}
}
