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

// OIRParams configures the phased SGD with outlier-iterate removal of
// Lowy, Liu & Asi (2024), their Algorithm 1 (spec 001-004 §3.4, B-ALG1):
// each phase splits fresh users into C groups, runs one pass of projected
// SGD in every group from the last output, privately drops the groups
// whose end iterates stray from the crowd, and releases the survivors'
// mean plus Gaussian noise.
type OIRParams struct {
	Eps, Delta float64
	// Loss is the item loss f(x; z); β = Loss.Beta(d).
	Loss loss.Smooth
	// Lipschitz is L, a bound on ‖∇f‖₂ over the domain. It sets the radii
	// τ_i only, and privacy holds for any radius (the noise is scaled to
	// it), so a wrong L costs accuracy, never privacy.
	Lipschitz float64
	// Radius is R: the domain is the ℓ2 ball B(0, R), SGD's projection.
	Radius float64
	// Eta is the base step η; phase i steps with η/2^{p·i}.
	Eta float64
	// PExp and QExp are the exponents p and q of the step and phase sizes.
	PExp, QExp float64
	// Teaching overrides, 0 for the printed values: Groups is C
	// (⌈100 ln(20nme^ε/δ)/ε⌉), Phases is l (⌊log₂ n⌋), TauScale the 1000 in
	// τ_i = 1000·η_i·L·√T_i·ln(ndm).
	Groups, Phases int
	TauScale       float64
	// Theta0 is x₀ (nil: the centre).
	Theta0 []float64
	// Order Given takes the users in file order, each group a consecutive
	// run of them, and each group's items in file order; Shuffled draws
	// all three at random, as the paper does.
	Order Order
	// Mode: Paper uses the printed σ_i = 100·τ_i·ln²(n/δ)/(εC); Sound the σ
	// the corrected survivors' lemma needs; Teaching the printed formulas
	// with the overrides above; NonPrivate no score noise (the gate
	// passes) and no Gaussian noise, the coins still flipped.
	Mode privacy.Mode
	// OnEmpty is EmptyHalt (the default) or EmptyStart; OnShort says what
	// a phase whose groups would be empty does.
	OnEmpty EmptyPolicy
	OnShort ShortPolicy
	// Record keeps the trace; KeepPaths keeps every group's iterates.
	Record, KeepPaths bool
	// Mutant, for the audit, breaks one piece the proof relies on.
	Mutant OIRMutant
}

// OIRMutant is a deliberately broken variant of outlier-iterate removal.
type OIRMutant int

// The variants the audit runs to show it can catch a broken mechanism.
const (
	OIRCorrect OIRMutant = iota
	// OIRNoScoreNoise compares the score with 4C/5 without Laplace noise.
	OIRNoScoreNoise
	// OIRKeepAll keeps every group once the gate passes.
	OIRKeepAll
	// OIRCountsAtTau counts neighbours within τ_i instead of 2τ_i.
	OIRCountsAtTau
	// OIRWeakGate draws the score noise from Lap(2/ε) instead of Lap(20/ε).
	OIRWeakGate
)

var oirMutantNames = [...]string{"", "no-score-noise", "keep-all", "counts-at-tau", "weak-gate"}

// OIRMutantNames lists the broken variants by name.
func OIRMutantNames() []string { return slices.Clone(oirMutantNames[1:]) }

// ParseOIRMutant reads a variant's name ("" is the correct mechanism).
func ParseOIRMutant(s string) (OIRMutant, error) {
	for i, n := range oirMutantNames {
		if n == s {
			return OIRMutant(i), nil
		}
	}
	return 0, format.Errorf("mutant %q: outlier-iterate removal's broken variants are %s", s, orList(oirMutantNames[1:]))
}

// String names the variant.
func (m OIRMutant) String() string { return enumName(oirMutantNames[:], int(m)) }

// OIRRow is one phase of the schedule.
type OIRRow struct {
	I int `json:"i"` // 1-based
	// Users is n_i, PerGroup N_i = ⌊n_i/C⌋, Steps T_i = N_i·m.
	Users    int     `json:"users"`
	PerGroup int     `json:"per_group"`
	Steps    int     `json:"steps"`
	Eta      float64 `json:"eta"`
	Tau      float64 `json:"tau"`
	// Sigma is the mode's σ_i; Needed the σ the corrected survivors' lemma
	// needs for this τ_i and C (zero when non-private).
	Sigma  float64 `json:"sigma"`
	Needed float64 `json:"needed_sigma"`
}

