package mech

import (
	"errors"
	"math"

	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/noise"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/core/robust"
	"github.com/uldplab/uldp/core/trace"
)

// ORMEParams configures Paper B's outlier-removal mean estimation (Asi &
// Liu, Alg. 2; spec 000-002 §B-2): T adaptive vector mean queries over n
// users, each answered only if the users' values are concentrated at
// radius τ, from the users near the crowd, with Gaussian noise scaled to τ.
type ORMEParams struct {
	Eps, Delta float64
	// Tau is the concentration radius τ: pairs within τ make the score,
	// neighbours within 2τ the keep ramp.
	Tau float64
	// Queries is T, the number of queries the budget covers.
	Queries int
	// Mode Paper uses the printed constants; Sound the recalibration of
	// spec §B-2 (errata A13–A16); Teaching the paper's scales with σ set by
	// hand (Sigma); NonPrivate no noise and a gate that always passes.
	Mode privacy.Mode
	// Sigma overrides σ in teaching mode.
	Sigma float64
}

// Validate checks the parameters.
func (p ORMEParams) Validate() error {
	if err := errors.Join(privacy.CheckEps(p.Eps), privacy.CheckDelta(p.Delta)); err != nil {
		return err
	}
	if !(p.Tau > 0) || math.IsInf(p.Tau, 1) {
		return format.Errorf("tau = %v: the concentration radius τ must be a finite number > 0", p.Tau)
	}
	if p.Queries < 1 || p.Queries > 1_000_000 {
		return format.Errorf("queries = %d: the number of queries T must be 1 to 10⁶", p.Queries)
	}
	if _, err := p.Mode.MarshalText(); err != nil {
		return err
	}
	if p.Sigma != 0 && p.Mode != privacy.Teaching {
		return format.Errorf("sigma = %v: choosing σ by hand is a teaching-mode setting; set mode to teaching or drop sigma", p.Sigma)
	}
	if p.Mode == privacy.Teaching && !(p.Sigma >= 0) {
		return format.Errorf("sigma = %v: must be ≥ 0", p.Sigma)
	}
	return nil
}

// ORMECalibration is ORME's noise for n users, with its derivation.
type ORMECalibration struct {
	N int `json:"n"`
	// ScoreSens is the score's sensitivity the gate's Laplace scales
	// assume: 1 as printed, 2(n−1)/n in sound mode (erratum A13).
	ScoreSens float64 `json:"score_sens"`
	// Gate is the AboveThreshold instance: ε/2, threshold 4n/5.
	Gate ATParams `json:"-"`
	// ThresholdScale and QueryScale are its Laplace scales b₁, b₂.
	ThresholdScale float64 `json:"threshold_scale"`
	QueryScale     float64 `json:"query_scale"`
	Sigma          float64 `json:"sigma"`
	// Sound mode's intermediate values (zero in paper mode).
	ZetaPrime  float64 `json:"zeta_prime,omitempty"`
	DeltaPrime float64 `json:"delta_prime,omitempty"`
	KZeta      int     `json:"k_zeta,omitempty"`
	MeanSens   float64 `json:"mean_sens,omitempty"` // Δ_g
	RhoStar    float64 `json:"rho_star,omitempty"`
	// NeedUsers is the proof's user requirement: n ≥ it (paper, Prop. 3.6)
	// or n > it (sound).
	NeedUsers float64        `json:"need_users"`
	Steps     []privacy.Step `json:"steps"`
	Mode      privacy.Mode   `json:"mode"`
	Params    ORMEParams     `json:"-"`
}

// SigmaFormula is the last line of σ's derivation: its formula, or that
// there is no noise.
func (c ORMECalibration) SigmaFormula() string {
	for i := len(c.Steps) - 1; i >= 0; i-- {
		if c.Steps[i].Symbol == "σ" {
			return c.Steps[i].Formula
		}
	}
	return "no noise (non-private)"
}

