package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/uldplab/uldp/core/runner"
)

// endText writes the output, its cost and the trace.
func endText(w io.Writer, e *runner.Ending) {
	fmt.Fprintf(w, "output %s after %d gradient evaluations (nm = %d)\n", vec(e.Output), e.Gradients, e.NM)
	if e.Trace != nil {
		writeTrace(w, e.Trace)
	}
}

func oirText(w io.Writer, out *runner.OIRReport) {
	fmt.Fprintf(w, "outlier-iterate removal, C = %d groups (%s)\n", out.C, out.Guarantee)
	unmet(w, out.Guarantee)
	for i, ph := range out.Phases {
		fmt.Fprintf(w, "phase %d: %d users, %d steps per group of η = %.4g, τ = %.4g\n", i+1, len(ph.Users), ph.Steps, ph.Eta, ph.Tau)
		for j, e := range ph.EndIterates {
			fmt.Fprintf(w, "  group %d (%s): ends at %s, %d within 2τ, keep %.3g\n", j+1, strings.Join(ph.Groups[j], " "), vec(e), ph.Counts[j], ph.KeepProb[j])
		}
		fmt.Fprintf(w, "  score %.4g, noisy %.4g vs 4C/5 = %.4g (chance of passing %.3g): ", ph.Score, ph.NoisyScore, ph.Gate, ph.PPass)
		switch {
		case !ph.Passed:
			fmt.Fprintln(w, "failed, halt and output 0")
		case ph.Mean == nil:
			fmt.Fprintln(w, "passed, but the coins kept no group: halt and output 0")
		default:
			fmt.Fprintf(w, "passed; kept groups %v, mean %s + N(0, %.4g²I) = %s\n", ph.Kept, vec(ph.Mean), ph.Sigma, vec(ph.Output))
		}
	}
	if out.Stop != "" && !out.Halted {
		fmt.Fprintf(w, "%s: stopped there\n", out.Stop)
	}
	endText(w, &out.Ending)
}
