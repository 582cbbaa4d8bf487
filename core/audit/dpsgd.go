package audit

import (
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/loss"
	"github.com/uldplab/uldp/core/mech"
	"github.com/uldplab/uldp/core/noise"
	"github.com/uldplab/uldp/core/optim"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/core/robust"
)

// DPSGDRuns is user-level DP-SGD on one dataset, as the Monte Carlo audit
// samples it.
type DPSGDRuns struct {
	// Sample draws one run's output; a halted run's θ₀ does not depend on
	// the data and comes out as nil, the audit's atom.
	Sample Sampler
	// Halt is the exact probability that the gate fails at some step.
	Halt float64
	// Guarantee is the real run's promise, and Calibration its ORME's.
	Guarantee   privacy.Guarantee
	Calibration mech.ORMECalibration
}

// SampleDPSGD prepares runs of user-level DP-SGD (Paper B Alg. 3), or of
// the run with one of ORME's variants inside every step, on data.
//
// It needs the squared loss without smoothing. Each user's gradient at θ
// is then μ(θ − x̄_i), so two users' gradients differ by the same vector
// at every step: the concentration scores, the neighbour counts and the
// keep ramp are those of the item means and are computed once, and the
// gate, which sees the same score T times, halts by the exact law of
// AboveThreshold (mech.HaltDistribution) — one draw per run. What is left
// per step is what depends on the randomness: coins for the users on the
// ramp (a user kept with probability 0 or 1 needs none), the noise and the
// projected step. The law is the real run's; a test compares the two.
func SampleDPSGD(p optim.DPSGDParams, data *dataset.Dataset, mutant string) (DPSGDRuns, error) {
	r, err := prepareDPSGD(p, data, mutant)
	if err != nil {
		return DPSGDRuns{}, err
	}
	theta0 := make([]float64, data.Dim)
	if p.Theta0 != nil {
		r.dom.Project(p.Theta0, theta0)
	}
	sample := func(st *rng.Streams) ([]float64, error) {
		out, halted := r.run(st, theta0)
		if halted {
			return nil, nil // halted at some step: θ₀, whatever the data
		}
		return out, nil
	}
	return DPSGDRuns{Sample: sample, Halt: r.halt, Guarantee: p.Guarantee(r.cal), Calibration: r.cal}, nil
}

// sgdRun is a DP-SGD run on one dataset made ready to sample from any
// start (see SampleDPSGD).
type sgdRun struct {
	p      optim.DPSGDParams
	mu     float64
	cal    mech.ORMECalibration
	halt   float64     // Pr[the gate fails at some step], exactly
	means  [][]float64 // μ·x̄_i
	sure   []float64   // Σ μx̄ over the users kept for sure
	nSure  int
	groups []coinGroup // the users on the ramp, by keep probability
	dom    loss.Ball
}

// prepareDPSGD checks p and data and computes what a run's randomness
// does not change: the scores, the ramp and the gate's halting law.
func prepareDPSGD(p optim.DPSGDParams, data *dataset.Dataset, mutant string) (*sgdRun, error) {
	if mutant != "" && !slices.Contains(ORMEMutantNames(), mutant) {
		return nil, format.Errorf("DP-SGD variant %q: use one of %s (ORME's, inside every step)", mutant, strings.Join(ORMEMutantNames(), ", "))
	}
	sq, ok := p.Loss.(loss.Squared)
	switch {
	case !ok:
		return nil, format.Errorf("the DP-SGD audit samples the squared loss only: its users' gradients keep their distances from step to step, so the scores are computed once")
	case p.Smoothing != 0:
		return nil, format.Errorf("smoothing = %v: the DP-SGD audit samples runs without smoothing (0); the perturbations would move users' gradients apart differently at every step", p.Smoothing)
	case data == nil || data.N() < 2:
		return nil, format.Errorf("no data: the audit needs at least 2 users")
	}
	if err := p.Validate(data.Dim); err != nil {
		return nil, err
	}
	m, ok := data.M()
	if !ok {
		return nil, format.Errorf("users hold different numbers of items: DP-SGD needs the same m for every user")
	}
	n, d := data.N(), data.Dim
	me := p.ORME(n, m, d)
	cal, err := me.Calibrate(n)
	if err != nil {
		return nil, err
	}
	r := &sgdRun{p: p, mu: sq.Mu, cal: cal, means: data.Means(), sure: make([]float64, d),
		dom: loss.Ball{Centre: make([]float64, d), Radius: p.Radius}}
	for _, v := range r.means {
		for k := range v {
			v[k] *= sq.Mu
		}
	}
	counts := robust.NewIndex(r.means).CountsAt(p.Tau, 2*p.Tau)
	r.halt = haltProbability(me, cal, mutant, robust.Score(counts[0]))
	ramp := map[float64][]int{}
	for j, f := range counts[1] {
		switch q := robust.Keep(f, n); {
		case mutant == ORMEKeepAll || q == 1:
			r.nSure++
			for k, v := range r.means[j] {
				r.sure[k] += v
			}
		case q > 0:
			ramp[q] = append(ramp[q], j)
		}
	}
	for _, q := range slices.Sorted(maps.Keys(ramp)) {
		r.groups = append(r.groups, coinGroup{logMiss: math.Log1p(-q), users: ramp[q]})
	}
	return r, nil
}

