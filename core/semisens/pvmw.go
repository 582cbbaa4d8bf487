package semisens

import (
	"math"
	"strings"

	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/noise"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/core/trace"
)

// Params configure PVMW. Privacy depends on Rho, LMax, Zeta and the
// calibration only; Eta, C and Tau set what it learns and when.
type Params struct {
	// Rho is the zCDP budget of the whole run, every query included.
	Rho float64
	// Delta converts ρ to (ε, δ) for the guarantee.
	Delta float64
	// LMax is the number of updates (AboveThreshold instances) paid for.
	LMax int
	// Zeta splits each update's budget: ζ to the test and the norm
	// release, 1 − ζ to the Gaussian (0: the paper's ½).
	Zeta float64
	// Calibration is CalPaper or CalTight ("": CalTight).
	Calibration string
	// Eta and C are the MWU step's learning rate and truncation.
	Eta, C float64
	// Tau is the threshold on the error norm.
	Tau float64
	// PaperLoop runs the printed loop, which tests while ℓ < L_max and so
	// allows L_max − 1 updates of the L_max paid for; the default allows
	// all L_max.
	PaperLoop bool
	// NoGuard uses the released norm ι as it comes; the default floors it
	// at τ/2, post-processing that keeps a tiny or negative ι from flipping
	// or blowing up the direction. (At the paper's constants, η = τ/16, this
	// is the max(η, τ/2) one would read off the analysis; at a demo's η = 1
	// that max would floor every ι at 1 and shrink every step.)
	NoGuard bool
	// Mode NonPrivate compares and releases the exact values: no noise and
	// no guarantee.
	Mode privacy.Mode
	// Mutant, for the audit, breaks one piece the proof relies on.
	Mutant Mutant
}

// Mutant is a deliberately broken variant of PVMW, for the audit's
// negative controls.
type Mutant int

// The broken variants.
const (
	Correct Mutant = iota
	// MWUPeeks lets the update read the sensitive values: after each step
	// every example's true value gains weight e^{ηc}.
	MWUPeeks
	// NoThresholdNoise drops χ: each test compares E + ν with τ alone, so
	// every ⊥ leaks, not only the instance's one ⊤.
	NoThresholdNoise
	// GaussianTenth releases f(D) with a tenth of the std the budget pays
	// for.
	GaussianTenth
	// TightChargedPaper draws the Gaussian at the tight std σ/n under the
	// paper's accounting: harmless, since the paper charges 2/σ² for a
	// release that costs 1/(2σ²), and σ/n costs exactly 2/σ².
	TightChargedPaper
)

var mutantNames = [...]string{"", "mwu-peeks", "no-threshold-noise", "gaussian-tenth", "tight-charged-paper"}

// MutantNames lists the broken variants by name.
func MutantNames() []string { return append([]string(nil), mutantNames[1:]...) }

// ParseMutant reads a variant's name ("" is the correct mechanism).
func ParseMutant(s string) (Mutant, error) {
	for i, n := range mutantNames {
		if n == s {
			return Mutant(i), nil
		}
	}
	return 0, format.Errorf("mutant %q: PVMW's broken variants are %s", s, strings.Join(MutantNames(), ", "))
}

// String is the variant's name.
func (m Mutant) String() string { return mutantNames[m] }

func (p Params) calibration() string {
	if p.Calibration == "" {
		return CalTight
	}
	return p.Calibration
}

// Validate checks the parameters for n examples.
func (p Params) Validate(n int) error {
	if _, err := Calibrate(p.Rho, p.LMax, n, p.Zeta, p.calibration()); err != nil {
		return err
	}
	if err := privacy.CheckDelta(p.Delta); err != nil {
		return err
	}
	if err := (MWUParams{Eta: p.Eta, C: p.C}).Validate(); err != nil {
		return err
	}
	if !(p.Tau > 0) || math.IsInf(p.Tau, 1) {
		return format.Errorf("τ = %v: the threshold must be a finite number > 0", p.Tau)
	}
	_, err := p.Mode.MarshalText()
	return err
}

