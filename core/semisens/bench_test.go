package semisens

import (
	"math/rand/v2"
	"testing"
)

// benchTest is one PVMW test's work: the beliefs' answer f(p) and the
// error against f(D) (TrueAnswer is cached per query in a run, so it is
// outside the loop).
func benchTest(b *testing.B, d *Dataset, q Query) {
	fD := d.TrueAnswer(q, nil)
	bel := Uniform(d.N(), d.K)
	dst := make([]float64, q.Dim())
	b.ResetTimer()
	for b.Loop() {
		dist(Answer(&d.Public, bel, q, dst), fD)
	}
}

// One test at n·k·d = 10⁶ on the generic path: n = 2000, k = 10, d = 50
// (target ≤ 20 ms natively).
func BenchmarkTestGeneric1e6(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	d := randomDataB(r, 2000, 10)
	benchTest(b, d, randomTable(r, 2000, 10, 50))
}

// The lesson's size, n = 5000, k = 8, d_pub = 4: the logistic gradient on
// the one-hot fast path, and the same query forced onto the generic path
// as the baseline in the same run.
func BenchmarkTestFast(b *testing.B) {
	d, q := benchLogistic()
	benchTest(b, d, q)
}

func BenchmarkTestFastBaselineGeneric(b *testing.B) {
	d, q := benchLogistic()
	benchTest(b, d, generic{q})
}

// One MWU update at the lesson's size, fast path.
func BenchmarkMWUFast(b *testing.B) {
	d, q := benchLogistic()
	bel := Uniform(d.N(), d.K)
	v := d.TrueAnswer(q, nil)
	b.ResetTimer()
	for b.Loop() {
		if _, err := MWU(&d.Public, bel, q, v, 0.1, MWUParams{Eta: 0.01, C: 1}); err != nil {
			b.Fatal(err)
		}
	}
}

func benchLogistic() (*Dataset, Query) {
	r := rand.New(rand.NewPCG(2, 2))
	d, _ := Generate(Spec{N: 5000, K: 8, DimPub: 4, Effect: 4}, rand.NewPCG(3, 3))
	w := make([]float64, Logistic{}.Dim(&d.Public))
	for j := range w {
		w[j] = r.NormFloat64()
	}
	return d, Logistic{}.Gradient(w)
}

func randomDataB(r *rand.Rand, n, k int) *Dataset {
	ys := make([]int, n)
	for i := range ys {
		ys[i] = r.IntN(k)
	}
	d, _ := New(k, make([][]float64, n), nil, ys)
	return d
}
