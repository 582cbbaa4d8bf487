package mech

import (
	"errors"
	"math"
	"slices"

	"github.com/uldplab/uldp/core/cancel"
	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/internal/gauss"
	"github.com/uldplab/uldp/core/noise"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/core/trace"
)

// ATParams configures AboveThreshold in the form Paper B uses (Asi & Liu
// 2023, Alg. 1, after Dwork & Roth 2014): one noisy threshold
// Δ̂ = Δ − Lap(2s/ε) for the whole stream, fresh Lap(4s/ε) noise per query,
// and a halt on the first query whose noisy value falls below Δ̂.
type ATParams struct {
	// Eps is the ε of the whole transcript (pure ε-DP).
	Eps float64
	// Threshold is Δ.
	Threshold float64
	// Sens is each query's sensitivity s (default 1, as in the paper).
	Sens float64
	// Mode NonPrivate compares the exact values: no noise, no guarantee.
	Mode privacy.Mode
}

func (p ATParams) sens() float64 {
	if p.Sens == 0 {
		return 1
	}
	return p.Sens
}

// Validate checks the parameters.
func (p ATParams) Validate() error {
	if err := privacy.CheckEps(p.Eps); err != nil {
		return err
	}
	if math.IsNaN(p.Threshold) || math.IsInf(p.Threshold, 0) {
		return format.Errorf("threshold = %v: Δ must be a finite number", p.Threshold)
	}
	if p.Sens != 0 {
		if err := privacy.CheckSens(p.Sens); err != nil {
			return err
		}
	}
	if _, err := p.Mode.MarshalText(); err != nil {
		return err
	}
	return nil
}

// ThresholdScale is the scale 2s/ε of the threshold noise.
func (p ATParams) ThresholdScale() float64 { return 2 * p.sens() / p.Eps }

// QueryScale is the scale 4s/ε of each query's noise.
func (p ATParams) QueryScale() float64 { return 4 * p.sens() / p.Eps }

// Guarantee is (ε, 0)-DP for the whole transcript, whatever the number of
// queries, provided each query really has sensitivity at most s.
func (p ATParams) Guarantee() privacy.Guarantee {
	if p.Mode == privacy.NonPrivate {
		return privacy.Guarantee{Eps: math.Inf(1), Mode: p.Mode, Note: "non-private: exact comparisons"}
	}
	return privacy.Guarantee{
		Eps: p.Eps, Mode: p.Mode,
		Note: format.Sprintf("ε-DP for the whole transcript if every query has sensitivity ≤ %g (Dwork & Roth 2014, Thm 3.23; Paper B Lemma 2.4)", p.sens()),
	}
}

// Trace kinds AboveThreshold records.
const (
	KindATThreshold trace.Kind = "at.threshold"
	KindATCompare   trace.Kind = "at.compare"
	KindATHalt      trace.Kind = "at.halt"
)

// ATThresholdStep is the payload of an at.threshold step.
type ATThresholdStep struct {
	Threshold      float64 `json:"threshold"`
	Noise          float64 `json:"noise"` // Λ; the noisy threshold is Δ − Λ
	NoisyThreshold float64 `json:"noisy_threshold"`
	Scale          float64 `json:"scale"`
}

// ATCompareStep is the payload of an at.compare step.
type ATCompareStep struct {
	T              int     `json:"t"` // 1-based query number
	Query          float64 `json:"query"`
	Noise          float64 `json:"noise"`
	NoisyQuery     float64 `json:"noisy_query"`
	NoisyThreshold float64 `json:"noisy_threshold"`
	Pass           bool    `json:"pass"`
	// PPass is the probability, before any noise is drawn, that this query
	// alone would pass: Pr[Lap(2s/ε) + Lap(4s/ε) ≥ Δ − q].
	PPass float64 `json:"p_pass"`
}

// AboveThreshold is one running instance: a noisy threshold drawn once, then
// queries answered ⊤ (true) until the first ⊥ (false), after which it halts.
type AboveThreshold struct {
	p      ATParams
	lambda float64
	query  noise.Laplace
	t      int
	halted bool
	rec    *trace.Recorder
}

