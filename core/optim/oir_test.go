package optim

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/loss"
	"github.com/uldplab/uldp/core/mech"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/core/robust"
)

// usersAt is a dataset whose user i holds m copies of points[i].
func usersAt(points [][]float64, m int) *dataset.Dataset {
	ids := dataset.NumberedIDs(len(points))
	ds := &dataset.Dataset{Dim: len(points[0])}
	for i, pt := range points {
		u := dataset.User{ID: ids[i]}
		for range m {
			u.Points = append(u.Points, pt...)
		}
		ds.Users = append(ds.Users, u)
	}
	return ds
}

// OR-B-04: the schedule of spec 001-004 §3.13 (n = 10⁶, m = 16, d = 2,
// ε = 1, δ = 10⁻⁶, q = 0.5, p = 2.5, L = R = 1, η = R/(L√(dmnε))), to the
// table's four figures, and its gradient count 10,842,880 ≤ nm.
func TestOIRScheduleGolden(t *testing.T) {
	n, m, d := 1_000_000, 16, 2
	p := OIRParams{Eps: 1, Delta: 1e-6, Loss: loss.Squared{Mu: 1}, Lipschitz: 1, Radius: 1, PExp: 2.5, QExp: 0.5,
		Eta: 1 / math.Sqrt(float64(d*m*n))}
	if c := p.GroupCount(n, m); c != 3440 {
		t.Fatalf("C = %d, want 3440", c)
	}
	if l := p.PhaseCount(n); l != 19 {
		t.Errorf("l = %d, want ⌊log₂ 10⁶⌋ = 19", l)
	}
	want := []struct {
		ni, Ni          int
		eta, tau, sigma float64
	}{
		{207106, 60, 3.125e-5, 16.73, 371.4},
		{146446, 42, 5.524e-6, 2.475, 54.93},
		{103553, 30, 9.766e-7, 0.3697, 8.206},
		{73223, 21, 1.726e-7, 0.05469, 1.214},
		{51776, 15, 3.052e-8, 8.170e-3, 0.1813},
		{36611, 10, 5.395e-9, 1.179e-3, 0.02617},
		{25888, 7, 9.537e-10, 1.744e-4, 3.871e-3},
		{18305, 5, 1.686e-10, 2.606e-5, 5.783e-4},
		{12944, 3, 2.980e-11, 3.568e-6, 7.919e-5},
		{9152, 2, 5.268e-12, 5.150e-7, 1.143e-5},
		{6472, 1, 9.313e-13, 6.438e-8, 1.429e-6},
		{4576, 1, 1.646e-13, 1.138e-8, 2.526e-7},
	}
	rows := p.Schedule(n, m, d)
	if len(rows) != len(want) {
		t.Fatalf("%d phases, want %d (phase 13 has N = 0)", len(rows), len(want))
	}
	four := func(got, want float64) bool { return math.Abs(got-want) <= 5e-4*want }
	var grads, users int
	for i, w := range want {
		r := rows[i]
		if r.I != i+1 || r.Users != w.ni || r.PerGroup != w.Ni || r.Steps != w.Ni*m || !four(r.Eta, w.eta) || !four(r.Tau, w.tau) || !four(r.Sigma, w.sigma) {
			t.Errorf("phase %d: %+v, want n_i %d, N_i %d, η %.4g, τ %.4g, σ %.4g", i+1, r, w.ni, w.Ni, w.eta, w.tau, w.sigma)
		}
		grads += 3440 * r.Steps
		users += r.Users
	}
	if grads != 10_842_880 || grads > n*m {
		t.Errorf("gradient evaluations %d, want 10,842,880 ≤ nm", grads)
	}
	if float64(users) > float64(n)*math.Exp2(-0.5) {
		t.Errorf("Σ n_i = %d > n·2^{−q}", users)
	}
}

// B-SGD against the literal loop: x_{t+1} = Π(x_t − η∇f(x_t; z_t)),
// averaging x_1…x_T, with the projection onto the ball active.
func TestSGDPassIsTheLiteralLoop(t *testing.T) {
	items := [][]float64{{3, 0}, {0.5, 0.5}, {-2, 1}, {0.1, -0.3}}
	f := loss.Squared{Mu: 1}
	eta, r := 0.6, 1.0
	x := []float64{0.2, 0.1}
	var sum [2]float64
	var path [][]float64
	path = append(path, slices.Clone(x))
	for _, z := range items {
		// ∇(½‖x − z‖²) = x − z.
		y := []float64{x[0] - eta*(x[0]-z[0]), x[1] - eta*(x[1]-z[1])}
		if nrm := math.Hypot(y[0], y[1]); nrm > r {
			y[0], y[1] = y[0]*r/nrm, y[1]*r/nrm
		}
		x = y
		sum[0] += x[0] / 4
		sum[1] += x[1] / 4
		path = append(path, slices.Clone(x))
	}
	var got Vectors
	avg := SGDPass(f, items, eta, loss.Ball{Centre: []float64{0, 0}, Radius: r}, []float64{0.2, 0.1}, &got)
	if !(math.Abs(avg[0]-sum[0]) <= 1e-15) || !(math.Abs(avg[1]-sum[1]) <= 1e-15) {
		t.Errorf("average %v, want %v", avg, sum)
	}
	if got.Len() != 5 {
		t.Fatalf("path has %d points, want x₀…x₄", got.Len())
	}
	for i, want := range path {
		if !slices.Equal(got.At(i), want) {
			t.Errorf("x_%d = %v, want %v", i, got.At(i), want)
		}
	}
	if math.Hypot(path[1][0], path[1][1]) < r-1e-12 {
		t.Errorf("the first step should leave the ball and be projected: x₁ = %v", path[1])
	}
}

