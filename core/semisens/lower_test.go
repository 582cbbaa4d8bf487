package semisens

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/uldplab/uldp/core/rng"
)

// The hard instance's facts (§5.8): the optimum and its risk, the excess
// bound for any point of W, one pointing coordinate per block at most, and
// the strongly convex excess in closed form.
func TestLowerBoundInstance(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 20))
	lb := LowerBound{N: 50, K: 6, R: 2, G: 3}
	if err := lb.Validate(); err != nil {
		t.Fatal(err)
	}
	y := make([]int, lb.N)
	for i := range y {
		y[i] = r.IntN(lb.K)
	}
	ws := lb.Optimum(y)
	near(t, "𝓛(w*)", lb.Risk(ws, y), -lb.R*lb.G/math.Sqrt(float64(lb.N)), 1e-12)
	near(t, "‖w*‖", norm(ws), lb.R, 1e-12)
	for range 500 {
		w := make([]float64, lb.N*lb.K)
		for j := range w {
			w[j] = r.NormFloat64()
			if r.IntN(3) == 0 {
				w[j] = math.Abs(w[j]) * 4 // some blocks point hard somewhere
			}
		}
		project(w, lb.R*r.Float64())
		for i := range lb.N {
			block := w[lb.K*i : lb.K*(i+1)]
			pointing := 0
			for _, x := range block {
				if x > norm(block)/math.Sqrt2 {
					pointing++
				}
			}
			if pointing > 1 {
				t.Fatalf("block %d has %d coordinates above ‖w(i)‖/√2", i, pointing)
			}
		}
		excess := lb.Risk(w, y) - lb.Risk(ws, y)
		if bound := lb.ConvexExcessBound(lb.Pointed(w, y)); excess < bound-1e-12 {
			t.Fatalf("excess %.6g below the instance's bound %.6g", excess, bound)
		}
	}
	sc := LowerBound{N: 40, K: 5, G: 2, Mu: 0.5}
	ys := y[:sc.N]
	for i := range ys {
		ys[i] %= sc.K
	}
	wsc := sc.Optimum(ys)
	for range 200 {
		w := make([]float64, sc.N*sc.K)
		for j := range w {
			w[j] = r.NormFloat64()
		}
		project(w, sc.radius())
		want := sc.Mu / 2 * dist(w, wsc) * dist(w, wsc)
		near(t, "strongly convex excess", sc.Risk(w, ys)-sc.Risk(wsc, ys), want, 1e-10)
	}
}

// k-ary randomized response sits exactly on the bound: the output that
// points every block at its reported value gets |I|/n = e^ε/(e^ε + k − 1)
// on average. 20,000 examples; the check allows 5 standard errors of a
// binomial proportion, which a correct sampler exceeds with probability
// below 6·10⁻⁷.
func TestRandomisedResponseMeetsTheBound(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	const n, k, eps = 20000, 8, 1.0
	lb := LowerBound{N: n, K: k, R: 1, G: 1}
	y := make([]int, n)
	rep := make([]int, n)
	for i := range y {
		y[i] = r.IntN(k)
		rep[i] = RR(r, y[i], k, eps)
	}
	frac := float64(lb.Pointed(lb.Optimum(rep), y)) / n
	p := RRKeep(eps, k)
	near(t, "RRKeep", p, math.E/(math.E+k-1), 1e-15)
	if se := math.Sqrt(p * (1 - p) / n); !(math.Abs(frac-p) <= 5*se) {
		t.Errorf("k-RR pointed %.4f of the blocks right, the bound is %.4f (±%.4f)", frac, p, 5*se)
	}
	// Misreports spread over the k − 1 other values.
	seen := make([]int, k)
	for range 10000 {
		seen[RR(r, 0, k, 0.001)]++
	}
	for v, c := range seen {
		if c == 0 {
			t.Errorf("value %d never reported", v+1)
		}
	}
}

// blockQuery is the convex hard instance's gradient, −G·e_{j(i,y)} with
// G = 1, the same at every w: PVMW answers it from the beliefs, and
// descent on the answer points block i along pᵢ.
type blockQuery struct{ n, k int }

func (q blockQuery) Dim() int { return q.n * q.k }

func (q blockQuery) Eval(_ *Public, i, y int, dst []float64) {
	clear(dst)
	dst[q.k*i+y] = -1
}

// pointedRight plays the lower-bound game on PVMW: 20 answers to the
// instance's gradient, then the share of blocks a descent on them points
// right (block i lies along pᵢ).
func pointedRight(t *testing.T, n, k int, eps float64, mutant Mutant, seed uint64) float64 {
	r := rand.New(rand.NewPCG(seed, 41))
	feats, ys := make([][]float64, n), make([]int, n)
	for i := range ys {
		feats[i], ys[i] = []float64{}, r.IntN(k) // public: the index alone
	}
	d, err := New(k, feats, nil, ys)
	if err != nil {
		t.Fatal(err)
	}
	rho, _ := Rho(eps, 1e-6, CalTight)
	m, err := NewPVMW(d, Params{Rho: rho, Delta: 1e-6, LMax: 10, Eta: 1, C: 1, Tau: 0.1, Mutant: mutant}, StreamNoise(rng.New(seed)), nil)
	if err != nil {
		t.Fatal(err)
	}
	q := blockQuery{n, k}
	for range 20 {
		if _, err := m.Answer(q); err != nil {
			t.Fatal(err)
		}
	}
	// Descent on the answer points each block along the beliefs.
	var w []float64
	for _, row := range m.Beliefs().Probs() {
		w = append(w, row...)
	}
	return float64(LowerBound{N: n, K: k}.Pointed(w, ys)) / float64(n)
}

// The lower-bound game as a privacy check (§9.3): on the hard instance,
// with values uniform and independent of the public data, an (ε, δ)
// algorithm points each block right with probability at most
// e^ε/(e^ε + k − 1) + δ. PVMW's share over 300 seeds stays below that
// bound plus Hoeffding's margin for 300 independent runs, each share in
// [0, 1]: a correct PVMW fails with probability below 10⁻⁶. The mutant
// whose update reads the true values is caught by the same check.
func TestLowerBoundGameOnPVMW(t *testing.T) {
	const n, k, eps, runs = 40, 4, 1.0, 300
	bound := RRKeep(eps, k) + 1e-6
	margin := math.Sqrt(math.Log(1e6) / (2 * runs))
	share := func(mutant Mutant) float64 {
		s := 0.0
		for seed := range uint64(runs) {
			s += pointedRight(t, n, k, eps, mutant, seed+1) / runs
		}
		return s
	}
	correct, peeks := share(Correct), share(MWUPeeks)
	t.Logf("share pointed right: PVMW %.4f, mwu-peeks %.4f; bound %.4f + %.4f", correct, peeks, bound, margin)
	if correct > bound+margin {
		t.Errorf("PVMW points %.4f of the blocks right: above e^ε/(e^ε + k − 1) + δ = %.4f by more than %.4f", correct, bound, margin)
	}
	if peeks <= bound+margin {
		t.Errorf("the mutant reading the true values points %.4f right: not caught against %.4f + %.4f", peeks, bound, margin)
	}
}