// Calibrate computes ORME's scales for n users.
func (p ORMEParams) Calibrate(n int) (ORMECalibration, error) {
	if err := p.Validate(); err != nil {
		return ORMECalibration{}, err
	}
	if n < 2 {
		return ORMECalibration{}, format.Errorf("n = %d users: a concentration score needs at least 2", n)
	}
	nf, T, eps, delta, tau := float64(n), float64(p.Queries), p.Eps, p.Delta, p.Tau
	c := ORMECalibration{N: n, ScoreSens: 1, Mode: p.Mode, Params: p}
	if p.Mode == privacy.Sound {
		c.ScoreSens = 2 * (nf - 1) / nf
	}
	c.Gate = ATParams{Eps: eps / 2, Threshold: 4 * nf / 5, Sens: c.ScoreSens}
	if p.Mode == privacy.NonPrivate {
		c.Gate.Mode = privacy.NonPrivate
	}
	c.ThresholdScale, c.QueryScale = c.Gate.ThresholdScale(), c.Gate.QueryScale()
	c.Steps = []privacy.Step{
		{Symbol: "Δ_s", Formula: "the score's sensitivity: 1 as printed, 2(n−1)/n in sound mode", Value: c.ScoreSens},
		{Symbol: "b₁", Formula: "threshold noise, AboveThreshold at ε/2: 2Δ_s/(ε/2)", Value: c.ThresholdScale},
		{Symbol: "b₂", Formula: "score noise: 4Δ_s/(ε/2)", Value: c.QueryScale},
	}
	switch p.Mode {
	case privacy.NonPrivate:
		c.Sigma = 0
	case privacy.Sound:
		c.ZetaPrime = delta / (2 * (math.Exp(eps) + 1 + T))
		c.DeltaPrime = delta / (2 * math.Exp(eps/2))
		c.NeedUsers = 7.5 * (c.ThresholdScale + c.QueryScale) * math.Log((T+1)/c.ZetaPrime)
		c.KZeta, c.MeanSens = SurvivorMeanSensitivity(n, tau, c.ZetaPrime)
		l := math.Log(1 / c.DeltaPrime)
		c.RhoStar = math.Pow(math.Sqrt(l+eps/2)-math.Sqrt(l), 2)
		c.Sigma = c.MeanSens * math.Sqrt(T/(2*c.RhoStar))
		c.Steps = append(c.Steps,
			privacy.Step{Symbol: "ζ′", Formula: "δ/(2(e^ε + 1 + T))", Value: c.ZetaPrime},
			privacy.Step{Symbol: "δ′", Formula: "δ/(2e^{ε/2})", Value: c.DeltaPrime},
			privacy.Step{Symbol: "k_ζ", Formula: "min{k : Pr[Bin(n−1, min(1, 6/n)) ≥ k] ≤ ζ′}", Value: float64(c.KZeta)},
			privacy.Step{Symbol: "Δ_g", Formula: "min(10τ, 30τ(2 + k_ζ)/n)", Value: c.MeanSens},
			privacy.Step{Symbol: "ρ*", Formula: "(√(ln(1/δ′) + ε/2) − √ln(1/δ′))²", Value: c.RhoStar},
			privacy.Step{Symbol: "σ", Formula: "Δ_g·√(T/(2ρ*))", Value: c.Sigma},
			privacy.Step{Symbol: "n >", Formula: "7.5(b₁ + b₂)·ln((T+1)/ζ′), the proof's requirement", Value: c.NeedUsers})
	default: // paper, and teaching with σ by hand
		c.Sigma = math.Sqrt(8*tau*tau*T*math.Log(math.Exp(eps)*T/delta)*math.Log(math.Exp(eps/2)/delta)) / (nf * eps)
		c.NeedUsers = 40 * math.Log(4*T/delta) / eps
		c.Steps = append(c.Steps,
			privacy.Step{Symbol: "σ", Formula: "√(8τ²T·ln(e^ε T/δ)·ln(e^{ε/2}/δ))/(nε)", Value: c.Sigma},
			privacy.Step{Symbol: "n ≥", Formula: "40 ln(4T/δ)/ε (Prop. 3.6)", Value: c.NeedUsers})
		if p.Mode == privacy.Teaching {
			c.Sigma = p.Sigma
			c.Steps = append(c.Steps, privacy.Step{Symbol: "σ", Formula: "chosen by hand (teaching mode)", Value: c.Sigma})
		}
	}
	return c, nil
}

