package audit

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/uldplab/uldp/core/mech"
	"github.com/uldplab/uldp/core/privacy"
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
// by at most Δ_s; wider pairs are refused. Scores lie in [1, n].
func ORMEGatePair(p mech.ORMEParams, n int, a, b []float64, mutant string) (ATLaw, ATLaw, error) {
	if mutant != "" && !slices.Contains(ORMEMutantNames(), mutant) {
		return nil, nil, fmt.Errorf("ORME variant %q: use one of %s", mutant, strings.Join(ORMEMutantNames(), ", "))
	}
	cal, err := p.Calibrate(n)
	if err != nil {
		return nil, nil, err
	}
	switch {
	case len(a) == 0 || len(a) != len(b):
		return nil, nil, fmt.Errorf("%d and %d scores: give both runs the same number of queries, at least 1", len(a), len(b))
	case len(a) > p.Queries:
		return nil, nil, fmt.Errorf("%d queries: the budget covers T = %d", len(a), p.Queries)
	}
	sens := 2 * float64(n-1) / float64(n) // the true sensitivity, whatever the mode assumes
	for t := range a {
		for _, s := range []float64{a[t], b[t]} {
			if !(s >= 1 && s <= float64(n)) {
				return nil, nil, fmt.Errorf("query %d: score %v is outside [1, n = %d]", t+1, s, n)
			}
		}
		if math.Abs(a[t]-b[t]) > sens*(1+1e-12) {
			return nil, nil, fmt.Errorf("query %d: scores %v and %v differ by more than 2(n−1)/n = %.4g, so no neighbouring pair of users gives them", t+1, a[t], b[t], sens)
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

// GateGuarantee is the gate's share of ORME's promise: (ε/2, 0).
func GateGuarantee(p mech.ORMEParams) privacy.Guarantee {
	return privacy.Guarantee{Eps: p.Eps / 2, Mode: p.Mode, Note: "ORME's gate: AboveThreshold at ε/2 over all T queries"}
}
