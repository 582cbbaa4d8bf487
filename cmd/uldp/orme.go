package main

import (
	"fmt"
	"io"
	"strconv"

	"github.com/uldplab/uldp/core/cancel"
	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/mech"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/core/trace"
)

// ormeOut is an ORME run (the contract: score, threshold, p_pass,
// neighbour_counts, keep_prob, passed, kept, sigma, output), describing
// the first query; outputs holds all T answers.
type ormeOut struct {
	Mechanism string  `json:"mechanism"`
	Score     float64 `json:"score"`
	Threshold float64 `json:"threshold"`
	PPass     float64 `json:"p_pass"`
	// NeighbourCounts and KeepProb are f_j and p_j in CSV order.
	NeighbourCounts []int     `json:"neighbour_counts"`
	KeepProb        []float64 `json:"keep_prob"`
	Passed          bool      `json:"passed"`
	// Kept are 1-based positions in CSV order; KeptIDs the users' ids.
	Kept        []int                `json:"kept"`
	KeptIDs     []string             `json:"kept_ids"`
	Sigma       float64              `json:"sigma"`
	Output      []float64            `json:"output"`  // null on a halt
	Outputs     [][]float64          `json:"outputs"` // one per query asked; null once halted
	Mean        []float64            `json:"mean"`    // every user's mean, for comparison
	Calibration mech.ORMECalibration `json:"calibration"`
	Guarantee   privacy.Guarantee    `json:"guarantee"`
	Seed        uint64               `json:"seed"`
	Trace       *trace.Trace         `json:"trace"`
}

func (d *mechFlags) ormeJob() (job, error) {
	mode, err := privacy.ParseMode(d.mode)
	if err != nil {
		return job{}, usageError{err}
	}
	p := mech.ORMEParams{Eps: d.eps, Delta: d.delta, Tau: d.tau, Queries: d.queries, Mode: mode}
	if err := p.Validate(); err != nil {
		return job{}, usageError{err}
	}
	return job{"computing the concentration scores", func(ctx cancel.Context, ds *dataset.Dataset, s *rng.Streams, _ mech.Progress) (report, *trace.Trace, error) {
		if err := traceFits(p.Queries, ds, "--queries", "ask fewer queries"); err != nil {
			return nil, nil, err
		}
		// Each query scores all n² pairs of users.
		if work := float64(p.Queries) * float64(ds.N()) * float64(ds.N()); work > maxPairScores {
			return nil, nil, usagef("--queries %d × %d users² = %.2g pair scores: at most %.0e (minutes of work); ask fewer queries", p.Queries, ds.N(), work, float64(maxPairScores))
		}
		rec := trace.NewRecorder("orme", s.Seed())
		o, err := mech.NewORME(p, ds.N(), s, rec)
		if err != nil {
			return nil, nil, err
		}
		values := ds.Means() // each user's query value q(Z) is their item mean
		out := ormeOut{Mechanism: "orme", Calibration: o.Calibration(), Sigma: o.Calibration().Sigma,
			Guarantee: o.Calibration().Guarantee(), Seed: s.Seed(), Kept: []int{}, KeptIDs: []string{}}
		for i := range p.Queries {
			if err := ctx.Err(); err != nil {
				return nil, nil, err
			}
			st, err := o.Query(values)
			if err != nil {
				return nil, nil, err
			}
			out.Outputs = append(out.Outputs, st.Output)
			if i == 0 {
				out.Score, out.Threshold, out.PPass, out.Passed = st.Score, st.Threshold, st.PPass, st.Passed
				out.NeighbourCounts, out.KeepProb, out.Output, out.Mean = st.Counts, st.Keep, st.Output, st.AllMean
				for _, j := range st.Kept {
					out.Kept = append(out.Kept, j+1)
					out.KeptIDs = append(out.KeptIDs, ds.Users[j].ID)
				}
			}
			if !st.Passed {
				break
			}
		}
		out.Trace = rec.Trace()
		return out, out.Trace, nil
	}}, nil
}

func (out ormeOut) text(w io.Writer) {
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