// NewAboveThreshold draws the threshold noise from the "at-threshold"
// stream; query noise will come from "at-query". rec may be nil.
func NewAboveThreshold(p ATParams, streams *rng.Streams, rec *trace.Recorder) (*AboveThreshold, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	a := &AboveThreshold{p: p, rec: rec}
	if p.Mode != privacy.NonPrivate {
		a.lambda = noise.Laplace{Scale: p.ThresholdScale(), Src: streams.Get(rng.ATThreshold)}.Rand()
		a.query = noise.Laplace{Scale: p.QueryScale(), Src: streams.Get(rng.ATQuery)}
	}
	rec.Addf(KindATThreshold, ATThresholdStep{p.Threshold, a.lambda, a.NoisyThreshold(), p.ThresholdScale()},
		"noisy threshold Δ̂ = Δ − Λ = %.4g %s = %.4g (Λ ~ Lap(%.3g), drawn once for every query)",
		p.Threshold, trace.Plus(-a.lambda), a.NoisyThreshold(), p.ThresholdScale())
	return a, nil
}

// NoisyThreshold returns Δ̂ = Δ − Λ.
func (a *AboveThreshold) NoisyThreshold() float64 { return a.p.Threshold - a.lambda }

// Halted reports whether a query has been answered ⊥.
func (a *AboveThreshold) Halted() bool { return a.halted }

// ErrHalted is returned by Query after the first ⊥.
var ErrHalted = errors.New("AboveThreshold has halted: it answers no query after its first ⊥")

// Query answers one query value q: ⊤ (true) if q + ν ≥ Δ̂ with fresh
// ν ~ Lap(4s/ε), else ⊥ (false), after which the instance halts.
func (a *AboveThreshold) Query(q float64) (bool, error) {
	st, err := a.Compare(q)
	return st.Pass, err
}

// Compare is Query returning the whole comparison: the draw, the noisy
// values and the chance of passing.
func (a *AboveThreshold) Compare(q float64) (ATCompareStep, error) {
	if a.halted {
		return ATCompareStep{}, ErrHalted
	}
	if math.IsNaN(q) || math.IsInf(q, 0) {
		return ATCompareStep{}, format.Errorf("query %d = %v: query values must be finite", a.t+1, q)
	}
	a.t++
	var nu float64
	if a.p.Mode != privacy.NonPrivate {
		nu = a.query.Rand()
	}
	pass := !(q+nu < a.NoisyThreshold()) // ⊥ iff strictly below, as printed
	step := ATCompareStep{T: a.t, Query: q, Noise: nu, NoisyQuery: q + nu, NoisyThreshold: a.NoisyThreshold(), Pass: pass, PPass: ATPassProbability(a.p, q)}
	verdict := "≥"
	answer := "⊤"
	if !pass {
		verdict, answer = "<", "⊥"
	}
	a.rec.Addf(KindATCompare, step, "query %d: q + ν = %.4g %s = %.4g %s Δ̂ = %.4g → %s",
		a.t, q, trace.Plus(nu), q+nu, verdict, a.NoisyThreshold(), answer)
	if !pass {
		a.halted = true
		a.rec.Addf(KindATHalt, a.t, "halt after query %d: AboveThreshold answers nothing more", a.t)
	}
	return step, nil
}

// ATResult is a whole run over a list of query values.
type ATResult struct {
	Answers        []bool            `json:"answers"`   // one per query answered
	HaltedAt       int               `json:"halted_at"` // 1-based query that got ⊥, 0 if none
	NoisyThreshold float64           `json:"noisy_threshold"`
	Guarantee      privacy.Guarantee `json:"guarantee"`
}

// RunAboveThreshold asks the queries in order until the first ⊥.
func RunAboveThreshold(ctx cancel.Context, p ATParams, queries []float64, streams *rng.Streams) (ATResult, *trace.Trace, error) {
	if len(queries) == 0 {
		return ATResult{}, nil, errors.New("no queries: give at least one query value")
	}
	rec := trace.NewRecorder("abovethreshold", streams.Seed())
	a, err := NewAboveThreshold(p, streams, rec)
	if err != nil {
		return ATResult{}, nil, err
	}
	res := ATResult{NoisyThreshold: a.NoisyThreshold(), Guarantee: p.Guarantee()}
	for _, q := range queries {
		if err := ctx.Err(); err != nil {
			return ATResult{}, nil, err
		}
		pass, err := a.Query(q)
		if err != nil {
			return ATResult{}, nil, err
		}
		res.Answers = append(res.Answers, pass)
		if !pass {
			res.HaltedAt = len(res.Answers)
			break
		}
	}
	return res, rec.Trace(), nil
}

// ATPassProbability returns the exact probability that a single query of
// value q passes: Pr[W ≥ Δ − q] for W = Lap(b₁) + Lap(b₂), b₁ = 2s/ε,
// b₂ = 4s/ε (spec 000-002 §2.4: for w ≥ 0, Pr[W ≥ w] =
// (b₁²e^{−w/b₁} − b₂²e^{−w/b₂}) / (2(b₁² − b₂²))). Non-private mode gives 0 or 1.
func ATPassProbability(p ATParams, q float64) float64 {
	gap := p.Threshold - q
	if p.Mode == privacy.NonPrivate {
		if q >= p.Threshold {
			return 1
		}
		return 0
	}
	return LaplaceSumSurvival(p.ThresholdScale(), p.QueryScale(), gap)
}

