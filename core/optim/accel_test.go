package optim

import (
	"context"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/loss"
	"github.com/uldplab/uldp/core/mech"
	"github.com/uldplab/uldp/core/noise"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
)

// OR-B-04 for the accelerated variant: spec 001-004 §3.13's second table
// (n = 10⁶, m = 16, d = 2, ε = 1, δ = 10⁻⁷, β = 1, q = 0.5,
// p = 3q + 2.5 + log_n √m, c_τ = 1, diameter 1) to its printed figures:
// τ = 4.320, λ = 2.504·10⁻⁴, and phases 1–5's λ_i, T_i, K_i and σ_i;
// every K_i is far above n_i, so the run caps it.
func TestAccelScheduleGolden(t *testing.T) {
	n, m, d := 1_000_000, 16, 2
	p := AccelParams{Eps: 1, Delta: 1e-7, Loss: loss.Squared{Mu: 1}, Lipschitz: 1, Radius: 0.5, QExp: 0.5,
		PExp: 1.5 + 2.5 + math.Log(4)/math.Log(1e6)}
	if tau := p.Tau(n, m, d); !(math.Abs(tau-4.320) <= 5e-4) {
		t.Errorf("τ = %v, want 4.320", tau)
	}
	if lam := p.BaseLambda(n, m, d); !(math.Abs(lam-2.504e-4) <= 5e-8) {
		t.Errorf("λ = %v, want 2.504e-4", lam)
	}
	want := []struct {
		ni      int
		lambda  float64
		steps   int
		printed float64
		sigma   float64
	}{
		{207106, 4.294e-3, 281, 72565746, 11.06},
		{146446, 7.366e-2, 81, 94158734, 8.397},
		{103553, 1.263, 33, 102752318, 7.580},
		{73223, 21.67, 21, 89703054, 8.551},
		{51776, 371.7, 19, 65663925, 11.50},
	}
	rows := p.Schedule(n, m, d)
	for i, w := range want {
		r := rows[i]
		rel := func(got, want float64) bool { return math.Abs(got-want) <= 5e-4*want }
		if r.Users != w.ni || !rel(r.Lambda, w.lambda) || r.Steps != w.steps || !(math.Abs(r.Printed-w.printed) <= 1e-6*w.printed) || !rel(r.Sigma, w.sigma) {
			t.Errorf("phase %d: %+v, want n_i %d, λ_i %.4g, T_i %d, K_i %.0f, σ_i %.4g", i+1, r, w.ni, w.lambda, w.steps, w.printed, w.sigma)
		}
		if !r.Capped || r.Batch != r.Users {
			t.Errorf("phase %d: K_i = %d (capped %v), want it capped at n_i = %d", i+1, r.Batch, r.Capped, r.Users)
		}
	}
	if g := p.Guarantee(n, m, d); g.Certified() {
		t.Error("a capped K_i, and σ's underived constant, must not be certified")
	}
}