// --order given: a run a class can check by hand. 24 users of two items,
// q = 1, so phase 1 takes n_1 = ⌊½·24/2⌋ = 6 users — the first six in file
// order — in C = 3 groups of two consecutive users. Non-private: every
// group's end iterate is B-SGD over its users' items in file order, the
// iterates are close so every count is C and nothing is removed, and the
// output is their plain mean.
func TestOIRGivenOrderByHand(t *testing.T) {
	pts := make([][]float64, 24)
	for i := range pts {
		pts[i] = []float64{0.1 * float64(i%3), 0.05 * float64(i%2)}
	}
	ds := usersAt(pts, 2)
	ds.Users[0].Points = []float64{0.1, 0, 0.3, -0.1} // two different items
	p := OIRParams{Eps: 1, Delta: 1e-5, Loss: loss.Squared{Mu: 1}, Lipschitz: 2, Radius: 1, Eta: 0.5, PExp: 1, QExp: 1,
		Groups: 3, Phases: 1, TauScale: 10, Order: Given, Mode: privacy.NonPrivate, KeepPaths: true}
	res, _, err := OutlierIterateRemoval(context.Background(), p, ds, rng.New(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Phases) != 1 || res.Halted || res.Gradients != 12 {
		t.Fatalf("%d phases, halted %v, %d gradients; want 1 phase of 12 gradients", len(res.Phases), res.Halted, res.Gradients)
	}
	ph := res.Phases[0]
	if !slices.Equal(ph.UserIdx, []int{0, 1, 2, 3, 4, 5}) || len(ph.Groups) != 3 {
		t.Fatalf("users %v in groups %v, want the first six in three groups", ph.UserIdx, ph.Groups)
	}
	ball := loss.Ball{Centre: []float64{0, 0}, Radius: 1}
	mean := make([]float64, 2)
	for j, g := range ph.Groups {
		if !slices.Equal(g, []int{2 * j, 2*j + 1}) {
			t.Errorf("group %d = %v, want users %d and %d", j+1, g, 2*j, 2*j+1)
		}
		var items [][]float64
		for _, u := range g {
			items = append(items, ds.Item(u, 0), ds.Item(u, 1))
		}
		want := SGDPass(p.Loss, items, ph.Eta, ball, []float64{0, 0}, nil)
		if !slices.Equal(ph.Ends.At(j), want) {
			t.Errorf("group %d ends at %v, want %v", j+1, ph.Ends.At(j), want)
		}
		if ph.Paths[j].Len() != 5 {
			t.Errorf("group %d's path has %d points, want x₀…x₄", j+1, ph.Paths[j].Len())
		}
		mean[0] += want[0] / 3
		mean[1] += want[1] / 3
	}
	if ph.Eta != 0.25 || ph.Score != 3 || !slices.Equal(ph.Counts, []int{3, 3, 3}) || !slices.Equal(ph.Kept, []int{0, 1, 2}) || !ph.Passed {
		t.Errorf("η %v, score %v, counts %v, kept %v, passed %v; want 0.25, 3, all 3, all kept, passed", ph.Eta, ph.Score, ph.Counts, ph.Kept, ph.Passed)
	}
	for k := range mean {
		if !(math.Abs(res.Output[k]-mean[k]) <= 1e-15) {
			t.Errorf("output %v, want the plain mean %v", res.Output, mean)
		}
	}
}

// OR-B-01: the keep ramp for k = 12 and k = 10 (spec 001-004 §1.3), and
// its shape: 0 up to k/2, 1 from 2k/3, monotone and continuous between.
func TestOIRKeepRamp(t *testing.T) {
	for _, tc := range []struct {
		k    int
		want map[int]float64
	}{
		{12, map[int]float64{6: 0, 7: 0.5, 8: 1, 12: 1, 1: 0}},
		{10, map[int]float64{5: 0, 6: 0.6, 7: 1, 10: 1}},
	} {
		for h, w := range tc.want {
			if got := robust.Keep(h, tc.k); !(math.Abs(got-w) <= 1e-15) {
				t.Errorf("p_keep(%d; %d) = %v, want %v", h, tc.k, got, w)
			}
		}
	}
	for k := 2; k <= 60; k++ {
		prev := 0.0
		for h := 1; h <= k; h++ {
			v := robust.Keep(h, k)
			if v < prev || v < 0 || v > 1 || (2*h <= k && v != 0) || (3*h >= 2*k && v != 1) || v-prev > 6/float64(k)+1e-12 {
				t.Fatalf("k = %d: p_keep(%d) = %v after %v", k, h, v, prev)
			}
			prev = v
		}
	}
}

// randomEnds is C points: a cluster of radius spread around 0 and, with
// probability 0.4 each, outliers uniform in [−3, 3]².
func randomEnds(r *rand.Rand, c int, spread float64) [][]float64 {
	pts := make([][]float64, c)
	for j := range pts {
		if r.Float64() < 0.4 {
			pts[j] = []float64{6*r.Float64() - 3, 6*r.Float64() - 3}
		} else {
			pts[j] = []float64{spread * r.NormFloat64(), spread * r.NormFloat64()}
		}
	}
	return pts
}

// OR-B-02 and OR-B-03 over 3,000 random sets of C ∈ [3, 30] end iterates
// (clusters with uniform outliers) at τ = 1: any two iterates the ramp may
// keep lie within 4τ; replacing one iterate, anywhere or on top of
// another, moves the score by at most 2(C−1)/C and every other count by
// at most 1.
func TestOIRSurvivorsAndSensitivity(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	const tau = 1.0
	worst := 0.0
	for range 3000 {
		c := 3 + r.IntN(28)
		pts := randomEnds(r, c, 0.3+r.Float64())
		counts := robust.NewIndex(pts).CountsAt(tau, 2*tau)
		for a := range pts {
			for b := range a {
				if robust.Keep(counts[1][a], c) > 0 && robust.Keep(counts[1][b], c) > 0 {
					worst = math.Max(worst, loss.Dist(pts[a], pts[b]))
				}
			}
		}
		j := r.IntN(c)
		moved := slices.Clone(pts)
		if r.IntN(2) == 0 {
			moved[j] = []float64{6*r.Float64() - 3, 6*r.Float64() - 3}
		} else {
			moved[j] = pts[r.IntN(c)]
		}
		after := robust.NewIndex(moved).CountsAt(tau, 2*tau)
		if ds := math.Abs(robust.Score(after[0]) - robust.Score(counts[0])); ds > scoreSens(c)+1e-12 {
			t.Fatalf("C = %d: replacing iterate %d moved the score by %v > 2(C−1)/C", c, j, ds)
		}
		for k := range pts {
			if k != j && !(math.Abs(float64(after[1][k]-counts[1][k])) <= 1) {
				t.Fatalf("C = %d: replacing iterate %d moved iterate %d's count by %d", c, j, k, after[1][k]-counts[1][k])
			}
		}
	}
	if worst > 4*tau {
		t.Errorf("two keepable iterates lie %v apart, more than 4τ", worst)
	}
	t.Logf("widest pair the ramp may keep: %.3gτ", worst)
}

// twoCamps is 8·perGroup users of m items: with --order given and C = 8,
// groups 1–4 hold users at a and groups 5–8 users at −a, so the end
// iterates sit in two tight camps (identical within a camp).
func twoCamps(perGroup, m int, a float64) *dataset.Dataset {
	var pts [][]float64
	for j := range 8 {
		for range perGroup {
			if j < 4 {
				pts = append(pts, []float64{a, 0})
			} else {
				pts = append(pts, []float64{-a, 0})
			}
		}
	}
	// Phase 1 takes n_1 = ⌊n/4⌋ users (q = 1): pad to 4× with far users
	// the run never reaches.
	n := len(pts)
	for range 3 * n {
		pts = append(pts, []float64{9, 9})
	}
	return usersAt(pts, m)
}

// OR-B-14 and its mirror: two camps of C/2 iterates farther apart than
// 2τ score exactly s = C/2, so the gate passes with probability
// ½·exp(−(4C/5 − C/2)/(20/ε)); one camp (all iterates together) scores
// C and passes with probability 1 − ½·exp(−(C/5)/(20/ε)). Over 4,000
// seeds each the pass frequency lies within Hoeffding's
// √(ln(2/10⁻⁶)/(2·4000)) = 0.043 of that: the test fails by chance with
// probability below 2·10⁻⁶. A halted run outputs exactly 0 (OR-B-06).
func TestOIRGateProbabilities(t *testing.T) {
	const seeds = 4000
	base := OIRParams{Eps: 8, Delta: 1e-5, Loss: loss.Squared{Mu: 1}, Lipschitz: 2, Radius: 2, Eta: 0.5, PExp: 1, QExp: 1,
		Groups: 8, Phases: 1, TauScale: 0.01, Order: Given, Mode: privacy.Teaching}
	for _, tc := range []struct {
		name  string
		a     float64
		score float64
	}{{"two camps", 1, 4}, {"one camp", 0, 8}} {
		ds := twoCamps(2, 3, tc.a)
		want := 0.5 * math.Exp(-(gateLevel(8)-tc.score)/(20/base.Eps))
		if tc.score >= gateLevel(8) {
			want = 1 - 0.5*math.Exp(-(tc.score-gateLevel(8))/(20/base.Eps))
		}
		passed := 0
		for seed := range uint64(seeds) {
			res, _, err := OutlierIterateRemoval(context.Background(), base, ds, rng.New(seed), nil)
			if err != nil {
				t.Fatal(err)
			}
			ph := res.Phases[0]
			if ph.Score != tc.score || !(math.Abs(ph.PPass-want) <= 1e-12) {
				t.Fatalf("%s: score %v with pass chance %v, want %v and %v", tc.name, ph.Score, ph.PPass, tc.score, want)
			}
			if ph.Passed {
				passed++
				continue
			}
			if !res.Halted || !slices.Equal(res.Output, []float64{0, 0}) || ph.Kept != nil {
				t.Fatalf("%s, seed %d: a failed gate gave output %v, halted %v, kept %v; want exactly 0 and a halt", tc.name, seed, res.Output, res.Halted, ph.Kept)
			}
		}
		if f := float64(passed) / seeds; !(math.Abs(f-want) <= 0.043) {
			t.Errorf("%s: the gate passed %.3f of runs, want %.3f ± 0.043", tc.name, f, want)
		}
	}
}

// OR-B-05: one user's m items move a group's averaged iterate by at most
// 2ηLm (and never beyond the domain's diameter 2R), the worst case the
// outlier removal improves on. Squared loss on B(0, 1) with items in the
// ball: L = 2, β = 1, η ≤ 2/β.
func TestOIROneUserMovesAGroupByAtMost2EtaLm(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	ball := loss.Ball{Centre: []float64{0, 0}, Radius: 1}
	inBall := func() []float64 {
		for {
			z := []float64{2*r.Float64() - 1, 2*r.Float64() - 1}
			if math.Hypot(z[0], z[1]) <= 1 {
				return z
			}
		}
	}
	for range 500 {
		m, users := 1+r.IntN(6), 1+r.IntN(6)
		eta := 0.01 + 1.9*r.Float64()*r.Float64()
		items := make([][]float64, users*m)
		for i := range items {
			items[i] = inBall()
		}
		moved := slices.Clone(items)
		for _, at := range r.Perm(len(items))[:m] { // the user's items, wherever the order put them
			moved[at] = inBall()
		}
		a := SGDPass(loss.Squared{Mu: 1}, items, eta, ball, []float64{0, 0}, nil)
		b := SGDPass(loss.Squared{Mu: 1}, moved, eta, ball, []float64{0, 0}, nil)
		if dist := loss.Dist(a, b); dist > math.Min(2*eta*2*float64(m), 2)+1e-12 {
			t.Fatalf("m = %d, η = %v: one user's items moved the average by %v > min(2ηLm, 2R)", m, eta, dist)
		}
	}
}

// Phases hold disjoint users (parallel composition), and in coupled
// streams (OR-X-06) replacing a user of phase 3 leaves phases 1 and 2
// exactly as they were, while replacing a user no phase takes changes
// nothing at all.
func TestOIRPhasesAreDisjointAndCoupled(t *testing.T) {
	ds := gaussianUsers(t, 400, 3, 0.3, 7)
	// ε = 200 makes the gate's noise Lap(0.1): the phases pass (with this
	// seed) and the test can look past them.
	p := OIRParams{Eps: 200, Delta: 1e-5, Loss: loss.Squared{Mu: 1}, Lipschitz: 3, Radius: 2, Eta: 0.4, PExp: 0.5, QExp: 0.5,
		Groups: 4, Phases: 3, TauScale: 2, Mode: privacy.Teaching}
	run := func(ds *dataset.Dataset) OIRResult {
		res, _, err := OutlierIterateRemoval(context.Background(), p, ds, rng.New(3), nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Phases) != 3 || res.Halted {
			t.Fatalf("%d phases, halted %v: the test needs three phases that pass", len(res.Phases), res.Halted)
		}
		return res
	}
	res := run(ds)
	// Each group shuffles its pooled items with a stream of its own,
	// "group j" (from 1) in the phase's scope, so moving one group's user
	// re-shuffles no other group.
	ph := res.Phases[0]
	ball := loss.Ball{Centre: []float64{0, 0}, Radius: p.Radius}
	for j, g := range ph.Groups {
		var items [][]float64
		for _, u := range g {
			for k := range 3 {
				items = append(items, ds.Item(u, k))
			}
		}
		src := rng.New(3).Scope("phase 1").Scope("group " + strconv.Itoa(j+1)).Get(rng.Order)
		src.Shuffle(len(items), func(a, b int) { items[a], items[b] = items[b], items[a] })
		if want := SGDPass(p.Loss, items, ph.Eta, ball, ph.Start, nil); !slices.Equal(ph.Ends.At(j), want) {
			t.Errorf("group %d ends at %v, want %v", j+1, ph.Ends.At(j), want)
		}
	}
	seen := map[int]int{}
	for _, ph := range res.Phases {
		for _, u := range ph.UserIdx {
			if s, ok := seen[u]; ok {
				t.Fatalf("user %d serves in phases %d and %d", u, s, ph.I)
			}
			seen[u] = ph.I
		}
	}
	unused := -1
	for u := range ds.N() {
		if _, ok := seen[u]; !ok {
			unused = u
			break
		}
	}
	far := dataset.User{ID: "far", Points: []float64{1.5, 1, 1.5, 1, 1.5, 1}}
	moved, err := ds.Replace(res.Phases[2].Groups[0][0], far)
	if err != nil {
		t.Fatal(err)
	}
	again := run(moved)
	for i := range 2 {
		a, b := res.Phases[i], again.Phases[i]
		if !slices.Equal(a.Ends.Flat, b.Ends.Flat) || !slices.Equal(a.Output, b.Output) || a.ScoreNoise != b.ScoreNoise || !slices.Equal(a.Kept, b.Kept) {
			t.Errorf("phase %d changed when a phase-3 user moved", i+1)
		}
	}
	if slices.Equal(res.Phases[2].Ends.Flat, again.Phases[2].Ends.Flat) {
		t.Error("phase 3's end iterates did not change when one of its users moved")
	}
	if unused < 0 {
		t.Fatal("every user served; the test needs one that did not")
	}
	if moved, err = ds.Replace(unused, far); err != nil {
		t.Fatal(err)
	}
	if same := run(moved); !slices.Equal(same.Output, res.Output) {
		t.Errorf("moving user %d, whom no phase takes, changed the output %v → %v", unused, res.Output, same.Output)
	}
}

// The guarantee: the printed constants at the golden size are certified
// (σ_i far above what the corrected lemma needs, and the gate's loose
// pass below ζ′); sound mode's σ_i is exactly the need; eight groups
// cannot be certified (the gate's margin 2C/15 is below Δ_s); and every
// mutant is refused.
func TestOIRGuarantee(t *testing.T) {
	n, m, d := 1_000_000, 16, 2
	p := OIRParams{Eps: 1, Delta: 1e-6, Loss: loss.Squared{Mu: 1}, Lipschitz: 1, Radius: 1, PExp: 2.5, QExp: 0.5,
		Eta: 1 / math.Sqrt(float64(d*m*n))}
	if g := p.Guarantee(n, m, d); !g.Certified() {
		t.Errorf("paper constants at n = 10⁶: not certified: %v", g.Unmet())
	}
	for _, r := range p.Schedule(n, m, d) {
		if r.Sigma < 10*r.Needed {
			t.Errorf("phase %d: printed σ %.4g, needed %.4g: expected the printed one to be far above", r.I, r.Sigma, r.Needed)
		}
	}
	s := p
	s.Mode = privacy.Sound
	for _, r := range s.Schedule(n, m, d) {
		_, eg, dg, zeta := s.budget(3440)
		_, sens := mech.SurvivorMeanSensitivity(3440, r.Tau, zeta)
		if got := privacy.GaussianDelta(eg, sens, r.Sigma); r.Sigma != r.Needed || !(math.Abs(got-dg) <= 1e-9*dg) {
			t.Errorf("sound phase %d: σ %v (needed %v) gives δ %v at ε %v, want %v", r.I, r.Sigma, r.Needed, got, eg, dg)
		}
	}
	if g := s.Guarantee(n, m, d); !g.Certified() {
		t.Errorf("sound mode at n = 10⁶: not certified: %v", g.Unmet())
	}
	few := s
	few.Groups = 8
	if g := few.Guarantee(n, m, d); g.Certified() {
		t.Error("eight groups certified: the gate cannot tell 2C/3 from 4C/5 with Lap(20/ε) at C = 8")
	}
	for _, mu := range []OIRMutant{OIRNoScoreNoise, OIRKeepAll, OIRCountsAtTau, OIRWeakGate} {
		bad := p
		bad.Mutant = mu
		if g := bad.Guarantee(n, m, d); g.Certified() {
			t.Errorf("mutant %s certified", mu)
		}
	}
	if g := (OIRParams{Mode: privacy.NonPrivate}).Guarantee(n, m, d); !math.IsInf(g.Eps, 1) {
		t.Errorf("non-private guarantee %v", g)
	}
}

// Bad parameters are refused with a message naming the fix.
func TestOIRValidate(t *testing.T) {
	ok := OIRParams{Eps: 1, Delta: 1e-5, Loss: loss.Squared{Mu: 1}, Lipschitz: 1, Radius: 1, Eta: 0.1, PExp: 1, QExp: 1}
	if err := ok.Validate(100, 2); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		mod  func(*OIRParams)
		want string
	}{
		{func(p *OIRParams) { p.Groups = 5 }, "paper mode uses the printed constants"},
		{func(p *OIRParams) { p.Mode, p.Groups = privacy.Teaching, 1 }, "take C ≥ 2"},
		{func(p *OIRParams) { p.Mode, p.Groups = privacy.Teaching, 500 }, "C ≤ n"},
		{func(p *OIRParams) { p.Lipschitz = 0 }, "lipschitz = 0"},
		{func(p *OIRParams) { p.QExp = math.Inf(1) }, "q-exp"},
		{func(p *OIRParams) { p.Theta0 = []float64{1, 1} }, "outside the domain ball"},
		{func(p *OIRParams) { p.Theta0 = []float64{0} }, "theta0 has 1 coordinates"},
		{func(p *OIRParams) { p.OnEmpty = EmptyZero }, "on-empty = zero"},
		{func(p *OIRParams) { p.Loss = nil }, "no loss"},
		{func(p *OIRParams) { p.Mode = privacy.Mode(9) }, "unknown mode 9"},
		{func(p *OIRParams) { p.Mutant = OIRWeakGate + 1 }, "mutant"},
	} {
		p := ok
		tc.mod(&p)
		if err := p.Validate(100, 2); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("got %v, want an error containing %q", err, tc.want)
		}
	}
	if err := ok.Validate(2, 2); err != nil {
		t.Errorf("2 users, the fewest: %v", err)
	}
	if err := ok.Validate(1, 2); err == nil {
		t.Error("1 user accepted")
	}
	weak := ok
	weak.Mutant = OIRWeakGate
	if err := weak.Validate(100, 2); err != nil {
		t.Errorf("the last mutant: %v", err)
	}
}