// OIRPhase is one phase's whole story.
type OIRPhase struct {
	OIRRow
	// UserIdx are the phase's users (0-based), Groups their C groups;
	// Unused the n_i − C·N_i users no group took.
	UserIdx []int     `json:"user_idx"`
	Groups  [][]int   `json:"groups"`
	Unused  []int     `json:"unused,omitempty"`
	Start   []float64 `json:"start"`
	// Paths are each group's iterates x_0…x_T (KeepPaths only).
	Paths []Vectors `json:"paths,omitempty"`
	// Ends are the groups' averaged iterates x̃_{i,j}.
	Ends Vectors `json:"end_iterates"`
	// Score is s_i = (1/C)·#{pairs within τ_i}; ScoreNoise its Laplace
	// draw; Gate the 4C/5 the noisy score must reach; PPass the chance it
	// does for this score, before the draw.
	Score      float64 `json:"score"`
	ScoreNoise float64 `json:"score_noise"`
	Gate       float64 `json:"gate"`
	PPass      float64 `json:"p_pass"`
	Passed     bool    `json:"passed"`
	// Counts are h_{i,j} (neighbours within 2τ_i, itself included), Keep
	// the ramp's probabilities, Kept the groups the coins kept (0-based).
	Counts []int     `json:"counts,omitempty"`
	Keep   []float64 `json:"keep_prob,omitempty"`
	Kept   []int     `json:"kept,omitempty"`
	// Mean is the kept iterates' mean (the start under EmptyStart); Noise
	// the Gaussian draw; Output Mean + Noise, or 0 when the run halted.
	Mean   []float64 `json:"mean,omitempty"`
	Noise  []float64 `json:"noise,omitempty"`
	Output []float64 `json:"output"`
}

// OIRResult is a run.
type OIRResult struct {
	// Groups is C, the groups per phase in force.
	Groups int        `json:"groups"`
	Phases []OIRPhase `json:"phases"`
	// Halted says the run stopped at a failed gate or an empty selection
	// and output 0; Stop says why the phases ended early, if they did.
	Halted bool      `json:"halted"`
	Stop   string    `json:"stop,omitempty"`
	Output []float64 `json:"output"`
	// Gradients counts item-gradient evaluations, at most n·m.
	Gradients int64             `json:"gradients"`
	Guarantee privacy.Guarantee `json:"guarantee"`
}

// Trace kinds outlier-iterate removal records.
const (
	KindOIRPhase   trace.Kind = "oir.phase"
	KindOIRGroup   trace.Kind = "oir.group"
	KindOIRGate    trace.Kind = "oir.gate"
	KindOIRKeep    trace.Kind = "oir.keep"
	KindOIRRelease trace.Kind = "oir.release"
	KindOIRStop    trace.Kind = "oir.stop"
)

// Validate checks the parameters for n users in ℝ^d.
func (p OIRParams) Validate(n, d int) error {
	errs := ballChecks(p.Eps, p.Delta, p.Loss, p.Lipschitz, p.Radius)
	bad := errs.bad
	if _, err := p.Mode.MarshalText(); err != nil {
		errs = append(errs, err)
	}
	errs.positive("eta", p.Eta, "the base step η")
	errs.positive("p-exp", p.PExp, "the step-decay exponent p")
	errs.positive("q-exp", p.QExp, "the phase-size exponent q")
	if n < 2 {
		bad("%d users: outlier-iterate removal needs at least 2", n)
	}
	switch {
	case p.Groups < 0:
		bad("groups = %d: C must be at least 2 (0 for the paper's)", p.Groups)
	case p.Groups == 1:
		bad("groups = 1: one group has no crowd to be compared with; take C ≥ 2")
	case p.Groups > n:
		bad("groups = %d with %d users: every group needs a user, so C ≤ n", p.Groups, n)
	}
	if p.Phases < 0 {
		bad("phases = %d: l must be at least 1 (0 for the paper's ⌊log₂ n⌋)", p.Phases)
	}
	errs.override("tau", p.TauScale, "the scale of τ_i", "the paper's 1000")
	if p.Mode == privacy.Paper {
		for _, o := range []struct {
			set  bool
			name string
		}{{p.Groups > 0, "groups"}, {p.Phases > 0, "phases"}, {p.TauScale > 0, "tau"}} {
			if o.set {
				bad("%s: paper mode uses the printed constants; choose teaching mode (or sound, which recalibrates σ) to set it", o.name)
			}
		}
	}
	switch p.OnEmpty {
	case EmptyDefault, EmptyHalt, EmptyStart:
	default:
		bad("on-empty = %s: outlier-iterate removal either halts (halt) or releases the phase's start (start)", p.OnEmpty)
	}
	if p.Mutant < OIRCorrect || p.Mutant > OIRWeakGate {
		bad("mutant %d: unknown", int(p.Mutant))
	}
	errs.startInBall(p.Theta0, d, p.Radius)
	return errors.Join(errs...)
}

