package mech

import (
	"context"
	"errors"
	"math"
	"reflect"
	"testing"

	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/loss"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
)

// Spec 000-002 §9.2: preset P1, d = 1, m = 1, f = mean, Δ = 0.1, ε = 8,
// δ = 0.1 ⇒ κ = 3, σ = 3.182084.
var (
	inliers = []float64{0.00, 0.05, -0.05, 0.10, -0.10, 0.02, -0.02, 0.07, -0.07, 0.03, -0.03, 0.04, -0.04}
	p1      = DelParams{Eps: 8, Delta: 0.1, Sens: 0.1}
)

func oneD(values ...float64) *dataset.Dataset {
	d := &dataset.Dataset{Dim: 1}
	for i, v := range values {
		d.Users = append(d.Users, dataset.User{ID: string(rune('a' + i)), Points: []float64{v}})
	}
	return d
}

func join(parts ...[]float64) []float64 {
	var out []float64
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func TestDelOutputPertWorkedExample(t *testing.T) {
	rows := []struct {
		name    string
		data    []float64
		rstar   int
		removed []int // 1-based, as the spec prints them
		pBottom float64
		centre  float64
	}{
		{"I + (10)", join(inliers, []float64{10}), 1, []int{14}, 5.923191e-6, 0},
		{"I + (0)", join(inliers, []float64{0}), 0, []int{}, 0, 0},
		{"I + (0.1)", join(inliers, []float64{0.1}), 0, []int{}, 0, 0.1 / 14},
		{"I[1..12] + (10, −10)", join(inliers[:12], []float64{10, -10}), 2, []int{13, 14}, 3.293185e-4, 0.04 / 12},
		{"I[1..11] + 3×10", join(inliers[:11], []float64{10, 10, 10}), 3, []int{12, 13, 14}, 1.798610e-2, 0},
		{"I[1..10] + 4×10", join(inliers[:10], []float64{10, 10, 10, 10}), 4, []int{11, 12, 13, 14}, 9.820139e-1, 0.003},
		{"7×0 + 7×10", join(make([]float64, 7), []float64{10, 10, 10, 10, 10, 10, 10}), -1, nil, 1, math.NaN()},
	}
	for _, r := range rows {
		law, err := DelOutputPertLaw(context.Background(), p1, oneD(r.data...), nil)
		if err != nil {
			t.Fatalf("%s: %v", r.name, err)
		}
		if law.Kappa != 3 || !(math.Abs(law.Sigma-3.182084) <= 5e-7) {
			t.Fatalf("%s: κ = %d, σ = %v", r.name, law.Kappa, law.Sigma)
		}
		if law.RStar != r.rstar {
			t.Errorf("%s: r* = %d, spec %d", r.name, law.RStar, r.rstar)
			continue
		}
		if r.rstar >= 0 && !reflect.DeepEqual(append([]int{}, oneBased(law.Removed)...), r.removed) {
			t.Errorf("%s: S* = %v, spec %v", r.name, oneBased(law.Removed), r.removed)
		}
		// P⊥ printed to 7 significant digits.
		if r.pBottom == 0 && law.PBottom != 0 || r.pBottom != 0 && !(math.Abs(law.PBottom-r.pBottom) <= 5e-7*r.pBottom) {
			t.Errorf("%s: P⊥ = %.7g, spec %.7g", r.name, law.PBottom, r.pBottom)
		}
		if r.rstar >= 0 && !(math.Abs(law.Centre[0]-r.centre) <= 1e-12) {
			t.Errorf("%s: centre %.12g, spec %.12g", r.name, law.Centre[0], r.centre)
		}
		if r.rstar < 0 && law.Centre != nil {
			t.Errorf("%s: ⊥ with probability 1 but a centre %v", r.name, law.Centre)
		}
	}
}

// literalMean is f = proj(mean of the users not removed), for the literal
// oracle; proj is the identity for DelOutputPert's own tests.
func literalMean(means []float64, proj func(float64) float64) func(out map[int]bool) float64 {
	return func(out map[int]bool) float64 {
		var s float64
		c := 0
		for i, v := range means {
			if !out[i] {
				s += v
				c++
			}
		}
		return proj(s / float64(c))
	}
}

func identity(m float64) float64 { return m }

// literalStable is Alg. 1's Stable(S) as printed for n users and f: every
// T ⊆ [n]∖S with |T| ≤ 4κ − |S| and every i ∉ S ∪ T. It shares no code
// with the search.
func literalStable(n int, f func(out map[int]bool) float64, S map[int]bool, kappa int, sens float64) bool {
	var rest []int
	for i := 0; i < n; i++ {
		if !S[i] {
			rest = append(rest, i)
		}
	}
	maxT := 4*kappa - len(S)
	// Enumerate T as subsets of rest with |T| ≤ maxT.
	var rec func(start int, T map[int]bool) bool
	rec = func(start int, T map[int]bool) bool {
		U := map[int]bool{}
		for i := range S {
			U[i] = true
		}
		for i := range T {
			U[i] = true
		}
		fu := f(U)
		for i := 0; i < n; i++ {
			if U[i] {
				continue
			}
			U[i] = true
			d := math.Abs(fu - f(U))
			delete(U, i)
			if d > sens {
				return false
			}
		}
		if len(T) == maxT {
			return true
		}
		for j := start; j < len(rest); j++ {
			T[rest[j]] = true
			ok := rec(j+1, T)
			delete(T, rest[j])
			if !ok {
				return false
			}
		}
		return true
	}
	return rec(0, map[int]bool{})
}

// literalRStar runs Alg. 1's outer loops: smallest s, lexicographic S.
func literalRStar(n int, f func(out map[int]bool) float64, kappa int, sens float64) (int, []int) {
	for s := 0; s <= 2*kappa; s++ {
		var found []int
		forEachCombination(n, s, func(set []int) bool {
			S := map[int]bool{}
			for _, i := range set {
				S[i] = true
			}
			if literalStable(n, f, S, kappa, sens) {
				found = append([]int{}, set...)
				return false
			}
			return true
		})
		if found != nil {
			return s, found
		}
	}
	return -1, nil
}

func TestBitsetSearchMatchesLiteralAlgorithm(t *testing.T) {
	r := rng.New(3).Get(rng.Data)
	checked := map[int]int{}
	for trial := 0; trial < 40; trial++ {
		n := 14 + r.IntN(2)
		values := make([]float64, n)
		for i := range values {
			values[i] = 0.1 * r.NormFloat64()
		}
		for k := r.IntN(5); k > 0; k-- { // 0–4 outliers
			values[r.IntN(n)] = 10 * (r.Float64() - 0.5)
		}
		law, err := DelOutputPertLaw(context.Background(), p1, oneD(values...), nil)
		if err != nil {
			t.Fatal(err)
		}
		want, wantS := literalRStar(len(values), literalMean(values, identity), 3, p1.Sens)
		if law.RStar != want || (want > 0 && !reflect.DeepEqual(law.Removed, wantS)) {
			t.Fatalf("trial %d: search r* = %d S* = %v, literal Alg. 1 r* = %d S* = %v (values %v)", trial, law.RStar, law.Removed, want, wantS, values)
		}
		checked[want]++
	}
	if len(checked) < 3 {
		t.Errorf("random instances only covered r* values %v: the comparison lacks variety", checked)
	}
}

// App. C: whenever the certificate fires, the search also finds r* = 0, and
// the deterministic bound ‖f(x) − f(x₋U)‖ ≤ |U|γ_c/(n − |U|) holds.
func TestCertificateImpliesStability(t *testing.T) {
	r := rng.New(4).Get(rng.Data)
	fired := 0
	for trial := 0; trial < 30; trial++ {
		n := 14 + r.IntN(3)
		values := make([]float64, n)
		for i := range values {
			values[i] = 0.002 * r.NormFloat64() // tight: the certificate should fire
		}
		if trial%3 == 0 {
			values[0] = 0.5 // not tight
		}
		d := oneD(values...)
		law, err := DelOutputPertLaw(context.Background(), p1, d, nil)
		if err != nil {
			t.Fatal(err)
		}
		means, total := userMeans(d)
		_, lattice, _ := p1.released(d)
		unstable, err := searchLattice(context.Background(), n, lattice, p1.Sens, 12, nil)
		if err != nil {
			t.Fatal(err)
		}
		if law.Certified {
			fired++
			if unstable.get(0) {
				t.Fatalf("trial %d: certificate fired but the search finds x unstable", trial)
			}
		}
		full := meanWithout(means, total, 0, make([]float64, 1))
		for mask := uint32(1); mask < 1<<n; mask += 37 {
			u := popcount(mask)
			if u >= n {
				continue
			}
			got := loss.Dist(full, meanWithout(means, total, mask, make([]float64, 1)))
			if bound := float64(u) * law.GammaC / float64(n-u); got > bound*(1+1e-12) {
				t.Fatalf("‖f(x) − f(x₋U)‖ = %v > |U|γ_c/(n−|U|) = %v", got, bound)
			}
		}
	}
	if fired == 0 {
		t.Error("the certificate never fired on tight data")
	}
}

// Teaching mode with κ chosen by hand: σ = 16κΔ√(ln(2/δ̄))/ε̄ with that κ,
// and the guarantee is certified only when κ reaches κ(ε̄, δ̄) = 27 (and the
// others hold). Golden σ from mpmath at 40 digits: ε = 1, δ = 10⁻⁵, Δ = 1,
// so ε̄ = 0.5 and δ̄ = 10⁻⁵/(e^0.5 + 2) = 2.7406861906119698·10⁻⁶.
func TestDelOutputPertTeachingKappa(t *testing.T) {
	for _, c := range []struct {
		kappa     int
		sigma     float64
		certified bool
	}{
		{5, 587.88732340701489, false},
		{27, 3174.5915463978804, true},
		{30, 3527.3239404420893, true},
	} {
		p := DelParams{Eps: 1, Delta: 1e-5, Sens: 1, Mode: privacy.Teaching, Kappa: c.kappa}
		cal, err := p.DelCalibration()
		if err != nil {
			t.Fatal(err)
		}
		if cal.Kappa != c.kappa || !(math.Abs(cal.Scale-c.sigma) <= 1e-12*c.sigma) {
			t.Errorf("κ = %d by hand: calibration κ = %d, σ = %.17g, want σ = %.17g", c.kappa, cal.Kappa, cal.Scale, c.sigma)
		}
		n := 4*c.kappa + 2 // the deletions' own requirement, met exactly
		if g := p.Guarantee(n); g.Certified() != c.certified {
			t.Errorf("κ = %d by hand, n = %d: certified %v, want %v (unmet: %v)", c.kappa, n, g.Certified(), c.certified, g.Unmet())
		}
		if g := p.Guarantee(n - 1); g.Certified() {
			t.Errorf("κ = %d by hand, n = 4κ+1: certified", c.kappa)
		}
		// A run draws R1 from TDLap with that κ and releases with that σ.
		law, err := DelOutputPertLaw(context.Background(), DelParams{Eps: 1, Delta: 1e-5, Sens: 1, Mode: privacy.Teaching, Kappa: c.kappa},
			oneD(make([]float64, n)...), nil)
		if err != nil {
			t.Fatal(err)
		}
		if law.Kappa != c.kappa || law.Sigma != cal.Scale {
			t.Errorf("κ = %d by hand: the run's law has κ = %d, σ = %v", c.kappa, law.Kappa, law.Sigma)
		}
	}
}

// The certificate's bound 2(4κ+1)γ_c/(n − 4κ − 1) against a value worked
// by hand, on both sides of its cut-off Δ: 19 users at 0 and one at v, so
// x̄ = v/20, γ_c = 0.95v and, with κ = 3 (P1), bound = 26·0.95v/7 = 247v/70.
// It fires up to v = 70Δ/247 = 0.0283401 and not beyond.
func TestCertificateBoundAtTheCutOff(t *testing.T) {
	for _, c := range []struct {
		v, bound float64
		fires    bool
	}{
		{0.02834, 0.099999714285714286, true},
		{0.02835, 0.100035, false},
	} {
		law, err := DelOutputPertLaw(context.Background(), p1, oneD(append(make([]float64, 19), c.v)...), nil)
		if err != nil {
			t.Fatal(err)
		}
		if law.Kappa != 3 || !(math.Abs(law.Bound-c.bound) <= 1e-12) || law.Certified != c.fires {
			t.Errorf("v = %v: bound %.17g (κ = %d), certified %v; want %.17g, %v", c.v, law.Bound, law.Kappa, law.Certified, c.bound, c.fires)
		}
		// Both sides are stable (r* = 0): the search agrees where the
		// certificate is silent.
		if law.RStar != 0 {
			t.Errorf("v = %v: r* = %d", c.v, law.RStar)
		}
	}
}

func popcount(m uint32) int {
	c := 0
	for ; m != 0; m &= m - 1 {
		c++
	}
	return c
}

// Observation 3.5, exhaustively over which user is replaced: for neighbours
// x ~ x′, finite r* differ by at most 1, and r* = ∞ on one side forces
// r* ≥ 2κ on the other.
func TestObservation35(t *testing.T) {
	r := rng.New(5).Get(rng.Data)
	for trial := 0; trial < 6; trial++ {
		values := make([]float64, 14)
		for i := range values {
			values[i] = 0.05 * r.NormFloat64()
		}
		for k := trial % 4; k > 0; k-- {
			values[r.IntN(14)] = 10
		}
		base, _ := DelOutputPertLaw(context.Background(), p1, oneD(values...), nil)
		for i := range values {
			for _, repl := range []float64{0, 10, -10} {
				nb := append([]float64(nil), values...)
				nb[i] = repl
				other, _ := DelOutputPertLaw(context.Background(), p1, oneD(nb...), nil)
				a, b := base.RStar, other.RStar
				switch {
				case a >= 0 && b >= 0:
					if a-b > 1 || b-a > 1 {
						t.Fatalf("finite r* %d and %d differ by more than 1", a, b)
					}
				case a < 0 && b >= 0 && b < 2*3, b < 0 && a >= 0 && a < 2*3:
					t.Fatalf("r* = ∞ on one side but %d < 2κ on the other", max(a, b))
				}
			}
		}
	}
}

func TestDelOutputPertRun(t *testing.T) {
	d := oneD(join(inliers, []float64{10})...)
	ctx := context.Background()
	res, tr, err := DelOutputPert(ctx, p1, d, rng.New(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	// R1 < r* = 1 only when R1 = 0 (probability 5.9e-6): this seed releases.
	if res.Output == nil || res.R1 < 1 {
		t.Fatalf("expected a release, got R1 = %d", res.R1)
	}
	if res.Guarantee.Certified() { // ε̄ = 4 ≥ 1: outside the proven regime
		t.Error("P1 is outside the proven regime")
	}
	kinds := map[string]bool{}
	for _, s := range tr.Steps {
		kinds[string(s.Kind)] = true
	}
	for _, k := range []string{"del.calibrate", "del.certificate", "stability.result", "tdlap.draw", "noise.add"} {
		if !kinds[k] {
			t.Errorf("trace lacks %s", k)
		}
	}
	again, _, _ := DelOutputPert(ctx, p1, d, rng.New(1), nil)
	if !reflect.DeepEqual(res.Output, again.Output) {
		t.Error("same seed, different output")
	}
	// Two clusters far apart: always ⊥.
	bottom, _, _ := DelOutputPert(ctx, p1, oneD(join(make([]float64, 7), []float64{10, 10, 10, 10, 10, 10, 10})...), rng.New(2), nil)
	if bottom.Output != nil {
		t.Error("the two-cluster tie must output ⊥")
	}
	np, _, _ := DelOutputPert(ctx, DelParams{Eps: 1, Delta: 0.1, Sens: 1, Mode: privacy.NonPrivate}, d, rng.New(1), nil)
	if !(math.Abs(np.Output[0]-10.0/14) <= 1e-12) {
		t.Errorf("non-private output %v, want f(x) = 10/14", np.Output)
	}
}

func TestDelOutputPertRejects(t *testing.T) {
	ctx := context.Background()
	small := oneD(1, 2, 3)
	if _, err := DelOutputPertLaw(ctx, p1, small, nil); err == nil {
		t.Error("n < 4κ+2 accepted")
	}
	many := make([]float64, 30)
	for i := range many {
		many[i] = float64(i) // spread out: the certificate cannot fire
	}
	if _, err := DelOutputPertLaw(ctx, p1, oneD(many...), nil); !errors.Is(err, ErrInfeasible) {
		t.Errorf("n = 30 without a certificate: %v, want ErrInfeasible", err)
	}
	for _, p := range []DelParams{{Eps: 0, Delta: 0.1, Sens: 1}, {Eps: 1, Delta: 1, Sens: 1}, {Eps: 1, Delta: 0.1, Sens: 0}, {Eps: 1, Delta: 0.1, Sens: 1, Kappa: 3}} {
		if _, err := DelOutputPertLaw(ctx, p, small, nil); err == nil {
			t.Errorf("%+v accepted", p)
		}
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := DelOutputPertLaw(cancelled, p1, oneD(join(inliers, []float64{10})...), nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled search: %v", err)
	}
}

func oneBased(idx []int) []int {
	out := make([]int, len(idx))
	for i, v := range idx {
		out[i] = v + 1
	}
	return out
}
