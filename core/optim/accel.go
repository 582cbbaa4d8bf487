package optim

import (
	"errors"
	"math"
	"slices"

	"github.com/uldplab/uldp/core/cancel"
	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/loss"
	"github.com/uldplab/uldp/core/mech"
	"github.com/uldplab/uldp/core/noise"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/core/robust"
	"github.com/uldplab/uldp/core/trace"
)

// AccelParams configures Lowy, Liu & Asi's (2024) accelerated phased ERM
// with outlier-gradient removal, their Algorithms 2 and 3 (spec 001-004
// §3.5–3.8, B-ALG2/3): phase i solves a regularised ERM on fresh users
// with AC-SA, every step drawing K_i users whose mean gradients pass an
// AboveThreshold concentration check (one threshold draw per phase) and
// the keep ramp, then adding Gaussian noise to the kept mean.
type AccelParams struct {
	Eps, Delta float64
	// Loss is the item loss; β = Loss.Beta(d) unless Smoothing is set.
	Loss loss.Smooth
	// Lipschitz is L; Radius R makes the domain B(0, R) (diameter 2R).
	Lipschitz, Radius float64
	// Lambda is the base regularisation λ (0: Theorem C.3's
	// (L/2R)·(1/√(nm) + √d/(εn√m))); phase i uses λ_i = λ·2^{p·i}.
	Lambda     float64
	PExp, QExp float64
	// Teaching overrides, 0 for the printed values: Phases is l, TauScale
	// c_τ in τ = c_τ·L·ln(ndm)/√m (the paper leaves it open; default 1),
	// Batch K_i in every phase.
	Phases   int
	TauScale float64
	Batch    int
	// SigmaScale, a teaching override, replaces the 1000 in σ_i (0 for
	// the printed constant): the printed noise drowns every step below
	// millions of users.
	SigmaScale float64
	// WithReplacement draws each minibatch with replacement, as printed;
	// the default draws a subset (E-B6: a repeated user breaks the score's
	// sensitivity 2).
	WithReplacement bool
	// Smoothing, if positive, is B-SMOOTH's radius r: every item gradient
	// is taken at x + y with y uniform in B(0, r), and β = L√d/r.
	Smoothing float64
	Theta0    []float64
	// Order Given takes each phase's users in file order and the
	// minibatches as consecutive runs of them, cycling.
	Order Order
	// Mode Paper uses the printed constants, Teaching the overrides;
	// NonPrivate no noise and no check (coins still flip).
	Mode privacy.Mode
	// OnEmpty is EmptyZero (g = 0, the default) or EmptyHalt; OnOversize
	// says what happens when K_i > n_i; AbortOnHalt stops the whole run at
	// a failed check instead of the literal "return 0" and go on (E-B2).
	OnEmpty     EmptyPolicy
	OnOversize  OversizePolicy
	AbortOnHalt bool
	Record      bool
}

// AccelRow is one phase of the accelerated schedule.
type AccelRow struct {
	I      int     `json:"i"`
	Users  int     `json:"users"`
	Lambda float64 `json:"lambda"`
	Steps  int     `json:"steps"`
	// Batch is the K_i in force; Printed the formula's value before a cap.
	Batch   int     `json:"batch"`
	Printed float64 `json:"printed_batch"`
	Capped  bool    `json:"capped"`
	Tau     float64 `json:"tau"`
	Sigma   float64 `json:"sigma"`
}

// AccelStep is one AC-SA step's story.
type AccelStep struct {
	T     int       `json:"t"`
	Query []float64 `json:"query"` // x_md
	Users []int     `json:"users"`
	// Score is s = (1/K)·#{pairs within 2τ}; NoisyScore adds the step's
	// Laplace draw; Threshold is the phase's noisy 4K/5.
	Score      float64   `json:"score"`
	NoisyScore float64   `json:"noisy_score"`
	Threshold  float64   `json:"threshold"`
	Passed     bool      `json:"passed"`
	Counts     []int     `json:"counts,omitempty"`
	Keep       []float64 `json:"keep_prob,omitempty"`
	Kept       []int     `json:"kept,omitempty"` // positions in Users
	Mean       []float64 `json:"mean,omitempty"`
	Sigma      float64   `json:"sigma"`
	Gradient   []float64 `json:"gradient,omitempty"` // G_t
	// UserGradients are the K users' gradients q_i at Query (Record
	// only), for a picture of the step; the trace leaves them out.
	UserGradients Vectors `json:"-"`
}