// binomialRank is the smallest k with Pr[Bin(n, q) ≤ k] ≥ c: the rank of
// the order statistic that bounds the q-quantile from above with
// confidence c (and, from c' = 1 − c, from below).
func binomialRank(n int, q, c float64) int {
	lg := func(x float64) float64 { v, _ := math.Lgamma(x); return v }
	cum := 0.0
	for k := 0; k <= n; k++ {
		cum += math.Exp(lg(float64(n+1)) - lg(float64(k+1)) - lg(float64(n-k+1)) + float64(k)*math.Log(q) + float64(n-k)*math.Log1p(-q))
		if cum >= c {
			return k
		}
	}
	return n
}

// OR-B-15, Lowy, Liu & Asi's Lemma 2.3: two independent one-pass SGD runs
// on independent i.i.d. data end within about ηL√T of each other. The
// 95th percentile of their distance, over 2,000 pairs of runs at
// T = 100 and 6,400 (ηT ≤ 0.04, so the contraction is negligible), grows
// by 64^{½±0.1}: the interval the distribution-free bounds give the
// ratio (order statistics, each missing the true quantile with
// probability < 10⁻⁵) must meet [64^0.4, 64^0.6], so a true slope of ½
// fails the test by chance with probability below 4·10⁻⁵.
func TestOIRStabilityOfIndependentRuns(t *testing.T) {
	const reps, eta = 2000, 6e-6
	ball := loss.Ball{Centre: []float64{0, 0}, Radius: 100}
	quantile := func(steps int) (lo, hi float64) {
		r := rand.New(rand.NewPCG(uint64(steps), 15))
		items := func() [][]float64 {
			out := make([][]float64, steps)
			for i := range out {
				out[i] = []float64{0.5 + r.NormFloat64(), -0.3 + r.NormFloat64()}
			}
			return out
		}
		dists := make([]float64, reps)
		for i := range dists {
			a := SGDPass(loss.Squared{Mu: 1}, items(), eta, ball, []float64{0, 0}, nil)
			b := SGDPass(loss.Squared{Mu: 1}, items(), eta, ball, []float64{0, 0}, nil)
			dists[i] = loss.Dist(a, b)
		}
		slices.Sort(dists)
		return dists[binomialRank(reps, 0.95, 1e-5)], dists[binomialRank(reps, 0.95, 1-1e-5)]
	}
	lo1, hi1 := quantile(100)
	lo2, hi2 := quantile(6400)
	if hi2/lo1 < math.Pow(64, 0.4) || lo2/hi1 > math.Pow(64, 0.6) {
		t.Errorf("95th percentile in [%.3g, %.3g] at T = 100 and [%.3g, %.3g] at T = 6400: growth [%.3g, %.3g], want it to meet [64^0.4, 64^0.6] = [5.28, 12.1]",
			lo1, hi1, lo2, hi2, lo2/hi1, hi2/lo1)
	}
	t.Logf("95th percentile: [%.3g, %.3g]·η√T at T = 100, [%.3g, %.3g]·η√T at T = 6400", lo1/(eta*10), hi1/(eta*10), lo2/(eta*80), hi2/(eta*80))
}

