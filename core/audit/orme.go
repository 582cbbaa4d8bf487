package audit

import (
	"cmp"
	"errors"
	"math"
	"slices"
	"strings"

	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/internal/gauss"
	"github.com/uldplab/uldp/core/mech"
	"github.com/uldplab/uldp/core/noise"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/core/robust"
)

// NoMutant names the real mechanism in a menu of broken variants.
const NoMutant = "none"

// ORME's broken variants (issue 5): the gate skipped, the score noise at
// half the sound scale, everyone kept instead of the ramp.
const (
	ORMENoGate         = "no-gate"
	ORMEHalfScoreNoise = "half-score-noise"
	ORMEKeepAll        = "keep-all"
)

// ORMEMutantNames lists the variants.
func ORMEMutantNames() []string { return []string{ORMENoGate, ORMEHalfScoreNoise, ORMEKeepAll} }

// ORMELaw is ORME's exact output law on one query (T = 1) over 1-D user
// values: ⊥ with probability 1 − PPass, else a mixture of N(m, σ²) over the
// kept sets, with m the kept users' mean (0 for none). Users with
// p ∈ {0, 1} do not branch, and users sharing a value and a p branch
// together (only how many of them are kept matters), so the mixture stays
// small for the crowds the algorithm is built for.
type ORMELaw struct {
	PPass   float64
	Sigma   float64
	Means   []float64 // ascending, distinct
	Weights []float64 // Pr[mean | passed], summing to 1
}

// ErrORMETooManyBranches says the exact mixture would be too large.
var ErrORMETooManyBranches = errors.New("too many partly kept users with distinct values for the exact law")

// maxComponents bounds the kept-count combinations the exact law sums.
const maxComponents = 200_000

// ORMEExactLaw returns the law of ORME (as p calibrates it for len(values)
// users) or of one of its variants (mutant "" is the real mechanism).
func ORMEExactLaw(p mech.ORMEParams, values []float64, mutant string) (ORMELaw, error) {
	if mutant != "" && !slices.Contains(ORMEMutantNames(), mutant) {
		return ORMELaw{}, format.Errorf("ORME variant %q: use one of %s", mutant, strings.Join(ORMEMutantNames(), ", "))
	}
	n := len(values)
	cal, err := p.Calibrate(n)
	if err != nil {
		return ORMELaw{}, err
	}
	pts := make([][]float64, n)
	for j, v := range values {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return ORMELaw{}, format.Errorf("user %d's value %v is not finite", j+1, v)
		}
		pts[j] = []float64{v}
	}
	counts := robust.NewIndex(pts).CountsAt(p.Tau, 2*p.Tau)
	s := robust.Score(counts[0])
	law := ORMELaw{Sigma: cal.Sigma, PPass: gatePass(p, cal, mutant, s)}
	keep := make([]float64, n)
	for j, f := range counts[1] {
		keep[j] = robust.Keep(f, n)
		if mutant == ORMEKeepAll {
			keep[j] = 1
		}
	}
	mix, err := mixture(values, keep)
	mix.PPass, mix.Sigma = law.PPass, law.Sigma
	return mix, err
}

// mixture enumerates how many of each branching group are kept.
func mixture(values, keep []float64) (ORMELaw, error) {
	type group struct {
		v, p float64
		m    int
	}
	var sure float64 // the sum of the users kept for certain
	sureN := 0
	var groups []group
	for j, v := range values {
		switch p := keep[j]; {
		case p == 1:
			sure += v
			sureN++
		case p > 0:
			i := slices.IndexFunc(groups, func(g group) bool { return g.v == v && g.p == p })
			if i < 0 {
				groups = append(groups, group{v: v, p: p})
				i = len(groups) - 1
			}
			groups[i].m++
		}
	}
	combos := 1.0
	for _, g := range groups {
		combos *= float64(g.m + 1)
	}
	if combos > maxComponents {
		return ORMELaw{}, format.Errorf("%w: %.3g kept-count combinations (at most %d)", ErrORMETooManyBranches, combos, maxComponents)
	}
	byMean := map[float64]float64{}
	var rec func(i int, w, sum float64, k int)
	rec = func(i int, w, sum float64, k int) {
		if i == len(groups) {
			m := 0.0 // g = 0 for an empty selection, as printed
			if k > 0 {
				m = sum / float64(k)
			}
			byMean[m] += w
			return
		}
		g := groups[i]
		for c := 0; c <= g.m; c++ {
			rec(i+1, w*binomialPMF(g.m, c, g.p), sum+float64(c)*g.v, k+c)
		}
	}
	rec(0, 1, sure, sureN)
	law := ORMELaw{}
	for m := range byMean {
		law.Means = append(law.Means, m)
	}
	slices.Sort(law.Means)
	for _, m := range law.Means {
		law.Weights = append(law.Weights, byMean[m])
	}
	return law, nil
}

func binomialPMF(n, k int, p float64) float64 {
	lg := func(x int) float64 { v, _ := math.Lgamma(float64(x)); return v }
	return math.Exp(lg(n+1) - lg(k+1) - lg(n-k+1) + float64(k)*math.Log(p) + float64(n-k)*math.Log1p(-p))
}

// density is the released part's sub-density at o: PPass·Σ w·N(o; m, σ²).
func (l ORMELaw) density(o float64) float64 {
	var d float64
	for i, m := range l.Means {
		d += l.Weights[i] * math.Exp(-(o-m)*(o-m)/(2*l.Sigma*l.Sigma))
	}
	return l.PPass * d / (l.Sigma * math.Sqrt(2*math.Pi))
}

// ORMEPair holds two laws' released densities on shared quadrature nodes,
// so a whole δ(ε) curve costs one evaluation of each mixture.
type ORMEPair struct {
	a, b       ORMELaw
	ws, da, db []float64
}

