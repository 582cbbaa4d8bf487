package mech

import (
	"context"
	"fmt"
	"testing"

	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/rng"
)

// searchInstance has n users, two of them outliers, so the certificate
// cannot fire and the whole lattice is searched (κ = 3, depth 12).
func searchInstance(n int) []float64 {
	r := rng.New(uint64(n)).Get(rng.Data)
	values := make([]float64, n)
	for i := range values {
		values[i] = 0.05 * r.NormFloat64()
	}
	values[0], values[1] = 10, -10
	return values
}

func BenchmarkExactRStar(b *testing.B) {
	for _, n := range []int{16, 20, 24} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			d := oneD(searchInstance(n)...)
			for b.Loop() {
				if _, err := DelOutputPertLaw(context.Background(), p1, d, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// The literal Alg. 1 enumeration on the same instances, where it finishes
// in reasonable time: the baseline for the search's speed-up.
func BenchmarkLiteralRStar(b *testing.B) {
	for _, n := range []int{14, 16} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			values := searchInstance(n)
			for b.Loop() {
				literalRStar(len(values), literalMean(values, identity), 3, p1.Sens)
			}
		})
	}
}

// The App. C certificate at n = 10⁵ users (20 items each, 2-D, tight enough
// to certify): the polynomial-time path of a paper-faithful run
// (ε = 1, δ = 10⁻⁵ ⇒ κ = 27).
func BenchmarkCertificate(b *testing.B) {
	d, err := dataset.Generate(dataset.Spec{Kind: dataset.Gaussian, N: 100_000, M: 20, D: 2, Spread: 1}, rng.New(1))
	if err != nil {
		b.Fatal(err)
	}
	p := DelParams{Eps: 1, Delta: 1e-5, Sens: 0.01}
	law, err := DelOutputPertLaw(context.Background(), p, d, nil)
	if err != nil || !law.Certified {
		b.Fatalf("certificate did not fire: %v (bound %v)", err, law.Bound)
	}
	for b.Loop() {
		if _, err := DelOutputPertLaw(context.Background(), p, d, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// One sampler drawn many times gives each seed the draws a fresh Sample
// gives it: reusing the TDLap table leaks nothing between runs.
func TestDelLawSamplerReuse(t *testing.T) {
	law := DelLaw{Kappa: 27, RStar: 20, Sigma: 0.3, Centre: []float64{1, -2}}
	draw, err := law.Sampler(0.05, 2)
	if err != nil {
		t.Fatal(err)
	}
	bottoms := 0
	for seed := range uint64(300) {
		r1, out := draw(rng.New(seed))
		want1, wantOut, err := law.Sample(0.05, 2, rng.New(seed))
		if err != nil {
			t.Fatal(err)
		}
		if r1 != want1 || fmt.Sprint(out) != fmt.Sprint(wantOut) {
			t.Fatalf("seed %d: reused sampler drew (%d, %v), a fresh one (%d, %v)", seed, r1, out, want1, wantOut)
		}
		if out == nil {
			bottoms++
		}
	}
	// Both branches were exercised.
	if bottoms == 0 || bottoms == 300 {
		t.Errorf("%d of 300 draws were ⊥", bottoms)
	}
}

// Drawing from a law: the sampler built once (what audits use) against a
// fresh TDLap table per draw (what Sample does).
func BenchmarkDelLawDraw(b *testing.B) {
	law := DelLaw{Kappa: 27, RStar: 20, Sigma: 0.3, Centre: []float64{1, -2}}
	st := rng.New(1)
	b.Run("sampler", func(b *testing.B) {
		draw, _ := law.Sampler(0.05, 2)
		b.ReportAllocs()
		for b.Loop() {
			draw(st)
		}
	})
	b.Run("sample", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _, _ = law.Sample(0.05, 2, st)
		}
	})
}