// BenchmarkOIR is a whole outlier-iterate-removal run at n = 10⁴ users of
// m = 10 items in 2-D, teaching C = 50 (the printed C is 2,560, which
// leaves phase 1 only ⌊n_1/C⌋ = 1 user per group).
func BenchmarkOIR(b *testing.B) {
	data := benchUsers(b, 10_000, 10)
	p := OIRParams{Eps: 1, Delta: 1e-6, Loss: loss.Squared{Mu: 1}, Lipschitz: 2, Radius: 1, Eta: 0.05, PExp: 1, QExp: 0.5,
		Groups: 50, TauScale: 1, Mode: privacy.Teaching}
	var grads int64
	for b.Loop() {
		res, _, err := OutlierIterateRemoval(context.Background(), p, data, rng.New(1), nil)
		if err != nil {
			b.Fatal(err)
		}
		grads = res.Gradients
	}
	b.ReportMetric(float64(grads), "gradients")
}

// BenchmarkOIRBaseline is that run's gradient work alone: one SGDPass
// over as many items as the run took gradients, no groups, scores or
// noise.
func BenchmarkOIRBaseline(b *testing.B) {
	data := benchUsers(b, 10_000, 10)
	p := OIRParams{Eps: 1, Delta: 1e-6, Loss: loss.Squared{Mu: 1}, Lipschitz: 2, Radius: 1, Eta: 0.05, PExp: 1, QExp: 0.5, Groups: 50, TauScale: 1, Mode: privacy.Teaching}
	res, _, err := OutlierIterateRemoval(context.Background(), p, data, rng.New(1), nil)
	if err != nil {
		b.Fatal(err)
	}
	total := int(res.Gradients)
	items := make([][]float64, 0, total)
	for u := 0; len(items) < total; u++ {
		for j := 0; j < 10 && len(items) < total; j++ {
			items = append(items, data.Item(u, j))
		}
	}
	ball := loss.Ball{Centre: []float64{0, 0}, Radius: 1}
	for b.Loop() {
		SGDPass(p.Loss, items, 0.01, ball, []float64{0, 0}, nil)
	}
	b.ReportMetric(float64(total), "gradients")
}

