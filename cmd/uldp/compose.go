package main

import (
	"fmt"
	"io"
	"math"

	"github.com/uldplab/uldp/core/privacy"
)

func cmdCompose(e *env, args []string) error {
	fs := flags(e, "compose", "compose --eps E [--delta D | --sigma S] --k K --delta-slack D' [--rule basic|advanced|zcdp|optimal] [--format text]")
	rule := fs.String("rule", "", "one composition rule (basic, advanced, zcdp or optimal); without it every rule is shown and the total is the smallest ε")
	eps := fs.Float64("eps", 0, "ε of one step")
	delta := fs.Float64("delta", 0, "δ of one step (0 = pure ε-DP); a step with δ > 0 and no --sigma is taken to be (ε, δ)-DP and nothing more")
	sigma := fs.Float64("sigma", 0, "the step is a Gaussian mechanism with noise σ = S·Δ: zCDP uses its exact ρ = 1/(2S²), and its δ at ε follows from S")
	k := fs.Int("k", 0, "number of steps")
	slack := fs.Float64("delta-slack", 0, "extra δ' spent by the advanced, zcdp and optimal rules")
	var f format
	f.register(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := required(fs, "eps", "k"); err != nil {
		return err
	}
	set := given(fs)
	step := privacy.Spend{Label: "step", Eps: *eps, Delta: *delta}
	if set["sigma"] {
		if !(*sigma > 0) || math.IsInf(*sigma, 1) {
			return usagef("sigma = %v: σ/Δ of a Gaussian step must be a finite number > 0", *sigma)
		}
		if err := privacy.CheckEps(*eps); err != nil {
			return usageError{err}
		}
		// The Gaussian's own δ at ε; a larger --delta may be spent instead.
		own := privacy.GaussianDelta(*eps, 1, *sigma)
		if !set["delta"] {
			step.Delta = own
		} else if *delta < own {
			return usagef("delta = %g: a Gaussian mechanism with σ/Δ = %g is (ε = %g, δ)-DP only for δ ≥ %.6g; raise --delta or leave it out", *delta, *sigma, *eps, own)
		}
		step = privacy.GaussianStep("step", *eps, step.Delta, *sigma)
	}
	if *rule == "" {
		if !set["delta-slack"] {
			return usagef("comparing the rules needs --delta-slack δ' (e.g. 1e-6), the extra failure probability advanced, zcdp and optimal composition add; or choose --rule basic")
		}
		c, err := privacy.CompareRules(step, *k, *slack)
		if err != nil {
			return usageError{err}
		}
		return f.emit(e, c, func(w io.Writer) {
			fmt.Fprintf(w, "%d steps of (ε = %g, δ = %.6g), each %s, with δ' = %g\n\n", c.K, c.Per.Eps, c.Per.Delta, c.Kind, c.Slack)
			for _, r := range c.Rules {
				mark := ""
				if r.Rule == c.Best {
					mark = "  ← best"
				}
				fmt.Fprintf(w, "  %-8s ε = %-12.6g δ = %-12.6g%s\n", r.Rule, r.Total.Eps, r.Total.Delta, mark)
			}
			fmt.Fprintf(w, "\ntotal: (ε = %.6g, δ = %.6g), by %s composition (the smallest ε; within 0.1 %%, the smaller δ); every rule above is sound\n", c.Total.Eps, c.Total.Delta, c.Best)
		})
	}
	r, err := privacy.ParseRule(*rule)
	if err != nil {
		return usageError{err}
	}
	if r.NeedsSlack() && !set["delta-slack"] {
		return usagef("%s composition needs --delta-slack δ' (e.g. 1e-6): the extra failure probability it adds", r)
	}
	if !r.NeedsSlack() && set["delta-slack"] {
		return usagef("--delta-slack applies to advanced, zcdp and optimal only")
	}
	c, err := privacy.Compose(r, step, *k, *slack)
	if err != nil {
		return usageError{err}
	}
	return f.emit(e, c, func(w io.Writer) {
		fmt.Fprintf(w, "%d steps of (ε = %g, δ = %.6g), each %s, under %s composition\n", c.K, c.Per.Eps, c.Per.Delta, c.Kind, c.Rule)
		fmt.Fprintf(w, "formula: %s\n\n", c.Formula)
		writeSteps(w, c.Steps)
		fmt.Fprintf(w, "\ntotal: (ε = %.6g, δ = %.6g)\n", c.Total.Eps, c.Total.Delta)
		if c.Rule != privacy.Basic {
			fmt.Fprintf(w, "basic composition would give (ε = %.6g, δ = %.6g)\n", c.Basic.Eps, c.Basic.Delta)
		}
	})
}