// GroupCount is C for n users of m items: the override, or the printed
// ⌈100·ln(20·n·m·e^ε/δ)/ε⌉ (at most n).
func (p OIRParams) GroupCount(n, m int) int {
	if p.Groups > 0 {
		return p.Groups
	}
	c := math.Ceil(100 * (math.Log(20*float64(n)*float64(m)/p.Delta) + p.Eps) / p.Eps)
	return int(math.Min(c, float64(n)))
}

// PhaseCount is l: the override, or ⌊log₂ n⌋.
func (p OIRParams) PhaseCount(n int) int { return phaseCount(p.Phases, n) }

func (p OIRParams) tauScale() float64 {
	if p.TauScale > 0 {
		return p.TauScale
	}
	return 1000
}

// Schedule returns the phases a run on n users of m items in ℝ^d takes,
// ending before the first phase whose groups would be empty (N_i = 0):
// n_i = ⌊(1 − 2^{−q})·n/2^{q·i}⌋, η_i = η/2^{p·i}, N_i = ⌊n_i/C⌋,
// T_i = N_i·m, τ_i = 1000·η_i·L·√T_i·ln(ndm) and the mode's σ_i.
func (p OIRParams) Schedule(n, m, d int) []OIRRow {
	c := p.GroupCount(n, m)
	logNDM := math.Log(float64(n) * float64(d) * float64(m))
	var rows []OIRRow
	for i := 1; i <= p.PhaseCount(n); i++ {
		fi := float64(i)
		ni := phaseUsers(n, p.QExp, i)
		r := OIRRow{I: i, Users: ni, PerGroup: ni / c, Eta: p.Eta / math.Exp2(p.PExp*fi)}
		if r.PerGroup == 0 {
			break
		}
		r.Steps = r.PerGroup * m
		r.Tau = p.tauScale() * r.Eta * p.Lipschitz * math.Sqrt(float64(r.Steps)) * logNDM
		if p.Mode != privacy.NonPrivate {
			r.Needed = p.neededSigma(c, r.Tau)
			if p.Mode == privacy.Sound {
				r.Sigma = r.Needed
			} else {
				l := math.Log(float64(n) / p.Delta)
				r.Sigma = 100 * r.Tau * l * l / (p.Eps * float64(c))
			}
		}
		rows = append(rows, r)
	}
	return rows
}

// GateScale is the gate's Laplace scale: ŝ = s + Lap(20/ε) must reach
// 4C/5 (Lap(2/ε) in the weak-gate variant). The score moves by at most
// 2(C−1)/C when one group's iterate changes, so the gate spends
// 2(C−1)/C·ε/20 < ε/10.
func (p OIRParams) GateScale() float64 {
	if p.Mutant == OIRWeakGate {
		return 2 / p.Eps
	}
	return 20 / p.Eps
}

func gateLevel(c int) float64 { return 4 * float64(c) / 5 }

func scoreSens(c int) float64 { return 2 * float64(c-1) / float64(c) }

// The corrected accounting of a phase (sound mode's calibration; spec
// 001-004 leaves the constant to "≲"): the gate spends ε_g = Δ_s/(20/ε);
// two rare events — the gate passing iterates whose score is below
// 2C/3 + Δ_s, and the coupled coins changing more than 2 + k_ζ
// memberships — each get ζ′ = δ/(2(e^ε + 2)); the Gaussian on the
// survivors' mean gets (ε − ε_g, δ/(2e^{ε_g})).
func (p OIRParams) budget(c int) (epsGate, epsGauss, deltaGauss, zeta float64) {
	epsGate = p.GateEps(c)
	return epsGate, p.Eps - epsGate, p.Delta / (2 * math.Exp(epsGate)), p.Delta / (2 * (math.Exp(p.Eps) + 2))
}