// The corrected accounting of a phase, term by term, evaluated to 30
// digits apart from this code: ε_g = 2(C−1)/C·ε/20, the Gaussian's
// (ε − ε_g, δ/(2e^{ε_g})), and ζ′ = δ/(2(e^ε + 2)).
func TestOIRBudget(t *testing.T) {
	for _, c := range []struct {
		eps, delta                         float64
		groups                             int
		gate, gauss, deltaGauss, zetaPrime float64
	}{
		{1, 1e-6, 20, 0.095, 0.905, 4.5468646723411571e-7, 1.0597077880854272e-7},
		{4, 1e-5, 7, 0.34285714285714286, 3.6571428571428571, 3.5486979784456273e-6, 8.8342110070240246e-8},
	} {
		p := OIRParams{Eps: c.eps, Delta: c.delta}
		eg, ea, dg, z := p.budget(c.groups)
		near := func(got, want float64) bool { return math.Abs(got-want) <= 1e-12*want }
		if !near(eg, c.gate) || !near(ea, c.gauss) || !near(dg, c.deltaGauss) || !near(z, c.zetaPrime) || !near(p.GateEps(c.groups), c.gate) {
			t.Errorf("ε = %v, δ = %v, C = %d: budget (%v, %v, %v, %v), want (%v, %v, %v, %v)", c.eps, c.delta, c.groups, eg, ea, dg, z, c.gate, c.gauss, c.deltaGauss, c.zetaPrime)
		}
	}
}

