package semisens

import (
	"math"

	"github.com/uldplab/uldp/core/cancel"
	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/mech"
	"github.com/uldplab/uldp/core/noise"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/core/trace"
)

// TrainParams configure training logistic regression through PVMW: one
// ERM problem per μ, all sharing one PVMW run, so that m problems cost
// only log m in accuracy and nothing in privacy.
type TrainParams struct {
	PVMW Params
	// Steps is q, the oracle calls per problem.
	Steps int
	// Radius is R: every problem's domain is the ball B(0, R).
	Radius float64
	// Mus holds one regularisation strength per problem: μ = 0 is the
	// convex problem, trained by projected gradient descent with averaging
	// (step R/(G√q)); μ > 0 is strongly convex and smooth, trained by the
	// inexact-oracle gradient method (step 1/(2λ), last iterate). nil: one
	// convex problem.
	Mus []float64
	// CurveEvery, if above 0, asks for every method's excess risk after
	// every CurveEvery-th step and the last (the instructor's view; one
	// risk evaluation, O(n·d), per point and method).
	CurveEvery int
	// Inspect, if set, is shown every update, numbered from 1: how a
	// lesson shows the beliefs and checks Condition 14 without replaying
	// the run.
	Inspect func(Inspection)
}

// The lesson's defaults (its demo scenario): paid updates, learning rate,
// truncation, threshold, queries per problem and the domain's radius.
// With them, n = 5000 examples of k = 8 values answer 100 queries at
// ε = 4, δ = 10⁻⁶ with a handful of updates.
const (
	DemoLMax   = 20
	DemoEta    = 1.0
	DemoC      = 1.0
	DemoTau    = 0.04
	DemoSteps  = 100
	DemoRadius = 5.0
)

// MaxProblems bounds the problems one run trains.
const MaxProblems = 16

func (p TrainParams) mus() []float64 {
	if len(p.Mus) == 0 {
		return []float64{0}
	}
	return p.Mus
}

// Validate checks the parameters for n examples.
func (p TrainParams) Validate(n int) error {
	if err := p.PVMW.Validate(n); err != nil {
		return err
	}
	if len(p.Mus) > MaxProblems {
		return format.Errorf("%d problems: train at most %d on one PVMW run", len(p.Mus), MaxProblems)
	}
	for _, mu := range p.mus() {
		if !(mu >= 0) || math.IsInf(mu, 1) {
			return format.Errorf("μ = %v: a regularisation strength is a finite number ≥ 0", mu)
		}
	}
	return p.descent(0).Validate()
}

// descent is problem μ's method.
func (p TrainParams) descent(mu float64) Descent {
	if mu > 0 {
		return Descent{Steps: p.Steps, Radius: p.Radius, Step: 1 / (2 * Logistic{Mu: mu}.Smoothness()), Last: true}
	}
	return Descent{Steps: p.Steps, Radius: p.Radius, Step: p.Radius / math.Sqrt(float64(p.Steps))}
}

// Problem is one trained problem: the private model, the three baselines
// and, in the instructor's view, every model's excess risk.
type Problem struct {
	Mu     float64 `json:"mu"`
	Method string  `json:"method"`
	// Private is the model trained through PVMW.
	Private DescentResult `json:"private"`
	// NonPrivate takes the exact gradients, same method, same steps.
	NonPrivate []float64 `json:"nonprivate"`
	// Gaussian is the full-DP baseline: the same method on ∇𝓛 + N(0, s²I),
	// with the budget split evenly over its q·m steps.
	Gaussian []float64 `json:"gaussian"`
	// RR is the label-DP way, randomise then learn: every sensitive value
	// replaced by k-ary randomized response at the run's ε (pure ε-DP for
	// the sensitive feature, a stronger promise), then the same method on
	// the exact gradients of the randomised data. It degrades fast as k
	// grows: the true value survives with probability e^ε/(e^ε + k − 1).
	RR []float64 `json:"rr"`
	// Optimum is the minimiser over B(0, R), by accelerated projected
	// gradient descent to a gradient mapping below 10⁻⁷.
	Optimum []float64 `json:"optimum"`
	// Excess risks 𝓛(w) − 𝓛(w*): what only a simulation can compute.
	Excess           float64 `json:"excess"`
	ExcessNonPrivate float64 `json:"excess_nonprivate"`
	ExcessGaussian   float64 `json:"excess_gaussian"`
	ExcessRR         float64 `json:"excess_rr"`
	// Curves, when asked for, hold each method's excess risk step by step.
	Curves *Curves `json:"curves,omitempty"`
}