// AccelPhase is one phase.
type AccelPhase struct {
	AccelRow
	UserIdx []int       `json:"user_idx"`
	Start   []float64   `json:"start"`
	Steps   []AccelStep `json:"steps"`
	Halted  bool        `json:"halted"`
	Output  []float64   `json:"output"`
}

// AccelResult is a run.
type AccelResult struct {
	Phases    []AccelPhase      `json:"phases"`
	Output    []float64         `json:"output"`
	Stop      string            `json:"stop,omitempty"`
	Gradients int64             `json:"gradients"`
	Guarantee privacy.Guarantee `json:"guarantee"`
}

// Trace kinds the accelerated variant records.
const (
	KindAccelPhase trace.Kind = "accel.phase"
	KindAccelStep  trace.Kind = "accel.step"
	KindAccelHalt  trace.Kind = "accel.halt"
)

// Validate checks the parameters for n users in ℝ^d.
func (p AccelParams) Validate(n, d int) error {
	errs := ballChecks(p.Eps, p.Delta, p.Loss, p.Lipschitz, p.Radius)
	bad := errs.bad
	switch p.Mode {
	case privacy.Paper, privacy.Teaching, privacy.NonPrivate:
	case privacy.Sound:
		bad("mode sound: the accelerated variant has no corrected calibration yet (its per-step sensitivity lemma gives only an order); use paper or teaching, whose guarantee says what is not derived")
	default:
		bad("mode %d: unknown", int(p.Mode))
	}
	errs.positive("p-exp", p.PExp, "the regulariser-growth exponent p")
	errs.positive("q-exp", p.QExp, "the phase-size exponent q")
	errs.override("lambda", p.Lambda, "λ", "the theorem's")
	if p.Smoothing < 0 || math.IsInf(p.Smoothing, 1) || math.IsNaN(p.Smoothing) {
		bad("smoothing = %v: the smoothing radius r must be a finite number ≥ 0", p.Smoothing)
	}
	errs.override("tau", p.TauScale, "c_τ", "1")
	if p.Batch < 0 || p.Phases < 0 {
		bad("batch = %d, phases = %d: overrides must be positive (0 for the printed values)", p.Batch, p.Phases)
	}
	errs.override("sigma scale", p.SigmaScale, "the constant in σ_i", "the printed 1000")
	if p.Mode == privacy.Paper && (p.Batch > 0 || p.Phases > 0 || p.TauScale > 0 || p.SigmaScale > 0) {
		bad("batch, phases, tau, sigma scale: paper mode uses the printed constants; choose teaching mode to set them")
	}
	switch p.OnEmpty {
	case EmptyDefault, EmptyZero, EmptyHalt:
	default:
		bad("on-empty = %s: the accelerated variant uses g = 0 (zero) or halts the phase (halt)", p.OnEmpty)
	}
	if n < 2 {
		bad("%d users: the accelerated variant needs at least 2", n)
	}
	errs.startInBall(p.Theta0, d, p.Radius)
	return errors.Join(errs...)
}

func (p AccelParams) sigmaScale() float64 {
	if p.SigmaScale > 0 {
		return p.SigmaScale
	}
	return 1000
}

// beta is the smoothness AC-SA uses: the loss's, or L√d/r when smoothed.
func (p AccelParams) beta(d int) float64 {
	if p.Smoothing > 0 {
		return p.Lipschitz * math.Sqrt(float64(d)) / p.Smoothing
	}
	return p.Loss.Beta(d)
}

// BaseLambda is λ: the override, or Theorem C.3's
// (L/D)·(1/√(nm) + √d/(εn√m)) with D = 2R the domain's diameter.
func (p AccelParams) BaseLambda(n, m, d int) float64 {
	if p.Lambda > 0 {
		return p.Lambda
	}
	nf, mf := float64(n), float64(m)
	return p.Lipschitz / (2 * p.Radius) * (1/math.Sqrt(nf*mf) + math.Sqrt(float64(d))/(p.Eps*nf*math.Sqrt(mf)))
}

// TheoremPExp is Theorem C.3's p = 3q + 2.5 + log_n √m for n users of m
// items, the smallest step-up of λ_i its proof allows.
func TheoremPExp(q float64, n, m int) float64 {
	if n < 2 { // the run refuses so few users
		return 3*q + 2.5
	}
	return 3*q + 2.5 + math.Log(math.Sqrt(float64(m)))/math.Log(float64(n))
}