// The schedule at ε = 4 (OR-B-04's ε = 1 cannot tell ·ε from /ε),
// evaluated to 30 digits apart from this code: n = 5,000, m = 4, d = 2,
// δ = 10⁻⁶, q = 0.5, p = 2.5, L = 2, η = 0.01 in paper mode. C =
// ⌈100(ln(20nm/δ) + ε)/ε⌉ = 768; phase 1 has ⌊(1 − 2^{−1/2})·5000/√2⌋ =
// 1,035 users, 1 per group, and phase 2's 732 leave none; the weak gate's
// Laplace is 2/ε, the gate's 20/ε.
func TestOIRScheduleAtEps4(t *testing.T) {
	p := OIRParams{Eps: 4, Delta: 1e-6, Lipschitz: 2, Eta: 0.01, PExp: 2.5, QExp: 0.5, Mode: privacy.Paper}
	if c := p.GroupCount(5000, 4); c != 768 {
		t.Errorf("C = %d, want 768", c)
	}
	rows := p.Schedule(5000, 4, 2)
	near := func(got, want float64) bool { return math.Abs(got-want) <= 1e-12*want }
	if len(rows) != 1 || rows[0].Users != 1035 || rows[0].PerGroup != 1 || rows[0].Steps != 4 ||
		!near(rows[0].Eta, 0.0017677669529663688) || !near(rows[0].Tau, 74.929522775291346) || !near(rows[0].Sigma, 1216.5063074605113) {
		t.Errorf("schedule %+v", rows)
	}
	if g := p.GateScale(); g != 5 {
		t.Errorf("gate scale %v, want 20/ε = 5", g)
	}
	p.Mutant = OIRWeakGate
	if g := p.GateScale(); g != 0.5 {
		t.Errorf("weak gate scale %v, want 2/ε = 0.5", g)
	}
}

