package noise_test

// Sampler throughput, measured side by side in one run against
// github.com/google/differential-privacy/go/v3, the Go library a user would
// otherwise pick. Sub-benchmarks named "uldp" and "google" are paired by
// `make bench`, which prints their throughput ratio.
//
// The comparison is not like for like in one respect, stated in
// BENCHMARKS.md: Google's samplers read crypto/rand and snap Laplace noise to
// a granularity grid (their defence against floating-point attacks); ours
// read a seeded PCG stream, which is what lessons and replay need.

import (
	"testing"

	gnoise "github.com/google/differential-privacy/go/v3/noise"
	grand "github.com/google/differential-privacy/go/v3/rand"

	"github.com/uldplab/uldp/core/noise"
	"github.com/uldplab/uldp/core/rng"
)

var sink float64

func BenchmarkLaplace(b *testing.B) {
	b.Run("uldp", func(b *testing.B) {
		l := noise.Laplace{Scale: 1, Src: rng.New(1).Get(rng.Laplace)}
		for b.Loop() {
			sink += l.Rand()
		}
	})
	b.Run("google", func(b *testing.B) {
		lap := gnoise.Laplace()
		for b.Loop() {
			// l0 = lInf = 1, ε = 1: scale 1, as above.
			v, _ := lap.AddNoiseFloat64(0, 1, 1, 1, 0)
			sink += v
		}
	})
}

// benchGaussian is the uldp side of both Gaussian comparisons: a seeded
// draw needs no calibration step, so the two coincide.
func benchGaussian(b *testing.B) {
	g := noise.Gaussian{Sigma: 1, Src: rng.New(1).Get(rng.Gauss)}
	for b.Loop() {
		sink += g.Rand()
	}
}

func BenchmarkGaussian(b *testing.B) {
	b.Run("uldp", benchGaussian)
	// The API call a user writes: it calibrates σ on every call.
	b.Run("google", func(b *testing.B) {
		gauss := gnoise.Gaussian()
		for b.Loop() {
			v, _ := gauss.AddNoiseFloat64(0, 1, 1, 1, 1e-5)
			sink += v
		}
	})
}

// The raw standard-normal draw underneath, without calibration.
func BenchmarkStandardNormal(b *testing.B) {
	b.Run("uldp", benchGaussian)
	b.Run("google", func(b *testing.B) {
		for b.Loop() {
			sink += grand.Normal()
		}
	})
}

// Integer-exact discrete Laplace against Google's secure (geometric-based)
// Laplace on integers, both at scale 2.5.
func BenchmarkDiscreteLaplace(b *testing.B) {
	b.Run("uldp", func(b *testing.B) {
		l := noise.DiscreteLaplace{Scale: noise.Rational{Num: 5, Den: 2}, Src: rng.New(1).Get(rng.DLaplace)}
		for b.Loop() {
			sink += float64(l.Rand())
		}
	})
	b.Run("google", func(b *testing.B) {
		lap := gnoise.Laplace()
		for b.Loop() {
			v, _ := lap.AddNoiseInt64(0, 1, 1, 0.4, 0)
			sink += float64(v)
		}
	})
}

// TDLap has no counterpart elsewhere; the target is ≥ 20 M draws/s.
func BenchmarkTDLap(b *testing.B) {
	for _, c := range []struct {
		name  string
		eps   float64
		kappa int
	}{{"kappa=3", 4, 3}, {"kappa=27", 0.5, 27}, {"kappa=5000", 0.001, 5000}} {
		b.Run(c.name, func(b *testing.B) {
			d, err := noise.NewTDLapKappa(c.eps, c.kappa, rng.New(1).Get(rng.TDLap))
			if err != nil {
				b.Fatal(err)
			}
			var s int
			for b.Loop() {
				s += d.Rand()
			}
			sink += float64(s)
		})
	}
}

func BenchmarkBall(b *testing.B) {
	ball := noise.Ball{Dim: 2, Radius: 1, Src: rng.New(1).Get(rng.Smoothing)}
	y := make([]float64, 2)
	for b.Loop() {
		ball.Rand(y)
	}
	sink += y[0]
}