// Curves are each method's excess risk step by step.
type Curves struct {
	Private    Curve `json:"private"`
	NonPrivate Curve `json:"nonprivate"`
	Gaussian   Curve `json:"gaussian"`
	RR         Curve `json:"rr"`
}

// A Curve is a method's excess risk 𝓛(w) − 𝓛(w*) after the oracle calls
// in Steps, w being what the method would output had it stopped there:
// the average of the iterates w₁ … w_s so far, or for the last-iterate
// method w_s itself. The last step is always there (for PVMW, the last
// call answered before a FAIL).
type Curve struct {
	Steps  []int     `json:"steps"`
	Excess []float64 `json:"excess"`
}

// follow returns an after-step function adding to c the risk of what
// descent d would output at every every-th step and the last (see Curve);
// one that does nothing when every is 0.
func follow(every int, d Descent, dim int, risk func([]float64) float64, c *Curve) func(s int, w []float64) {
	if every <= 0 {
		return func(int, []float64) {}
	}
	sum, out := make([]float64, dim), make([]float64, dim)
	return func(s int, w []float64) {
		for j := range w {
			sum[j] += w[j]
			out[j] = sum[j] / float64(s)
		}
		if s%every != 0 && s != d.Steps {
			return
		}
		at := out
		if d.Last {
			at = w // read only: w is the descent's own iterate
		}
		c.Steps, c.Excess = append(c.Steps, s), append(c.Excess, risk(at))
	}
}

// TrainResult is a whole run.
type TrainResult struct {
	Problems []Problem `json:"problems"`
	Queries  int       `json:"queries"`
	Updates  int       `json:"updates"`
	Failed   bool      `json:"failed"`
	// Psi is Ψ before any query, then after each query: the beliefs'
	// cross-entropy against the true values (instructor's view).
	Psi []float64 `json:"psi"`
	// MaxError is the largest error of an answered query (instructor's
	// view).
	MaxError    float64           `json:"max_error"`
	Calibration Calibration       `json:"calibration"`
	Guarantee   privacy.Guarantee `json:"guarantee"`
	// GaussianStd is the Gaussian baseline's noise per coordinate.
	GaussianStd float64 `json:"gaussian_baseline_std"`
	// Ledger lists the spends of the instances used.
	Ledger []privacy.Spend `json:"ledger"`
}

// KindDescent is a descent step answered through PVMW.
const KindDescent trace.Kind = "pvmw.descent"

// DescentStep is one oracle call of problem Problem at step S: the
// iterate, PVMW's gradient and (instructor's view) the true one.
type DescentStep struct {
	Problem int       `json:"problem"`
	S       int       `json:"s"`
	W       []float64 `json:"w"`
	G       []float64 `json:"g"`
	True    []float64 `json:"true"`
	Error   float64   `json:"error"`
}