// Guarantee is ρ-zCDP for the sensitive feature, converted to
// (ρ + 2√(ρ ln(1/δ)), δ)-DP: whatever the queries, however many.
func (p Params) Guarantee() privacy.Guarantee {
	if p.Mode == privacy.NonPrivate {
		return privacy.Guarantee{Eps: math.Inf(1), Mode: p.Mode, Relation: privacy.SemiSensitive, Note: "non-private: exact errors, no noise"}
	}
	return privacy.Guarantee{Eps: privacy.ZCDPToDP(p.Rho, p.Delta), Delta: p.Delta, Mode: p.Mode, Relation: privacy.SemiSensitive,
		Note: format.Sprintf("ρ = %.4g-zCDP over %d paid updates (each: a test and a norm release of ε′²/2, a Gaussian of ρ_G), converted at δ = %.3g", p.Rho, p.LMax, p.Delta)}
}

// Noise is where PVMW's draws come from: seeded streams for lessons and
// tests, a script for the calibration oracles.
type Noise interface {
	// Laplace draws Lap(scale) for a draw of the given kind.
	Laplace(kind NoiseKind, scale float64) float64
	// Gaussian fills dst with independent N(0, std²) draws.
	Gaussian(std float64, dst []float64)
}

// NoiseKind says which of PVMW's Laplace draws is asked for.
type NoiseKind int

// PVMW's Laplace draws.
const (
	ThresholdNoise NoiseKind = iota // χ, once per AboveThreshold instance
	TestNoise                       // ν, fresh for every test
	NormNoise                       // ξ, once per update
)

// StreamNoise draws from named streams: χ from at-threshold, ν from
// at-query, ξ from laplace, z from gauss.
func StreamNoise(s *rng.Streams) Noise { return streamNoise{s} }

type streamNoise struct{ s *rng.Streams }

func (n streamNoise) Laplace(kind NoiseKind, scale float64) float64 {
	name := [...]string{rng.ATThreshold, rng.ATQuery, rng.Laplace}[kind]
	return noise.Laplace{Scale: scale, Src: n.s.Get(name)}.Rand()
}

func (n streamNoise) Gaussian(std float64, dst []float64) {
	noise.Gaussian{Sigma: std, Src: n.s.Get(rng.Gauss)}.RandVec(dst)
}

// Trace kinds PVMW records.
const (
	KindThreshold trace.Kind = "pvmw.threshold"
	KindTest      trace.Kind = "pvmw.test"
	KindUpdate    trace.Kind = "pvmw.update"
	KindAnswer    trace.Kind = "pvmw.answer"
	KindFail      trace.Kind = "pvmw.fail"
)

// ThresholdStep opens AboveThreshold instance ℓ: its threshold noise χ.
type ThresholdStep struct {
	Instance int     `json:"instance"`
	Chi      float64 `json:"chi"`
	Scale    float64 `json:"scale"`
}

// TestStep is one test of query t against the beliefs p^{ℓ−1}. Error (E)
// is the instructor's view; only Top is released.
type TestStep struct {
	Query    int     `json:"query"`
	Instance int     `json:"instance"`
	Error    float64 `json:"error"`
	Nu       float64 `json:"nu"`
	Chi      float64 `json:"chi"`
	Tau      float64 `json:"tau"`
	Top      bool    `json:"top"`
}

// UpdateStep is one update: the beliefs' answer f(p) it started from, the
// released v = f(D) + z and ι = E + ξ, the ι the step used, the direction
// and how many scores were cut.
type UpdateStep struct {
	Query    int       `json:"query"`
	Instance int       `json:"instance"`
	Before   []float64 `json:"before"`
	V        []float64 `json:"v"`
	Iota     float64   `json:"iota"`
	IotaUsed float64   `json:"iota_used"`
	NoiseZ   float64   `json:"z_norm"`
	Xi       float64   `json:"xi"`
	Phi      []float64 `json:"phi"`
	Clipped  int       `json:"clipped"`
}