// AccelGradients is how many item gradients a run of the schedule evaluates
// when no check halts it: K_i users of m items at each of T_i steps.
func AccelGradients(rows []AccelRow, m int) int64 {
	var g int64
	for _, r := range rows {
		g += int64(r.Steps) * int64(r.Batch) * int64(m)
	}
	return g
}

// Tau is τ = c_τ·L·ln(ndm)/√m.
func (p AccelParams) Tau(n, m, d int) float64 {
	c := p.TauScale
	if c == 0 {
		c = 1
	}
	return c * p.Lipschitz * math.Log(float64(n)*float64(d)*float64(m)) / math.Sqrt(float64(m))
}

// Schedule returns the phases: n_i as in Algorithm 1, λ_i = λ·2^{p·i},
// T_i = ⌈(1 + √(β/λ_i))·ln(ndm)⌉, K_i = ⌈500·ln(n_i²m²e^ε/δ)·(1/ε +
// n_i·ε/√(T_i·ln(1/δ)))⌉ (capped at n_i: E-B5) and
// σ_i = 1000·τ·√T_i·ln(n·d·e^ε/δ)/(ε·n_i) (SigmaScale for the 1000). It
// ends before a phase with no user.
func (p AccelParams) Schedule(n, m, d int) []AccelRow {
	l := phaseCount(p.Phases, n)
	lam, tau, beta := p.BaseLambda(n, m, d), p.Tau(n, m, d), p.beta(d)
	logNDM := math.Log(float64(n) * float64(d) * float64(m))
	var rows []AccelRow
	for i := 1; i <= l; i++ {
		fi := float64(i)
		ni := phaseUsers(n, p.QExp, i)
		if ni < 1 {
			break
		}
		r := AccelRow{I: i, Users: ni, Lambda: lam * math.Exp2(p.PExp*fi), Tau: tau}
		r.Steps = int(math.Ceil((1 + math.Sqrt(beta/r.Lambda)) * logNDM))
		nf := float64(ni)
		r.Printed = math.Ceil(500 * (math.Log(nf*nf*float64(m)*float64(m)/p.Delta) + p.Eps) * (1/p.Eps + nf*p.Eps/math.Sqrt(float64(r.Steps)*math.Log(1/p.Delta))))
		r.Batch = int(math.Min(r.Printed, nf))
		r.Capped = r.Printed > nf
		if p.Batch > 0 {
			r.Batch, r.Capped = min(p.Batch, ni), p.Batch > ni
		}
		if p.Mode != privacy.NonPrivate {
			r.Sigma = p.sigmaScale() * tau * math.Sqrt(float64(r.Steps)) * (math.Log(float64(n)*float64(d)/p.Delta) + p.Eps) / (p.Eps * nf)
		}
		rows = append(rows, r)
	}
	return rows
}

// Accelerated runs Algorithm 3 (with Algorithm 2 in each phase) on data.
func Accelerated(ctx cancel.Context, p AccelParams, data *dataset.Dataset, streams *rng.Streams, progress mech.Progress) (AccelResult, *trace.Trace, error) {
	n, d := data.N(), data.Dim
	if err := p.Validate(n, d); err != nil {
		return AccelResult{}, nil, err
	}
	m, ok := data.M()
	if !ok {
		return AccelResult{}, nil, format.Errorf("users hold different numbers of items: the accelerated variant averages each user's m item gradients and needs the same m for every user")
	}
	rows := p.Schedule(n, m, d)
	for _, r := range rows {
		if r.Capped && p.OnOversize == OversizeRefuse {
			return AccelResult{}, nil, format.Errorf("phase %d: K_i = %.4g users per step, but the phase has n_i = %d: bring more users, set a batch in teaching mode, or let the run cap K_i", r.I, r.Printed, r.Users)
		}
	}
	if len(rows) == 0 {
		return AccelResult{}, nil, format.Errorf("%d users leave phase 1 with none: bring more users or raise --q-exp", n)
	}
	var rec *trace.Recorder
	if p.Record {
		rec = trace.NewRecorder("accelerated-outlier-removal", streams.Seed())
	}
	order := userOrder(n, p.Order, streams)
	var total, done int64
	for _, r := range rows {
		total += int64(r.Steps)
	}
	tick := func() {
		done++
		if progress != nil {
			progress(done, total)
		}
	}
	x := make([]float64, d)
	if p.Theta0 != nil {
		copy(x, p.Theta0)
	}
	var res AccelResult
	used := 0
	for _, r := range rows {
		ph, grads, err := p.phase(ctx, r, data, m, order[used:used+r.Users], x, streams.Scope(format.Sprintf("phase %d", r.I)), rec, tick)
		if err != nil {
			return AccelResult{}, nil, err
		}
		used += r.Users
		res.Gradients += grads
		res.Phases = append(res.Phases, ph)
		x = ph.Output
		if ph.Halted && p.AbortOnHalt {
			res.Stop = format.Sprintf("phase %d's check failed and the run aborts", r.I)
			break
		}
	}
	res.Output = x
	res.Guarantee = p.Guarantee(n, m, d)
	return res, rec.Trace(), nil
}

