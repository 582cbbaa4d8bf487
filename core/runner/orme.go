package runner

import (
	"github.com/uldplab/uldp/core/cancel"
	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/mech"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/core/trace"
)

// ORMEReport is an ORME run (the contract: score, threshold, p_pass,
// neighbour_counts, keep_prob, passed, kept, sigma, output), describing
// the first query; outputs holds all T answers.
type ORMEReport struct {
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

func (*ORMEReport) report() {}

// ORMEParams checks the parameters and returns ORME's.
func (c *Config) ORMEParams() (mech.ORMEParams, error) {
	if err := c.checkParams(); err != nil {
		return mech.ORMEParams{}, c.named(err)
	}
	mode, err := privacy.ParseMode(c.Mode)
	if err != nil {
		return mech.ORMEParams{}, err
	}
	p := mech.ORMEParams{Eps: c.Eps, Delta: c.Delta, Tau: c.Tau, Queries: c.Queries, Mode: mode}
	return p, c.named(p.Validate())
}

func (c *Config) ormeJob() (Job, error) {
	p, err := c.ORMEParams()
	if err != nil {
		return Job{}, err
	}
	return Job{"computing the concentration scores", func(ctx cancel.Context, ds *dataset.Dataset, s *rng.Streams, _ mech.Progress) (Report, *trace.Trace, error) {
		if err := traceFits(p.Queries, ds, "--queries", "ask fewer queries"); err != nil {
			return nil, nil, err
		}
		// Each query scores all n² pairs of users.
		if work := float64(p.Queries) * float64(ds.N()) * float64(ds.N()); work > maxPairScores {
			return nil, nil, format.Errorf("--queries %d × %d users² = %.2g pair scores: at most %.0e (minutes of work); ask fewer queries", p.Queries, ds.N(), work, float64(maxPairScores))
		}
		rec := trace.NewRecorder("orme", s.Seed())
		o, err := mech.NewORME(p, ds.N(), s, rec)
		if err != nil {
			return nil, nil, err
		}
		values := ds.Means() // each user's query value q(Z) is their item mean
		out := ORMEReport{Mechanism: "orme", Calibration: o.Calibration(), Sigma: o.Calibration().Sigma,
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
		return &out, out.Trace, nil
	}}, nil
}
