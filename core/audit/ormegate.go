package audit

import (
	"math"
	"slices"
	"strings"

	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/mech"
	"github.com/uldplab/uldp/core/noise"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/core/robust"
)

// gateScales are the Laplace scales of ORME's gate as the variant under
// audit has them; open means there is no gate (every query passes).
func gateScales(p mech.ORMEParams, cal mech.ORMECalibration, mutant string) (threshold, score float64, open bool) {
	switch {
	case p.Mode == privacy.NonPrivate || mutant == ORMENoGate:
		return 0, 0, true
	case mutant == ORMEHalfScoreNoise:
		return cal.ThresholdScale, cal.QueryScale / 2, false
	}
	return cal.ThresholdScale, cal.QueryScale, false
}

// gatePass is the probability that one query of score s passes the gate.
func gatePass(p mech.ORMEParams, cal mech.ORMECalibration, mutant string, s float64) float64 {
	b1, b2, open := gateScales(p, cal, mutant)
	if open {
		return 1
	}
	return mech.LaplaceSumSurvival(b1, b2, cal.Gate.Threshold-s)
}

// ORMEGatePair returns the transcript laws of ORME's gate (or a variant's)
// on two runs of T queries over n users whose concentration scores are a
// and b: when the gate first fails, or that it never does. ORME's proof
// spends ε/2 of its budget here, on AboveThreshold with the score's
// sensitivity Δ_s: a pure (ε/2, 0) promise for any number of queries
// (GateGuarantee), which this audit checks on its own. The whole
// mechanism's (ε, δ) cannot expose a gate that overspends by less than ε/2
// — its transcript is then still within ε — so a gate bug hides behind
// the rest of the budget unless its share is audited.
//
// Neighbouring runs differ in one user, so each query's scores may differ
// by at most 2(n−1)/n; wider pairs are refused. Scores lie in [1, n].
func ORMEGatePair(p mech.ORMEParams, n int, a, b []float64, mutant string) (ATLaw, ATLaw, error) {
	cal, err := gateCalibration(p, n, a, mutant)
	if err != nil {
		return nil, nil, err
	}
	if err := checkScores(n, b); err != nil {
		return nil, nil, err
	}
	if len(a) != len(b) {
		return nil, nil, format.Errorf("%d and %d scores: give both runs the same number of queries", len(a), len(b))
	}
	sens := 2 * float64(n-1) / float64(n) // the true sensitivity, whatever the mode assumes
	for t := range a {
		if math.Abs(a[t]-b[t]) > sens*(1+1e-12) {
			return nil, nil, format.Errorf("query %d: scores %v and %v differ by more than 2(n−1)/n = %.4g, so no neighbouring pair of users gives them", t+1, a[t], b[t], sens)
		}
	}
	b1, b2, open := gateScales(p, cal, mutant)
	law := func(scores []float64) ATLaw {
		if open {
			out := make(ATLaw, len(scores)+1)
			out[len(scores)] = 1
			return out
		}
		return mech.HaltDistribution(b1, b2, cal.Gate.Threshold, scores)
	}
	return law(a), law(b), nil
}

// gateCalibration validates the variant and one run's scores and
// calibrates ORME for n users.
func gateCalibration(p mech.ORMEParams, n int, scores []float64, mutant string) (mech.ORMECalibration, error) {
	if mutant != "" && !slices.Contains(ORMEMutantNames(), mutant) {
		return mech.ORMECalibration{}, format.Errorf("ORME variant %q: use one of %s", mutant, strings.Join(ORMEMutantNames(), ", "))
	}
	cal, err := p.Calibrate(n)
	if err != nil {
		return cal, err
	}
	if len(scores) > p.Queries {
		return cal, format.Errorf("%d queries: the budget covers T = %d", len(scores), p.Queries)
	}
	return cal, checkScores(n, scores)
}

func checkScores(n int, scores []float64) error {
	if len(scores) == 0 {
		return format.Errorf("no scores: give at least one query")
	}
	for t, s := range scores {
		if !(s >= 1 && s <= float64(n)) {
			return format.Errorf("query %d: score %v is outside [1, n = %d]", t+1, s, n)
		}
	}
	return nil
}

// ORMEGateSampler runs the gate (or a variant's) on the scores and outputs
// the query it halts at (T+1: never), for the Monte Carlo audit.
func ORMEGateSampler(p mech.ORMEParams, n int, scores []float64, mutant string) (Sampler, error) {
	cal, err := gateCalibration(p, n, scores, mutant)
	if err != nil {
		return nil, err
	}
	b1, b2, open := gateScales(p, cal, mutant)
	never := []float64{float64(len(scores) + 1)}
	return func(st *rng.Streams) ([]float64, error) {
		if open {
			return never, nil
		}
		// One threshold draw for the whole run, as AboveThreshold has it.
		thr := cal.Gate.Threshold + noise.Laplace{Scale: b1, Src: st.Get(rng.ATThreshold)}.Rand()
		nu := noise.Laplace{Scale: b2, Src: st.Get(rng.ATQuery)}
		for t, s := range scores {
			if s+nu.Rand() < thr {
				return []float64{float64(t + 1)}, nil
			}
		}
		return never, nil
	}, nil
}

// FlippingScores are the scores of a neighbouring pair of runs that makes
// AboveThreshold pay twice for its halting query: n users in 1-D, the
// changed one inside a crowd of the given size in run A and alone in run
// B for the first T−1 queries, the other way round at the last. The others
// sit alone, more than 2τ apart. The scores are computed from those users
// as ORME computes them.
func FlippingScores(n, crowd, queries int, tau float64) (a, b []float64, err error) {
	switch {
	case crowd < 1 || crowd > n-1:
		return nil, nil, format.Errorf("crowd of %d: choose 1 to n − 1 = %d other users", crowd, n-1)
	case queries < 1:
		return nil, nil, format.Errorf("%d queries: choose at least 1", queries)
	case !(tau > 0) || math.IsInf(tau, 0):
		return nil, nil, format.Errorf("τ = %v: must be a finite number > 0", tau)
	}
	score := func(in bool) float64 {
		pts := make([][]float64, n)
		pts[0] = []float64{-10 * tau}
		if in {
			pts[0][0] = 0
		}
		for i := 1; i < n; i++ {
			pts[i] = []float64{0}
			if i > crowd {
				pts[i][0] = 10 * tau * float64(i)
			}
		}
		return robust.Score(robust.NewIndex(pts).CountsAt(tau)[0])
	}
	in, out := score(true), score(false)
	for q := range queries {
		if q < queries-1 {
			a, b = append(a, in), append(b, out)
		} else {
			a, b = append(a, out), append(b, in)
		}
	}
	return a, b, nil
}

// GateGuarantee is the gate's share of ORME's promise: (ε/2, 0).
func GateGuarantee(p mech.ORMEParams) privacy.Guarantee {
	return privacy.Guarantee{Eps: p.Eps / 2, Mode: p.Mode, Note: "ORME's gate: AboveThreshold at ε/2 over all T queries"}
}
