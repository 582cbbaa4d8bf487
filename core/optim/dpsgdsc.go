package optim

import (
	"math"

	"github.com/uldplab/uldp/core/cancel"
	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/loss"
	"github.com/uldplab/uldp/core/mech"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/core/trace"
)

// DPSGDSCParams configures Paper B's strongly convex localisation (Asi &
// Liu, Alg. 4; spec 000-002 §B-6) for the Mu-strongly convex squared loss
// (Mu/2)‖θ − z‖² on Θ = B(0, Radius): DP-SGD runs on disjoint user groups
// of growing size, each from the last phase's answer, with step size,
// smoothing and τ set from the proof's error bounds D_j (which shrink
// from phase to phase once the groups are large; on few users they grow
// first).
type DPSGDSCParams struct {
	Eps, Delta float64
	Mu         float64
	Radius     float64
	// RX bounds the items' norms, so G = Mu·(Radius + RX) bounds the
	// gradients.
	RX     float64
	Theta0 []float64
	// C is Theorem 4.1's hidden constant (erratum A23: > 2; 0 means 3).
	C float64
	// Steps caps each phase's T_j = m²n_j² + m·n_j·√d (0: no cap) for
	// demos; the other settings follow the T used.
	Steps int
	Mode  privacy.Mode
	// Unsmoothed runs every phase on plain gradients (r = 0). The squared
	// loss is smooth already, and a phase's privacy does not depend on
	// how its users' gradients are computed: the audit samples these
	// runs, whose users' gradients keep their distances from step to step.
	Unsmoothed bool
	// Record keeps each phase's run (Phase.Run) and puts its steps in the
	// trace before the phase's own; KeepValues, with Record, also keeps
	// each step's user values (lessons).
	Record, KeepValues bool
}

// DPSGDSCPhase is one phase's plan and outcome.
type DPSGDSCPhase struct {
	I     int `json:"i"`
	Users int `json:"users"` // n_i, the group's size
	// E and D are the proof's E_i and D_i; RHat the start's distance
	// bound R̂_i = √(2D_{i−1}/μ).
	E, D, RHat float64
	Settings   DPSGDSettings `json:"settings"`
	Start      []float64     `json:"start"`
	Theta      []float64     `json:"theta"`
	Halted     int           `json:"halted"`
	// Run is the phase's DP-SGD run (Record only).
	Run DPSGDResult `json:"-"`
}

// DPSGDSCResult is a whole run.
type DPSGDSCResult struct {
	Theta     []float64         `json:"theta"`
	Phases    []DPSGDSCPhase    `json:"phases"`
	Guarantee privacy.Guarantee `json:"guarantee"`
}

// KindSCPhase is a phase's step in the trace.
const KindSCPhase trace.Kind = "sc.phase"

// Plan returns the phases' sizes and bounds for n users of m items
// in d dimensions: k = ⌈log₂ log₂(mn)⌉ phases; n_i = ⌊n/2^{k+1−i}⌋;
// E_i = (4C²G²/μ)(1/(n_i m) + d·ln²(n_i d m/δ)/(n_i² ε² m)); D_0 = 2G²/μ,
// D_i = 16E_i·(2G²/(μ·16E_0))^{1/2^i} with E_0 at n_0 = n/2^{k+1}
// (erratum A23); R̂_i = √(2D_{i−1}/μ).
func (p DPSGDSCParams) Plan(n, m, d int) []DPSGDSCPhase {
	g, c := p.G(), p.C
	if c == 0 {
		c = 3
	}
	k := scPhases(m * n)
	e := func(ni float64) float64 {
		lg := math.Log(ni * float64(d) * float64(m) / p.Delta)
		return 4 * c * c * g * g / p.Mu * (1/(ni*float64(m)) + float64(d)*lg*lg/(ni*ni*p.Eps*p.Eps*float64(m)))
	}
	e0 := e(float64(n) / math.Pow(2, float64(k+1)))
	ratio := 2 * g * g / (p.Mu * 16 * e0)
	plan := make([]DPSGDSCPhase, k)
	prevD := 2 * g * g / p.Mu
	for i := 1; i <= k; i++ {
		ph := DPSGDSCPhase{I: i, Users: n >> (k + 1 - i)}
		ph.E = e(float64(ph.Users))
		ph.D = 16 * ph.E * math.Pow(ratio, 1/math.Pow(2, float64(i)))
		ph.RHat = math.Sqrt(2 * prevD / p.Mu)
		prevD = ph.D
		plan[i-1] = ph
	}
	return plan
}