// AnswerStep is a released answer e_t = f_t(p).
type AnswerStep struct {
	Query  int       `json:"query"`
	Answer []float64 `json:"answer"`
	Error  float64   `json:"error"` // instructor's view: ‖e_t − f_t(D)‖
}

// An Inspection is one update shown to an observer outside the mechanism
// (a lesson, a test): the query, the beliefs before and after (read them;
// do not keep or change them) and what was released. With the true values
// beside it, its Condition method measures Condition 14.
type Inspection struct {
	Update        int
	Public        *Public
	Query         Query
	Before, After *Beliefs
	Step          UpdateStep
}

// PVMW is Private Vector Multiplicative Weights over one dataset: it
// answers online linear vector queries from per-example beliefs, testing
// each answer privately and paying only for updates.
type PVMW struct {
	p       Params
	cal     Calibration
	data    *Dataset
	b       *Beliefs
	noise   Noise
	rec     *trace.Recorder
	l       int // the open AboveThreshold instance; the beliefs are p^{l−1}
	chi     float64
	t       int
	failed  bool
	updates int
	last    UpdateStep
	// tick, if set, is told after every test and update: a long answer's
	// places to yield (Train reports progress there).
	tick func()
	// inspect, if set, is shown every update.
	inspect func(Inspection)
}

// NewPVMW starts PVMW on data with uniform beliefs and draws the first
// threshold noise. rec may be nil.
func NewPVMW(data *Dataset, p Params, nz Noise, rec *trace.Recorder) (*PVMW, error) {
	if err := p.Validate(data.N()); err != nil {
		return nil, err
	}
	m := &PVMW{p: p, cal: p.calibrate(data.N()), data: data, b: Uniform(data.N(), data.K), noise: nz, rec: rec}
	m.open(1)
	return m, nil
}

// calibrate is PVMW's calibration of p on n examples, as it runs (its
// mutant included); p is valid for n.
func (p Params) calibrate(n int) Calibration {
	cal, _ := Calibrate(p.Rho, p.LMax, n, p.Zeta, p.calibration())
	switch p.Mutant {
	case GaussianTenth:
		cal.SG /= 10
	case TightChargedPaper:
		cal.SG = cal.Sigma / float64(n)
	}
	return cal
}

// open starts AboveThreshold instance l with fresh threshold noise.
func (m *PVMW) open(l int) {
	m.l = l
	m.chi = 0
	if m.p.Mode != privacy.NonPrivate && m.p.Mutant != NoThresholdNoise {
		m.chi = m.noise.Laplace(ThresholdNoise, m.cal.BThr)
	}
	m.rec.Addf(KindThreshold, ThresholdStep{l, m.chi, m.cal.BThr},
		"instance %d: threshold noise χ = %.4g (Lap(%.3g), kept until the next update)", l, m.chi, m.cal.BThr)
}

// Calibration is the run's noise.
func (m *PVMW) Calibration() Calibration { return m.cal }

// Beliefs are the current beliefs (not a copy: read, do not change).
func (m *PVMW) Beliefs() *Beliefs { return m.b }

// LastUpdate is the latest update's released values and direction; ok is
// false before the first.
func (m *PVMW) LastUpdate() (u UpdateStep, ok bool) { return m.last, m.updates > 0 }

// Public is the public part of the data PVMW runs on.
func (m *PVMW) Public() *Public { return &m.data.Public }

// Updates is how many updates have happened.
func (m *PVMW) Updates() int { return m.updates }

// Failed reports whether PVMW has answered FAIL (it then answers nothing
// more).
func (m *PVMW) Failed() bool { return m.failed }

// Reply is PVMW's answer to one query.
type Reply struct {
	// Answer is e_t = f_t(p), nil for FAIL.
	Answer []float64
	// Tests and Updates count this query's tests and updates.
	Tests, Updates int
}

