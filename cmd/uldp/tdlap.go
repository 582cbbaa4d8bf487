package main

import (
	"fmt"
	"io"
	"math"

	"github.com/uldplab/uldp/core/noise"
)

type tdlapOut struct {
	Eps        float64   `json:"eps"`
	Delta      *float64  `json:"delta,omitempty"`
	Kappa      int       `json:"kappa"`
	KappaRule  string    `json:"kappa_rule"`
	Normaliser float64   `json:"normaliser"`
	TailMass   float64   `json:"tail_mass"` // pmf(0) = pmf(2κ)
	TailBound  *float64  `json:"tail_bound,omitempty"`
	Mean       float64   `json:"mean"`
	Variance   float64   `json:"variance"`
	PMF        []float64 `json:"pmf"`
	CDF        []float64 `json:"cdf"`
}

func cmdTDLap(e *env, args []string) error {
	fs := flags(e, "tdlap", "tdlap --eps E (--delta D | --kappa K) [--format text]")
	eps := fs.Float64("eps", 0, "decay ε > 0")
	delta := fs.Float64("delta", 0, "δ in (0, 1); sets κ = 1 + ⌈ln(1/δ)/ε⌉")
	kappa := fs.Int("kappa", 0, "choose κ by hand instead of --delta (teaching mode)")
	var f format
	f.register(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	set := given(fs)
	if err := required(fs, "eps"); err != nil {
		return err
	}
	if set["delta"] == set["kappa"] {
		return usagef("give exactly one of --delta (κ from ε and δ) or --kappa (κ by hand)")
	}
	var d *noise.TDLap
	var err error
	out := tdlapOut{Eps: *eps}
	if set["delta"] {
		d, err = noise.NewTDLap(*eps, *delta, nil)
		out.Delta = delta
		out.KappaRule = "κ = 1 + ⌈ln(1/δ)/ε⌉"
	} else {
		d, err = noise.NewTDLapKappa(*eps, *kappa, nil)
		out.KappaRule = fmt.Sprintf("chosen by hand; it is κ(ε, δ) for δ in [e^{−ε(κ−1)}, e^{−ε(κ−2)}) = [%.4g, %.4g)",
			math.Exp(-*eps*float64(*kappa-1)), math.Exp(-*eps*float64(*kappa-2)))
	}
	if err != nil {
		return usageError{err}
	}
	out.Kappa, out.Normaliser, out.TailMass = d.Kappa(), d.Normaliser(), d.TailDelta()
	out.Mean, out.Variance = d.Mean(), d.Variance()
	if set["delta"] {
		b := *delta * math.Exp(-*eps)
		out.TailBound = &b
	}
	for x := 0; x <= 2*d.Kappa(); x++ {
		out.PMF = append(out.PMF, d.PMF(x))
		out.CDF = append(out.CDF, d.CDF(x))
	}
	return f.emit(e, out, func(w io.Writer) {
		fmt.Fprintf(w, "TDLap(ε = %g", out.Eps)
		if out.Delta != nil {
			fmt.Fprintf(w, ", δ = %g", *out.Delta)
		}
		fmt.Fprintf(w, "): support {0..%d}, pmf(x) ∝ exp(−ε|x − κ|)\n", 2*out.Kappa)
		fmt.Fprintf(w, "κ = %d\t(%s)\n", out.Kappa, out.KappaRule)
		fmt.Fprintf(w, "normaliser Z = %.10g\n", out.Normaliser)
		fmt.Fprintf(w, "tail mass pmf(0) = pmf(2κ) = %.6g", out.TailMass)
		if out.TailBound != nil {
			fmt.Fprintf(w, " ≤ δe^{−ε} = %.6g", *out.TailBound)
		}
		fmt.Fprintf(w, "\nmean %g, variance %.6g\n\nx\tpmf\tcdf\n", out.Mean, out.Variance)
		for x := range out.PMF {
			fmt.Fprintf(w, "%d\t%.6e\t%.9f\n", x, out.PMF[x], out.CDF[x])
		}
	})
}