// scPhases is k = ⌈log₂ log₂(mn)⌉ (at least 1) for mn items.
func scPhases(mn int) int {
	return max(int(math.Ceil(math.Log2(math.Log2(float64(mn))))), 1)
}

// scUsersNeeded is the fewest users of m items whose first halving group,
// n >> k, holds 2: k itself grows with n, so the answer is sought until
// it holds.
func scUsersNeeded(n, m int) int {
	need := 2 << scPhases(m*n)
	for need>>scPhases(m*need) < 2 {
		need = 2 << scPhases(m*need)
	}
	return need
}

// G is the squared loss's Lipschitz bound on Θ × B(0, RX).
func (p DPSGDSCParams) G() float64 { return p.Mu * (p.Radius + p.RX) }

// Split plans the phases for data and returns each phase's users: the
// next n_i in file order, groups disjoint (parallel composition).
func (p DPSGDSCParams) Split(data *dataset.Dataset) ([]DPSGDSCPhase, []*dataset.Dataset, error) {
	m, ok := data.M()
	if !ok {
		return nil, nil, format.Errorf("users hold different numbers of items: DP-SGD needs the same m for every user")
	}
	n := data.N()
	plan, err := p.plan(n, m, data.Dim)
	if err != nil {
		return nil, nil, err
	}
	groups := make([]*dataset.Dataset, len(plan))
	lo := 0
	for i, ph := range plan {
		if groups[i], err = data.Delete(outside(n, lo, lo+ph.Users)...); err != nil {
			return nil, nil, err
		}
		lo += ph.Users
	}
	return plan, groups, nil
}

// plan is Plan for n users, refused when the first group cannot run.
func (p DPSGDSCParams) plan(n, m, d int) ([]DPSGDSCPhase, error) {
	plan := p.Plan(n, m, d)
	if plan[0].Users < 2 {
		// DP-SGD's concentration score compares users: a group needs two.
		return nil, format.Errorf("%d users cannot be split into %d halving groups: the first would hold %d, and each phase's DP-SGD needs at least 2; bring %d users or more", n, len(plan), plan[0].Users, scUsersNeeded(n, m))
	}
	return plan, nil
}

// Promise checks the run's phases on n users of m items in d dimensions
// as the run would, before any data, and returns what the run promises.
func (p DPSGDSCParams) Promise(n, m, d int) (privacy.Guarantee, error) {
	plan, err := p.plan(n, m, d)
	if err != nil {
		return privacy.Guarantee{}, err
	}
	g := make([]privacy.Guarantee, len(plan))
	for i := range plan {
		q := p.PhaseParams(&plan[i], m, d)
		if err := q.Validate(d); err != nil {
			return privacy.Guarantee{}, format.Errorf("phase %d: %w", i+1, err)
		}
		c, err := q.ORME(plan[i].Users, m, d).Calibrate(plan[i].Users)
		if err != nil {
			return privacy.Guarantee{}, format.Errorf("phase %d: %w", i+1, err)
		}
		g[i] = q.Guarantee(c)
	}
	return p.Guarantee(g), nil
}

// PhaseParams sets ph's settings, Theorem 4.1's for R̂_i and n_i users of
// m items in d dimensions (T_i capped by Steps), and returns the DP-SGD
// run they make; its Theta0 is the caller's, the last phase's answer.
func (p DPSGDSCParams) PhaseParams(ph *DPSGDSCPhase, m, d int) DPSGDParams {
	steps := 0
	if p.Steps > 0 {
		full := float64(m*m*ph.Users*ph.Users) + float64(m*ph.Users)*math.Sqrt(float64(d))
		steps = int(math.Min(full, float64(p.Steps)))
	}
	ph.Settings = Theorem41(p.Eps, p.Delta, p.G(), ph.RHat, ph.Users, m, d, steps)
	if p.Unsmoothed {
		ph.Settings.Smoothing = 0
	}
	return DPSGDParams{Eps: p.Eps, Delta: p.Delta, Loss: loss.Squared{Mu: p.Mu}, Radius: p.Radius,
		Steps: ph.Settings.Steps, Eta: ph.Settings.Eta, Smoothing: ph.Settings.Smoothing, Tau: ph.Settings.Tau, Mode: p.Mode,
		Record: p.Record, KeepValues: p.Record && p.KeepValues}
}