// GateEps is ε_g = 2(C−1)/C·ε/20, the share of ε the corrected
// accounting gives the gate of C groups.
func (p OIRParams) GateEps(c int) float64 { return scoreSens(c) / (20 / p.Eps) }

// neededSigma is the σ that makes the survivors' mean (ε − ε_g,
// δ/(2e^{ε_g}))-DP: the analytic Gaussian for the mean's coupled
// sensitivity min(10τ, 30τ(2 + k_ζ)/C), Asi & Liu's lemma with the
// constants corrected.
func (p OIRParams) neededSigma(c int, tau float64) float64 {
	_, eg, dg, zeta := p.budget(c)
	_, sens := mech.SurvivorMeanSensitivity(c, tau, zeta)
	cal, _ := privacy.AnalyticGaussianSigma(eg, dg, sens) // Validate checked ε, δ; τ > 0
	return cal.Scale
}

// LooseGatePass is the probability that the gate passes C iterates whose
// score is below 2C/3 + Δ_s, the event the coupling cannot cover: the
// noise must exceed 4C/5 − 2C/3 − Δ_s = 2C/15 − Δ_s.
func (p OIRParams) LooseGatePass(c int) float64 {
	gap := 2*float64(c)/15 - scoreSens(c)
	if p.Mutant == OIRNoScoreNoise {
		if gap > 0 {
			return 0
		}
		return 1
	}
	return noise.Laplace{Scale: p.GateScale()}.Survival(gap)
}

// OutlierIterateRemoval runs Lowy, Liu & Asi's Algorithm 1 on data.
func OutlierIterateRemoval(ctx cancel.Context, p OIRParams, data *dataset.Dataset, streams *rng.Streams, progress mech.Progress) (OIRResult, *trace.Trace, error) {
	n, d := data.N(), data.Dim
	if err := p.Validate(n, d); err != nil {
		return OIRResult{}, nil, err
	}
	m, ok := data.M()
	if !ok {
		return OIRResult{}, nil, format.Errorf("users hold different numbers of items: outlier-iterate removal pools each group's N·m items and needs the same m for every user")
	}
	var rec *trace.Recorder
	if p.Record {
		rec = trace.NewRecorder("outlier-iterate-removal", streams.Seed())
	}
	c := p.GroupCount(n, m)
	rows := p.Schedule(n, m, d)
	res := OIRResult{Groups: c}
	if len(rows) < p.PhaseCount(n) {
		i := len(rows) + 1
		ni := phaseUsers(n, p.QExp, i)
		res.Stop = format.Sprintf("phase %d would give each of the C = %d groups ⌊%d/%d⌋ = 0 users", i, c, ni, c)
		if p.OnShort == ShortRefuse {
			return OIRResult{}, nil, format.Errorf("%s: bring more users, or fewer groups or phases (or let the run stop there)", res.Stop)
		}
	}
	order := userOrder(n, p.Order, streams)
	x := make([]float64, d)
	if p.Theta0 != nil {
		copy(x, p.Theta0)
	}
	var done int64
	total := int64(len(rows) * c)
	ph := oirPhase{p: p, data: data, m: m, c: c, rec: rec}
	used := 0
	for _, r := range rows {
		out, err := ph.run(ctx, r, order[used:used+r.Users], x, streams.Scope(format.Sprintf("phase %d", r.I)), func() {
			done++
			if progress != nil {
				progress(done, total)
			}
		})
		if err != nil {
			return OIRResult{}, nil, err
		}
		used += r.Users
		res.Gradients += int64(c) * int64(r.Steps)
		res.Phases = append(res.Phases, out)
		x = out.Output
		if !out.Passed || out.Mean == nil {
			res.Halted = true
			break
		}
	}
	if res.Stop != "" && !res.Halted {
		rec.Addf(KindOIRStop, x, "%s: the run stops and outputs the last phase's point %s", res.Stop, trace.Vec(x))
	}
	res.Output = x
	res.Guarantee = p.Guarantee(n, m, d)
	return res, rec.Trace(), nil
}

// oirPhase holds what every phase shares.
type oirPhase struct {
	p    OIRParams
	data *dataset.Dataset
	m, c int
	rec  *trace.Recorder
}

