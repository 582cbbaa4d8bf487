package audit

import (
	"math"
	"strings"

	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/mech"
	"github.com/uldplab/uldp/core/noise"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
)

// DelMutant is a deliberately broken DelOutputPert, given as the change it
// makes to the exact output law, so the exact audit applies to it unchanged.
type DelMutant struct {
	Name   string `json:"name"`
	Broken string `json:"broken"`
	apply  func(mech.DelLaw) mech.DelLaw
}

// Apply returns the mutant's output law in place of the mechanism's.
func (m DelMutant) Apply(l mech.DelLaw) mech.DelLaw { return m.apply(l) }

var delMutants = []DelMutant{
	{"sigma-over-20", "Gaussian noise at σ/20", func(l mech.DelLaw) mech.DelLaw {
		l.Sigma /= 20
		return l
	}},
	{"r1-fixed", "R1 fixed at κ instead of drawn from TDLap", func(l mech.DelLaw) mech.DelLaw {
		if l.RStar >= 0 && l.RStar <= l.Kappa {
			l.PBottom = 0
		} else {
			l.PBottom, l.Centre = 1, nil
		}
		return l
	}},
	{"no-stability", "stability test skipped: always f(x) + N(0, σ²I)", func(l mech.DelLaw) mech.DelLaw {
		l.PBottom, l.Centre = 0, l.Mean
		return l
	}},
}

// DelMutantNames lists the DelOutputPert mutants.
func DelMutantNames() []string {
	out := make([]string, len(delMutants))
	for i, m := range delMutants {
		out[i] = m.Name
	}
	return out
}

// DelMutantByName looks a mutant up.
func DelMutantByName(name string) (DelMutant, error) {
	for _, m := range delMutants {
		if m.Name == name {
			return m, nil
		}
	}
	return DelMutant{}, format.Errorf("mutant %q: use one of %s", name, strings.Join(DelMutantNames(), ", "))
}

// ATLaw is AboveThreshold's exact transcript law on one query vector:
// entry k−1 is Pr[first ⊥ at query k], the last entry Pr[all ⊤].
type ATLaw []float64

// ATExact returns the mechanism's transcript law.
func ATExact(p mech.ATParams, queries []float64) ATLaw { return mech.ATHaltDistribution(p, queries) }

// AboveThreshold's broken variants.
const (
	// ATNoThreshold omits the threshold noise (Λ = 0): the queries then
	// pass independently, and each ⊤ costs privacy.
	ATNoThreshold = "no-threshold-noise"
	// ATHalfQuery gives each query Lap(2s/ε), half the noise the proof
	// needs: enough when neighbouring queries all move the same way, not
	// when some move up and others down.
	ATHalfQuery = "half-query-noise"
)

// ATMutantNames lists AboveThreshold's broken variants.
func ATMutantNames() []string { return []string{ATNoThreshold, ATHalfQuery} }

// ATMutantLaw returns the transcript law of AboveThreshold broken as name
// (NoMutant: the mechanism's own, ATExact).
func ATMutantLaw(name string) (func(mech.ATParams, []float64) ATLaw, error) {
	switch name {
	case NoMutant:
		return ATExact, nil
	case ATNoThreshold:
		return ATNoThresholdNoise, nil
	case ATHalfQuery:
		return ATHalfQueryNoise, nil
	}
	return nil, format.Errorf("mutant %q: use one of %s", name, strings.Join(append([]string{NoMutant}, ATMutantNames()...), ", "))
}

// ATNoThresholdNoise is the ATNoThreshold mutant's transcript law.
func ATNoThresholdNoise(p mech.ATParams, queries []float64) ATLaw {
	nu := noise.Laplace{Scale: p.QueryScale()}
	out := make(ATLaw, len(queries)+1)
	all := 1.0
	for t, q := range queries {
		pass := nu.Survival(p.Threshold - q)
		out[t] = all * (1 - pass)
		all *= pass
	}
	out[len(queries)] = all
	return out
}

// ATHalfQueryNoise is the ATHalfQuery mutant's transcript law.
func ATHalfQueryNoise(p mech.ATParams, queries []float64) ATLaw {
	return mech.HaltDistribution(p.ThresholdScale(), p.QueryScale()/2, p.Threshold, queries)
}

// ATSampler runs AboveThreshold on the queries, broken as mutant
// (NoMutant: as it is), and outputs the query it halted at (T+1: never).
func ATSampler(p mech.ATParams, queries []float64, mutant string) (Sampler, error) {
	if _, err := ATMutantLaw(mutant); err != nil {
		return nil, err
	}
	return func(s *rng.Streams) ([]float64, error) {
		if mutant == NoMutant {
			a, err := mech.NewAboveThreshold(p, s, nil)
			if err != nil {
				return nil, err
			}
			for k, v := range queries {
				if ok, _ := a.Query(v); !ok {
					return []float64{float64(k + 1)}, nil
				}
			}
			return []float64{float64(len(queries) + 1)}, nil
		}
		threshold, queryScale := p.Threshold, p.QueryScale()
		if mutant == ATHalfQuery {
			threshold -= noise.Laplace{Scale: p.ThresholdScale(), Src: s.Get(rng.ATThreshold)}.Rand()
			queryScale /= 2
		}
		nu := noise.Laplace{Scale: queryScale, Src: s.Get(rng.ATQuery)}
		for k, v := range queries {
			if v+nu.Rand() < threshold {
				return []float64{float64(k + 1)}, nil
			}
		}
		return []float64{float64(len(queries) + 1)}, nil
	}, nil
}

// ATDelta is δ_{A‖B}(ε) = Σ_k max(0, A_k − e^ε B_k) over the transcripts.
func ATDelta(a, b ATLaw, eps float64) float64 {
	ee := math.Exp(eps)
	var d float64
	for k := range a {
		d += math.Max(0, a[k]-ee*b[k])
	}
	return d
}

// ATCurve evaluates both orders at each ε against g, as Curve does.
func ATCurve(a, b ATLaw, g privacy.Guarantee, eps []float64) []Point {
	out := make([]Point, len(eps))
	for i, e := range eps {
		out[i] = judge(Point{Eps: e, DeltaAB: ATDelta(a, b, e), DeltaBA: ATDelta(b, a, e)}, g)
	}
	return out
}
