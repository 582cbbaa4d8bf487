package main

import (
	"fmt"
	"io"

	"github.com/uldplab/uldp/core/runner"
)

func accelText(w io.Writer, out *runner.AccelReport) {
	fmt.Fprintf(w, "accelerated outlier removal, p = %.4g (%s)\n", out.PExp, out.Guarantee)
	unmet(w, out.Guarantee)
	for i, ph := range out.Phases {
		capped := ""
		if ph.Capped {
			capped = fmt.Sprintf(" (printed %.4g, capped)", ph.Printed)
		}
		fmt.Fprintf(w, "phase %d: %d users, λ = %.4g, T = %d steps of K = %d%s, τ = %.4g, σ = %.4g, from %s\n",
			i+1, len(ph.Users), ph.Lambda, ph.T, ph.Batch, capped, ph.Tau, ph.Sigma, vec(ph.Start))
		for _, st := range ph.Steps {
			fmt.Fprintf(w, "  step %d at %s: score %.4g, noisy %.4g vs %.4g: ", st.T, vec(st.Query), st.Score, st.NoisyScore, st.Threshold)
			if !st.Passed {
				fmt.Fprintln(w, "failed, the phase returns 0")
				continue
			}
			fmt.Fprintf(w, "passed; kept %d of %d; G = %s\n", len(st.Kept), len(st.Users), vec(st.Gradient))
		}
		if ph.Halted && len(ph.Steps) > 0 && ph.Steps[len(ph.Steps)-1].Passed {
			fmt.Fprintln(w, "  the coins kept nobody: the phase returns 0")
		}
		fmt.Fprintf(w, "  phase output %s\n", vec(ph.Output))
	}
	if out.Stop != "" {
		fmt.Fprintf(w, "%s\n", out.Stop)
	}
	endText(w, &out.Ending)
}