func (p AccelParams) phase(ctx cancel.Context, r AccelRow, data *dataset.Dataset, m int, users []int, start []float64, streams *rng.Streams, rec *trace.Recorder, tick func()) (AccelPhase, int64, error) {
	d, k := data.Dim, r.Batch
	out := AccelPhase{AccelRow: r, UserIdx: slices.Clone(users), Start: slices.Clone(start)}
	rec.Addf(KindAccelPhase, r, "phase %d: %d users, λ = %.4g, %d AC-SA steps of K = %d users, τ = %.4g, σ = %.4g, from %s",
		r.I, r.Users, r.Lambda, r.Steps, k, r.Tau, r.Sigma, trace.Vec(start))
	beta := p.beta(d)
	ball := loss.Ball{Centre: make([]float64, d), Radius: p.Radius}
	acsa := NewACSA(r.Lambda, beta+r.Lambda, ball, ACSAStage(beta+r.Lambda, r.Lambda), start)
	var check *mech.AboveThreshold
	thr := 4 * float64(k) / 5
	if p.Mode != privacy.NonPrivate {
		var err error
		// ε/2 with sensitivity 2: Lap(8/ε) once, Lap(16/ε) per step.
		if check, err = mech.NewAboveThreshold(mech.ATParams{Eps: p.Eps / 2, Threshold: thr, Sens: 2, Mode: p.Mode}, streams, rec); err != nil {
			return AccelPhase{}, 0, err
		}
		thr = check.NoisyThreshold()
	}
	pick := streams.Get(rng.Batch)
	coins := streams.Get(rng.Keep)
	gauss := noise.Gaussian{Sigma: r.Sigma, Src: streams.Get(rng.Gauss)}
	smooth := noise.Ball{Dim: d, Radius: p.Smoothing, Src: streams.Source(rng.Smoothing)}
	pool := slices.Clone(users)
	q := make([][]float64, k)
	g, y, z := make([]float64, d), make([]float64, d), make([]float64, d)
	var grads int64
	for t := 1; t <= r.Steps; t++ {
		if err := ctx.Err(); err != nil {
			return AccelPhase{}, 0, err
		}
		xq := acsa.Query()
		st := AccelStep{T: t, Query: slices.Clone(xq), Users: make([]int, k), Threshold: thr, Sigma: r.Sigma}
		switch {
		case p.Order == Given:
			for i := range k {
				st.Users[i] = users[((t-1)*k+i)%len(users)]
			}
		case p.WithReplacement:
			for i := range k {
				st.Users[i] = users[pick.IntN(len(users))]
			}
		default: // a uniform subset: the first k of a partial shuffle
			for i := range k {
				j := i + pick.IntN(len(pool)-i)
				pool[i], pool[j] = pool[j], pool[i]
				st.Users[i] = pool[i]
			}
		}
		for i, u := range st.Users {
			if q[i] == nil {
				q[i] = make([]float64, d)
			}
			clear(q[i])
			for j := range m {
				item := data.Item(u, j)
				at := xq
				if p.Smoothing > 0 {
					smooth.Rand(y)
					for c := range z {
						z[c] = xq[c] + y[c]
					}
					at = z
				}
				p.Loss.Grad(at, item, g)
				for c, v := range g {
					q[i][c] += v / float64(m)
				}
			}
		}
		grads += int64(k * m)
		if p.Record {
			st.UserGradients = Vectors{Dim: d, Flat: slices.Concat(q[:k]...)}
		}
		counts := robust.NewIndex(q[:k]).Counts(2 * r.Tau)
		st.Score = robust.Score(counts)
		st.NoisyScore, st.Passed = st.Score, true
		if check != nil {
			cmp, err := check.Compare(st.Score)
			if err != nil {
				return AccelPhase{}, 0, err
			}
			st.NoisyScore, st.Passed = cmp.NoisyQuery, cmp.Pass
		}
		st.Counts = counts
		st.Keep = make([]float64, k)
		for i, h := range counts {
			st.Keep[i] = robust.Keep(h, k)
		}
		halt := func(why string) (AccelPhase, int64, error) {
			out.Steps = append(out.Steps, st)
			out.Halted = true
			out.Output = make([]float64, d)
			rec.Addf(KindAccelHalt, st, "phase %d, step %d: %s: the phase returns 0", r.I, t, why)
			tick()
			return out, grads, nil
		}
		if !st.Passed {
			return halt("the users' gradients are not concentrated")
		}
		for i, pk := range st.Keep {
			if coins.Float64() < pk {
				st.Kept = append(st.Kept, i)
			}
		}
		st.Mean = make([]float64, d)
		for _, i := range st.Kept {
			for c, v := range q[i] {
				st.Mean[c] += v / float64(len(st.Kept))
			}
		}
		if len(st.Kept) == 0 && p.OnEmpty == EmptyHalt {
			return halt("the coins kept nobody")
		}
		st.Gradient = make([]float64, d)
		clear(g)
		if r.Sigma > 0 {
			gauss.RandVec(g)
		}
		for c := range st.Gradient {
			st.Gradient[c] = st.Mean[c] + g[c] + r.Lambda*(xq[c]-start[c])
		}
		acsa.Update(st.Gradient)
		out.Steps = append(out.Steps, st)
		rec.Addf(KindAccelStep, st, "phase %d, step %d: score %.4g of K = %d; %d kept; G = mean + N(0, σ²I) + λ(x − x₀) = %s",
			r.I, t, st.Score, k, len(st.Kept), trace.Vec(st.Gradient))
		tick()
	}
	out.Output = slices.Clone(acsa.Ag)
	return out, grads, nil
}

