package mech

import (
	"errors"
	"math"
	"math/bits"

	"github.com/uldplab/uldp/core/cancel"
	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/loss"
	"github.com/uldplab/uldp/core/noise"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/core/trace"
)

// MaxExactUsers bounds the exact r* search: it keeps a bit per subset of
// users (2ⁿ bits, 2 MiB at n = 24).
const MaxExactUsers = 24

// maxExactWork bounds the distance checks of one exact search
// (Σ_{u≤4κ} C(n, u)(n − u)); beyond it the answer is "infeasible", never an
// approximation.
const maxExactWork = 2_000_000_000

// DelParams configures DelOutputPert (Paper A, Alg. 1) releasing f = the
// mean of the remaining users' item means.
type DelParams struct {
	Eps, Delta float64
	// Sens is the target deletion sensitivity Δ.
	Sens float64
	Mode privacy.Mode
	// Kappa overrides κ in teaching mode (0: κ from ε and δ). The TDLap
	// then uses decay ε̄ with that κ, and the guarantee is not certified.
	Kappa int
	// Map, when set, makes f = Map(mean) instead of the mean: the exact
	// minimiser of a squared-loss objective over a convex set is a projection
	// of an affine shrink of the mean (SCOutputPert, Phased-ERM's phases).
	// Map must be 1-Lipschitz, so the certificate's bound still holds; it may
	// overwrite and return its argument.
	Map func(mean []float64) []float64
	// Func, when set, replaces the mean family altogether: f is evaluated on
	// x₋U directly (the absolute loss's minimiser, say). App. C's
	// certificate is a bound for the squared loss, so such runs always
	// search the lattice.
	Func func(*dataset.Dataset) (SubsetFunc, error)
}

// SubsetFunc is a released function on the datasets x₋U the exact search
// visits, for functions no Map of the mean expresses.
type SubsetFunc interface {
	// Without writes f(x₋U) into dst, for the users U in mask, and returns
	// it.
	Without(mask uint32, dst []float64) []float64
}

// Validate checks the parameters.
func (p DelParams) Validate() error {
	if err := errors.Join(privacy.CheckEps(p.Eps), privacy.CheckDelta(p.Delta), privacy.CheckSens(p.Sens)); err != nil {
		return err
	}
	if _, err := p.Mode.MarshalText(); err != nil {
		return err
	}
	if p.Kappa != 0 && p.Mode != privacy.Teaching {
		return format.Errorf("kappa = %d: choosing κ by hand is a teaching-mode setting (its guarantee is not the requested one); set mode to teaching or drop kappa", p.Kappa)
	}
	if p.Kappa < 0 || p.Kappa > noise.MaxKappa {
		return format.Errorf("kappa = %d: choose 1 ≤ κ ≤ %d", p.Kappa, noise.MaxKappa)
	}
	return nil
}

// apply returns f's value from a mean (the identity without a Map).
func (p DelParams) apply(mean []float64) []float64 {
	if p.Map == nil {
		return mean
	}
	return p.Map(mean)
}

// released returns f on x₋U for data, and the lattice's edges for the
// exact search: through Func if set, else from the users' means.
func (p DelParams) released(data *dataset.Dataset) (func(mask uint32) []float64, edges, error) {
	if p.Func != nil {
		sf, err := p.Func(data)
		if err != nil {
			return nil, nil, err
		}
		f := func(mask uint32) []float64 { return sf.Without(mask, make([]float64, data.Dim)) }
		return f, &funcEdges{sf: sf, f: make([]float64, data.Dim), g: make([]float64, data.Dim)}, nil
	}
	means, total := userMeans(data)
	f := func(mask uint32) []float64 {
		return p.apply(meanWithout(means, total, mask, make([]float64, data.Dim)))
	}
	d := len(total)
	return f, &meanEdges{means: means, total: total, fmap: p.Map, f: make([]float64, d), pf: make([]float64, d), g: make([]float64, d)}, nil
}