// Train trains logistic regression on data through PVMW, problem after
// problem, and the baselines beside it. streams gives PVMW its noise and
// the Gaussian baseline its own ("baseline").
func Train(ctx cancel.Context, data *Dataset, p TrainParams, streams *rng.Streams, progress mech.Progress) (TrainResult, *trace.Trace, error) {
	if err := (Logistic{}).Check(&data.Public); err != nil {
		return TrainResult{}, nil, err
	}
	if err := p.Validate(data.N()); err != nil {
		return TrainResult{}, nil, err
	}
	rec := trace.NewRecorder("pvmw", streams.Seed())
	m, err := NewPVMW(data, p.PVMW, StreamNoise(streams), rec)
	if err != nil {
		return TrainResult{}, nil, err
	}
	m.inspect = p.Inspect
	// The instructor's view reads the truth once.
	truth := data.Reveal()
	pub := &data.Public
	exact := func(mu float64) Oracle {
		return func(w []float64) ([]float64, bool, error) {
			g := answerAt(pub, truth, Logistic{}.Gradient(w), nil)
			addScaled(g, mu, w)
			return g, true, nil
		}
	}
	mus := p.mus()
	res := TrainResult{Psi: []float64{Potential(m.Beliefs(), truth)}}
	p.Accounts(&res, data.N())
	dim := Logistic{}.Dim(pub)
	// The randomised values of the RR baseline, drawn once for all problems.
	rrSrc := streams.Get("rr")
	randomised := make([]int, len(truth))
	for i, y := range truth {
		randomised[i] = RR(rrSrc, y, data.K, res.Guarantee.Eps)
	}
	// Progress is in units of about one exact gradient's time, so that a
	// bar moves at an even pace: per problem, privateCost for each of the
	// q private calls (PVMW's tests and updates), one for each call of
	// the three baselines, and q for the optimum, which reports how near
	// it has come (it stops as soon as it is there: its bound on steps
	// would leave most of the bar for a jump at the end).
	q := int64(p.Steps)
	per := (privateCost + 3 + 1) * q
	total := int64(len(mus)) * per
	report := func(j int, done int64) {
		if progress != nil {
			progress(int64(j)*per+done, total)
		}
	}
	for j, mu := range mus {
		d := p.descent(mu)
		done := int64(0) // the private calls answered so far
		m.tick = func() { report(j, privateCost*done) }
		pr := Problem{Mu: mu, Method: "projected gradient descent, averaged"}
		if mu > 0 {
			pr.Method = "inexact-oracle gradient method, last iterate"
		}
		model := Logistic{Mu: mu}
		risk := func(w []float64) float64 { return riskAt(pub, truth, model, w) }
		var cv Curves
		track := func(c *Curve) func(int, []float64) { return follow(p.CurveEvery, d, dim, risk, c) }
		trackPrivate := track(&cv.Private)
		var truthAt []float64 // ∇𝓛 at the iterate private last answered, for after
		private := func(w []float64) ([]float64, bool, error) {
			q := Logistic{}.Gradient(w)
			reply, err := m.Answer(q)
			if err != nil || reply.Answer == nil {
				return nil, false, err
			}
			res.Queries++
			res.Psi = append(res.Psi, Potential(m.Beliefs(), truth))
			truthAt = answerAt(pub, truth, q, truthAt)
			res.MaxError = max(res.MaxError, dist(reply.Answer, truthAt))
			addScaled(truthAt, mu, w)
			g := append([]float64(nil), reply.Answer...)
			addScaled(g, mu, w)
			return g, true, nil
		}
		after := func(s int, w, g []float64) {
			tr := append([]float64(nil), truthAt...)
			rec.Addf(KindDescent, DescentStep{j + 1, s, append([]float64(nil), w...), append([]float64(nil), g...), tr, dist(g, tr)},
				"problem %d, step %d: PVMW's gradient is off by ‖g̃ − ∇𝓛‖ = %.4g", j+1, s, dist(g, tr))
			trackPrivate(s, w)
			done = int64(s)
			report(j, privateCost*done)
		}
		if pr.Private, err = d.Run(ctx, dim, private, after); err != nil {
			return res, nil, err
		}
		if c := &cv.Private; p.CurveEvery > 0 && pr.Private.Answered > 0 && (len(c.Steps) == 0 || c.Steps[len(c.Steps)-1] != pr.Private.Answered) {
			// A FAIL ended it between points: the model it returns is the last.
			c.Steps, c.Excess = append(c.Steps, pr.Private.Answered), append(c.Excess, risk(pr.Private.W))
		}
		trackNP := track(&cv.NonPrivate)
		np, err := d.Run(ctx, dim, exact(mu), func(s int, w, _ []float64) { trackNP(s, w); report(j, privateCost*q+int64(s)) })
		if err != nil {
			return res, nil, err
		}
		pr.NonPrivate = np.W
		gauss := noise.Gaussian{Sigma: res.GaussianStd, Src: streams.Get("baseline")}
		noisy := func(w []float64) ([]float64, bool, error) {
			g, _, _ := exact(0)(w)
			z := gauss.RandVec(make([]float64, len(g)))
			for i := range g {
				g[i] += z[i] + mu*w[i]
			}
			return g, true, nil
		}
		trackG := track(&cv.Gaussian)
		gs, err := d.Run(ctx, dim, noisy, func(s int, w, _ []float64) { trackG(s, w); report(j, (privateCost+1)*q+int64(s)) })
		if err != nil {
			return res, nil, err
		}
		pr.Gaussian = gs.W
		trackRR := track(&cv.RR)
		rr, err := d.Run(ctx, dim, func(w []float64) ([]float64, bool, error) {
			g := answerAt(pub, randomised, Logistic{}.Gradient(w), nil)
			addScaled(g, mu, w)
			return g, true, nil
		}, func(s int, w, _ []float64) { trackRR(s, w); report(j, (privateCost+2)*q+int64(s)) })
		if err != nil {
			return res, nil, err
		}
		pr.RR = rr.W
		pr.Optimum = optimum(ctx, model, dim, p.Radius, exact(mu), func(f float64) { report(j, (privateCost+3)*q+int64(f*float64(q))) })
		if err := ctx.Err(); err != nil {
			return res, nil, err
		}
		report(j, per)
		best := risk(pr.Optimum)
		pr.Excess, pr.ExcessNonPrivate, pr.ExcessGaussian, pr.ExcessRR = risk(pr.Private.W)-best, risk(pr.NonPrivate)-best, risk(pr.Gaussian)-best, risk(pr.RR)-best
		if p.CurveEvery > 0 {
			for _, c := range []Curve{cv.Private, cv.NonPrivate, cv.Gaussian, cv.RR} {
				for i := range c.Excess {
					c.Excess[i] -= best
				}
			}
			pr.Curves = &cv
		}
		res.Problems = append(res.Problems, pr)
		if pr.Private.Failed {
			break // PVMW answers nothing more: the later problems cannot start
		}
	}
	res.Updates, res.Failed = m.Updates(), m.Failed()
	p.Accounts(&res, data.N())
	return res, rec.Trace(), nil
}