// NewORMEPair places Gauss–Legendre panels a tenth of σ wide over every
// component's ±12σ (beyond it a component's mass is below 10⁻³²).
func NewORMEPair(a, b ORMELaw) (ORMEPair, error) {
	if a.Sigma <= 0 || b.Sigma <= 0 {
		return ORMEPair{}, errors.New("the exact ORME audit needs noise: σ = 0 (non-private) has no density")
	}
	type span struct{ lo, hi float64 }
	var spans []span
	for _, l := range []ORMELaw{a, b} {
		for _, m := range l.Means {
			spans = append(spans, span{m - 12*l.Sigma, m + 12*l.Sigma})
		}
	}
	slices.SortFunc(spans, func(x, y span) int { return cmp.Compare(x.lo, y.lo) })
	merged := spans[:1]
	for _, s := range spans[1:] {
		if last := &merged[len(merged)-1]; s.lo <= last.hi {
			last.hi = math.Max(last.hi, s.hi)
		} else {
			merged = append(merged, s)
		}
	}
	width := math.Min(a.Sigma, b.Sigma) / 10
	pr := ORMEPair{a: a, b: b}
	rule := gauss.Legendre(8)
	xs, ws := make([]float64, 8), make([]float64, 8)
	for _, s := range merged {
		panels := int(math.Ceil((s.hi - s.lo) / width))
		for i := range panels {
			rule.Fixed(xs, ws, s.lo+(s.hi-s.lo)*float64(i)/float64(panels), s.lo+(s.hi-s.lo)*float64(i+1)/float64(panels))
			for k, x := range xs {
				pr.ws = append(pr.ws, ws[k])
				pr.da = append(pr.da, a.density(x))
				pr.db = append(pr.db, b.density(x))
			}
		}
	}
	return pr, nil
}

// Delta returns δ_{A‖B}(ε) = (P⊥_A − e^ε P⊥_B)₊ + ∫ (p_A − e^ε p_B)₊.
func (pr ORMEPair) Delta(eps float64, ab bool) float64 {
	a, b, da, db := pr.a, pr.b, pr.da, pr.db
	if !ab {
		a, b, da, db = b, a, db, da
	}
	ee := math.Exp(eps)
	d := math.Max(0, (1-a.PPass)-ee*(1-b.PPass))
	for i, w := range pr.ws {
		if v := da[i] - ee*db[i]; v > 0 {
			d += w * v
		}
	}
	return math.Min(d, 1)
}

// Curve evaluates both orders at each ε and judges them against g.
func (pr ORMEPair) Curve(g privacy.Guarantee, eps []float64) []Point {
	out := make([]Point, len(eps))
	for i, e := range eps {
		out[i] = judge(Point{Eps: e, DeltaAB: pr.Delta(e, true), DeltaBA: pr.Delta(e, false)}, g)
	}
	return out
}

// Sampler draws from the law: nil for ⊥, else a kept-mean component by its
// weight plus N(0, σ²).
func (l ORMELaw) Sampler() Sampler {
	cum := make([]float64, len(l.Weights))
	var c float64
	for i, w := range l.Weights {
		c += w
		cum[i] = c
	}
	return func(st *rng.Streams) ([]float64, error) {
		if st.Get(rng.ATQuery).Float64() >= l.PPass {
			return nil, nil
		}
		u := st.Get(rng.Keep).Float64() * c
		i := min(firstAbove(cum, u), len(cum)-1)
		return []float64{l.Means[i] + noise.Gaussian{Sigma: l.Sigma, Src: st.Get(rng.Gauss)}.Rand()}, nil
	}
}

// firstAbove returns the first index with cum[i] > u.
func firstAbove(cum []float64, u float64) int {
	i, _ := slices.BinarySearchFunc(cum, u, func(c, u float64) int {
		if c <= u {
			return -1
		}
		return 1
	})
	return i
}

// ORMESampler runs ORME (or a variant) on one query over users' values in
// any dimension, for the Monte Carlo audit: the score, the gate's pass
// probability and the keep ramp do not depend on the randomness, so they
// are computed once; each run draws the gate, the coins and the noise.
func ORMESampler(p mech.ORMEParams, values [][]float64, mutant string) (Sampler, error) {
	if mutant != "" && !slices.Contains(ORMEMutantNames(), mutant) {
		return nil, format.Errorf("ORME variant %q: use one of %s", mutant, strings.Join(ORMEMutantNames(), ", "))
	}
	n := len(values)
	cal, err := p.Calibrate(n)
	if err != nil {
		return nil, err
	}
	counts := robust.NewIndex(values).CountsAt(p.Tau, 2*p.Tau)
	s := robust.Score(counts[0])
	pass := gatePass(p, cal, mutant, s)
	keep := make([]float64, n)
	for j, f := range counts[1] {
		keep[j] = robust.Keep(f, n)
		if mutant == ORMEKeepAll {
			keep[j] = 1
		}
	}
	d := len(values[0])
	return func(st *rng.Streams) ([]float64, error) {
		// The gate's two Laplace draws reach a pass with exactly this
		// probability; one uniform against it is the same law, cheaper.
		if st.Get(rng.ATQuery).Float64() >= pass {
			return nil, nil
		}
		coins := st.Get(rng.Keep)
		out := make([]float64, d)
		kept := 0
		for j, q := range keep {
			if coins.Float64() < q {
				kept++
				for k, v := range values[j] {
					out[k] += v
				}
			}
		}
		g := noise.Gaussian{Sigma: cal.Sigma, Src: st.Get(rng.Gauss)}
		for k := range out {
			if kept > 0 {
				out[k] /= float64(kept)
			}
			out[k] += g.Rand()
		}
		return out, nil
	}, nil
}
