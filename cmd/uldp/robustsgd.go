package main

import (
	"fmt"
	"io"

	"github.com/uldplab/uldp/core/runner"
	"github.com/uldplab/uldp/core/trace"
)

func robustText(w io.Writer, out *runner.RobustReport) {
	fmt.Fprintf(w, "robust-statistics SGD (%s)\n", out.Guarantee)
	unmet(w, out.Guarantee)
	phases := out.Phases
	if out.RobustPhase != nil {
		phases = []runner.RobustPhase{*out.RobustPhase}
	}
	for i, ph := range phases {
		if len(phases) > 1 {
			fmt.Fprintf(w, "phase %d: ", i+1)
		}
		fmt.Fprintf(w, "%s of η = %.4g; test threshold v = %.4g", trace.Count(len(ph.Scores), "step"), ph.Eta, ph.Threshold)
		if ph.ScoreNoiseScale > 0 {
			fmt.Fprintf(w, " (noisy %.4g; score noise Lap(%.3g))", ph.NoisyThreshold, ph.ScoreNoiseScale)
		}
		fmt.Fprintln(w)
		for t, s := range ph.Scores {
			fmt.Fprintf(w, "  step %d: score %.4g, estimate %s, x = %s\n", t+1, s, vec(ph.Estimates[t]), vec(ph.Iterates[t]))
		}
		if ph.FailedAt != nil {
			fmt.Fprintf(w, "  the test failed at step %d: the phase answers its start", *ph.FailedAt)
		} else {
			fmt.Fprintf(w, "  every test passed: the phase answers the average %s", vec(ph.Average))
		}
		fmt.Fprintf(w, " + N(0, %.4g²I) = %s\n", ph.Sigma, vec(ph.Output))
	}
	fmt.Fprintf(w, "output %s\n", vec(out.Output))
	if out.Trace != nil {
		writeTrace(w, out.Trace)
	}
}
