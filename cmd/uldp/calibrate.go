package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/semisens"
)

func cmdCalibrate(e *env, args []string) error {
	mechs := strings.Join(append(privacy.CalibratorNames(), mechPVMW), "|")
	fs := flags(e, "calibrate", "calibrate --mech "+mechs+" --eps E [--delta D] --sens S [--format text]\n       uldp calibrate --mech pvmw --rho R --lmax L --n N [--zeta Z] [--calibration paper|tight]")
	mech := fs.String("mech", "", "mechanism: "+mechs)
	eps := fs.Float64("eps", 0, "privacy parameter ε > 0")
	delta := fs.Float64("delta", 0, "privacy parameter δ in (0, 1) (not used by laplace)")
	sens := fs.Float64("sens", 0, "sensitivity Δ > 0 (ℓ₁ for laplace, ℓ₂ for the Gaussians, target deletion sensitivity for deloutputpert)")
	var pv pvmwCal
	pv.register(fs)
	var f format
	f.register(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if *mech == mechPVMW {
		return pv.run(e, fs, f)
	}
	if set := given(fs); set["rho"] || set["lmax"] || set["n"] || set["zeta"] || set["calibration"] {
		return usagef("--rho, --lmax, --n, --zeta and --calibration are pvmw's: use --mech pvmw, or --eps, --delta and --sens")
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

// mechPVMW is PVMW's name on the command line.
const mechPVMW = "pvmw"

// pvmwCal is calibrate's pvmw flags.
type pvmwCal struct {
	rho, zeta float64
	lmax, n   int
	rule      string
}

func (c *pvmwCal) register(fs *flag.FlagSet) {
	fs.Float64Var(&c.rho, "rho", 0, "pvmw: the zCDP budget ρ of the whole run")
	fs.IntVar(&c.lmax, "lmax", 0, "pvmw: L_max, the updates paid for")
	fs.IntVar(&c.n, "n", 0, "pvmw: the number of examples")
	fs.Float64Var(&c.zeta, "zeta", 0.5, "pvmw: ζ, the tests' and the norm's share of each update's budget (the Gaussian has 1 − ζ)")
	fs.StringVar(&c.rule, "calibration", semisens.CalTight, "pvmw: tight (the Gaussian's std σ/n, spending exactly what is charged) or paper (2σ/n, as printed: four times conservative)")
}

func (c *pvmwCal) run(e *env, fs *flag.FlagSet, f format) error {
	if set := given(fs); set["eps"] || set["delta"] || set["sens"] {
		return usagef("pvmw is calibrated from its zCDP budget: give --rho, --lmax and --n instead of --eps, --delta and --sens")
	}
	if err := required(fs, "rho", "lmax", "n"); err != nil {
		return err
	}
	cal, err := semisens.Calibrate(c.rho, c.lmax, c.n, c.zeta, c.rule)
	if err != nil {
		return usageError{err}
	}
	return f.emit(e, cal, func(w io.Writer) {
		fmt.Fprintf(w, "pvmw (%s calibration): ρ = %.6g over L_max = %d updates, n = %d, ζ = %.3g\n\n", cal.Rule, cal.Rho, cal.LMax, cal.N, cal.Zeta)
		writeSteps(w, cal.Steps)
		fmt.Fprintf(w, "\neach update: a test (ε′²/2), the norm's release (ε′²/2) and a Gaussian (%.6g charged, %.6g spent); L_max·(ε′² + ρ_G) = ρ\n", cal.RhoG, cal.GaussianSpent)
	})
}
