package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/uldplab/uldp/core/privacy"
)

func cmdCalibrate(e *env, args []string) error {
	mechs := strings.Join(privacy.CalibratorNames(), "|")
	fs := flags(e, "calibrate", "calibrate --mech "+mechs+" --eps E [--delta D] --sens S [--format text]")
	mech := fs.String("mech", "", "mechanism: "+mechs)
	eps := fs.Float64("eps", 0, "privacy parameter ε > 0")
	delta := fs.Float64("delta", 0, "privacy parameter δ in (0, 1) (not used by laplace)")
	sens := fs.Float64("sens", 0, "sensitivity Δ > 0 (ℓ₁ for laplace, ℓ₂ for the Gaussians, target deletion sensitivity for deloutputpert)")
	var f format
	f.register(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	need := []string{"mech", "eps", "sens"}
	if *mech != privacy.MechLaplace {
		need = append(need, "delta")
	} else if given(fs)["delta"] {
		return usagef("--delta does not apply to laplace, which is pure ε-DP")
	}
	if err := required(fs, need...); err != nil {
		return err
	}
	out, cal, notes, err := privacy.Explain(*mech, *eps, *delta, *sens)
	if err != nil {
		return usageError{err}
	}
	return f.emit(e, out, func(w io.Writer) {
		fmt.Fprintf(w, "%s: %s = %.6g\n", cal.Mechanism, cal.Symbol, cal.Scale)
		fmt.Fprintf(w, "formula: %s\n\n", cal.Formula)
		writeSteps(w, cal.Steps)
		state := "yes"
		if !cal.Valid {
			state = "NO"
		}
		fmt.Fprintf(w, "\nproven here: %s — valid for %s\n", state, cal.Validity)
		if cal.Warning != "" {
			fmt.Fprintf(w, "warning: %s\n", cal.Warning)
		}
		for _, n := range notes {
			fmt.Fprintf(w, "  %s\n", n)
		}
	})
}

// writeSteps prints a derivation, one "symbol = formula = value" per line.
func writeSteps(w io.Writer, steps []privacy.Step) {
	for _, s := range steps {
		fmt.Fprintf(w, "  %s\t= %s\t= %.6g\n", s.Symbol, s.Formula, s.Value)
	}
}
