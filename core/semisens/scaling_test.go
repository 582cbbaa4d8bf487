package semisens

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/uldplab/uldp/core/internal/gof"
	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/core/robust"
)

// coordNoise draws the Gaussian's coordinate j from a stream of its own,
// and the Laplace draws from seeded streams: two runs whose queries differ
// only in extra coordinates then share every draw that matters.
type coordNoise struct {
	lap   Noise
	coord []*rand.Rand
	seed  uint64
}

func (c *coordNoise) Laplace(kind NoiseKind, scale float64) float64 {
	return c.lap.Laplace(kind, scale)
}

func (c *coordNoise) Gaussian(std float64, dst []float64) {
	for len(c.coord) < len(dst) {
		c.coord = append(c.coord, rand.New(rand.NewPCG(c.seed, uint64(len(c.coord)))))
	}
	for j := range dst {
		dst[j] = std * c.coord[j].NormFloat64()
	}
}

// padded is a query with extra zero coordinates: the same information in a
// larger dimension.
type padded struct {
	q     Query
	extra int
}

func (p padded) Dim() int { return p.q.Dim() + p.extra }

func (p padded) Eval(pub *Public, i, y int, dst []float64) {
	clear(dst)
	p.q.Eval(pub, i, y, dst[:p.q.Dim()])
}