func (ph *oirPhase) run(ctx cancel.Context, r OIRRow, users []int, start []float64, streams *rng.Streams, tick func()) (OIRPhase, error) {
	p, d, c, rec := ph.p, ph.data.Dim, ph.c, ph.rec
	out := OIRPhase{OIRRow: r, UserIdx: slices.Clone(users), Start: slices.Clone(start), Gate: gateLevel(c)}
	out.Unused = slices.Clone(users[c*r.PerGroup:])
	rec.Addf(KindOIRPhase, out.OIRRow, "phase %d: %d users in C = %d groups of N = %d (%d items each), step η = %.4g, radius τ = %.4g, from %s",
		r.I, r.Users, c, r.PerGroup, r.Steps, r.Eta, r.Tau, trace.Vec(start))
	ball := loss.Ball{Centre: make([]float64, d), Radius: p.Radius}
	out.Ends = Vectors{Dim: d, Flat: make([]float64, c*d)}
	items := make([][]float64, 0, r.Steps)
	for j := range c {
		if err := ctx.Err(); err != nil {
			return OIRPhase{}, err
		}
		group := slices.Clone(users[j*r.PerGroup : (j+1)*r.PerGroup])
		out.Groups = append(out.Groups, group)
		items = items[:0]
		for _, u := range group {
			for k := range ph.m {
				items = append(items, ph.data.Item(u, k))
			}
		}
		if p.Order == Shuffled {
			src := streams.Scope(format.Sprintf("group %d", j+1)).Get(rng.Order)
			src.Shuffle(len(items), func(a, b int) { items[a], items[b] = items[b], items[a] })
		}
		var path *Vectors
		if p.KeepPaths {
			path = &Vectors{Dim: d}
		}
		end := SGDPass(p.Loss, items, r.Eta, ball, start, path)
		copy(out.Ends.At(j), end)
		if path != nil {
			out.Paths = append(out.Paths, *path)
		}
		rec.Addf(KindOIRGroup, end, "phase %d, group %d: one pass of SGD over %d items ends (averaged) at %s", r.I, j+1, len(items), trace.Vec(end))
		tick()
	}
	ends := make([][]float64, c)
	for j := range ends {
		ends[j] = out.Ends.At(j)
	}
	countR := 2 * r.Tau
	if p.Mutant == OIRCountsAtTau {
		countR = r.Tau
	}
	counts := robust.NewIndex(ends).CountsAt(r.Tau, countR)
	out.Score = robust.Score(counts[0])
	out.Passed, out.PPass = true, 1
	switch {
	case p.Mode == privacy.NonPrivate:
	case p.Mutant == OIRNoScoreNoise:
		if out.Passed = out.Score >= out.Gate; !out.Passed {
			out.PPass = 0
		}
	default:
		lap := noise.Laplace{Scale: p.GateScale(), Src: streams.Get(rng.Laplace)}
		out.ScoreNoise = lap.Rand()
		out.PPass = lap.Survival(out.Gate - out.Score)
		out.Passed = out.Score+out.ScoreNoise >= out.Gate
	}
	out.Counts = counts[1]
	out.Keep = make([]float64, c)
	for j, h := range out.Counts {
		out.Keep[j] = robust.Keep(h, c)
		if p.Mutant == OIRKeepAll {
			out.Keep[j] = 1
		}
	}
	if p.Mode == privacy.NonPrivate {
		rec.Addf(KindOIRGate, out, "phase %d: score s = (1/C)·#{pairs within τ} = %.4g (4C/5 = %.4g): non-private, so no gate is applied and the phase goes on",
			r.I, out.Score, out.Gate)
	} else {
		rec.Addf(KindOIRGate, out, "phase %d: score s = (1/C)·#{pairs within τ} = %.4g; noisy score %.4g %s 4C/5 = %.4g (chance of passing %.3g)",
			r.I, out.Score, out.Score+out.ScoreNoise, map[bool]string{true: "≥", false: "<"}[out.Passed], out.Gate, out.PPass)
	}
	out.Output = make([]float64, d)
	if !out.Passed {
		rec.Addf(KindOIRStop, out.Output, "phase %d: the gate failed: halt and output 0", r.I)
		return out, nil
	}
	coins := streams.Get(rng.Keep)
	for j, pk := range out.Keep {
		// A coin for every group, even p ∈ {0, 1}: the stream's position
		// then depends on C only, so moving one group re-flips no other.
		if coins.Float64() < pk {
			out.Kept = append(out.Kept, j)
		}
	}
	rec.Addf(KindOIRKeep, out.Kept, "phase %d: keep each group with p on the ramp of h = #{within 2τ}: %d of %d kept", r.I, len(out.Kept), c)
	switch {
	case len(out.Kept) > 0:
		out.Mean = make([]float64, d)
		for _, j := range out.Kept {
			for k, v := range out.Ends.At(j) {
				out.Mean[k] += v
			}
		}
		for k := range out.Mean {
			out.Mean[k] /= float64(len(out.Kept))
		}
	case p.OnEmpty == EmptyStart:
		out.Mean = slices.Clone(start)
	default:
		rec.Addf(KindOIRStop, out.Output, "phase %d: the coins kept no group: halt and output 0", r.I)
		return out, nil
	}
	out.Noise = make([]float64, d)
	if r.Sigma > 0 {
		noise.Gaussian{Sigma: r.Sigma, Src: streams.Get(rng.Gauss)}.RandVec(out.Noise)
	}
	for k := range out.Output {
		out.Output[k] = out.Mean[k] + out.Noise[k]
	}
	rec.Addf(KindOIRRelease, out.Output, "phase %d: release the kept mean %s + N(0, σ²I), σ = %.4g: %s", r.I, trace.Vec(out.Mean), r.Sigma, trace.Vec(out.Output))
	return out, nil
}