// Answer answers query q: it tests the beliefs' answer against f(D) and,
// while the test says the beliefs are too far off, updates them with a
// released noisy f(D) and re-tests the same query. It fails once the
// updates paid for are spent.
func (m *PVMW) Answer(q Query) (Reply, error) {
	if m.failed {
		return Reply{}, nil
	}
	m.t++
	aD := m.data.TrueAnswer(q, nil)
	var r Reply
	for m.canTest() {
		aP := Answer(&m.data.Public, m.b, q, nil)
		e := dist(aP, aD)
		nu := 0.0
		if m.p.Mode != privacy.NonPrivate {
			nu = m.noise.Laplace(TestNoise, m.cal.BQuery)
		}
		top := e+nu >= m.p.Tau+m.chi
		r.Tests++
		if m.tick != nil {
			m.tick()
		}
		verdict, out := "<", "⊥: the beliefs answer"
		if top {
			verdict, out = "≥", "⊤: update the beliefs"
		}
		m.rec.Addf(KindTest, TestStep{m.t, m.l, e, nu, m.chi, m.p.Tau, top},
			"query %d, instance %d: E + ν = %.4g %s = %.4g %s τ + χ = %.4g %s = %.4g → %s",
			m.t, m.l, e, trace.Plus(nu), e+nu, verdict, m.p.Tau, trace.Plus(m.chi), m.p.Tau+m.chi, out)
		if !top {
			m.rec.Addf(KindAnswer, AnswerStep{m.t, aP, e}, "query %d answered from the beliefs (error %.4g)", m.t, e)
			r.Answer = aP
			return r, nil
		}
		if err := m.update(q, aD, e); err != nil {
			return r, err
		}
		r.Updates++
		if m.tick != nil {
			m.tick()
		}
	}
	m.failed = true
	m.rec.Addf(KindFail, m.t, "FAIL at query %d: all %d paid updates spent", m.t, m.p.LMax)
	return r, nil
}

// canTest reports whether instance m.l may run a test: l ≤ L_max, or
// l < L_max for the printed loop.
func (m *PVMW) canTest() bool {
	if m.p.PaperLoop {
		return m.l < m.p.LMax
	}
	return m.l <= m.p.LMax
}

// update releases v = f(D) + z and ι = E + ξ, moves the beliefs and opens
// the next instance.
func (m *PVMW) update(q Query, aD []float64, e float64) error {
	z := make([]float64, len(aD))
	xi := 0.0
	if m.p.Mode != privacy.NonPrivate {
		m.noise.Gaussian(m.cal.SG, z)
		xi = m.noise.Laplace(NormNoise, m.cal.BNorm)
	}
	v := make([]float64, len(aD))
	for j := range v {
		v[j] = aD[j] + z[j]
	}
	iota := e + xi
	used := iota
	if !m.p.NoGuard {
		used = max(iota, m.p.Tau/2)
	}
	var before *Beliefs
	if m.inspect != nil {
		before = m.b.Clone()
	}
	st, err := MWU(&m.data.Public, m.b, q, v, used, MWUParams{Eta: m.p.Eta, C: m.p.C})
	if err != nil {
		return err
	}
	if m.p.Mutant == MWUPeeks {
		m.peek()
	}
	m.updates++
	m.last = UpdateStep{m.t, m.l, st.Before, v, iota, used, norm(z), xi, st.Phi, st.Clipped}
	if m.inspect != nil {
		if m.tick != nil {
			m.tick() // a place to yield between the update and its inspection
		}
		m.inspect(Inspection{m.updates, &m.data.Public, q, before, m.b, m.last})
	}
	m.rec.Addf(KindUpdate, m.last,
		"update %d: v = f(D) + z (‖z‖ = %.3g), ι = E + ξ = %.4g (used %.4g); %d of %d scores cut at ±c",
		m.updates, norm(z), iota, used, st.Clipped, len(st.Scores))
	m.open(m.l + 1)
	return nil
}

// peek is the MWUPeeks mutant: it multiplies each example's true value's
// weight by e^{ηc}, reading what the real step never can.
func (m *PVMW) peek() {
	for i, y := range m.data.sensitive {
		m.b.logp[i*m.b.k+y] += m.p.Eta * m.p.C
		m.b.normalise(i)
	}
}