// DelCalibration returns the mechanism's ε̄, δ̄, κ and σ, with κ overridden
// in teaching mode (σ then follows the same formula with the chosen κ).
func (p DelParams) DelCalibration() (privacy.DelCalibration, error) {
	c, err := privacy.DelOutputPert(p.Eps, p.Delta, p.Sens)
	if err != nil || p.Kappa == 0 {
		return c, err
	}
	c.Kappa = p.Kappa
	c.Scale = 16 * float64(p.Kappa) * p.Sens * math.Sqrt(math.Log(2/c.DeltaBar)) / c.EpsBar
	return c, nil
}

// DelLaw is DelOutputPert's exact output law on one dataset (spec 000-002
// §A-1): ⊥ with probability PBottom = Pr[R1 < r*], otherwise
// Centre + N(0, Sigma²I).
type DelLaw struct {
	Kappa int
	Sigma float64
	// RStar is the deletion distance to stability, −1 if no stable set of
	// at most 2κ users exists (then PBottom = 1).
	RStar int
	// Removed are the indices of S*, the first stable set of size r* in
	// lexicographic order.
	Removed []int
	PBottom float64
	Centre  []float64 // nil when PBottom = 1
	// Mean is f(x) on the whole dataset, for comparisons (and the audit's
	// "stability test skipped" mutant).
	Mean []float64
	// Certified says the App. C certificate proved r* = 0 without search.
	Certified bool
	// GammaC is the certificate's max ‖ū_i − f(x)‖ and Bound its
	// 2(4κ+1)γ_c/(n − 4κ − 1), compared with Δ.
	GammaC, Bound float64
}

// Progress reports the exact search's progress: done of total checks.
type Progress func(done, total int64)

// ErrInfeasible says the exact r* search is out of reach at these
// parameters and no certificate proved stability.
var ErrInfeasible = errors.New("exact stability check infeasible at these parameters")

// userMeans returns each user's item mean and their total.
func userMeans(d *dataset.Dataset) ([][]float64, []float64) {
	means := d.Means()
	total := make([]float64, d.Dim)
	for _, m := range means {
		for k, v := range m {
			total[k] += v
		}
	}
	return means, total
}

// meanWithout returns f(x₋U) = (total − Σ_{i∈U} ū_i)/(n − |U|) into dst.
func meanWithout(means [][]float64, total []float64, mask uint32, dst []float64) []float64 {
	copy(dst, total)
	for m := mask; m != 0; m &= m - 1 {
		i := bits.TrailingZeros32(m)
		for k, v := range means[i] {
			dst[k] -= v
		}
	}
	rest := float64(len(means) - bits.OnesCount32(mask))
	for k := range dst {
		dst[k] /= rest
	}
	return dst
}

