package optim

import (
	"context"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/uldplab/uldp/core/cancel"
	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/loss"
	"github.com/uldplab/uldp/core/mech"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/core/trace"
)

var base = PhasedParams{Eps: 1, Delta: 1e-5, Beta: 0.01, Mu: 1, RK: 1, RX: 2, Rule: mech.DeltaPaper}

func data(t *testing.T, n, m int, spread float64, centre ...float64) *dataset.Dataset {
	t.Helper()
	d, err := dataset.Generate(dataset.Spec{Kind: dataset.Gaussian, N: n, M: m, D: 2, Spread: spread, Center: centre}, rng.New(3))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func items(d *dataset.Dataset) [][]float64 {
	var out [][]float64
	for i := range d.Users {
		for j := range d.Items(i) {
			out = append(out, d.Item(i, j))
		}
	}
	return out
}

// Spec §A-4 oracles without noise: λ_i = λ4^i, R_i = G/λ_i (÷4 per phase),
// and Lemma 4.2 for every phase: L(θ*_i) − L(θ) ≤ (λ_i/2)‖θ̂_{i−1} − θ‖² for
// all θ ∈ 𝒦 (checked on 200 random θ per phase, exact minimisers).
func TestPhasedSequencesAndLemma42(t *testing.T) {
	d := data(t, 50, 8, 0.8, 0.6, -0.3)
	p := base
	p.Mode = privacy.NonPrivate
	p.Lambda = 0.05
	p.RX = 4 // the spread items reach past 2; G = μ(R_K + R_X) must bound them
	res, _, err := PhasedERM(context.Background(), p, d, rng.New(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	pts := items(d)
	sq := loss.Squared{Mu: p.Mu}
	r := rng.New(2).Get(rng.Data)
	for i, ph := range res.Phases {
		if !(math.Abs(ph.Lambda-p.Lambda*math.Pow(4, float64(i+1))) <= 1e-12*ph.Lambda) || !(math.Abs(ph.Radius-p.G()/ph.Lambda) <= 1e-12*ph.Radius) {
			t.Fatalf("phase %d: λ = %v, R = %v", i+1, ph.Lambda, ph.Radius)
		}
		for k := 0; k < 200; k++ {
			theta := []float64{2*r.Float64() - 1, 2*r.Float64() - 1}
			if math.Hypot(theta[0], theta[1]) > 1 {
				continue
			}
			dx, dy := ph.Start[0]-theta[0], ph.Start[1]-theta[1]
			if lhs, rhs := sq.Value(ph.Minimiser, pts)-sq.Value(theta, pts), ph.Lambda/2*(dx*dx+dy*dy); lhs > rhs+1e-12 {
				t.Fatalf("phase %d: Lemma 4.2 fails at θ = %v: %v > %v", i+1, theta, lhs, rhs)
			}
		}
	}
}

// With σ = 0 the phases localise θ* of the whole problem: excess risk is
// O(λR²) and shrinks as λ does.
func TestPhasedLocalisesWithoutNoise(t *testing.T) {
	d := data(t, 50, 8, 0.8, 0.6, -0.3)
	pts := items(d)
	sq := loss.Squared{Mu: 1}
	var mean [2]float64
	for _, x := range pts {
		mean[0] += x[0] / float64(len(pts))
		mean[1] += x[1] / float64(len(pts))
	}
	best := (loss.Ball{Centre: []float64{0, 0}, Radius: 1}).Project(mean[:], make([]float64, 2))
	prev := math.Inf(1)
	for _, lambda := range []float64{1, 0.1, 0.01, 0.001} {
		p := base
		p.Mode, p.Lambda, p.RX = privacy.NonPrivate, lambda, 4
		res, _, err := PhasedERM(context.Background(), p, d, rng.New(1), nil)
		if err != nil {
			t.Fatal(err)
		}
		excess := sq.Value(res.Theta, pts) - sq.Value(best, pts)
		if excess < -1e-12 || excess > lambda*4 { // R = diameter 2 ⇒ λR² = 4λ
			t.Errorf("λ = %v: excess %v outside [0, λR²]", lambda, excess)
		}
		if excess > prev+1e-12 {
			t.Errorf("λ = %v: excess %v grew from %v", lambda, excess, prev)
		}
		prev = excess
	}
}

// A private run: T = 3 phases at (ε/3, δ/3), tight users so each phase's
// certificate fires (κ′ = 84 is far beyond exact search).
func TestPhasedPrivateRun(t *testing.T) {
	d := data(t, 2000, 10, 0.001, 0.2, 0.1)
	p := base
	p.Phases = 3
	res, tr, err := PhasedERM(context.Background(), p, d, rng.New(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	total, err := res.Ledger.Total()
	if err != nil || !(math.Abs(total.Eps-1) <= 1e-12) || !(math.Abs(total.Delta-1e-5) <= 1e-18) {
		t.Errorf("ledger total %+v, %v; want (1, 1e-5)", total, err)
	}
	if len(res.Ledger.Spends()) != 3 || len(tr.Steps) != 9 {
		t.Errorf("%d spends, %d steps", len(res.Ledger.Spends()), len(tr.Steps))
	}
	cal, _ := privacy.DelOutputPert(1.0/3, 1e-5/3, 1)
	for _, ph := range res.Phases {
		if !ph.Certified || ph.Kappa != cal.Kappa || cal.Kappa != 84 {
			t.Errorf("phase %d: certified %v, κ′ = %d", ph.I, ph.Certified, ph.Kappa)
		}
		if math.Hypot(ph.Output[0], ph.Output[1]) > 1+1e-12 {
			t.Errorf("phase %d: output %v outside 𝒦", ph.I, ph.Output)
		}
	}
	if !res.Guarantee.Certified() {
		t.Errorf("guarantee %v", res.Guarantee)
	}
	// Each phase needs n ≥ 4κ′+2 = 338 users; all 2,000 take part in each.
	var found bool
	for _, pc := range res.Guarantee.Preconditions {
		if pc.What == "n ≥ 4κ′+2 users in every phase" {
			found = pc.Have == 2000 && pc.Need == 338 && pc.Met
		}
	}
	if !found {
		t.Errorf("preconditions %+v: want n = 2000 ≥ 4κ′+2 = 338", res.Guarantee.Preconditions)
	}
	// Δ_i = 2·5·(2G)·√(ln(T/β)/m)/(λ_i·n), the regularised loss being
	// 2G-Lipschitz and β shared by the T phases: G = μ(R_K + R_X) = 3.
	for _, ph := range res.Phases {
		want := 2 * 5 * 6 * math.Sqrt(math.Log(3/0.01)/10) / (ph.Lambda * 2000)
		if !(math.Abs(ph.Sens-want) <= 1e-12*want) {
			t.Errorf("phase %d: Δ = %v, want %v", ph.I, ph.Sens, want)
		}
	}
	for _, st := range tr.Steps {
		if st.Kind == KindLedgerSpend && !strings.HasSuffix(st.Text, "on all users") {
			t.Errorf("spend step %q: every phase of Phased-ERM uses all users", st.Text)
		}
	}
	again, _, _ := PhasedERM(context.Background(), p, d, rng.New(1), nil)
	if again.Theta[0] != res.Theta[0] || again.Theta[1] != res.Theta[1] {
		t.Error("same seed, different result")
	}
}

func TestPhasedRejects(t *testing.T) {
	d := data(t, 20, 4, 0.1)
	for _, c := range []struct {
		p    PhasedParams
		want string
	}{
		{PhasedParams{Eps: 1, Delta: 1e-5, Beta: 0.01, Mu: 1, RK: 1, RX: 2, Rule: "x"}, "rule"},
		{PhasedParams{Eps: 1, Delta: 1e-5, Beta: 0.01, Mu: 1, RK: 1, RX: 2, Rule: mech.DeltaPaper, Phases: 100}, "phases = 100"},
		{PhasedParams{Eps: 1, Delta: 1e-5, Beta: 0.01, Mu: 1, RK: 1, RX: 2, Rule: mech.DeltaPaper, Lambda: -1}, "lambda"},
		// κ′ far beyond exact search and too few users for the certificate.
		{PhasedParams{Eps: 1, Delta: 1e-5, Beta: 0.01, Mu: 1, RK: 1, RX: 2, Rule: mech.DeltaPaper}, "phase 1"},
	} {
		if _, _, err := PhasedERM(context.Background(), c.p, d, rng.New(1), nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.p, err, c.want)
		}
	}
	for phases, ok := range map[int]bool{64: true, 65: false, 0: true, -1: false} {
		p := base
		p.Phases = phases
		if _, _, err := p.check(d); (err == nil) != ok {
			t.Errorf("phases = %d: %v, want accepted %v", phases, err, ok)
		}
	}
}

// LambdaScale multiplies the default λ (and a given one) in every
// algorithm, so a lesson can vary λ around each theorem's choice.
func TestLambdaScale(t *testing.T) {
	d := data(t, 200, 4, 0.1, 0.2, 0.1)
	p := base
	p.Mode = privacy.NonPrivate
	for name, run := range map[string]func(cancel.Context, PhasedParams, *dataset.Dataset, *rng.Streams, mech.Progress) (PhasedResult, *trace.Trace, error){
		"phased-erm": PhasedERM, "phased-sco": PhasedSCO, "strongly-convex-sco": StronglyConvexSCO,
	} {
		one, _, err := run(context.Background(), p, d, rng.New(1), nil)
		if err != nil {
			t.Fatal(err)
		}
		q := p
		q.LambdaScale = 8
		eight, _, err := run(context.Background(), q, d, rng.New(1), nil)
		if err != nil {
			t.Fatal(err)
		}
		if r := eight.Phases[0].Lambda / one.Phases[0].Lambda; !(math.Abs(r-8) <= 1e-12) {
			t.Errorf("%s: λ scaled by %v, want 8", name, r)
		}
	}
	q := p
	q.LambdaScale = -1
	if _, _, err := PhasedERM(context.Background(), q, d, rng.New(1), nil); err == nil || !strings.Contains(err.Error(), "lambda scale") {
		t.Errorf("negative scale: %v", err)
	}
}

// The "private median" (spec 000-002 §8.1): Phased-ERM on the 1-D absolute
// loss. Without noise every phase's minimiser is the exact minimiser of
// (1/N)Σ|θ − x| + (λ_i/2)(θ − θ̂)² over 𝒦 ∩ [θ̂ ± R_i], computed here
// from scratch; with privacy the phases search the lattice exactly (no
// certificate for this loss) and the ledger sums to (ε, δ).
func TestPhasedAbsoluteLoss(t *testing.T) {
	values := []float64{0.31, 0.29, 0.3, 0.33, 0.27, 0.3, 0.32, 0.28, 0.3, 0.31, 0.29, 0.3, 0.9, -0.8}
	d := &dataset.Dataset{Dim: 1}
	for i, v := range values {
		d.Users = append(d.Users, dataset.User{ID: strconv.Itoa(i + 1), Points: []float64{v}})
	}
	p := PhasedParams{Eps: 40, Delta: 0.1, Beta: 0.01, RK: 1, RX: 1, Rule: mech.DeltaPaper, Loss: mech.LossAbsolute, Phases: 2, Lambda: 0.5}
	if p.G() != 1 {
		t.Fatalf("G = %v, want 1", p.G())
	}
	np := p
	np.Mode = privacy.NonPrivate
	res, _, err := PhasedERM(context.Background(), np, d, rng.New(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	sorted := slices.Clone(values)
	slices.Sort(sorted)
	start := 0.0
	for _, ph := range res.Phases {
		a := loss.Absolute{Lambda: ph.Lambda, C: start, Lo: math.Max(-1, start-ph.Radius), Hi: math.Min(1, start+ph.Radius)}
		if want := a.Minimise(sorted); ph.Minimiser[0] != want || ph.Output[0] != want {
			t.Errorf("phase %d: minimiser %v, output %v, want %v", ph.I, ph.Minimiser, ph.Output, want)
		}
		start = ph.Output[0]
	}
	private, _, err := PhasedERM(context.Background(), p, d, rng.New(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	total, _ := private.Ledger.Total()
	if !(math.Abs(total.Eps-40) <= 1e-12) || !(math.Abs(total.Delta-0.1) <= 1e-15) {
		t.Errorf("ledger %+v", total)
	}
	for _, ph := range private.Phases {
		if ph.Certified || ph.RStar < 0 || !(math.Abs(ph.Output[0]) <= 1) {
			t.Errorf("phase %d: certified %v, r* %d, output %v", ph.I, ph.Certified, ph.RStar, ph.Output)
		}
	}
	if _, _, err := StronglyConvexERM(context.Background(), p, d, rng.New(1), nil); err == nil || !strings.Contains(err.Error(), "strongly convex") {
		t.Errorf("strongly convex algorithm on the absolute loss: %v", err)
	}
}

// Phased-SCO's first batch, ⌈n/2⌉ users, must hold N₀: a precondition is
// added (and unmet) only when it holds fewer, never without privacy.
func TestFirstBatchFloor(t *testing.T) {
	for _, c := range []struct {
		n, n0 int
		mode  privacy.Mode
		added bool
	}{
		{10, 5, privacy.Sound, false}, // the first batch is exactly N₀
		{10, 6, privacy.Sound, true},
		{11, 6, privacy.Sound, false}, // ⌈11/2⌉ = 6
		{11, 7, privacy.Paper, true},
		{10, 6, privacy.NonPrivate, false},
	} {
		var l loop
		l.firstBatch(PhasedParams{Mode: c.mode}, c.n, c.n0)
		if got := len(l.pre) == 1; got != c.added || got && (l.pre[0].Met || l.pre[0].Have != float64(c.n-c.n/2) || l.pre[0].Need != float64(c.n0)) {
			t.Errorf("n = %d, N₀ = %d, %v: preconditions %+v", c.n, c.n0, c.mode, l.pre)
		}
	}
}

// The defaults: Phased-ERM's T = ⌈log₂(nm)⌉ phases and λ = G√d/(Rn√m)
// with R = 2R_K (λ_1 = 4λ), and Phased-SCO's λ = (G/R)·max(√d/(n√m),
// 1/√(nm)), each branch of the max the larger at one setting. In closed
// form, at R_K = 2 (where ·R_K and /R_K differ) and R_X = 2, so G = 4:
// n = 12, m = 3, d = 2 give T = 6 and λ = 4√2/(48√3) = √6/36; the SCO λ
// is 1·(1/6) there, as a run's λ_1 = 4/6 shows, and 1.5·√5/3 = √5/2 for
// G = 3, R = 2 at d = 5, n = 3, m = 1.
func TestPhasedDefaults(t *testing.T) {
	p := base
	p.Mode, p.RK = privacy.NonPrivate, 2
	d := data(t, 12, 3, 0.3)
	res, _, err := PhasedERM(context.Background(), p, d, rng.New(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Phases) != 6 || !(math.Abs(res.Phases[0].Lambda-4*math.Sqrt(6)/36) <= 1e-15) {
		t.Errorf("%d phases, λ_1 = %v; want 6 and 4·√6/36", len(res.Phases), res.Phases[0].Lambda)
	}
	p.Phases = 1 // the batch floor N₀ = 8κ wants far more than 12 users
	sco, _, err := PhasedSCO(context.Background(), p, d, rng.New(1), nil)
	if err != nil || !(math.Abs(sco.Phases[0].Lambda-4.0/6) <= 1e-15) {
		t.Errorf("Phased-SCO's λ_1 = %v (%v), want 4·(G/2R_K)·(1/√(nm)) = 4/6", sco.Phases[0].Lambda, err)
	}
	for _, c := range []struct {
		d, n, m int
		want    float64
	}{{2, 12, 3, 0.25}, {5, 3, 1, math.Sqrt(5) / 2}} {
		if got := scoLambda(3, 2, c.d, c.n, c.m); !(math.Abs(got-c.want) <= 1e-15) {
			t.Errorf("SCO λ at d = %d, n = %d, m = %d: %v, want %v", c.d, c.n, c.m, got, c.want)
		}
	}
}