// SurvivorMeanSensitivity bounds how far the kept points' mean moves when
// one of k points is replaced, for Asi & Liu's keep ramp (pairs within τ
// make the score, neighbours within 2τ the ramp) once the score is at least
// 2k/3: a coupling of the coins changes at most 2 + kZeta memberships but
// with probability ζ, where kZeta = min{j : Pr[Bin(k−1, min(1, 6/k)) ≥ j] ≤
// ζ}, and the kept points of both sides lie in one ball of diameter 10τ,
// so the mean moves by min(10τ, 30τ(2 + kZeta)/k) (spec 000-002 §B-2, the
// sound recalibration; errata a13–a16).
func SurvivorMeanSensitivity(k int, tau, zeta float64) (kZeta int, sens float64) {
	kf := float64(k)
	kZeta = binomialQuantile(k-1, math.Min(1, 6/kf), zeta)
	return kZeta, math.Min(10*tau, 30*tau*(2+float64(kZeta))/kf)
}

// binomialQuantile is min{k : Pr[Bin(n, q) ≥ k] ≤ zeta}, the tail summed
// term by term from the top in log space so tiny tails stay exact.
func binomialQuantile(n int, q, zeta float64) int {
	if q >= 1 {
		return n + 1 // Pr[X ≥ n] = 1 > ζ; X ≥ n + 1 never happens
	}
	lg := func(x float64) float64 { v, _ := math.Lgamma(x); return v }
	logPMF := func(k int) float64 {
		return lg(float64(n+1)) - lg(float64(k+1)) - lg(float64(n-k+1)) + float64(k)*math.Log(q) + float64(n-k)*math.Log1p(-q)
	}
	tail := 0.0
	for k := n; k >= 0; k-- {
		if tail+math.Exp(logPMF(k)) > zeta {
			return k + 1
		}
		tail += math.Exp(logPMF(k))
	}
	return 0
}

// Guarantee is ORME's claim for n users: (ε, δ) at user level, with the
// proof's preconditions as the mode states them. Paper mode also carries
// erratum A13 (its gate assumes a score sensitivity of 1; it is 2(n−1)/n),
// so it is never certified; use sound mode for a guarantee that holds.
func (c ORMECalibration) Guarantee() privacy.Guarantee {
	p := c.Params
	switch p.Mode {
	case privacy.NonPrivate:
		return privacy.Guarantee{Eps: math.Inf(1), Mode: p.Mode, Note: "non-private: the gate always passes and no noise is added"}
	case privacy.Sound:
		return privacy.Guarantee{Eps: p.Eps, Delta: p.Delta, Mode: p.Mode,
			Note: "Paper B Thm 3.2's proof with the constants corrected (errata A13–A16)",
			Preconditions: []privacy.Precondition{
				privacy.Require("n > 7.5(b₁ + b₂)·ln((T+1)/ζ′)", float64(c.N), privacy.Above, c.NeedUsers),
				privacy.Require("n ≥ 4", float64(c.N), privacy.AtLeast, 4),
			}}
	}
	g := privacy.Guarantee{Eps: p.Eps, Delta: p.Delta, Mode: p.Mode, Note: "Paper B Thm 3.2 / Prop. 3.6 as printed",
		Preconditions: []privacy.Precondition{
			privacy.Require("n ≥ 40 ln(4T/δ)/ε (Prop. 3.6)", float64(c.N), privacy.AtLeast, c.NeedUsers),
			privacy.Fact("the gate's score has sensitivity ≤ 1, as its Laplace scales assume (it is 2(n−1)/n: erratum A13; sound mode corrects it)", false),
		}}
	if p.Mode == privacy.Teaching {
		g.Preconditions = append(g.Preconditions, privacy.Fact("σ is the calibrated one (it was set by hand)", false))
	}
	return g
}

