package audit

import (
	"context"
	"math"
	"slices"

	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/noise"
	"github.com/uldplab/uldp/core/optim"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
)

// OIRMaxMixed caps the groups whose keep probability lies strictly
// between 0 and 1 on a side: the exact law has 2^k components.
const OIRMaxMixed = 8

// OIRSide is one side's phase: its score, its gate, its ramp.
type OIRSide struct {
	Score  float64   `json:"score"`
	PPass  float64   `json:"p_pass"`
	Counts []int     `json:"counts"`
	Keep   []float64 `json:"keep_prob"`
	// Ends are the groups' end iterates.
	Ends [][]float64 `json:"end_iterates"`
	// Halt is Pr[the phase outputs exactly 0]: the gate fails, or (with
	// the halt policy) the coins keep no group.
	Halt float64 `json:"p_halt"`
	// Means are the kept means the output can be centred on, with their
	// probabilities Weights (summing to 1 − Halt).
	Means   [][]float64 `json:"means"`
	Weights []float64   `json:"weights"`
}

// OIRLaw is the exact law of the phase of outlier-iterate removal that
// holds the changed user, on both sides of a neighbouring pair. Given
// its start the phase's end iterates are fixed by the data and the seed's
// partition and item order (the same on both sides); what remains random
// is the gate's Laplace draw, the coins (independent Bernoullis on the
// ramp) and the Gaussian — each with a closed-form law.
type OIRLaw struct {
	// User is the changed user (0-based), −1 when A and B are the same.
	// Phase and Group hold the changed user (1-based); Group 0 means the
	// phase leaves them out of every group, Phase 0 that no phase the run
	// reaches holds them (or that nobody changed). Either way both sides
	// run alike.
	User  int       `json:"user"`
	Phase int       `json:"phase"`
	Group int       `json:"group"`
	C     int       `json:"C"`
	Start []float64 `json:"start"`
	Tau   float64   `json:"tau"`
	Gate  float64   `json:"gate"`
	Sigma float64   `json:"sigma"`
	A     OIRSide   `json:"a"`
	B     OIRSide   `json:"b"`
	// GateLoss is max |ln| of the gate's pass and fail probabilities'
	// ratios; GateBudget the ε_g the accounting gives the gate.
	GateLoss   float64 `json:"gate_loss"`
	GateBudget float64 `json:"gate_budget"`
	// Direction is the unit vector the outputs are projected on; Points
	// the projected laws' δ(ε) in both orders — a lower bound on the
	// phase's own (projection is post-processing), exact when each side
	// has one kept mean. Empty when a side has more than OIRMaxMixed
	// uncertain groups.
	Direction []float64 `json:"direction"`
	Points    []Point   `json:"points"`
}

// Violated reports whether the gate loses more than its budget or a
// projected δ(ε) exceeds the claim.
func (l OIRLaw) Violated() bool {
	if l.GateLoss > l.GateBudget+1e-9 {
		return true
	}
	for _, p := range l.Points {
		if p.Verdict == Violation {
			return true
		}
	}
	return false
}

// OIRMutant returns p broken as the named variant ("" leaves it as is).
func OIRMutant(p optim.OIRParams, name string) (optim.OIRParams, error) {
	m, err := optim.ParseOIRMutant(name)
	p.Mutant = m
	return p, err
}

// OIRPhaseLaw computes the exact law of the phase holding a's changed
// user, on a and b, for the run the seed draws (its partition, its item
// orders and the earlier phases' noise, which both sides share), and the
// projected δ(ε) at each of eps against the guarantee g.
func OIRPhaseLaw(p optim.OIRParams, a, b *dataset.Dataset, seed uint64, g privacy.Guarantee, eps []float64) (OIRLaw, error) {
	if p.Mode == privacy.NonPrivate {
		return OIRLaw{}, format.Errorf("non-private runs have no gate or noise to audit")
	}
	changed, err := CheckNeighbours(a, b)
	if err != nil {
		return OIRLaw{}, err
	}
	p.Record, p.KeepPaths = false, false
	run := func(data *dataset.Dataset) (optim.OIRResult, error) {
		res, _, err := optim.OutlierIterateRemoval(context.Background(), p, data, rng.New(seed), nil)
		return res, err
	}
	ra, err := run(a)
	if err != nil {
		return OIRLaw{}, err
	}
	rb, err := run(b)
	if err != nil {
		return OIRLaw{}, err
	}
	out := OIRLaw{User: changed, C: ra.Groups}
	k := slices.IndexFunc(ra.Phases, func(ph optim.OIRPhase) bool { return slices.Contains(ph.UserIdx, changed) })
	if changed < 0 || k < 0 {
		return out, nil
	}
	pa, pb := ra.Phases[k], rb.Phases[k]
	if !slices.Equal(pa.Start, pb.Start) {
		return OIRLaw{}, format.Errorf("phase %d starts at %v on A and %v on B: the earlier phases should not see the changed user", k+1, pa.Start, pb.Start)
	}
	out.Phase, out.Start, out.Tau, out.Gate, out.Sigma = k+1, pa.Start, pa.Tau, pa.Gate, pa.Sigma
	for j, grp := range pa.Groups {
		if slices.Contains(grp, changed) {
			out.Group = j + 1
		}
	}
	out.A, out.B = oirSide(p, pa), oirSide(p, pb)
	out.GateLoss = maxLogRatio([]float64{out.A.PPass, 1 - out.A.PPass}, []float64{out.B.PPass, 1 - out.B.PPass})
	out.GateBudget = p.GateEps(out.C)
	if out.A.Means == nil || out.B.Means == nil {
		return out, nil // too many uncertain groups for the exact law
	}
	out.Direction = oirDirection(out.A, out.B)
	ma, mb := out.A.project(out.Direction, out.Sigma), out.B.project(out.Direction, out.Sigma)
	for _, e := range eps {
		out.Points = append(out.Points, judge(Point{Eps: e, DeltaAB: HockeyStick1D(ma, mb, e), DeltaBA: HockeyStick1D(mb, ma, e)}, g))
	}
	return out, nil
}

