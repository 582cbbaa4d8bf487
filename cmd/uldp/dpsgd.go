package main

import (
	"fmt"
	"io"

	"github.com/uldplab/uldp/core/runner"
)

func dpsgdText(w io.Writer, out *runner.DPSGDReport) {
	s := out.Settings
	fmt.Fprintf(w, "user-level DP-SGD (%s)\n", out.Guarantee)
	unmet(w, out.Guarantee)
	fmt.Fprintf(w, "T = %d steps, η = %.4g, smoothing r = %.4g, τ = %.4g; ORME's σ per step = %.4g\n", s.Steps, s.Eta, s.Smoothing, s.Tau, out.Sigma)
	if out.Halted > 0 {
		fmt.Fprintf(w, "the gate failed at step %d: θ̂ = θ₀ = %s\n", out.Halted, vec(out.Theta))
	} else {
		fmt.Fprintf(w, "θ̂ (the average of the iterates) = %s\n", vec(out.Theta))
	}
	if out.Trace != nil {
		writeTrace(w, out.Trace)
	}
}

func dpsgdSCText(w io.Writer, out *runner.DPSGDSCReport) {
	fmt.Fprintf(w, "DP-SGD, strongly convex localisation (%s)\n", out.Guarantee)
	unmet(w, out.Guarantee)
	for _, ph := range out.Phases {
		s := ph.Settings
		fmt.Fprintf(w, "phase %d on %d users: R̂ = %.4g, T = %d, η = %.3g, r = %.3g, τ = %.3g → %s", ph.I, ph.Users, ph.RHat, s.Steps, s.Eta, s.Smoothing, s.Tau, vec(ph.Theta))
		if ph.Halted > 0 {
			fmt.Fprintf(w, " (the gate failed at step %d: its start)", ph.Halted)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "θ̂ = %s\n", vec(out.Theta))
}