// LaplaceSumSurvival is Pr[Lap(b1) + Lap(b2) ≥ w]. Equal scales take the
// limit e^{−w/b}(2 + w/b)/4 (w ≥ 0), where the general formula divides by
// zero; scales within 1e-6 of each other use it too, since the general
// formula loses every digit there.
func LaplaceSumSurvival(b1, b2, w float64) float64 {
	tail := func(w float64) float64 { // w ≥ 0
		if math.Abs(b1-b2) <= 1e-6*math.Max(b1, b2) {
			b := (b1 + b2) / 2
			return math.Exp(-w/b) * (2 + w/b) / 4
		}
		return (b1*b1*math.Exp(-w/b1) - b2*b2*math.Exp(-w/b2)) / (2 * (b1*b1 - b2*b2))
	}
	if w >= 0 {
		return tail(w)
	}
	return 1 - tail(-w)
}

// ATHaltDistribution returns, for queries q₁..q_T, the probability that the
// first ⊥ comes at query k (index k−1, k = 1..T) and, in the last entry
// (index T), that every query passes: HaltDistribution at p's scales, or
// the exact comparisons in non-private mode.
func ATHaltDistribution(p ATParams, queries []float64) []float64 {
	if p.Mode == privacy.NonPrivate {
		out := make([]float64, len(queries)+1)
		for k, q := range queries {
			if q < p.Threshold {
				out[k] = 1
				return out
			}
		}
		out[len(queries)] = 1
		return out
	}
	return HaltDistribution(p.ThresholdScale(), p.QueryScale(), p.Threshold, queries)
}

// HaltDistribution is the transcript law of AboveThreshold with threshold
// noise Λ ~ Lap(thresholdScale) and query noise Lap(queryScale) at any
// scales (audits give it broken ones): entry k−1 is Pr[first ⊥ at query
// k], the last Pr[all pass]. It integrates over Λ the product of the
// per-query probabilities given Λ (spec 000-002 §B-1 oracles), with
// Gauss–Legendre panels split at every kink of the integrand, all T+1
// integrals in one pass; accurate to about 1e-12.
func HaltDistribution(thresholdScale, queryScale, threshold float64, queries []float64) []float64 {
	out := make([]float64, len(queries)+1)
	b := thresholdScale
	nu := noise.Laplace{Scale: queryScale}
	lam := noise.Laplace{Scale: b}
	// Kinks: λ = 0 (Laplace density) and λ = Δ − q_t (each query's cdf).
	cuts := []float64{0}
	for _, q := range queries {
		cuts = append(cuts, threshold-q)
	}
	lo, hi := slices.Min(cuts), slices.Max(cuts)
	// Beyond 40 scales on either side the remaining mass is below e^{−40}.
	reach := 40 * math.Max(b, queryScale)
	edges := sortedUnique(append(cuts, lo-reach, hi+reach))
	xs, ws := make([]float64, legendreNodes), make([]float64, legendreNodes)
	for i := 0; i+1 < len(edges); i++ {
		// Sub-panels one scale wide (the smaller of the two) keep the rule
		// exact enough.
		a, c := edges[i], edges[i+1]
		n := int(math.Ceil((c - a) / math.Min(b, queryScale)))
		for j := 0; j < n; j++ {
			legendre.Fixed(xs, ws, a+(c-a)*float64(j)/float64(n), a+(c-a)*float64(j+1)/float64(n))
			for k, lambda := range xs {
				// One pass gives every halting time: the running product is
				// the probability that queries 1..t all pass given Λ = λ.
				mass := ws[k] * lam.Prob(lambda)
				for t, q := range queries {
					pass := nu.Survival(threshold - lambda - q)
					out[t] += mass * (1 - pass)
					mass *= pass
				}
				out[len(queries)] += mass
			}
		}
	}
	return out
}

// legendreNodes is the Gauss–Legendre order per sub-panel.
const legendreNodes = 20

// legendre is that rule, computed once.
var legendre = gauss.Legendre(legendreNodes)

// plus writes "+ x" or "− |x|" for the second term of a sum.
func sortedUnique(xs []float64) []float64 {
	out := slices.Clone(xs)
	slices.Sort(out)
	return slices.Compact(out)
}
