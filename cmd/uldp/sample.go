package main

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/uldplab/uldp/core/noise"
	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/core/rng/cryptorng"
)

// maxSamples bounds one sample command's output.
const maxSamples = 10_000_000

// sampler is one distribution the sample command draws from: the flags it
// accepts, the stream it reads, and how to build it from the flag values.
type sampler struct {
	flags  []string
	stream string
	build  func(v sampleFlags, src rand.Source) (draw func() float64, mean, variance float64, err error)
}

// distParams are the flags that belong to one distribution or another.
var distParams = []string{"eps", "delta", "kappa", "scale", "sigma", "mu"}

type sampleFlags struct {
	eps, delta, scale, sigma, mu float64
	kappa                        int
	set                          map[string]bool
}

var samplers = map[string]sampler{
	"tdlap": {[]string{"eps", "delta", "kappa"}, rng.TDLap, func(v sampleFlags, src rand.Source) (func() float64, float64, float64, error) {
		var d *noise.TDLap
		var err error
		switch {
		case v.set["delta"] == v.set["kappa"]:
			return nil, 0, 0, fmt.Errorf("tdlap needs --eps and exactly one of --delta or --kappa")
		case v.set["delta"]:
			d, err = noise.NewTDLap(v.eps, v.delta, src)
		default:
			d, err = noise.NewTDLapKappa(v.eps, v.kappa, src)
		}
		if err != nil {
			return nil, 0, 0, err
		}
		return func() float64 { return float64(d.Rand()) }, d.Mean(), d.Variance(), nil
	}},
	"laplace": {[]string{"scale", "mu"}, rng.Laplace, func(v sampleFlags, src rand.Source) (func() float64, float64, float64, error) {
		if err := errors.Join(positive("scale", v.scale), finite("mu", v.mu)); err != nil {
			return nil, 0, 0, err
		}
		l := noise.Laplace{Mu: v.mu, Scale: v.scale, Src: src}
		return l.Rand, l.Mean(), l.Variance(), nil
	}},
	"gaussian": {[]string{"sigma", "mu"}, rng.Gauss, func(v sampleFlags, src rand.Source) (func() float64, float64, float64, error) {
		if err := errors.Join(positive("sigma", v.sigma), finite("mu", v.mu)); err != nil {
			return nil, 0, 0, err
		}
		g := noise.Gaussian{Mu: v.mu, Sigma: v.sigma, Src: src}
		return g.Rand, g.Mean(), g.Variance(), nil
	}},
	"dlaplace": {[]string{"scale"}, rng.DLaplace, func(v sampleFlags, src rand.Source) (func() float64, float64, float64, error) {
		r, err := noise.RationalOf(v.scale)
		if err != nil {
			return nil, 0, 0, fmt.Errorf("--scale %v", err)
		}
		l := noise.DiscreteLaplace{Scale: r, Src: src}
		return func() float64 { return float64(l.Rand()) }, l.Mean(), l.Variance(), nil
	}},
}

func finite(name string, v float64) error {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return fmt.Errorf("--%s = %v: must be a finite number", name, v)
	}
	return nil
}

func positive(name string, v float64) error {
	if !(v > 0) || math.IsInf(v, 1) {
		return fmt.Errorf("--%s = %v: must be a finite number > 0", name, v)
	}
	return nil
}

type sampleOut struct {
	Dist     string    `json:"dist"`
	Seed     *uint64   `json:"seed"` // null for crypto draws
	Source   string    `json:"source"`
	Stream   string    `json:"stream"`
	N        int       `json:"n"`
	Mean     float64   `json:"mean"`
	Variance float64   `json:"variance"`
	Theory   moments   `json:"theory"`
	Samples  []float64 `json:"samples"`
}

type moments struct {
	Mean     float64 `json:"mean"`
	Variance float64 `json:"variance"`
}

func cmdSample(e *env, args []string) error {
	names := slices.Sorted(maps.Keys(samplers))
	fs := flags(e, "sample", "sample --dist "+strings.Join(names, "|")+" [parameters] --n N [--seed S | --crypto] [--format text]")
	dist := fs.String("dist", "", "distribution: "+strings.Join(names, ", "))
	var v sampleFlags
	fs.Float64Var(&v.eps, "eps", 0, "tdlap: decay ε")
	fs.Float64Var(&v.delta, "delta", 0, "tdlap: δ (sets κ)")
	fs.IntVar(&v.kappa, "kappa", 0, "tdlap: κ by hand instead of --delta")
	fs.Float64Var(&v.scale, "scale", 0, "laplace, dlaplace: scale b (dlaplace: pmf ∝ e^{−|k|/b}, b taken as the nearest fraction p/q with p, q ≤ 2³²)")
	fs.Float64Var(&v.sigma, "sigma", 0, "gaussian: standard deviation σ")
	fs.Float64Var(&v.mu, "mu", 0, "laplace, gaussian: location")
	n := fs.Int("n", 0, "number of samples (1 … 10⁷)")
	seed := fs.Uint64("seed", 1, "seed of the named stream (replayable; for teaching and tests)")
	crypto := fs.Bool("crypto", false, "draw from crypto/rand instead of a seed (not replayable)")
	var f format
	f.register(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := required(fs, "dist", "n"); err != nil {
		return err
	}
	s, ok := samplers[*dist]
	if !ok {
		return usagef("dist %q: use one of %s", *dist, strings.Join(names, ", "))
	}
	v.set = given(fs)
	for name := range v.set {
		if slices.Contains(distParams, name) && !slices.Contains(s.flags, name) {
			return usagef("--%s does not apply to %s (it takes %s)", name, *dist, "--"+strings.Join(s.flags, ", --"))
		}
	}
	if *n < 1 || *n > maxSamples {
		return usagef("--n = %d: draw between 1 and %d samples", *n, maxSamples)
	}
	if *crypto && v.set["seed"] {
		return usagef("--seed and --crypto exclude each other: a crypto draw has no seed")
	}
	streams := rng.New(*seed)
	if *crypto {
		streams = cryptorng.New()
	}
	draw, mean, variance, err := s.build(v, streams.Get(s.stream))
	if err != nil {
		return usageError{err}
	}
	out := sampleOut{Dist: *dist, Source: streams.String(), Stream: s.stream, N: *n, Theory: moments{mean, variance}, Samples: make([]float64, *n)}
	if !*crypto {
		out.Seed = seed
	}
	for i := range out.Samples {
		out.Samples[i] = draw()
	}
	out.Mean, out.Variance = meanVar(out.Samples)
	return f.emit(e, out, func(w io.Writer) {
		fmt.Fprintf(w, "# %d draws from %s, stream %q, %s\n", out.N, out.Dist, out.Stream, out.Source)
		fmt.Fprintf(w, "# sample mean %.6g (theory %.6g), sample variance %.6g (theory %.6g)\n", out.Mean, mean, out.Variance, variance)
		for _, x := range out.Samples {
			fmt.Fprintf(w, "%.17g\n", x)
		}
	})
}

func meanVar(xs []float64) (float64, float64) {
	var m, m2 float64
	for i, x := range xs { // Welford: stable for 10⁷ draws
		d := x - m
		m += d / float64(i+1)
		m2 += d * (x - m)
	}
	if len(xs) < 2 {
		return m, 0
	}
	return m, m2 / float64(len(xs)-1)
}