// Accounts sets what a run of p on n examples reports beside its numbers,
// from p, n and the updates the run made (res.Updates): PVMW's
// calibration, the guarantee, the Gaussian baseline's noise and the
// ledger. Train reports them so; a copy of a lesson shown a run computed
// elsewhere derives them so, rather than be sent them.
func (p TrainParams) Accounts(res *TrainResult, n int) {
	res.Calibration = p.PVMW.calibrate(n)
	res.Guarantee = p.PVMW.Guarantee()
	baseRho := p.PVMW.Rho / float64(len(p.mus()))
	res.GaussianStd = 2 / float64(n) / math.Sqrt(2*baseRho/float64(p.Steps))
	res.Ledger = ledger(res.Calibration, res.Updates)
}

// ledger lists the spends of the instances used: each update's instance
// made its three releases (its test, and at its ⊤ the norm and the
// Gaussian); the instance open at the end, if any, ran its test only. The
// guarantee charges all L_max instances whatever happens.
func ledger(c Calibration, updates int) []privacy.Spend {
	var out []privacy.Spend
	half := c.EpsPrime * c.EpsPrime / 2
	for l := 1; l <= min(updates+1, c.LMax); l++ {
		out = append(out, privacy.Spend{Label: format.Sprintf("instance %d: the test (AboveThreshold)", l), Eps: c.EpsPrime, Rho: half})
		if l <= updates {
			out = append(out,
				privacy.Spend{Label: format.Sprintf("instance %d: the norm's release", l), Eps: c.EpsPrime, Rho: half},
				privacy.Spend{Label: format.Sprintf("instance %d: the Gaussian", l), Rho: c.RhoG})
		}
	}
	return out
}

// optimumSteps bounds the optimum's accelerated gradient steps.
const optimumSteps = 5000

// privateCost is a private call's time in exact gradients' (a PVMW test
// over every example's k values, now and then an update): about 4 at the
// lesson's 5,000 examples, k = 8.
const privateCost = 4

// optimumTol is the gradient-mapping norm at which the optimum stops.
const optimumTol = 1e-7

// optimum minimises a smooth loss over B(0, R) by accelerated projected
// gradient descent (step 1/λ), to a gradient-mapping norm of optimumTol or
// optimumSteps steps, telling step before each how far it has come, in
// [0, 1]: the larger of the share of the steps taken and of the way, on a
// log scale, from the first step's norm to optimumTol.
func optimum(ctx cancel.Context, m Logistic, dim int, r float64, grad Oracle, step func(done float64)) []float64 {
	eta := 1 / m.Smoothness()
	x := make([]float64, dim)
	y := make([]float64, dim)
	prev := make([]float64, dim)
	t := 1.0
	first, done := 0.0, 0.0
	for k := range optimumSteps {
		if ctx.Err() != nil {
			break
		}
		step(max(done, float64(k)/optimumSteps))
		g, _, _ := grad(y)
		copy(prev, x)
		for j := range x {
			x[j] = y[j] - eta*g[j]
		}
		project(x, r)
		norm := dist(x, y) / eta
		if norm < optimumTol {
			break
		}
		if k == 0 {
			first = norm
		} else if r := math.Log(first/norm) / math.Log(first/optimumTol); r > done {
			done = min(1, r) // never NaN: a non-finite norm fails r > done
		}
		tn := (1 + math.Sqrt(1+4*t*t)) / 2
		for j := range y {
			y[j] = x[j] + (t-1)/tn*(x[j]-prev[j])
		}
		t = tn
	}
	return x
}

// riskAt is 𝓛(w) on the given values.
func riskAt(pub *Public, values []int, m Logistic, w []float64) float64 {
	s := 0.0
	for i, y := range values {
		s += m.Loss(pub, w, i, y)
	}
	return s / float64(len(values))
}

func addScaled(dst []float64, a float64, x []float64) {
	for i := range dst {
		dst[i] += a * x[i]
	}
}