// A private phase's output is the kept mean plus its Gaussian draw, and
// the draw is N(0, σ²I): over 400 seeds' 800 coordinates Σ noise²/σ² is
// χ²_800, outside [0.7, 1.35]·800 with probability below (0.7e^0.3)^400 +
// (1.35e^−0.35)^400 < 10⁻⁸ (Chernoff). A run whose noise were left out
// (or drawn as zeros) would give 0.
func TestOIROutputCarriesItsNoise(t *testing.T) {
	pts := make([][]float64, 24)
	for i := range pts {
		pts[i] = []float64{0.1 * float64(i%3), 0.05 * float64(i%2)}
	}
	ds := usersAt(pts, 2)
	p := OIRParams{Eps: 1000, Delta: 1e-5, Loss: loss.Squared{Mu: 1}, Lipschitz: 2, Radius: 1, Eta: 0.5, PExp: 1, QExp: 1,
		Groups: 3, Phases: 1, TauScale: 10, Order: Given, Mode: privacy.Teaching}
	var chi2 float64
	k := 0
	for seed := range uint64(400) {
		res, _, err := OutlierIterateRemoval(context.Background(), p, ds, rng.New(seed), nil)
		if err != nil {
			t.Fatal(err)
		}
		ph := res.Phases[0]
		if !ph.Passed || !(ph.Sigma > 0) {
			t.Fatalf("seed %d: passed %v, σ %v", seed, ph.Passed, ph.Sigma)
		}
		for c := range 2 {
			if ph.Output[c] != ph.Mean[c]+ph.Noise[c] {
				t.Fatalf("seed %d: output %v ≠ mean %v + noise %v", seed, ph.Output, ph.Mean, ph.Noise)
			}
			z := ph.Noise[c] / ph.Sigma
			chi2 += z * z
			k++
		}
	}
	if !(chi2 >= 0.7*float64(k) && chi2 <= 1.35*float64(k)) {
		t.Errorf("Σ noise²/σ² = %v over %d coordinates, want within [0.7, 1.35]·k", chi2, k)
	}
}

// oirLadder is 24 users of 2 items on a small lattice: in groups of one
// (C = 6, the first phase's 6 users) the end iterates lie 0.0172, 0.0344,
// 0.0384, 0.0688 and 0.0709 apart.
func oirLadder() *dataset.Dataset {
	pts := make([][]float64, 24)
	for i := range pts {
		pts[i] = []float64{0.1 * float64(i%3), 0.05 * float64(i%2)}
	}
	return usersAt(pts, 2)
}

// A run's bookkeeping, without noise: the schedule ends short (phase 3
// would give each of 3 groups ⌊1/3⌋ = 0 users) and says so in the result
// and the trace; the run starts at θ₀; progress counts every group of
// every phase once, up to the total; no user is left out of a group; the
// trace names the groups from 1 and says no gate is applied.
func TestOIRRunBookkeeping(t *testing.T) {
	p := OIRParams{Eps: 1, Delta: 1e-5, Loss: loss.Squared{Mu: 1}, Lipschitz: 2, Radius: 1, Eta: 0.5, PExp: 1, QExp: 1,
		Groups: 3, Phases: 3, TauScale: 10, Order: Given, Mode: privacy.NonPrivate, Record: true, OnEmpty: EmptyStart,
		Theta0: []float64{0.2, -0.1}}
	var ticks [][2]int64
	res, tr, err := OutlierIterateRemoval(context.Background(), p, oirLadder(), rng.New(1), func(done, total int64) {
		ticks = append(ticks, [2]int64{done, total})
	})
	if err != nil {
		t.Fatal(err)
	}
	const stop = "phase 3 would give each of the C = 3 groups ⌊1/3⌋ = 0 users"
	if res.Stop != stop || res.Halted || len(res.Phases) != 2 {
		t.Fatalf("stop %q, halted %v, %d phases; want %q after 2 phases", res.Stop, res.Halted, len(res.Phases), stop)
	}
	if last := tr.Steps[len(tr.Steps)-1]; last.Kind != KindOIRStop || !strings.HasPrefix(last.Text, stop) {
		t.Errorf("the trace ends with %s %q, want the stop", last.Kind, last.Text)
	}
	if !slices.Equal(res.Phases[0].Start, p.Theta0) {
		t.Errorf("phase 1 starts at %v, want θ₀ = %v", res.Phases[0].Start, p.Theta0)
	}
	for i, tk := range ticks {
		if tk != [2]int64{int64(i + 1), 6} {
			t.Fatalf("progress %v, want 1 … 6 of 6 (2 phases of 3 groups)", ticks)
		}
	}
	if len(ticks) != 6 {
		t.Errorf("%d progress calls, want 6", len(ticks))
	}
	for _, ph := range res.Phases {
		if len(ph.Unused) != 0 {
			t.Errorf("phase %d: %d users in %d groups of %d leave %v unused", ph.I, ph.Users, 3, ph.PerGroup, ph.Unused)
		}
	}
	var group, gate string
	for _, st := range tr.Steps {
		switch {
		case st.Kind == KindOIRGroup && group == "":
			group = st.Text
		case st.Kind == KindOIRGate && gate == "":
			gate = st.Text
		}
	}
	if !strings.HasPrefix(group, "phase 1, group 1:") || !strings.Contains(gate, "non-private, so no gate is applied") {
		t.Errorf("first group %q, first gate %q", group, gate)
	}

	p.Phases = 2 // the schedule's own length: no stop
	if res, _, err = OutlierIterateRemoval(context.Background(), p, oirLadder(), rng.New(1), nil); err != nil || res.Stop != "" {
		t.Errorf("two phases of two: stop %q, %v", res.Stop, err)
	}
	p.Phases, p.OnShort = 3, ShortRefuse
	if _, _, err = OutlierIterateRemoval(context.Background(), p, oirLadder(), rng.New(1), nil); err == nil || !strings.Contains(err.Error(), stop) {
		t.Errorf("refusing a short schedule: %v", err)
	}
}