// Dimension independence, exactly: padding every query with 400 zero
// coordinates makes the Gaussian's noise ‖z‖ grow like √d, yet PVMW tests,
// updates and answers the same, draw for draw — the update only ever
// looks at the noise along directions the query spans.
func TestDimensionIndependence(t *testing.T) {
	d, err := Generate(Spec{N: 2000, K: 8, DimPub: 4, Effect: 4}, rng.New(5).Get(rng.Data))
	if err != nil {
		t.Fatal(err)
	}
	rho, _ := Rho(4, 1e-6, CalTight)
	p := Params{Rho: rho, Delta: 1e-6, LMax: 20, Eta: 1, C: 1, Tau: 0.06}
	run := func(extra int) (answers [][]float64, updates int, zNorm float64) {
		m, err := NewPVMW(d, p, &coordNoise{lap: StreamNoise(rng.New(9)), seed: 9}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for s := range 40 {
			w := make([]float64, Logistic{}.Dim(&d.Public))
			for j := range w {
				w[j] = 2 * math.Sin(float64(7*s+j))
			}
			r, err := m.Answer(padded{Logistic{}.Gradient(w), extra})
			if err != nil {
				t.Fatal(err)
			}
			if u, ok := m.LastUpdate(); ok && r.Updates > 0 {
				zNorm += u.NoiseZ
			}
			answers = append(answers, r.Answer)
		}
		return answers, m.Updates(), zNorm / float64(max(m.Updates(), 1))
	}
	small, us, zs := run(0)
	large, ul, zl := run(400)
	if us == 0 || us != ul {
		t.Fatalf("%d updates at d = 13, %d at d = 413", us, ul)
	}
	for i := range small {
		if dist(small[i], large[i][:len(small[i])]) != 0 || norm(large[i][len(small[i]):]) != 0 {
			t.Fatalf("query %d answered differently in the larger dimension", i+1)
		}
	}
	// ‖z‖ ≈ s_G·√d: √(413/13) ≈ 5.6 times larger. Averaged over the run's
	// updates, each ‖z‖/s_G√d is within a few percent of 1 (a χ with 13
	// degrees of freedom has a relative spread of 0.2, with 413 of 0.035),
	// so [4, 8] is several spreads wide; the draws are seeded.
	if ratio := zl / zs; ratio < 4 || ratio > 8 {
		t.Errorf("‖z‖ grew %.2f times from d = 13 to d = 413; √(413/13) = %.2f", ratio, math.Sqrt(413.0/13))
	}
}

// Noise-free updates grow like ln k, not like k: on the same kind of data
// with k from 2 to 1,024, the updates needed to answer within τ stay
// within the (D3) bound 4 ln k/τ² and grow far slower than k.
func TestUpdatesGrowLikeLogK(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	const n, tau = 400, 0.1
	updates := map[int]int{}
	for _, k := range []int{2, 16, 128, 1024} {
		d := randomData(t, r, n, k)
		truth := d.Reveal()
		// Each example's true value points along e₁, the others away.
		tab := make(Table, n)
		for i := range tab {
			tab[i] = make([][]float64, k)
			for y := range tab[i] {
				v := []float64{-0.5, 0.5 * (2*r.Float64() - 1)}
				if y == truth[i] {
					v[0] = 0.5
				}
				tab[i][y] = v
			}
		}
		fD := d.TrueAnswer(tab, nil)
		b := Uniform(n, k)
		for {
			e := dist(Answer(&d.Public, b, tab, nil), fD)
			if e < tau {
				break
			}
			if _, err := MWU(&d.Public, b, tab, fD, e, MWUParams{Eta: tau / 2, C: 1}); err != nil {
				t.Fatal(err)
			}
			updates[k]++
			if float64(updates[k]) > 4*math.Log(float64(k))/(tau*tau) {
				t.Fatalf("k = %d: more than 4 ln k/τ² updates", k)
			}
		}
	}
	t.Logf("noise-free updates to error < %g: %v", tau, updates)
	// ln 1024/ln 2 = 10: far below the 512-fold growth of k.
	if updates[1024] > 12*updates[2] {
		t.Errorf("updates grew %d → %d from k = 2 to 1,024: faster than ln k", updates[2], updates[1024])
	}
}

// scaleRun trains the lesson's scenario at n examples and ε with τ scaled
// the way the theory scales α, τ = 0.8·(ln k/ρ)^¼/√n, and L_max = 30. It
// returns the largest error of an answered query and the private model's
// excess risk above the non-private one's (same method, same q).
func scaleRun(t *testing.T, n int, eps float64, seed uint64) (maxErr, gap float64) {
	t.Helper()
	s := rng.New(seed)
	d, err := Generate(Spec{N: n, K: 8, DimPub: 4, Effect: 4}, s.Get(rng.Data))
	if err != nil {
		t.Fatal(err)
	}
	rho, _ := Rho(eps, 1e-6, CalTight)
	tau := 0.8 * math.Pow(math.Log(8)/rho, 0.25) / math.Sqrt(float64(n))
	res, _, err := Train(context.Background(), d, TrainParams{PVMW: Params{Rho: rho, Delta: 1e-6, LMax: 30, Eta: 1, C: 1, Tau: tau},
		Steps: 100, Radius: 5}, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := res.Problems[0]
	return res.MaxError, p.Excess - p.ExcessNonPrivate
}

// scaleStats is the median over seeds base+1 … base+seeds of scaleRun's
// two numbers.
func scaleStats(t *testing.T, n int, eps float64, base uint64, seeds int) (maxErr, gap float64) {
	var es, gs []float64
	for s := range uint64(seeds) {
		e, g := scaleRun(t, n, eps, base+s+1)
		es, gs = append(es, e), append(gs, g)
	}
	return robust.Median(es), robust.Median(gs)
}

// The answered error follows the theory's α ∝ (ln k/ρ)^¼/√n: with τ scaled
// that way, the largest answered error (median of 5 seeds) falls like
// n^−½ over n = 2,000 … 32,000 at ε = 4, and like ε^−½ over ε = 1 … 16 at
// n = 8,000 (least-squares slopes in [−0.8, −0.3]); and the private
// model's excess above the non-private one shrinks as n or ε grows.
//
// Statistical, soft: nothing bounds these slopes for one seed set. The
// seeds here are fixed, so CI sees one outcome; a fresh seed set fails
// with the rate measured on 20 further disjoint sets (seeds 6 … 105): 0
// of 20 failed, a probability below 14% (Clopper–Pearson, one-sided 95%).
// A narrower ε range fails far more often: comparing ε = 1 and 4 alone,
// 8 of the same 20 sets failed, the median of five maxima being too noisy
// for a factor of 2 in τ. Over the ranges here τ stays below the uniform
// beliefs' error (about 0.05); a range in which τ exceeds it would flatten
// the curve, the answers then being as good as the queries are easy.
func TestAnswersScaleInNAndEps(t *testing.T) {
	if testing.Short() {
		t.Skip("measures scale: 25 trainings at up to n = 32,000")
	}
	checkScaling(t, 0)
}

func checkScaling(t *testing.T, base uint64) {
	t.Helper()
	const seeds = 5
	ns := []float64{2000, 8000, 32000}
	eps := []float64{1, 4, 16}
	var byN, gapN, byEps, gapEps []float64
	for _, n := range ns {
		e, g := scaleStats(t, int(n), 4, base, seeds)
		byN, gapN = append(byN, e), append(gapN, g)
	}
	for _, x := range eps {
		e, g := byN[1], gapN[1] // ε = 4, n = 8,000: the same runs
		if x != 4 {
			e, g = scaleStats(t, 8000, x, base, seeds)
		}
		byEps, gapEps = append(byEps, e), append(gapEps, g)
	}
	t.Logf("ε = 4, n = %v: max answered error %.4g, excess above non-private %.3g", ns, byN, gapN)
	t.Logf("n = 8000, ε = %v: max answered error %.4g, excess above non-private %.3g", eps, byEps, gapEps)
	if s := gof.LogSlope(ns, byN); s < -0.8 || s > -0.3 {
		t.Errorf("answered error ∝ n^%.2f: want a slope in [−0.8, −0.3], the theory's −½", s)
	}
	if s := gof.LogSlope(eps, byEps); s < -0.8 || s > -0.3 {
		t.Errorf("answered error ∝ ε^%.2f: want a slope in [−0.8, −0.3], the theory's −½", s)
	}
	if !(gapN[2] < gapN[0]) {
		t.Errorf("excess above non-private %.3g at n = 2,000, %.3g at 32,000: it should shrink with n", gapN[0], gapN[2])
	}
	if !(gapEps[2] < gapEps[0]) {
		t.Errorf("excess above non-private %.3g at ε = 1, %.3g at ε = 16: it should shrink with ε", gapEps[0], gapEps[2])
	}
}

// The strongly convex reduction (μ = 0.1, last iterate): the excess falls
// geometrically in q — the non-private method's by its contraction, the
// private one's by at least 10× from q = 5 to 40 — until it reaches the
// plateau the oracle's error allows. A gradient wrong by at most α moves a
// μ-strongly convex loss's minimum by at most α²/(2μ), so at q = 80, where
// the contraction has spent itself, the private excess stays below that.
func TestStronglyConvexPlateau(t *testing.T) {
	if testing.Short() {
		t.Skip("measures scale: 9 trainings at n = 5,000")
	}
	const mu = 0.1
	for seed := uint64(1); seed <= 3; seed++ {
		ex := map[int]float64{}
		for _, q := range []int{5, 40, 80} {
			s := rng.New(seed)
			d, err := Generate(Spec{N: 5000, K: 8, DimPub: 4, Effect: 4}, s.Get(rng.Data))
			if err != nil {
				t.Fatal(err)
			}
			rho, _ := Rho(4, 1e-6, CalTight)
			res, _, err := Train(context.Background(), d, TrainParams{PVMW: Params{Rho: rho, Delta: 1e-6, LMax: DemoLMax, Eta: DemoEta, C: DemoC, Tau: DemoTau},
				Steps: q, Radius: DemoRadius, Mus: []float64{mu}}, s, nil)
			if err != nil || res.Failed {
				t.Fatalf("seed %d, q = %d: %v, failed %v", seed, q, err, res.Failed)
			}
			p := res.Problems[0]
			ex[q] = p.Excess
			if q == 80 {
				if p.ExcessNonPrivate > 1e-10 {
					t.Errorf("seed %d: the non-private method is %.3g above the optimum after 80 steps: not geometric", seed, p.ExcessNonPrivate)
				}
				if plateau := res.MaxError * res.MaxError / (2 * mu); p.Excess > plateau {
					t.Errorf("seed %d: excess %.3g above the plateau α²/(2μ) = %.3g", seed, p.Excess, plateau)
				}
			}
		}
		if ex[5] < 10*ex[40] {
			t.Errorf("seed %d: excess %.3g at q = 5, %.3g at 40: less than a tenth gone", seed, ex[5], ex[40])
		}
	}
}