// run draws one run from theta0 (in the domain): the average of its
// iterates, or halted when the gate fails at some step (the run then
// answers theta0).
func (r *sgdRun) run(st *rng.Streams, theta0 []float64) (out []float64, halted bool) {
	if u := st.Get(rng.ATQuery).Float64(); u < r.halt {
		return theta0, true
	}
	p, d := r.p, len(theta0)
	coins, g := st.Get(rng.Keep), noise.Gaussian{Sigma: r.cal.Sigma, Src: st.Get(rng.Gauss)}
	theta, avg, sum := slices.Clone(theta0), make([]float64, d), make([]float64, d)
	for range p.Steps {
		for k, v := range theta {
			avg[k] += v / float64(p.Steps)
		}
		copy(sum, r.sure)
		kept := r.nSure
		for _, grp := range r.groups {
			for j := grp.next(coins, -1); j < len(grp.users); j = grp.next(coins, j) {
				kept++
				for k, v := range r.means[grp.users[j]] {
					sum[k] += v
				}
			}
		}
		for k := range theta {
			var grad float64 // an empty selection's mean is 0, as ORME has it
			if kept > 0 {
				grad = r.mu*theta[k] - sum[k]/float64(kept)
			}
			theta[k] -= p.Eta * (grad + g.Rand())
		}
		r.dom.Project(theta, theta)
	}
	return avg, false
}

// DPSGDSCRuns is Paper B's strongly convex localisation on one dataset, as
// the Monte Carlo audit samples it.
type DPSGDSCRuns struct {
	// Sample draws one run's output; a run whose every phase halted
	// answers θ₀, which does not depend on the data, and comes out as nil.
	Sample Sampler
	// Halts are the exact probabilities that each phase's gate fails at
	// some step; the phases halt independently.
	Halts []float64
	// Guarantee is the real run's promise.
	Guarantee privacy.Guarantee
}

// SampleDPSGDSC prepares runs of the strongly convex localisation (Paper B
// Alg. 4), or of the run with one of ORME's variants inside every step of
// every phase, on data. Each phase is DP-SGD on its own users from the
// last phase's answer (a halted phase passes its start on), sampled as
// SampleDPSGD samples a run; p must be Unsmoothed, so that each phase's
// scores, and its gate's halting law, do not depend on where it starts.
func SampleDPSGDSC(p optim.DPSGDSCParams, data *dataset.Dataset, mutant string) (DPSGDSCRuns, error) {
	if !p.Unsmoothed {
		return DPSGDSCRuns{}, format.Errorf("the localisation's audit samples unsmoothed runs: with smoothing each phase's scores change from step to step")
	}
	if data == nil || data.N() < 2 {
		return DPSGDSCRuns{}, format.Errorf("no data: the audit needs at least 2 users")
	}
	if err := p.Validate(data.Dim); err != nil {
		return DPSGDSCRuns{}, err
	}
	plan, groups, err := p.Split(data)
	if err != nil {
		return DPSGDSCRuns{}, err
	}
	m, _ := data.M()
	phases := make([]*sgdRun, len(plan))
	halts := make([]float64, len(plan))
	kept := make([]privacy.Guarantee, len(plan))
	for i := range plan {
		q := p.PhaseParams(&plan[i], m, data.Dim)
		if phases[i], err = prepareDPSGD(q, groups[i], mutant); err != nil {
			return DPSGDSCRuns{}, format.Errorf("phase %d: %w", i+1, err)
		}
		halts[i], kept[i] = phases[i].halt, q.Guarantee(phases[i].cal)
	}
	theta0 := make([]float64, data.Dim)
	if p.Theta0 != nil {
		phases[0].dom.Project(p.Theta0, theta0)
	}
	sample := func(st *rng.Streams) ([]float64, error) {
		theta, moved := theta0, false
		for _, ph := range phases {
			out, halted := ph.run(st, theta)
			theta, moved = out, moved || !halted
		}
		if !moved {
			return nil, nil
		}
		return theta, nil
	}
	return DPSGDSCRuns{Sample: sample, Halts: halts, Guarantee: p.Guarantee(kept)}, nil
}

// coinGroup is users kept with the same probability q < 1. Rather than a
// coin each, a run jumps from one kept user to the next by the geometric
// law of the gap between successes, Pr[gap = k] = (1 − q)^k·q — the same
// law for the kept set, with about q·len(users) + 1 draws: the two-crowds
// pair has 301 users kept with probability 1/100 each.
type coinGroup struct {
	logMiss float64 // ln(1 − q)
	users   []int
}

// next returns the index after j of the next kept user (len(users): none).
func (g coinGroup) next(r *rand.Rand, j int) int {
	gap := math.Floor(math.Log(1-r.Float64()) / g.logMiss) // 1 − U ∈ (0, 1]
	if gap >= float64(len(g.users)-j-1) {
		return len(g.users)
	}
	return j + 1 + int(gap)
}

// FormatProbability prints a probability from an exact law computed by
// quadrature, accurate to about 10⁻¹²: a smaller nonzero value is noise
// and prints as that bound.
func FormatProbability(p float64) string {
	switch {
	case p == 0:
		return "0"
	case p < 1e-12:
		return "< 10⁻¹²"
	}
	return strconv.FormatFloat(p, 'g', 4, 64)
}

// haltProbability is the probability that ORME's gate (or the variant's)
// fails at some step when every one of the T queries has score s.
func haltProbability(p mech.ORMEParams, cal mech.ORMECalibration, mutant string, s float64) float64 {
	b1, b2, open := gateScales(p, cal, mutant)
	if open {
		return 0
	}
	scores := make([]float64, p.Queries)
	for t := range scores {
		scores[t] = s
	}
	law := mech.HaltDistribution(b1, b2, cal.Gate.Threshold, scores)
	return 1 - law[len(law)-1]
}