// The ramp counts neighbours within 2τ, not τ, and its coins follow it:
// with τ = 0.0119 the nearest ends (0.0172 apart) count at 2τ only, so
// every group has 2 neighbours counting itself, and Keep(2, 6) = 0.
func TestOIRCountsAtTwoTau(t *testing.T) {
	p := OIRParams{Eps: 1, Delta: 1e-5, Loss: loss.Squared{Mu: 1}, Lipschitz: 2, Radius: 1, Eta: 0.5, PExp: 1, QExp: 1,
		Groups: 6, Phases: 1, TauScale: 0.0037, Order: Given, Mode: privacy.NonPrivate}
	res, _, err := OutlierIterateRemoval(context.Background(), p, oirLadder(), rng.New(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	ph := res.Phases[0]
	between := 0
	for j := range 6 {
		within := 0
		for k := range 6 {
			a, b := ph.Ends.At(j), ph.Ends.At(k)
			dist := math.Hypot(a[0]-b[0], a[1]-b[1])
			if dist <= 2*ph.Tau {
				within++
			}
			if dist > ph.Tau && dist <= 2*ph.Tau {
				between++
			}
		}
		if ph.Counts[j] != within || ph.Keep[j] != robust.Keep(within, 6) {
			t.Errorf("group %d: count %d, keep %v; want %d within 2τ = %.4g and keep %v", j+1, ph.Counts[j], ph.Keep[j], within, 2*ph.Tau, robust.Keep(within, 6))
		}
	}
	if between == 0 {
		t.Fatalf("τ = %v: no pair of ends lies between τ and 2τ, so the test cannot tell them apart", ph.Tau)
	}
}

// The gate's loose pass, Pr[Lap(b) > 2C/15 − Δ_s] with Δ_s = 2(C−1)/C,
// evaluated to 30 digits apart from this code: b = 20/ε, or 2/ε in the
// weak-gate variant; without score noise it is 0 or 1.
func TestOIRLooseGatePass(t *testing.T) {
	p := OIRParams{Eps: 1}
	for _, c := range []struct {
		c    int
		mut  OIRMutant
		want float64
	}{
		{3440, OIRCorrect, 6.0613129757227722685e-11},
		{8, OIRCorrect, 0.5167947885947039079},
		{60, OIRCorrect, 0.36979227599503141267},
		{60, OIRWeakGate, 0.024482080254629708314},
		{60, OIRNoScoreNoise, 0},
		{8, OIRNoScoreNoise, 1},
	} {
		p.Mutant = c.mut
		if got := p.LooseGatePass(c.c); !(math.Abs(got-c.want) <= 1e-12*c.want) && got != c.want {
			t.Errorf("C = %d, %s: %v, want %v", c.c, c.mut, got, c.want)
		}
	}
}

// The gate's trace step shows the noisy score, s plus its Laplace draw.
func TestOIRGateStepShowsTheNoisyScore(t *testing.T) {
	p := OIRParams{Eps: 1, Delta: 1e-5, Loss: loss.Squared{Mu: 1}, Lipschitz: 2, Radius: 1, Eta: 0.5, PExp: 1, QExp: 1,
		Groups: 3, Phases: 1, TauScale: 10, Order: Given, Mode: privacy.Teaching, Record: true}
	res, tr, err := OutlierIterateRemoval(context.Background(), p, oirLadder(), rng.New(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	ph := res.Phases[0]
	want := format.Sprintf("noisy score %.4g", ph.Score+ph.ScoreNoise)
	gates := 0
	for _, st := range tr.Steps {
		if st.Kind == KindOIRGate {
			gates++
			if !strings.Contains(st.Text, want) {
				t.Errorf("gate step %q, want %q (score %v, noise %v)", st.Text, want, ph.Score, ph.ScoreNoise)
			}
		}
	}
	if gates != 1 {
		t.Errorf("%d gate steps in a run of one phase", gates)
	}
	if ph.ScoreNoise == 0 {
		t.Error("the gate drew no noise")
	}
}
