package semisens

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/uldplab/uldp/core/rng"
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