// oirSide enumerates the kept sets: groups with keep probability 0 or 1
// are fixed, the others (at most OIRMaxMixed) each kept or not.
func oirSide(p optim.OIRParams, ph optim.OIRPhase) OIRSide {
	s := OIRSide{Score: ph.Score, PPass: ph.PPass, Counts: ph.Counts, Keep: ph.Keep, Halt: 1 - ph.PPass}
	for j := range ph.Groups {
		s.Ends = append(s.Ends, ph.Ends.At(j))
	}
	var sure, mixed []int
	for j, q := range ph.Keep {
		switch {
		case q >= 1:
			sure = append(sure, j)
		case q > 0:
			mixed = append(mixed, j)
		}
	}
	if len(mixed) > OIRMaxMixed {
		return s
	}
	s.Means, s.Weights = [][]float64{}, []float64{}
	d := len(ph.Start)
	for mask := range 1 << len(mixed) {
		w := ph.PPass
		kept := slices.Clone(sure)
		for i, j := range mixed {
			if mask&(1<<i) != 0 {
				w *= ph.Keep[j]
				kept = append(kept, j)
			} else {
				w *= 1 - ph.Keep[j]
			}
		}
		if w == 0 {
			continue
		}
		mean := make([]float64, d)
		switch {
		case len(kept) > 0:
			for _, j := range kept {
				for c, v := range s.Ends[j] {
					mean[c] += v / float64(len(kept))
				}
			}
		case p.OnEmpty == optim.EmptyStart:
			copy(mean, ph.Start)
		default:
			s.Halt += w
			continue
		}
		s.Means, s.Weights = append(s.Means, mean), append(s.Weights, w)
	}
	return s
}

// oirDirection is the unit vector from B's likeliest kept mean to A's (the
// first axis if they coincide): along it the two single-component laws
// differ the most.
func oirDirection(a, b OIRSide) []float64 {
	likeliest := func(s OIRSide) []float64 {
		if len(s.Weights) == 0 {
			return nil
		}
		i := 0
		for j, w := range s.Weights {
			if w > s.Weights[i] {
				i = j
			}
		}
		return s.Means[i]
	}
	ua, ub := likeliest(a), likeliest(b)
	d := len(ua)
	if d == 0 {
		d = len(ub)
	}
	u := make([]float64, d)
	var norm float64
	if ua != nil && ub != nil {
		for c := range u {
			u[c] = ua[c] - ub[c]
			norm += u[c] * u[c]
		}
	}
	if norm == 0 {
		if d > 0 {
			u[0] = 1
		}
		return u
	}
	norm = math.Sqrt(norm)
	for c := range u {
		u[c] /= norm
	}
	return u
}

// project is the side's law projected on u: the halt at 0, the kept means
// at ⟨mean, u⟩ with the Gaussian's σ.
func (s OIRSide) project(u []float64, sigma float64) Mixture1D {
	m := Mixture1D{Atom: s.Halt, Sigma: sigma, Weights: s.Weights}
	for _, mean := range s.Means {
		var x float64
		for c, v := range mean {
			x += v * u[c]
		}
		m.Means = append(m.Means, x)
	}
	return m
}

// Sampler draws the output of the audited phase on one side (l.A or
// l.B) from its fixed start and end iterates, with the draws the real
// phase makes from the same streams: the gate's Laplace, one coin per
// group, the Gaussian. Given the seed's partition, a real run's phase
// output is the sampler's, bit for bit, but for a halt: its output 0 is
// nil here, the ⊥ the sampling audit counts as an event of its own.
func (l OIRLaw) Sampler(p optim.OIRParams, side OIRSide) Sampler {
	scope := format.Sprintf("phase %d", l.Phase)
	return func(st *rng.Streams) ([]float64, error) {
		st = st.Scope(scope)
		out := make([]float64, len(l.Start))
		pass := side.Score >= l.Gate
		if p.Mutant != optim.OIRNoScoreNoise {
			pass = side.Score+noise.Laplace{Scale: p.GateScale(), Src: st.Get(rng.Laplace)}.Rand() >= l.Gate
		}
		if !pass {
			return nil, nil
		}
		coins := st.Get(rng.Keep)
		var kept int
		for j, q := range side.Keep {
			if coins.Float64() < q {
				kept++
				for c, v := range side.Ends[j] {
					out[c] += v
				}
			}
		}
		switch {
		case kept > 0:
			for c := range out {
				out[c] /= float64(kept)
			}
		case p.OnEmpty == optim.EmptyStart:
			copy(out, l.Start)
		default:
			return nil, nil
		}
		if l.Sigma > 0 {
			z := make([]float64, len(out))
			noise.Gaussian{Sigma: l.Sigma, Src: st.Get(rng.Gauss)}.RandVec(z)
			for c := range out {
				out[c] += z[c]
			}
		}
		return out, nil
	}
}