// ORME is one running instance over n users: a gate drawn once, then up to
// T queries, halting for good at the first failed gate.
type ORME struct {
	cal    ORMECalibration
	gate   *AboveThreshold
	keep   interface{ Float64() float64 }
	gauss  noise.Gaussian
	rec    *trace.Recorder
	asked  int
	halted bool
	// ix counts the close pairs, rebuilt for every query in the memory of
	// the last: a run of T queries leaves the collector no boxes.
	ix robust.Index
}

// Trace kinds ORME records (besides the gate's at.* steps).
const (
	KindORMEScore   trace.Kind = "orme.score"
	KindORMEKeep    trace.Kind = "orme.keep"
	KindORMERelease trace.Kind = "orme.release"
	KindORMEHalt    trace.Kind = "orme.halt"
)

// NewORME calibrates for n users and draws the gate's threshold noise.
// Coins come from the "keep" stream, the noise from "gauss"; rec may be
// nil.
func NewORME(p ORMEParams, n int, streams *rng.Streams, rec *trace.Recorder) (*ORME, error) {
	cal, err := p.Calibrate(n)
	if err != nil {
		return nil, err
	}
	o := &ORME{cal: cal, keep: streams.Get(rng.Keep), rec: rec,
		gauss: noise.Gaussian{Sigma: cal.Sigma, Src: streams.Get(rng.Gauss)}}
	if p.Mode != privacy.NonPrivate { // non-private: the gate always passes
		if o.gate, err = NewAboveThreshold(cal.Gate, streams, rec); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// Calibration returns the instance's scales.
func (o *ORME) Calibration() ORMECalibration { return o.cal }

// ORMEStep is one query's whole story, for traces and lessons.
type ORMEStep struct {
	I     int     `json:"i"` // 1-based query number
	Score float64 `json:"score"`
	// Threshold is the gate's 4n/5; PPass the probability, before any noise,
	// that this score alone passes it.
	Threshold float64 `json:"threshold"`
	PPass     float64 `json:"p_pass"`
	Passed    bool    `json:"passed"`
	// Counts are f_j (neighbours within 2τ, itself included), Keep the
	// ramp's p_j, Kept the selected users (0-based, ascending).
	Counts []int     `json:"neighbour_counts,omitempty"`
	Keep   []float64 `json:"keep_prob,omitempty"`
	Kept   []int     `json:"kept,omitempty"`
	// Mean is the kept users' mean g_i, AllMean every user's; Output is
	// g_i + N(0, σ²I), nil when the gate failed (the paper's "0 and halt").
	Mean    []float64 `json:"mean,omitempty"`
	AllMean []float64 `json:"all_mean"`
	Output  []float64 `json:"output"`
}

// ErrORMEHalted is returned by Query after a failed gate or T queries.
var ErrORMEHalted = errors.New("ORME has halted: after a failed concentration check it answers nothing more")

// Query answers one mean query given every user's value (n vectors of one
// dimension). A failed gate returns the step with Output nil and halts.
func (o *ORME) Query(values [][]float64) (ORMEStep, error) {
	n := o.cal.N
	switch {
	case o.halted:
		return ORMEStep{}, ErrORMEHalted
	case o.asked == o.cal.Params.Queries:
		return ORMEStep{}, format.Errorf("query %d: the budget covers T = %d queries", o.asked+1, o.asked)
	case len(values) != n:
		return ORMEStep{}, format.Errorf("query %d: %d user values, the instance was calibrated for n = %d", o.asked+1, len(values), n)
	}
	d := len(values[0])
	for j, v := range values {
		if len(v) != d {
			return ORMEStep{}, format.Errorf("query %d: user %d's value has dimension %d, user 1's %d", o.asked+1, j+1, len(v), d)
		}
		for _, x := range v {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return ORMEStep{}, format.Errorf("query %d: user %d's value %v is not finite", o.asked+1, j+1, v)
			}
		}
	}
	o.asked++
	tau := o.cal.Params.Tau
	o.ix.Reset(values)
	counts := o.ix.CountsAt(tau, 2*tau)
	st := ORMEStep{I: o.asked, Score: robust.Score(counts[0]), Threshold: o.cal.Gate.Threshold, AllMean: meanOf(values, nil)}
	st.PPass = 1
	if o.gate != nil {
		st.PPass = ATPassProbability(o.cal.Gate, st.Score)
	}
	o.rec.Addf(KindORMEScore, st, "query %d: concentration score s = (1/n)·#{pairs within τ = %g} = %.4g of at most n = %d; the gate wants 4n/5 = %.4g",
		st.I, tau, st.Score, n, st.Threshold)
	pass := true
	if o.gate != nil {
		var err error
		if pass, err = o.gate.Query(st.Score); err != nil {
			return ORMEStep{}, err
		}
	}
	st.Passed = pass
	// The ramp is computed either way (lessons and reports show it); only
	// a passed gate flips the coins and releases anything.
	st.Counts = counts[1]
	st.Keep = make([]float64, n)
	for j, f := range st.Counts {
		st.Keep[j] = robust.Keep(f, n)
	}
	if !pass {
		o.halted = true
		// Say which failed: the users, or the gate's noise on a score
		// that met 4n/5 (few users make that noise large beside n/5).
		why := format.Sprintf("the users are not concentrated enough (s = %.6g < 4n/5 = %.6g)", st.Score, st.Threshold)
		if st.Score >= st.Threshold {
			why = format.Sprintf("s = %.4g meets 4n/5 = %.4g, but the gate's noise fell against it (it passes with probability %.3g)", st.Score, st.Threshold, st.PPass)
		}
		o.rec.Addf(KindORMEHalt, st, "query %d: %s: output 0 and halt (Alg. 3 returns θ₀)", st.I, why)
		return st, nil
	}
	for j, p := range st.Keep {
		// A coin for every user, even p ∈ {0, 1}: the stream's position
		// then depends on n only, so moving one user re-flips no other.
		if o.keep.Float64() < p {
			st.Kept = append(st.Kept, j)
		}
	}
	o.rec.Addf(KindORMEKeep, st, "query %d: keep each user with p_j on the ramp of f_j = #{within 2τ}: %d of %d kept", st.I, len(st.Kept), n)
	if len(st.Kept) > 0 {
		st.Mean = meanOf(values, st.Kept)
	} else {
		st.Mean = make([]float64, d) // g_i = 0 for an empty selection, as printed
	}
	st.Output = o.gauss.RandVec(make([]float64, d))
	for k := range st.Output {
		st.Output[k] += st.Mean[k]
	}
	o.rec.Addf(KindORMERelease, st, "query %d: release the kept users' mean %v + N(0, σ²I), σ = %.4g → %v", st.I, trace.Vec(st.Mean), o.cal.Sigma, trace.Vec(st.Output))
	return st, nil
}

// meanOf averages values (only the indices in idx, unless idx is nil).
func meanOf(values [][]float64, idx []int) []float64 {
	m := make([]float64, len(values[0]))
	count := 0
	add := func(v []float64) {
		for k, x := range v {
			m[k] += x
		}
		count++
	}
	if idx == nil {
		for _, v := range values {
			add(v)
		}
	} else {
		for _, j := range idx {
			add(values[j])
		}
	}
	for k := range m {
		m[k] /= float64(count)
	}
	return m
}