// DelOutputPertLaw computes the exact output law on data: the App. C
// certificate first, else the exact r* search of spec §8.3 (bitset over
// subsets, top-down over deletion levels), cancellable through ctx.
func DelOutputPertLaw(ctx cancel.Context, p DelParams, data *dataset.Dataset, progress Progress) (DelLaw, error) {
	if err := p.Validate(); err != nil {
		return DelLaw{}, err
	}
	cal, err := p.DelCalibration()
	if err != nil {
		return DelLaw{}, err
	}
	n, k := data.N(), cal.Kappa
	if n < 4*k+2 {
		return DelLaw{}, format.Errorf("n = %d users: DelOutputPert deletes up to 4κ = %d users and needs n ≥ 4κ+2 = %d (raise ε or δ to lower κ, or add users)", n, 4*k, 4*k+2)
	}
	law := DelLaw{Kappa: k, Sigma: cal.Scale}
	f, lattice, err := p.released(data)
	if err != nil {
		return DelLaw{}, err
	}
	law.Mean = f(0)
	law.Bound = math.Inf(1) // no certificate for a Func
	if p.Func == nil {
		// The certificate uses the unprojected mean: γ_c is the largest
		// centred per-user gradient ‖ū_i − x̄‖ of the squared loss.
		means, total := userMeans(data)
		full := meanWithout(means, total, 0, make([]float64, data.Dim))
		for _, u := range means {
			law.GammaC = math.Max(law.GammaC, loss.Dist(u, full))
		}
		// ‖f(x) − f(x₋U)‖ ≤ |U|·γ_c/(n − |U|); twice that at |U| = 4κ+1
		// bounds every edge of the stability lattice.
		law.Bound = 2 * float64(4*k+1) * law.GammaC / float64(n-4*k-1)
	}
	if law.Bound <= p.Sens {
		law.Certified, law.Centre = true, law.Mean
		return law, nil
	}
	if n > MaxExactUsers {
		return DelLaw{}, format.Errorf("%w: n = %d users is above the exact search's %d, and the certificate did not fire (bound %.4g > Δ = %.4g)", ErrInfeasible, n, MaxExactUsers, law.Bound, p.Sens)
	}
	if w := exactWork(n, 4*k); w > maxExactWork {
		return DelLaw{}, format.Errorf("%w: %d checks for n = %d, 4κ = %d", ErrInfeasible, w, n, 4*k)
	}
	unstable, err := searchLattice(ctx, n, lattice, p.Sens, 4*k, progress)
	if err != nil {
		return DelLaw{}, err
	}
	law.RStar = -1
	for s := 0; s <= 2*k && law.RStar < 0; s++ {
		forEachCombination(n, s, func(set []int) bool {
			mask := uint32(0)
			for _, i := range set {
				mask |= 1 << i
			}
			if !unstable.get(mask) {
				law.RStar, law.Removed = s, append([]int(nil), set...)
				law.Centre = f(mask)
				return false
			}
			return true
		})
	}
	td, err := noise.NewTDLapKappa(cal.EpsBar, k, nil)
	if err != nil {
		return DelLaw{}, err
	}
	switch {
	case law.RStar < 0:
		law.PBottom = 1
	case law.RStar > 0:
		law.PBottom = td.CDF(law.RStar - 1)
	}
	return law, nil
}

// exactWork is Σ_{u≤depth} C(n, u)(n − u).
func exactWork(n, depth int) int64 {
	var w, c int64 = 0, 1 // c = C(n, u)
	for u := 0; u <= depth && u <= n; u++ {
		w += c * int64(n-u)
		c = c * int64(n-u) / int64(u+1)
	}
	return w
}

// bitset holds one bit per subset of users.
type bitset []uint64

func (b bitset) get(m uint32) bool { return b[m>>6]>>(m&63)&1 == 1 }
func (b bitset) set(m uint32)      { b[m>>6] |= 1 << (m & 63) }

// edges measures the stability lattice's edges: far(U, I, Δ) reports
// whether ‖f(x₋U) − f(x₋U∪{i})‖ > Δ for some i in I. One call per U keeps
// the per-edge work free of interface calls (the search's inner loop).
type edges interface {
	far(mask, cands uint32, sens float64) bool
}

// meanEdges is the mean family, incrementally: f(x₋U∪{i}) comes from
// f(x₋U)'s mean in O(d).
type meanEdges struct {
	means    [][]float64
	total    []float64
	fmap     func([]float64) []float64
	f, pf, g []float64 // mean of x₋U, fmap of it, scratch
}

func (e *meanEdges) far(mask, cands uint32, sens float64) bool {
	meanWithout(e.means, e.total, mask, e.f)
	rest := float64(len(e.means) - bits.OnesCount32(mask))
	if e.fmap == nil {
		// f(x₋U) − f(x₋U∪{i}) = (ū_i − f(x₋U))/(k − 1), k = n − |U|.
		for m := cands; m != 0; m &= m - 1 {
			if loss.Dist(e.means[bits.TrailingZeros32(m)], e.f)/(rest-1) > sens {
				return true
			}
		}
		return false
	}
	copy(e.pf, e.f)
	e.pf = e.fmap(e.pf)
	for m := cands; m != 0; m &= m - 1 {
		// Mean without i as well: (k·f − ū_i)/(k − 1), then map.
		i := bits.TrailingZeros32(m)
		for k, v := range e.f {
			e.g[k] = (rest*v - e.means[i][k]) / (rest - 1)
		}
		if loss.Dist(e.pf, e.fmap(e.g)) > sens {
			return true
		}
	}
	return false
}

