package main

import (
	"fmt"
	"io"
	"strconv"

	"github.com/uldplab/uldp/core/runner"
	"github.com/uldplab/uldp/core/trace"
)

func ormeText(w io.Writer, out *runner.ORMEReport) {
	n := len(out.NeighbourCounts)
	fmt.Fprintf(w, "ORME on %d users (%s)\n", n, out.Guarantee)
	unmet(w, out.Guarantee)
	c := out.Calibration
	fmt.Fprintf(w, "gate: Lap(%.4g) threshold noise, Lap(%.4g) score noise; σ = %.6g\n", c.ThresholdScale, c.QueryScale, c.Sigma)
	fmt.Fprintf(w, "score s = %.6g vs 4n/5 = %.6g: passes with probability %.6g → %s\n", out.Score, out.Threshold, out.PPass, map[bool]string{true: "passed", false: "halted"}[out.Passed])
	fmt.Fprintln(w, "\nuser\tf_j\tp_j")
	for j := range n {
		fmt.Fprintf(w, "%d\t%d\t%s\n", j+1, out.NeighbourCounts[j], strconv.FormatFloat(out.KeepProb[j], 'g', 4, 64))
	}
	if out.Passed {
		fmt.Fprintf(w, "\nkept %d of %d: %s\nall users' mean %s → output %s\n", len(out.Kept), n, trace.Users(out.KeptIDs), vec(out.Mean), vec(out.Output))
	} else {
		fmt.Fprintf(w, "\noutput ⊥ (the paper's \"0 and halt\")\n")
	}
	writeTrace(w, out.Trace)
}
