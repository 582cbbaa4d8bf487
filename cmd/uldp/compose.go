package main

import (
	"fmt"
	"io"

	"github.com/uldplab/uldp/core/privacy"
)

func cmdCompose(e *env, args []string) error {
	fs := flags(e, "compose", "compose --rule basic|advanced|zcdp --eps E [--delta D] --k K [--delta-slack D'] [--format text]")
	rule := fs.String("rule", "", "composition rule: basic, advanced or zcdp")
	eps := fs.Float64("eps", 0, "ε of one step")
	delta := fs.Float64("delta", 0, "δ of one step (0 = pure ε-DP; under zcdp a step with δ > 0 is read as a Gaussian mechanism calibrated to (ε, δ))")
	k := fs.Int("k", 0, "number of steps")
	slack := fs.Float64("delta-slack", 0, "extra δ' spent by the advanced and zcdp rules")
	var f format
	f.register(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := required(fs, "rule", "eps", "k"); err != nil {
		return err
	}
	r, err := privacy.ParseRule(*rule)
	if err != nil {
		return usageError{err}
	}
	if r.NeedsSlack() && !given(fs)["delta-slack"] {
		return usagef("%s composition needs --delta-slack δ' (e.g. 1e-6): the extra failure probability it adds", r)
	}
	if !r.NeedsSlack() && given(fs)["delta-slack"] {
		return usagef("--delta-slack applies to advanced and zcdp only")
	}
	c, err := privacy.Compose(r, privacy.Budget{Eps: *eps, Delta: *delta}, *k, *slack)
	if err != nil {
		return usageError{err}
	}
	return f.emit(e, c, func(w io.Writer) {
		fmt.Fprintf(w, "%d steps of (ε = %g, δ = %g) under %s composition\n", c.K, c.Per.Eps, c.Per.Delta, c.Rule)
		fmt.Fprintf(w, "formula: %s\n\n", c.Formula)
		writeSteps(w, c.Steps)
		fmt.Fprintf(w, "\ntotal: (ε = %.6g, δ = %.6g)\n", c.Total.Eps, c.Total.Delta)
		if c.Rule != privacy.Basic {
			fmt.Fprintf(w, "basic composition would give (ε = %.6g, δ = %.6g)\n", c.Basic.Eps, c.Basic.Delta)
		}
	})
}