// funcEdges evaluates a SubsetFunc at both ends of every edge.
type funcEdges struct {
	sf   SubsetFunc
	f, g []float64
}

func (e *funcEdges) far(mask, cands uint32, sens float64) bool {
	e.f = e.sf.Without(mask, e.f)
	for m := cands; m != 0; m &= m - 1 {
		e.g = e.sf.Without(mask|1<<bits.TrailingZeros32(m), e.g)
		if loss.Dist(e.f, e.g) > sens {
			return true
		}
	}
	return false
}

// searchLattice marks every subset U with |U| ≤ depth that is unstable: a
// bad edge (U′, i) with U′ ⊇ U, |U′| ≤ depth, ‖f(x₋U′) − f(x₋U′∪{i})‖ > Δ.
// Levels run from depth down to 0 so supersets are known first.
func searchLattice(ctx cancel.Context, n int, e edges, sens float64, depth int, progress Progress) (bitset, error) {
	unstable := make(bitset, (1<<n+63)/64)
	all := uint32(1)<<n - 1
	var done int64
	work := exactWork(n, depth)
	for u := min(depth, n-1); u >= 0; u-- {
		var err error
		forEachMask(n, u, func(mask uint32) bool {
			if done&0xffff < int64(n) { // about every 65k checks
				if err = ctx.Err(); err != nil {
					return false
				}
				if progress != nil {
					progress(done, work)
				}
			}
			cands := all &^ mask
			done += int64(n - u)
			// An unstable superset x₋U∪{i} makes U unstable: check those
			// bits before measuring any edge.
			bad := false
			if u < depth {
				for m := cands; m != 0 && !bad; m &= m - 1 {
					bad = unstable.get(mask | 1<<bits.TrailingZeros32(m))
				}
			}
			if bad || e.far(mask, cands, sens) {
				unstable.set(mask)
			}
			return true
		})
		if err != nil {
			return nil, err
		}
	}
	if progress != nil {
		progress(work, work)
	}
	return unstable, nil
}

// forEachMask calls f with every n-bit mask of popcount u (Gosper's hack),
// until f returns false.
func forEachMask(n, u int, f func(uint32) bool) {
	if u == 0 {
		f(0)
		return
	}
	limit := uint32(1) << n
	for m := uint32(1)<<u - 1; m < limit; {
		if !f(m) {
			return
		}
		c := m & -m
		r := m + c
		m = ((r^m)>>2)/c | r
	}
}

// forEachCombination calls f with every s-subset of {0..n−1} as increasing
// indices in lexicographic order, until f returns false.
func forEachCombination(n, s int, f func([]int) bool) {
	set := make([]int, s)
	for i := range set {
		set[i] = i
	}
	for {
		if !f(set) {
			return
		}
		i := s - 1
		for i >= 0 && set[i] == n-s+i {
			i--
		}
		if i < 0 {
			return
		}
		set[i]++
		for j := i + 1; j < s; j++ {
			set[j] = set[j-1] + 1
		}
	}
}

// Trace kinds DelOutputPert records.
const (
	KindDelCalibrate   trace.Kind = "del.calibrate"
	KindDelCertificate trace.Kind = "del.certificate"
	KindDelStability   trace.Kind = "stability.result"
	KindTDLapDraw      trace.Kind = "tdlap.draw"
	KindNoiseAdd       trace.Kind = "noise.add"
	KindDelBottom      trace.Kind = "del.bottom"
)