// SGDPass is one pass of projected SGD over items in the order given
// (Lowy, Liu & Asi's B-SGD): x_{t+1} = Π(x_t − η·∇f(x_t; z_t)) onto ball,
// from x0, returning the average (1/T)·Σ_{t=1..T} x_t of the iterates
// after each step. The paper leaves open which iterates are averaged;
// these are the ones its Lemma B.3 (Feldman, Koren & Talwar 2020) bounds.
// If path is not nil it receives x_0…x_T.
func SGDPass(f loss.Item, items [][]float64, eta float64, ball loss.Ball, x0 []float64, path *Vectors) []float64 {
	d := len(x0)
	x := slices.Clone(x0)
	g := make([]float64, d)
	sum := make([]float64, d)
	if path != nil {
		path.Dim = d
		path.Flat = append(path.Flat[:0], x...)
	}
	for _, z := range items {
		f.Grad(x, z, g)
		for k := range x {
			x[k] -= eta * g[k]
		}
		ball.Project(x, x)
		for k := range x {
			sum[k] += x[k]
		}
		if path != nil {
			path.Flat = append(path.Flat, x...)
		}
	}
	if len(items) == 0 {
		return x
	}
	for k := range sum {
		sum[k] /= float64(len(items))
	}
	return sum
}

// Guarantee is what a run on n users of m items in ℝ^d may claim: (ε, δ)
// at user level if, in every phase, the gate rarely passes loose iterates
// and σ_i is at least what the corrected survivors' lemma needs. Phases
// hold disjoint users, so they compose in parallel.
func (p OIRParams) Guarantee(n, m, d int) privacy.Guarantee {
	if p.Mode == privacy.NonPrivate {
		return privacy.Guarantee{Eps: math.Inf(1), Mode: p.Mode, Note: "non-private: the gate always passes and no noise is added"}
	}
	c := p.GroupCount(n, m)
	eg, _, _, zeta := p.budget(c)
	ratio := math.Inf(1)
	for _, r := range p.Schedule(n, m, d) {
		ratio = math.Min(ratio, r.Sigma/r.Needed)
	}
	g := privacy.Guarantee{Eps: p.Eps, Delta: p.Delta, Mode: p.Mode,
		Note: format.Sprintf("Lowy, Liu & Asi 2024, Theorem 2.1: the gate spends %.3g of ε on the score; the kept iterates' mean is bounded by Asi & Liu's lemma with corrected constants (erratum A30), and the Gaussian has the rest; phases hold disjoint users (parallel composition)", eg)}
	g.Preconditions = []privacy.Precondition{
		privacy.Fact("the score meets the gate through Lap(20/ε) noise", p.Mutant != OIRNoScoreNoise && p.Mutant != OIRWeakGate),
		privacy.Fact("the ramp counts neighbours within 2τ_i, and the coins follow it", p.Mutant != OIRCountsAtTau && p.Mutant != OIRKeepAll),
		privacy.Require("Pr[the gate passes iterates scoring below 2C/3 + Δ_s]", p.LooseGatePass(c), privacy.AtMost, zeta),
	}
	if !math.IsInf(ratio, 1) {
		g.Preconditions = append(g.Preconditions, privacy.Require("σ_i over the σ the kept mean needs, in the tightest phase", ratio, privacy.AtLeast, 1))
	}
	return g
}