// batchFact says whether K_i is the printed one.
func batchFact(override int, capped bool) string {
	switch {
	case override > 0:
		return format.Sprintf("K_i is the printed one (a teaching K = %d is set)", override)
	case capped:
		return "K_i is the printed one (capped at n_i here: the formula asks for more users than the phase has, erratum A37)"
	}
	return "K_i is the printed one"
}

// Guarantee is what a run may claim. The paper's σ_i rests on its
// Lemma C.2, which bounds the kept mean's coupled sensitivity only up to
// a constant, so no run of the accelerated variant is certified yet; the
// other conditions are checked so a reader sees which hold.
func (p AccelParams) Guarantee(n, m, d int) privacy.Guarantee {
	if p.Mode == privacy.NonPrivate {
		return privacy.Guarantee{Eps: math.Inf(1), Mode: p.Mode, Note: "non-private: no check and no noise"}
	}
	capped := false
	for _, r := range p.Schedule(n, m, d) {
		capped = capped || r.Capped
	}
	nf := float64(n)
	need := 100 * (math.Log(20*nf*float64(m)*float64(d)/p.Delta) + p.Eps) / (p.Eps * (1 - math.Exp2(-p.QExp)))
	return privacy.Guarantee{Eps: p.Eps, Delta: p.Delta, Mode: p.Mode,
		Note: "Lowy, Liu & Asi 2024, Theorem 3.1: AboveThreshold at ε/2 with one threshold draw per phase, Gaussian noise per step amplified by subsampling and composed over the phase's steps; phases hold disjoint users",
		Preconditions: []privacy.Precondition{
			privacy.Fact("each minibatch is a subset of the phase's users (drawn with replacement, a repeated user moves the score by more than 2: erratum A38)", !p.WithReplacement),
			privacy.Fact(batchFact(p.Batch, capped), p.Batch == 0 && !capped),
			privacy.Require("ε ≤ 10", p.Eps, privacy.AtMost, 10),
			privacy.Require("enough users (Theorem 3.1): n^{1−q} > 100(ln(20nmd/δ) + ε)/(ε(1 − 2^{−q}))", math.Pow(nf, 1-p.QExp), privacy.Above, need),
			privacy.Fact(format.Sprintf("σ_i's constant %.4g covers the kept mean's sensitivity (the paper bounds it only up to a constant; not derived here yet: erratum A40)", p.sigmaScale()), false),
		}}
}