// DelResult is one run of DelOutputPert.
type DelResult struct {
	Law DelLaw
	R1  int
	// Output is the released vector, nil for ⊥.
	Output    []float64
	Guarantee privacy.Guarantee
}

// DelOutputPert runs the mechanism on data: the exact law, then R1 from the
// "tdlap" stream and, unless ⊥, Gaussian noise from the "gauss" stream.
// Non-private mode releases f(x) itself.
func DelOutputPert(ctx cancel.Context, p DelParams, data *dataset.Dataset, streams *rng.Streams, progress Progress) (DelResult, *trace.Trace, error) {
	rec := trace.NewRecorder("deloutputpert", streams.Seed())
	if err := p.Validate(); err != nil {
		return DelResult{}, nil, err
	}
	res := DelResult{Guarantee: p.Guarantee(data.N())}
	if p.Mode == privacy.NonPrivate {
		f, _, err := p.released(data)
		if err != nil {
			return DelResult{}, nil, err
		}
		res.Output = f(0)
		res.Law.Centre = res.Output
		rec.Addf(KindNoiseAdd, res.Output, "non-private: release f(x) = %v with no test and no noise", trace.Vec(res.Output))
		return res, rec.Trace(), nil
	}
	cal, err := p.DelCalibration()
	if err != nil {
		return DelResult{}, nil, err
	}
	rec.Addf(KindDelCalibrate, cal, "ε̄ = %.4g, δ̄ = %.4g, κ = %d, σ = 16κΔ√ln(2/δ̄)/ε̄ = %.4g", cal.EpsBar, cal.DeltaBar, cal.Kappa, cal.Scale)
	law, err := DelOutputPertLaw(ctx, p, data, progress)
	if err != nil {
		return DelResult{}, nil, err
	}
	res.Law = law
	verdict := "does not fire: search the deletion lattice"
	if law.Certified {
		verdict = "fires: x is stable, r* = 0 without search"
	}
	if p.Func != nil {
		rec.Addf(KindDelCertificate, law, "certificate: App. C's bound is for the squared loss, not this f → search the deletion lattice")
	} else {
		rec.Addf(KindDelCertificate, law, "certificate: 2(4κ+1)γ_c/(n−4κ−1) = %.4g vs Δ = %.4g → %s", law.Bound, p.Sens, verdict)
	}
	switch {
	case law.RStar < 0:
		rec.Addf(KindDelStability, law, "no set of ≤ 2κ = %d users leaves a stable dataset: ⊥ with probability 1", 2*law.Kappa)
	default:
		ids := make([]string, len(law.Removed))
		for i, u := range law.Removed {
			ids[i] = data.Users[u].ID
		}
		rec.Addf(KindDelStability, law, "r* = %d (remove %s): Pr[⊥] = Pr[R1 < r*] = %.4g", law.RStar, trace.Users(ids), law.PBottom)
	}
	res.R1, res.Output, err = law.Sample(cal.EpsBar, data.Dim, streams)
	if err != nil {
		return DelResult{}, nil, err
	}
	if res.Output == nil {
		rec.Addf(KindTDLapDraw, res.R1, "R1 = %d drawn from TDLap(ε̄, κ = %d): below r*, so no stable set is allowed", res.R1, cal.Kappa)
		rec.Addf(KindDelBottom, nil, "output ⊥")
		return res, rec.Trace(), nil
	}
	rec.Addf(KindTDLapDraw, res.R1, "R1 = %d drawn from TDLap(ε̄, κ = %d): ≥ r* = %d, release", res.R1, cal.Kappa, law.RStar)
	rec.Addf(KindNoiseAdd, res.Output, "output f(x₋S*) + N(0, σ²I) = %v + N(0, %.4g²I) = %v", trace.Vec(law.Centre), law.Sigma, trace.Vec(res.Output))
	return res, rec.Trace(), nil
}