// Non-private on tightly concentrated users the check is skipped, nobody
// is removed (every count is K), and the phases' AC-SA drives the output
// to the users' mean (the squared loss's minimiser) from a far start.
// Teaching mode at ε = 1000 (check noise Lap(0.008), Lap(0.016)) passes
// every step with the same data, and every minibatch is a subset (no
// repeated user) unless drawn with replacement.
func TestAccelConvergesOnConcentratedUsers(t *testing.T) {
	ds := gaussianUsers(t, 4000, 4, 0.05, 11)
	mean := make([]float64, 2)
	for _, u := range ds.Means() {
		mean[0] += u[0] / 4000
		mean[1] += u[1] / 4000
	}
	p := AccelParams{Eps: 1000, Delta: 1e-6, Loss: loss.Squared{Mu: 1}, Lipschitz: 2, Radius: 1, Lambda: 1e-3, PExp: 1, QExp: 0.5,
		Phases: 3, Batch: 40, TauScale: 0.3, Theta0: []float64{-0.5, 0.5}, Mode: privacy.NonPrivate}
	res, _, err := Accelerated(context.Background(), p, ds, rng.New(2), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, ph := range res.Phases {
		for _, st := range ph.Steps {
			if len(st.Kept) != 40 || !st.Passed {
				t.Fatalf("phase %d step %d: kept %d of 40, passed %v", ph.I, st.T, len(st.Kept), st.Passed)
			}
			if u := slices.Clone(st.Users); len(slices.Compact(slices.Sorted(slices.Values(u)))) != 40 {
				t.Fatalf("phase %d step %d: a minibatch repeats a user", ph.I, st.T)
			}
		}
	}
	if dist := loss.Dist(res.Output, mean); dist > 0.02 {
		t.Errorf("output %v is %.3g from the users' mean %v", res.Output, dist, mean)
	}
	var want int64
	for _, ph := range res.Phases {
		want += int64(len(ph.Steps) * 40 * 4)
	}
	if res.Gradients != want || AccelGradients(p.Schedule(4000, 4, 2), 4) != want {
		t.Errorf("%d gradient evaluations, the schedule says %d, want %d", res.Gradients, AccelGradients(p.Schedule(4000, 4, 2), 4), want)
	}
	p.Mode = privacy.Teaching
	res, _, err = Accelerated(context.Background(), p, ds, rng.New(2), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, ph := range res.Phases {
		if ph.Halted {
			t.Errorf("phase %d halted on concentrated users at ε = 1000", ph.I)
		}
	}
}

// A phase whose minibatches split into two camps farther apart than 2τ
// scores K/2 against 4K/5 and halts (E-B2's literal policy: the phase
// returns 0 and the next goes on); with AbortOnHalt the run stops there.
func TestAccelHaltsOnTwoCamps(t *testing.T) {
	ds := twoCamps400()
	p := AccelParams{Eps: 1000, Delta: 1e-6, Loss: loss.Squared{Mu: 1}, Lipschitz: 2, Radius: 1, Lambda: 0.1, PExp: 1, QExp: 0.5,
		Phases: 2, Batch: 10, TauScale: 0.05, Order: Given, Mode: privacy.Teaching}
	res, _, err := Accelerated(context.Background(), p, ds, rng.New(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Phases) != 2 {
		t.Fatalf("%d phases, want 2", len(res.Phases))
	}
	for _, ph := range res.Phases {
		st := ph.Steps[len(ph.Steps)-1]
		if !ph.Halted || len(ph.Steps) != 1 || st.Score != 5 || !slices.Equal(ph.Output, []float64{0, 0}) {
			t.Errorf("phase %d: halted %v after %d steps, score %v, output %v; want a halt at step 1 with score K/2 = 5 and output 0", ph.I, ph.Halted, len(ph.Steps), st.Score, ph.Output)
		}
	}
	p.AbortOnHalt = true
	if res, _, err = Accelerated(context.Background(), p, ds, rng.New(1), nil); err != nil || len(res.Phases) != 1 || res.Stop == "" {
		t.Errorf("abort on halt: %d phases, stop %q, err %v; want one phase and a reason", len(res.Phases), res.Stop, err)
	}
}

// OR-B-14 for the accelerated variant: on the two camps a phase's first
// check scores K/2 and halts with AboveThreshold's probability
// Pr[K/2 + Lap(16/ε) < 4K/5 + Lap(8/ε)], here 0.86 at ε = 8, K = 10.
// Over 4,000 seeds the frequency is within 0.043 of it but with
// probability below 10⁻⁶ (Hoeffding: 2·exp(−2·4000·0.043²)).
func TestAccelHaltProbabilityOnTwoCamps(t *testing.T) {
	ds := twoCamps400()
	p := AccelParams{Eps: 8, Delta: 1e-6, Loss: loss.Squared{Mu: 1}, Lipschitz: 2, Radius: 1, Lambda: 0.1, PExp: 1, QExp: 0.5,
		Phases: 1, Batch: 10, TauScale: 0.05, Order: Given, Mode: privacy.Teaching}
	want := mech.ATHaltDistribution(mech.ATParams{Eps: p.Eps / 2, Threshold: 8, Sens: 2, Mode: p.Mode}, []float64{5})[0]
	const runs = 4000
	halts := 0
	for seed := range uint64(runs) {
		res, _, err := Accelerated(context.Background(), p, ds, rng.New(seed), nil)
		if err != nil {
			t.Fatal(err)
		}
		ph := res.Phases[0]
		if ph.Steps[0].Score != 5 {
			t.Fatalf("seed %d: first score %v, want K/2 = 5", seed, ph.Steps[0].Score)
		}
		if !ph.Steps[0].Passed {
			halts++
		}
	}
	if got := float64(halts) / runs; !(math.Abs(got-want) <= 0.043) || want < 0.2 || want > 0.9 {
		t.Errorf("first check halted in %.4f of %d runs, want %.4f", got, runs, want)
	}
}

// twoCamps400 is 400 users of 2 items, alternately at (0.8, 0) and
// (−0.8, 0): in file order every minibatch of even size is split evenly.
func twoCamps400() *dataset.Dataset {
	pts := make([][]float64, 400)
	for i := range pts {
		pts[i] = []float64{0.8, 0}
		if i%2 == 1 {
			pts[i][0] = -0.8
		}
	}
	return usersAt(pts, 2)
}

// BenchmarkAccelStep is one accelerated step at K = 1,000 users of m = 10
// items in 2-D: 10,000 gradients, the score's pairs within 2τ, the check,
// the coins and the noise (one phase of T steps, per step).
func BenchmarkAccelStep(b *testing.B) {
	data := benchUsers(b, 4000, 10)
	p := AccelParams{Eps: 1, Delta: 1e-6, Loss: loss.Squared{Mu: 1}, Lipschitz: 2, Radius: 1, Lambda: 1, PExp: 1, QExp: 1,
		Phases: 1, Batch: 1000, Mode: privacy.Teaching}
	steps := p.Schedule(4000, 10, 2)[0].Steps
	for b.Loop() {
		if _, _, err := Accelerated(context.Background(), p, data, rng.New(1), nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*steps), "ns/step")
}

// The teaching override of σ_i's constant scales σ_i and nothing else;
// paper mode refuses it, as it refuses every override.
func TestAccelSigmaScale(t *testing.T) {
	p := AccelParams{Eps: 8, Delta: 1e-5, Loss: loss.Squared{Mu: 1}, Lipschitz: 2, Radius: 1, PExp: 4, QExp: 0.5, Mode: privacy.Teaching}
	printed := p.Schedule(1000, 3, 2)
	p.SigmaScale = 10
	scaled := p.Schedule(1000, 3, 2)
	for i, r := range scaled {
		want := printed[i]
		want.Sigma /= 100
		if !(math.Abs(r.Sigma-want.Sigma) <= 1e-12*want.Sigma) || r.Steps != want.Steps || r.Batch != want.Batch || r.Tau != want.Tau {
			t.Errorf("phase %d: %+v, want %+v", r.I, r, want)
		}
	}
	for _, bad := range []AccelParams{
		{Eps: 8, Delta: 1e-5, Loss: loss.Squared{Mu: 1}, Lipschitz: 2, Radius: 1, PExp: 4, QExp: 0.5, Mode: privacy.Paper, SigmaScale: 10},
		{Eps: 8, Delta: 1e-5, Loss: loss.Squared{Mu: 1}, Lipschitz: 2, Radius: 1, PExp: 4, QExp: 0.5, Mode: privacy.Teaching, SigmaScale: -1},
	} {
		if err := bad.Validate(1000, 2); err == nil || !strings.Contains(err.Error(), "sigma scale") {
			t.Errorf("%v with σ scale %v: %v", bad.Mode, bad.SigmaScale, err)
		}
	}
}

// A teaching K is not the printed one, capped or not, and the guarantee
// says so.
func TestAccelGuaranteeNamesATeachingBatch(t *testing.T) {
	p := AccelParams{Eps: 8, Delta: 1e-5, Loss: loss.Squared{Mu: 1}, Lipschitz: 2, Radius: 1, PExp: 4, QExp: 0.5, Mode: privacy.Teaching, Batch: 40}
	found := false
	for _, c := range p.Guarantee(1000, 3, 2).Preconditions {
		if strings.HasPrefix(c.What, "K_i is the printed one") {
			found = true
			if c.Met || !strings.Contains(c.What, "K = 40") {
				t.Errorf("teaching K = 40: %+v", c)
			}
		}
	}
	if !found {
		t.Error("the guarantee does not say whether K_i is the printed one")
	}
}

// Theorem 3.1's user requirement n^{1−q} > 100(ln(20nmd/δ) + ε)/(ε(1 −
// 2^{−q})), its two sides evaluated to 30 digits apart from this code, at
// two settings (the lesson's phase table prints them).
func TestAccelUserRequirement(t *testing.T) {
	for _, c := range []struct {
		n          int
		eps, q     float64
		have, need float64
	}{
		{1000, 8, 0.5, 31.622776601683793, 1331.8920720135938},
		{5000, 2, 0.25, 594.60355750136053, 8427.7203565002059},
	} {
		p := AccelParams{Eps: c.eps, Delta: 1e-5, Loss: loss.Squared{Mu: 1}, Lipschitz: 2, Radius: 1, PExp: 4, QExp: c.q, Mode: privacy.Paper}
		found := false
		for _, pre := range p.Guarantee(c.n, 3, 2).Preconditions {
			if !strings.HasPrefix(pre.What, "enough users (Theorem 3.1): n^{1−q} > ") {
				continue
			}
			found = true
			if !(math.Abs(pre.Have-c.have) <= 1e-12*c.have) || !(math.Abs(pre.Need-c.need) <= 1e-12*c.need) || pre.Op != privacy.Above || pre.Met {
				t.Errorf("n = %d, ε = %v, q = %v: %+v; want %v > %v, unmet", c.n, c.eps, c.q, pre, c.have, c.need)
			}
		}
		if !found {
			t.Errorf("n = %d: no n^{1−q} precondition", c.n)
		}
	}
}

// OR-B-16: with nobody removed, a step's kept mean g estimates ∇F at the
// query with E‖g − ∇F(x_q)‖² = d·s²/(K·m) when every item is drawn
// i.i.d. N(μ, s²I): for the squared loss g − ∇F(x_q) = μ − z̄, z̄ the
// mean of the step's K·m items. Each of 2,000 runs on fresh users gives
// its first step, so (K·m/s²)·‖g − ∇F‖² summed over them is χ² with 4,000
// degrees of freedom; its mean leaves [0.85, 1.15]·d with probability
// below exp(−2000·(0.15 − ln 1.15)) + exp(−2000·(ln(1/0.85) − 0.15)) <
// 2·10⁻⁹ by Chernoff's bound, for each (K, m). The three pairs show the
// 1/K and the 1/m.
func TestAccelMinibatchVarianceScalesAsOneOverKm(t *testing.T) {
	const runs, s = 2000, 0.1
	mu := []float64{0.3, -0.1}
	for _, km := range [][2]int{{10, 2}, {40, 2}, {10, 8}} {
		k, m := km[0], km[1]
		n := 5 * k // phase 1 takes ⌊0.207·n⌋ ≥ K users
		p := AccelParams{Eps: 1, Delta: 1e-6, Loss: loss.Squared{Mu: 1}, Lipschitz: 2, Radius: 1, Lambda: 1, PExp: 1, QExp: 0.5,
			Phases: 1, Batch: k, TauScale: 100, Theta0: []float64{-0.5, 0.5}, Mode: privacy.NonPrivate}
		var sum float64
		for run := range runs {
			src := rng.New(uint64(1_000_000*k + 10_000*m + run)).Get(rng.Data) // disjoint across (K, m)
			ds := &dataset.Dataset{Dim: 2, Users: make([]dataset.User, n)}
			for u := range ds.Users {
				pts := make([]float64, 2*m)
				for j := range pts {
					pts[j] = mu[j%2] + s*src.NormFloat64()
				}
				ds.Users[u] = dataset.User{ID: strconv.Itoa(u + 1), Points: pts}
			}
			res, _, err := Accelerated(context.Background(), p, ds, rng.New(uint64(run)), nil)
			if err != nil {
				t.Fatal(err)
			}
			st := res.Phases[0].Steps[0]
			if len(st.Kept) != k {
				t.Fatalf("K = %d, m = %d, run %d: kept %d of %d", k, m, run, len(st.Kept), k)
			}
			for c := range 2 {
				e := st.Mean[c] - (st.Query[c] - mu[c])
				sum += e * e
			}
		}
		got := sum / runs * float64(k*m) / (s * s)
		if got < 0.85*2 || got > 1.15*2 {
			t.Errorf("K = %d, m = %d: E‖g − ∇F‖²·Km/s² = %.4g, want d = 2", k, m, got)
		}
		t.Logf("K = %d, m = %d: E‖g − ∇F‖²·Km/s² = %.4g (d = 2)", k, m, got)
	}
}

// The accelerated variant's schedule at ε = 8 (TestAccelScheduleGolden's ε = 1
// cannot tell n_i·ε from n_i/ε) as Schedule's comment prints it,
// evaluated to 30 digits apart from this code for ε = 8, δ = 10⁻⁵, L = 2,
// R = 1, p = 4, q = 0.5, the squared loss (β = 1), n = 1000, m = 3, d = 2:
// ⌊log₂ 1000⌋ = 9 phases, τ = 10.045…; every printed K_i exceeds its
// phase's users (capped). A teaching K of exactly a phase's n_i is not
// capped there; one more is.
func TestAccelScheduleAtEps8(t *testing.T) {
	p := AccelParams{Eps: 8, Delta: 1e-5, Loss: loss.Squared{Mu: 1}, Lipschitz: 2, Radius: 1, PExp: 4, QExp: 0.5, Mode: privacy.Paper}
	want := []AccelRow{
		{I: 1, Users: 207, Lambda: 0.29375169049794405, Steps: 25, Printed: 1582126, Batch: 207, Capped: true, Sigma: 822.36554158612442},
		{I: 2, Users: 146, Lambda: 4.7000270479671047, Steps: 13, Printed: 1514139, Batch: 146, Capped: true, Sigma: 840.78327858115266},
		{I: 3, Users: 103, Lambda: 75.200432767473676, Steps: 10, Printed: 1191480, Batch: 103, Capped: true, Sigma: 1045.2688803777958},
		{I: 9, Users: 12, Lambda: 1261653903.8333836, Steps: 9, Printed: 127477, Batch: 12, Capped: true, Sigma: 8511.4833554163878},
	}
	const tau = 10.045334363396548
	near := func(got, want float64) bool { return math.Abs(got-want) <= 1e-12*math.Abs(want) }
	rows := p.Schedule(1000, 3, 2)
	if len(rows) != 9 {
		t.Fatalf("%d phases, want 9", len(rows))
	}
	for _, w := range want {
		r := rows[w.I-1]
		if r.I != w.I || r.Users != w.Users || r.Steps != w.Steps || r.Printed != w.Printed || r.Batch != w.Batch || r.Capped != w.Capped ||
			!near(r.Lambda, w.Lambda) || !near(r.Sigma, w.Sigma) || !near(r.Tau, tau) {
			t.Errorf("phase %d: %+v, want %+v (τ = %v)", w.I, r, w, tau)
		}
	}
	p.Mode, p.Batch = privacy.Teaching, 146
	if r := p.Schedule(1000, 3, 2); r[0].Batch != 146 || r[0].Capped || r[1].Batch != 146 || r[1].Capped || r[2].Batch != 103 || !r[2].Capped {
		t.Errorf("K = 146: phases 1–3 %+v", r[:3])
	}
	p.Batch = 147
	if r := p.Schedule(1000, 3, 2); r[1].Batch != 146 || !r[1].Capped {
		t.Errorf("K = 147 on 146 users: %+v", r[1])
	}
	p.Mode = privacy.NonPrivate
	if r := p.Schedule(1000, 3, 2); r[0].Sigma != 0 {
		t.Errorf("non-private σ_1 = %v", r[0].Sigma)
	}
}

// Validate at its boundaries: overrides of 0 are the printed values, −1
// is refused; paper mode refuses every teaching override; 2 users are the
// fewest.
func TestAccelValidateBoundaries(t *testing.T) {
	base := AccelParams{Eps: 8, Delta: 1e-5, Loss: loss.Squared{Mu: 1}, Lipschitz: 2, Radius: 1, PExp: 4, QExp: 0.5, Mode: privacy.Teaching}
	if err := base.Validate(2, 2); err != nil {
		t.Fatalf("2 users, every override 0: %v", err)
	}
	if err := base.Validate(1, 2); err == nil {
		t.Error("1 user accepted")
	}
	paper := base
	paper.Mode = privacy.Paper
	if err := paper.Validate(2, 2); err != nil {
		t.Errorf("paper mode, every override 0: %v", err)
	}
	for name, change := range map[string]func(*AccelParams){
		"batch -1":  func(p *AccelParams) { p.Batch = -1 },
		"phases -1": func(p *AccelParams) { p.Phases = -1 },
	} {
		p := base
		change(&p)
		if err := p.Validate(100, 2); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
	for name, change := range map[string]func(*AccelParams){
		"batch 1":       func(p *AccelParams) { p.Batch = 1 },
		"phases 1":      func(p *AccelParams) { p.Phases = 1 },
		"tau 0.5":       func(p *AccelParams) { p.TauScale = 0.5 },
		"sigma scale 1": func(p *AccelParams) { p.SigmaScale = 1 },
	} {
		p := base
		change(&p)
		if err := p.Validate(100, 2); err != nil {
			t.Errorf("teaching %s: %v", name, err)
		}
		p.Mode = privacy.Paper
		if err := p.Validate(100, 2); err == nil || !strings.Contains(err.Error(), "paper mode uses the printed constants") {
			t.Errorf("paper %s: %v", name, err)
		}
	}
}

// concentrated40 is 40 users of 2 items each, all within 0.02 of (0.1,
// 0.05), each item its own.
func concentrated40() *dataset.Dataset {
	ids := dataset.NumberedIDs(40)
	ds := &dataset.Dataset{Dim: 2}
	for u := range 40 {
		user := dataset.User{ID: ids[u]}
		for j := range 2 {
			i := 2*u + j
			user.Points = append(user.Points, 0.1+0.0005*float64(i%9), 0.05-0.0004*float64(i%7))
		}
		ds.Users = append(ds.Users, user)
	}
	return ds
}

// One phase of the accelerated variant by hand, without noise: in file
// order step t takes the phase's users (t−1)K … tK−1 (cycling); each
// user's gradient is the mean of its m = 2 items' μ(x_q − z); all are kept
// (every pair within 2τ); G_t = their mean + λ_1(x_q − x_start), from the
// given start; progress counts every step once, up to the total.
func TestAccelStepsByHand(t *testing.T) {
	ds := concentrated40()
	p := AccelParams{Eps: 1, Delta: 1e-6, Loss: loss.Squared{Mu: 1.5}, Lipschitz: 2, Radius: 1, Lambda: 0.1, PExp: 1, QExp: 0.5,
		Phases: 1, Batch: 3, TauScale: 1, Order: Given, Mode: privacy.NonPrivate, Record: true, Theta0: []float64{0.3, -0.2}}
	var ticks []int64
	res, _, err := Accelerated(context.Background(), p, ds, rng.New(3), func(done, total int64) {
		if len(ticks) > 0 && done != ticks[len(ticks)-1]+1 || done > total {
			t.Errorf("progress %d of %d after %v", done, total, ticks)
		}
		ticks = append(ticks, done)
	})
	if err != nil {
		t.Fatal(err)
	}
	ph := res.Phases[0]
	if len(ph.Steps) < 3 || !slices.Equal(ph.Start, p.Theta0) || len(ph.Steps) != ph.Steps[len(ph.Steps)-1].T || int64(len(ticks)) != int64(ph.AccelRow.Steps) {
		t.Fatalf("phase 1 from %v, %d steps, %d progress calls of %d", ph.Start, len(ph.Steps), len(ticks), ph.AccelRow.Steps)
	}
	// K = 3 of the phase's 8 users: the steps' windows wrap unevenly.
	const k, mu = 3, 1.5
	// AC-SA on the regularised loss, μ-smooth plus λ_1: strongly convex
	// with λ_1, smooth with β + λ_1, restarted every stage.
	acsa := NewACSA(ph.Lambda, mu+ph.Lambda, loss.Ball{Centre: []float64{0, 0}, Radius: 1}, ACSAStage(mu+ph.Lambda, ph.Lambda), p.Theta0)
	for _, st := range ph.Steps {
		if q := acsa.Query(); !(math.Abs(q[0]-st.Query[0]) <= 1e-12) || !(math.Abs(q[1]-st.Query[1]) <= 1e-12) {
			t.Fatalf("step %d queries %v, want AC-SA's %v", st.T, st.Query, q)
		}
		acsa.Update(st.Gradient)
		var mean [2]float64
		for i, u := range st.Users {
			if want := ph.UserIdx[((st.T-1)*k+i)%len(ph.UserIdx)]; u != want {
				t.Fatalf("step %d: user %d is %d, want %d", st.T, i, u, want)
			}
			for c := range 2 {
				q := mu * (st.Query[c] - (ds.Item(u, 0)[c]+ds.Item(u, 1)[c])/2)
				if got := st.UserGradients.Flat[i*2+c]; !(math.Abs(got-q) <= 1e-12) {
					t.Errorf("step %d, user %d: q[%d] = %v, want %v", st.T, u, c, got, q)
				}
				mean[c] += q / k
			}
		}
		if len(st.Kept) != k {
			t.Errorf("step %d kept %v of %d concentrated users", st.T, st.Kept, k)
		}
		for c := range 2 {
			want := mean[c] + ph.Lambda*(st.Query[c]-ph.Start[c])
			if !(math.Abs(st.Mean[c]-mean[c]) <= 1e-12) || !(math.Abs(st.Gradient[c]-want) <= 1e-12) {
				t.Errorf("step %d: mean %v, G %v; want %v and %v", st.T, st.Mean, st.Gradient, mean, want)
			}
		}
	}
	if !slices.Equal(ph.Output, acsa.Ag) {
		t.Errorf("phase output %v, want AC-SA's x_ag %v", ph.Output, acsa.Ag)
	}
}

// With privacy, each step's G_t carries N(0, σ_i²I) beyond the kept mean
// and the regulariser: over the run's k coordinates, Σ noise²/σ² is χ²_k,
// and for k ≥ 30 it leaves [0.15k, 3.5k] with probability below
// (0.15e^0.85)^{k/2} + (3.5e^{−2.5})^{k/2} < 2·10⁻⁷ (Chernoff). A run
// whose noise were left out (or drawn as zeros) would give 0.
func TestAccelStepsCarryTheirNoise(t *testing.T) {
	ds := concentrated40()
	p := AccelParams{Eps: 1000, Delta: 1e-6, Loss: loss.Squared{Mu: 1.5}, Lipschitz: 2, Radius: 1, Lambda: 0.1, PExp: 1, QExp: 0.5,
		Phases: 1, Batch: 4, TauScale: 1, SigmaScale: 0.01, Order: Given, Mode: privacy.Teaching, Record: true}
	res, _, err := Accelerated(context.Background(), p, ds, rng.New(4), nil)
	if err != nil {
		t.Fatal(err)
	}
	ph := res.Phases[0]
	if ph.Halted || !(ph.Sigma > 0) {
		t.Fatalf("phase 1 halted %v, σ = %v", ph.Halted, ph.Sigma)
	}
	var chi2 float64
	k := 0
	for _, st := range ph.Steps {
		for c := range 2 {
			z := (st.Gradient[c] - st.Mean[c] - ph.Lambda*(st.Query[c]-ph.Start[c])) / ph.Sigma
			chi2 += z * z
			k++
		}
	}
	if k < 30 || !(chi2 >= 0.15*float64(k) && chi2 <= 3.5*float64(k)) {
		t.Errorf("Σ noise²/σ² = %v over %d coordinates, want within [0.15, 3.5]·k", chi2, k)
	}
	// The noise is added, not subtracted: the phase's Gaussian stream,
	// drawn again, gives each step's draw exactly.
	gauss := noise.Gaussian{Sigma: ph.Sigma, Src: rng.New(4).Scope("phase 1").Get(rng.Gauss)}
	g := make([]float64, 2)
	for _, st := range ph.Steps {
		gauss.RandVec(g)
		for c := range 2 {
			if want := st.Mean[c] + g[c] + ph.Lambda*(st.Query[c]-ph.Start[c]); !(math.Abs(st.Gradient[c]-want) <= 1e-9*math.Max(1, math.Abs(want))) {
				t.Fatalf("step %d: G[%d] = %v, want mean + draw + λ(x − x₀) = %v", st.T, c, st.Gradient[c], want)
			}
		}
	}
}

// The policies for an empty keep and an oversized batch, each both ways:
// on two camps with K = 10 every user's count is 5, kept with
// probability 0, so non-privately (no check to halt first) a halting run
// stops at its first step and a zero-gradient run goes on; concentrated
// users are all kept and no policy halts them. Paper mode's printed K_i
// exceeds the 8 users of concentrated40's first phase, which a refusing
// run refuses and a capping one runs.
func TestAccelEmptyAndOversizePolicies(t *testing.T) {
	camps := AccelParams{Eps: 1, Delta: 1e-6, Loss: loss.Squared{Mu: 1}, Lipschitz: 2, Radius: 1, Lambda: 0.1, PExp: 1, QExp: 0.5,
		Phases: 1, Batch: 10, TauScale: 0.05, Order: Given, Mode: privacy.NonPrivate, OnEmpty: EmptyHalt}
	res, _, err := Accelerated(context.Background(), camps, twoCamps400(), rng.New(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	if ph := res.Phases[0]; !ph.Halted || len(ph.Steps) != 1 || len(ph.Steps[0].Kept) != 0 {
		t.Errorf("halt on empty: halted %v after %d steps", ph.Halted, len(ph.Steps))
	}
	camps.OnEmpty = EmptyZero
	if res, _, err = Accelerated(context.Background(), camps, twoCamps400(), rng.New(1), nil); err != nil {
		t.Fatal(err)
	}
	if ph := res.Phases[0]; ph.Halted || len(ph.Steps) != ph.AccelRow.Steps || len(ph.Steps[0].Kept) != 0 {
		t.Errorf("g = 0 on empty: halted %v after %d of %d steps", ph.Halted, len(ph.Steps), ph.AccelRow.Steps)
	}
	tight := AccelParams{Eps: 1, Delta: 1e-6, Loss: loss.Squared{Mu: 1.5}, Lipschitz: 2, Radius: 1, Lambda: 0.1, PExp: 1, QExp: 0.5,
		Phases: 1, Batch: 3, TauScale: 1, Order: Given, Mode: privacy.NonPrivate, OnEmpty: EmptyHalt}
	if res, _, err = Accelerated(context.Background(), tight, concentrated40(), rng.New(1), nil); err != nil || res.Phases[0].Halted {
		t.Errorf("halt on empty, everybody kept: %v, halted %v", err, err == nil && res.Phases[0].Halted)
	}

	paper := AccelParams{Eps: 1, Delta: 1e-6, Loss: loss.Squared{Mu: 1.5}, Lipschitz: 2, Radius: 1, PExp: 1, QExp: 0.5, Mode: privacy.Paper}
	if rows := paper.Schedule(40, 2, 2); !rows[0].Capped {
		t.Fatalf("paper K_1 = %v for %d users: not capped", rows[0].Printed, rows[0].Users)
	}
	if _, _, err := Accelerated(context.Background(), paper, concentrated40(), rng.New(1), nil); err != nil {
		t.Errorf("capping an oversized K_i: %v", err)
	}
	paper.OnOversize = OversizeRefuse
	if _, _, err := Accelerated(context.Background(), paper, concentrated40(), rng.New(1), nil); err == nil || !strings.Contains(err.Error(), "K_i") {
		t.Errorf("refusing an oversized K_i: %v", err)
	}
	tight.OnOversize = OversizeRefuse
	if _, _, err := Accelerated(context.Background(), tight, concentrated40(), rng.New(1), nil); err != nil {
		t.Errorf("refusing policy, K = 3 of 8 users: %v", err)
	}
	// A teaching K that fits every phase is still not the printed one.
	one := AccelParams{Eps: 8, Delta: 1e-5, Loss: loss.Squared{Mu: 1}, Lipschitz: 2, Radius: 1, PExp: 4, QExp: 0.5, Mode: privacy.Teaching, Batch: 1}
	found := false
	for _, c := range one.Guarantee(1000, 3, 2).Preconditions {
		if strings.HasPrefix(c.What, "K_i is the printed one") {
			found = true
			if c.Met {
				t.Errorf("teaching K = 1: %+v", c)
			}
		}
	}
	if !found {
		t.Error("the guarantee does not say whether K_i is the printed one")
	}
}

// A phase of one user still runs; the schedule ends before the first
// phase of none: 8 users at q = 1 give n_1 = ⌊8/4⌋ = 2, n_2 = ⌊8/8⌋ = 1,
// n_3 = 0.
func TestAccelScheduleEndsBeforeAnEmptyPhase(t *testing.T) {
	p := AccelParams{Eps: 1, Delta: 1e-6, Loss: loss.Squared{Mu: 1}, Lipschitz: 2, Radius: 1, PExp: 1, QExp: 1, Mode: privacy.Teaching}
	rows := p.Schedule(8, 3, 2)
	if len(rows) != 2 || rows[0].Users != 2 || rows[1].Users != 1 {
		t.Errorf("schedule %+v, want phases of 2 and 1 users", rows)
	}
}

// Smoothing evaluates each item's gradient at x + y, y uniform in the
// ball of radius r: for the squared loss the gradient moves by μy, so
// each user's mean moves by at most μr, and by something.
func TestAccelSmoothingMovesTheGradients(t *testing.T) {
	ds := concentrated40()
	const mu, r = 1.5, 0.5
	p := AccelParams{Eps: 1, Delta: 1e-6, Loss: loss.Squared{Mu: mu}, Lipschitz: 2, Radius: 1, Lambda: 0.1, PExp: 1, QExp: 0.5,
		Phases: 1, Batch: 3, TauScale: 1, Order: Given, Mode: privacy.NonPrivate, Record: true, Smoothing: r}
	res, _, err := Accelerated(context.Background(), p, ds, rng.New(3), nil)
	if err != nil {
		t.Fatal(err)
	}
	// Smoothed, AC-SA's smoothness is β = L√d/r = 2√2/0.5 (plus λ_1).
	ph := res.Phases[0]
	beta := 2 * math.Sqrt2 / r
	acsa := NewACSA(ph.Lambda, beta+ph.Lambda, loss.Ball{Centre: []float64{0, 0}, Radius: 1}, ACSAStage(beta+ph.Lambda, ph.Lambda), []float64{0, 0})
	var moved float64
	for _, st := range ph.Steps {
		if q := acsa.Query(); !(math.Abs(q[0]-st.Query[0]) <= 1e-12) || !(math.Abs(q[1]-st.Query[1]) <= 1e-12) {
			t.Fatalf("step %d queries %v, want AC-SA's %v at β = L√d/r", st.T, st.Query, q)
		}
		acsa.Update(st.Gradient)
		for i, u := range st.Users {
			for c := range 2 {
				plain := mu * (st.Query[c] - (ds.Item(u, 0)[c]+ds.Item(u, 1)[c])/2)
				shift := math.Abs(st.UserGradients.Flat[i*2+c] - plain)
				if !(shift <= mu*r+1e-12) {
					t.Fatalf("step %d, user %d: gradient moved by %v > μr = %v", st.T, u, shift, mu*r)
				}
				moved = math.Max(moved, shift)
			}
		}
	}
	if !(moved > 0.01) {
		t.Errorf("smoothing moved no gradient by more than %v", moved)
	}
}