// Validate checks the settings for data in d dimensions, as DPSGDSC and
// its audit's sampler need them.
func (p DPSGDSCParams) Validate(d int) error {
	if !(p.Mu > 0) || !(p.RX > 0) || math.IsInf(p.Mu+p.RX, 0) {
		return format.Errorf("mu = %v, rx = %v: the strongly convex algorithm needs μ > 0 and a data radius R_X > 0", p.Mu, p.RX)
	}
	if p.C != 0 && !(p.C > 2) {
		return format.Errorf("constant c = %v: Theorem 4.1's hidden constant C must exceed 2 (erratum A23)", p.C)
	}
	if p.Theta0 != nil && len(p.Theta0) != d {
		// copy would take what fits and zero the rest: a start the user
		// never gave.
		return format.Errorf("theta0 has %d coordinates, the data %d", len(p.Theta0), d)
	}
	return nil
}

// Guarantee is the run's promise from its phases' (each DP-SGD's on its
// own users): (ε, δ) by parallel composition, if every phase keeps its
// own, whose conditions it lists by phase.
func (p DPSGDSCParams) Guarantee(phases []privacy.Guarantee) privacy.Guarantee {
	if p.Mode == privacy.NonPrivate {
		return privacy.Guarantee{Eps: math.Inf(1), Mode: p.Mode, Note: "non-private: every phase's ORME passes and adds no noise"}
	}
	g := privacy.Guarantee{Eps: p.Eps, Delta: p.Delta, Mode: p.Mode,
		Note: format.Sprintf("Paper B Thm 4.11: %d DP-SGD phases at (ε, δ) on disjoint users (parallel composition)", len(phases))}
	for i, ph := range phases {
		for _, pre := range ph.Preconditions {
			pre.What = format.Sprintf("phase %d: %s", i+1, pre.What)
			g.Preconditions = append(g.Preconditions, pre)
		}
	}
	return g
}

// DPSGDSC runs Alg. 4: phase i runs DP-SGD at the full (ε, δ) on its own
// group of users (parallel composition), from the previous phase's answer,
// with Theorem 4.1's settings for R̂_i and n_i.
func DPSGDSC(ctx cancel.Context, p DPSGDSCParams, data *dataset.Dataset, streams *rng.Streams, progress mech.Progress) (DPSGDSCResult, *trace.Trace, error) {
	if err := p.Validate(data.Dim); err != nil {
		return DPSGDSCResult{}, nil, err
	}
	plan, groups, err := p.Split(data)
	if err != nil {
		return DPSGDSCResult{}, nil, err
	}
	m, _ := data.M()
	d := data.Dim
	rec := trace.NewRecorder("dp-sgd-sc", streams.Seed())
	theta := make([]float64, d)
	if p.Theta0 != nil {
		copy(theta, p.Theta0)
	}
	kept := make([]privacy.Guarantee, len(plan))
	for idx := range plan {
		ph := &plan[idx]
		q := p.PhaseParams(ph, m, d)
		q.Theta0 = theta
		ph.Start = append([]float64(nil), theta...)
		r, tr, err := DPSGD(ctx, q, groups[idx], streams, phaseProgress(progress, idx, len(plan)))
		if err != nil {
			return DPSGDSCResult{}, nil, format.Errorf("phase %d: %w", ph.I, err)
		}
		ph.Theta, ph.Halted, kept[idx] = r.Theta, r.Halted, r.Guarantee
		if p.Record {
			ph.Run = r
			for _, st := range tr.Steps { // tr is nil only without Record
				rec.Add(st.Kind, st.Text, st.Data)
			}
		}
		rec.Addf(KindSCPhase, *ph, "phase %d on %d users: R̂ = %.4g, T = %d, η = %.3g, r = %.3g, τ = %.3g → %v",
			ph.I, ph.Users, ph.RHat, ph.Settings.Steps, ph.Settings.Eta, ph.Settings.Smoothing, ph.Settings.Tau, trace.Vec(r.Theta))
		theta = r.Theta
	}
	return DPSGDSCResult{Theta: theta, Phases: plan, Guarantee: p.Guarantee(kept)}, rec.Trace(), nil
}

// phaseProgress reports phase i of k's progress as part of the whole
// run's, so a bar does not go back to 0 at each phase.
func phaseProgress(progress mech.Progress, i, k int) mech.Progress {
	if progress == nil {
		return nil
	}
	return func(done, total int64) { progress(int64(i)*total+done, int64(k)*total) }
}

// outside lists the user indices not in [lo, hi).
func outside(n, lo, hi int) []int {
	out := make([]int, 0, n-(hi-lo))
	for i := range n {
		if i < lo || i >= hi {
			out = append(out, i)
		}
	}
	return out
}