// Sample draws one output from the law: R1 from TDLap(ε̄, κ) on the
// "tdlap" stream and, if R1 ≥ r*, Centre + N(0, σ²I) on the "gauss" stream;
// nil output means ⊥. This is the mechanism's whole random part, so audits
// compute the law once and sample it many times (see Sampler). A law with
// Kappa 0 has no stability test (the plain Gaussian mechanism): no R1,
// never ⊥.
func (law DelLaw) Sample(epsBar float64, dim int, streams *rng.Streams) (r1 int, out []float64, err error) {
	draw, err := law.Sampler(epsBar, dim)
	if err != nil {
		return 0, nil, err
	}
	r1, out = draw(streams)
	return r1, out, nil
}

// Sampler returns Sample with the TDLap shape (its 2κ+1 cut points) built
// once, for drawing one law many times: an audit's 10⁵ runs would otherwise
// rebuild it for every run. It writes every output to one buffer, so the
// next draw overwrites it (an audit reads each output once and keeps
// nothing: no garbage per run). The function is not safe for concurrent use.
func (law DelLaw) Sampler(epsBar float64, dim int) (func(streams *rng.Streams) (r1 int, out []float64), error) {
	var td *noise.TDLap
	if law.Kappa > 0 {
		var err error
		if td, err = noise.NewTDLapKappa(epsBar, law.Kappa, nil); err != nil {
			return nil, err
		}
	}
	buf := make([]float64, dim)
	return func(streams *rng.Streams) (r1 int, out []float64) {
		if td != nil {
			td.Src = streams.Get(rng.TDLap)
			r1 = td.Rand()
			if law.RStar < 0 || r1 < law.RStar {
				return r1, nil
			}
		}
		out = noise.Gaussian{Sigma: law.Sigma, Src: streams.Get(rng.Gauss)}.RandVec(buf)
		for k := range out {
			out[k] += law.Centre[k]
		}
		return r1, out
	}, nil
}

// Guarantee is the claim of a run on n users: (ε, δ)-DP by Thm 3.3 when
// the Gaussian step's lemma applies (ε̄ < 1) and the deletions leave
// users (n ≥ 4κ+2). The audit lab shows it for settings it audits outside
// the proof.
func (p DelParams) Guarantee(n int) privacy.Guarantee {
	if p.Mode == privacy.NonPrivate {
		return privacy.Guarantee{Eps: math.Inf(1), Mode: p.Mode, Note: "non-private: f(x) released exactly"}
	}
	cal, err := p.DelCalibration()
	if err != nil {
		return privacy.Guarantee{Eps: math.Inf(1), Mode: p.Mode, Note: err.Error()}
	}
	g := privacy.Guarantee{Eps: p.Eps, Delta: p.Delta, Mode: p.Mode,
		Note: "Paper A, Thm 3.3 with errata A1, A2: (ε, δ)-DP for every f, Δ and input",
		Preconditions: []privacy.Precondition{
			privacy.Require("n ≥ 4κ+2 (deletions leave a non-empty dataset)", float64(n), privacy.AtLeast, float64(4*cal.Kappa+2)),
			privacy.Require("ε̄ = ε/2 < 1 (Gaussian-mechanism lemma)", cal.EpsBar, privacy.Below, 1),
		}}
	if p.Kappa != 0 {
		kappa, _ := noise.TDLapKappa(cal.EpsBar, cal.DeltaBar)
		g.Preconditions = append(g.Preconditions, privacy.Require("κ chosen by hand ≥ κ(ε̄, δ̄)", float64(p.Kappa), privacy.AtLeast, float64(kappa)))
	}
	return g
}

// ExampleInliers returns the values of the 13 close users in Paper A's
// worked example of the stability test, a fresh slice each call: the
// lessons and the audit lab add outliers to them.
func ExampleInliers() []float64 {
	return []float64{0, 0.05, -0.05, 0.10, -0.10, 0.02, -0.02, 0.07, -0.07, 0.03, -0.03, 0.04, -0.04}
}
