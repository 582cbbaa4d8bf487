package optim

import (
	"encoding/json"
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/uldplab/uldp/core/cancel"
	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/loss"
	"github.com/uldplab/uldp/core/mech"
	"github.com/uldplab/uldp/core/noise"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/core/trace"
)

// DPSGDParams configures Paper B's user-level DP-SGD (Asi & Liu, Alg. 3;
// spec 000-002 §B-5): projected SGD on Θ = B(0, Radius) whose every step
// asks one ORME instance for the mean of the users' smoothed gradients.
type DPSGDParams struct {
	Eps, Delta float64
	// Loss is the per-item loss; Radius the domain's.
	Loss   loss.Item
	Radius float64
	// Theta0 is the start (nil: the centre); it is also the answer when the
	// gate fails ("output the initial point and halt").
	Theta0 []float64
	// Steps T, step size η, smoothing radius r (0: plain subgradients) and
	// ORME's τ; Theorem41 gives the paper's choices.
	Steps     int
	Eta       float64
	Smoothing float64
	Tau       float64
	// Mode is ORME's: paper, sound, or non-private (gate passes, no noise).
	Mode privacy.Mode
	// Record keeps the trace and every step's story in the result; memory
	// then grows like T·n, so long runs leave it off and keep the iterates
	// only. KeepValues also keeps each step's user values (lessons).
	Record, KeepValues bool
}

// DPSGDSettings are step count, step size, smoothing radius and τ.
type DPSGDSettings struct {
	Steps     int     `json:"steps"`
	Eta       float64 `json:"eta"`
	Smoothing float64 `json:"smoothing"`
	Tau       float64 `json:"tau"`
}

// Theorem41 returns Theorem 4.1's settings for n users of m items in d
// dimensions, a G-Lipschitz loss and a domain of diameter R (R̂ = R):
// T = m²n² + mn√d (steps > 0 overrides it, the rest following the T
// used), r = d^{1/4}R/√T, τ = G·ln(ndm·e^ε·T/δ)/√m and
// η = (R/G)·min{√m·n·ε/(T·√d·ln(mnd/δ)), T^{−3/4}, √(nm)/T}.
func Theorem41(eps, delta, g, diameter float64, n, m, d, steps int) DPSGDSettings {
	nf, mf, df := float64(n), float64(m), float64(d)
	T := steps
	if T <= 0 {
		T = int(math.Min(mf*mf*nf*nf+mf*nf*math.Sqrt(df), 1e9))
	}
	tf := float64(T)
	lg := math.Log(mf * nf * df / delta)
	return DPSGDSettings{
		Steps:     T,
		Smoothing: math.Pow(df, 0.25) * diameter / math.Sqrt(tf),
		Tau:       g * math.Log(nf*df*mf*math.Exp(eps)*tf/delta) / math.Sqrt(mf),
		Eta: diameter / g * math.Min(math.Sqrt(mf)*nf*eps/(tf*math.Sqrt(df)*lg),
			math.Min(math.Pow(tf, -0.75), math.Sqrt(nf*mf)/tf)),
	}
}

// SGDStep is one step's story.
type SGDStep struct {
	T     int       `json:"t"` // 1-based
	Theta []float64 `json:"theta"`
	// Values are the users' smoothed mean gradients (KeepValues only).
	Values Vectors       `json:"values,omitzero"`
	ORME   mech.ORMEStep `json:"orme"`
	// Next is θ_{t+1} = Π_Θ(θ_t − η·ĝ_t); nil if the gate failed here.
	Next []float64 `json:"next"`
}

// Vectors are equal-length vectors stored end to end. A lesson keeps every
// step's n user vectors: as [][]float64 that is n pointers per step for the
// garbage collector to scan (150,000 over 500 steps of 300 users, enough for
// visible pauses in the browser); flat, it is one.
type Vectors struct {
	Dim  int
	Flat []float64
}

// Len returns the number of vectors.
func (v Vectors) Len() int {
	if v.Dim == 0 {
		return 0
	}
	return len(v.Flat) / v.Dim
}

// At returns vector i (a view, not a copy).
func (v Vectors) At(i int) []float64 { return v.Flat[i*v.Dim : (i+1)*v.Dim : (i+1)*v.Dim] }

// IsZero reports an empty set, so JSON's omitempty leaves it out.
func (v Vectors) IsZero() bool { return v.Len() == 0 }

// MarshalJSON writes the vectors as a list of lists, as [][]float64 would.
func (v Vectors) MarshalJSON() ([]byte, error) {
	out := make([][]float64, v.Len())
	for i := range out {
		out[i] = v.At(i)
	}
	return json.Marshal(out)
}

// DPSGDResult is a whole run.
type DPSGDResult struct {
	// Theta is the answer: the average of θ_1..θ_T (erratum A21), or θ₀
	// after a failed gate.
	Theta     []float64            `json:"theta"`
	Iterates  [][]float64          `json:"iterates"` // θ_1, θ_2, …
	Steps     []SGDStep            `json:"steps"`
	Halted    int                  `json:"halted"` // the step whose gate failed, 0 if none
	ORME      mech.ORMECalibration `json:"orme"`
	Guarantee privacy.Guarantee    `json:"guarantee"`
}

// Trace kinds DP-SGD records besides ORME's.
const (
	KindSGDStep trace.Kind = "sgd.step"
	KindSGDDone trace.Kind = "sgd.done"
)

// Validate checks the parameters.
func (p DPSGDParams) Validate(d int) error {
	switch {
	case p.Loss == nil:
		return format.Errorf("no loss: choose one (distance or squared)")
	case !(p.Radius > 0) || math.IsInf(p.Radius, 1):
		return format.Errorf("radius = %v: the domain Θ = B(0, R) needs a finite R > 0", p.Radius)
	case p.Steps < 1 || p.Steps > 10_000_000:
		return format.Errorf("steps = %d: choose 1 to 10⁷ (the theorem's T = m²n² + mn√d is often more: override it)", p.Steps)
	case !(p.Eta > 0) || math.IsInf(p.Eta, 1):
		return format.Errorf("eta = %v: the step size must be a finite number > 0", p.Eta)
	case !(p.Smoothing >= 0) || math.IsInf(p.Smoothing, 1):
		return format.Errorf("smoothing = %v: the radius r must be ≥ 0 (0: no smoothing)", p.Smoothing)
	case p.Theta0 != nil && len(p.Theta0) != d:
		return format.Errorf("theta0 has %d coordinates, the data %d", len(p.Theta0), d)
	}
	return nil
}

// DPSGD runs Alg. 3 on data (every user the same number of items).
// Smoothing perturbations come fresh for every step, user and item from
// the "smoothing" stream (erratum A20); ORME draws its own. ctx cancels
// long runs; progress (may be nil) gets steps done.
func DPSGD(ctx cancel.Context, p DPSGDParams, data *dataset.Dataset, streams *rng.Streams, progress mech.Progress) (DPSGDResult, *trace.Trace, error) {
	n, m, err := p.check(data)
	if err != nil {
		return DPSGDResult{}, nil, err
	}
	rec := p.recorder("dp-sgd", streams)
	orme, err := mech.NewORME(p.ORME(n, m, data.Dim), n, streams, rec)
	if err != nil {
		return DPSGDResult{}, nil, err
	}
	res := DPSGDResult{ORME: orme.Calibration()}
	res.Guarantee = p.Guarantee(res.ORME)
	return p.descend(ctx, data, streams, progress, rec, orme.Query, res)
}

// check validates p against data and returns n and the common m.
func (p DPSGDParams) check(data *dataset.Dataset) (int, int, error) {
	if err := p.Validate(data.Dim); err != nil {
		return 0, 0, err
	}
	m, ok := data.M()
	if !ok {
		return 0, 0, format.Errorf("users hold different numbers of items: DP-SGD averages each user's m item gradients and needs the same m for every user")
	}
	return data.N(), m, nil
}

// recorder is nil (recording nothing) unless the run keeps its story.
func (p DPSGDParams) recorder(name string, streams *rng.Streams) *trace.Recorder {
	if p.Record || p.KeepValues {
		return trace.NewRecorder(name, streams.Seed())
	}
	return nil
}

// descend is the loop DP-SGD and its baselines share: smoothed user
// gradients, one private mean per step from estimate (a failed gate ends
// the run at θ₀), a projected step, and the average of the iterates.
func (p DPSGDParams) descend(ctx cancel.Context, data *dataset.Dataset, streams *rng.Streams, progress mech.Progress,
	rec *trace.Recorder, estimate func([][]float64) (mech.ORMEStep, error), res DPSGDResult) (DPSGDResult, *trace.Trace, error) {
	d, n := data.Dim, data.N()
	dom := loss.Ball{Centre: make([]float64, d), Radius: p.Radius}
	theta0 := make([]float64, d)
	if p.Theta0 != nil {
		dom.Project(p.Theta0, theta0)
	}
	// Each user draws its perturbations from a stream of its own
	// ("smoothing/i"), so users can be worked on in parallel and still give
	// the same numbers for the same seed.
	balls := make([]noise.Ball, n)
	for i := range balls {
		balls[i] = noise.Ball{Dim: d, Radius: p.Smoothing, Src: streams.Get(format.Sprintf("%s/%d", rng.Smoothing, i))}
	}
	theta := slices.Clone(theta0)
	avg := make([]float64, d)
	values := make([][]float64, n)
	var flat []float64
	keep := rec != nil
	for t := 1; t <= p.Steps; t++ {
		// Every step: one is n users' gradients and an ORME query, far more
		// than the check, and a lesson computing between frames needs to be
		// told each one.
		if err := ctx.Err(); err != nil {
			return DPSGDResult{}, nil, err
		}
		if progress != nil {
			progress(int64(t-1), int64(p.Steps))
		}
		res.Iterates = append(res.Iterates, slices.Clone(theta))
		for k, v := range theta {
			avg[k] += v / float64(p.Steps)
		}
		// One allocation for the step's values, kept with the step (so
		// its own) when asked to; else one for the whole run: a run
		// computed between frames would hand the collector n·d of garbage
		// every step.
		if flat == nil || p.KeepValues {
			flat = make([]float64, n*d)
			for i := range n {
				values[i] = flat[i*d : (i+1)*d : (i+1)*d]
			}
		} else {
			clear(flat) // the users' gradients are summed into it
		}
		userGradients(p, data, theta, balls, values)
		if progress != nil {
			// The same count again: a chance to pause between the users'
			// gradients and ORME's query, each half a step (a few
			// milliseconds natively at n = 1000, m = 50, ten in a browser).
			progress(int64(t-1), int64(p.Steps))
		}
		st, err := estimate(values)
		if err != nil {
			return DPSGDResult{}, nil, err
		}
		step := SGDStep{T: t, Theta: slices.Clone(theta), ORME: st}
		if p.KeepValues {
			step.Values = Vectors{Dim: d, Flat: flat} // flat is this step's own
		}
		if !st.Passed {
			if keep {
				res.Steps = append(res.Steps, step)
			}
			res.Halted, res.Theta = t, theta0
			rec.Addf(KindSGDDone, res.Theta, "the gate failed at step %d, so DP-SGD outputs its initial point θ₀ = %v (data-independent)", t, trace.Vec(theta0))
			return res, rec.Trace(), nil
		}
		next := make([]float64, d)
		for k := range next {
			next[k] = theta[k] - p.Eta*st.Output[k]
		}
		dom.Project(next, next)
		step.Next = next
		if keep {
			res.Steps = append(res.Steps, step)
		}
		rec.Addf(KindSGDStep, step, "θ = Π_Θ(%v − η·ĝ) = %v", trace.Vec(theta), trace.Vec(next))
		theta = next
	}
	res.Theta = avg
	rec.Addf(KindSGDDone, res.Theta, "after %d steps: θ̂ = the average of θ_1..θ_T = %v", p.Steps, trace.Vec(avg))
	return res, rec.Trace(), nil
}

// ORME returns the parameters of the one ORME instance a run on n users of
// m items in d dimensions asks all T queries of: δ/(2Tmnd), so the run is
// even (ε, δ/(2Tmnd))-DP, and (ε, δ) a fortiori.
func (p DPSGDParams) ORME(n, m, d int) mech.ORMEParams {
	return mech.ORMEParams{Eps: p.Eps, Delta: p.Delta / (2 * float64(p.Steps) * float64(m) * float64(n) * float64(d)),
		Tau: p.Tau, Queries: p.Steps, Mode: p.Mode}
}

// Guarantee is the run's promise given its ORME calibration c: ORME's, at
// the run's (ε, δ) — post-processing of its T answers; the halting output
// θ₀ does not depend on the data.
func (p DPSGDParams) Guarantee(c mech.ORMECalibration) privacy.Guarantee {
	g := c.Guarantee()
	if p.Mode == privacy.NonPrivate {
		return g
	}
	g.Eps, g.Delta = p.Eps, p.Delta
	g.Note = "Paper B Thm 4.1: post-processing of one ORME instance over T steps at (ε, δ/(2Tmnd)) — " + g.Note
	return g
}

// userGradients writes each user's smoothed mean gradient at theta into
// values, spreading users over the available cores.
func userGradients(p DPSGDParams, data *dataset.Dataset, theta []float64, balls []noise.Ball, values [][]float64) {
	n, m, d := data.N(), len(data.Users[0].Points)/data.Dim, data.Dim
	workers := min(runtime.GOMAXPROCS(0), max(1, n/64))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			y, g, at := make([]float64, d), make([]float64, d), make([]float64, d)
			_, dist := p.Loss.(loss.Distance)
			for i := lo; i < hi; i++ {
				if dist { // the lesson's loss, fused: (θ + y − z)/‖θ + y − z‖
					distanceGradients(theta, data, i, balls[i], p.Smoothing > 0, y, values[i])
					continue
				}
				for j := range m {
					copy(at, theta)
					if p.Smoothing > 0 {
						balls[i].Rand(y)
						for k := range at {
							at[k] += y[k]
						}
					}
					p.Loss.Grad(at, data.Item(i, j), g)
					for k := range g {
						values[i][k] += g[k] / float64(m)
					}
				}
			}
		}(n*w/workers, n*(w+1)/workers)
	}
	wg.Wait()
}

// distanceGradients adds user i's mean smoothed gradient of ‖θ − z‖ into
// dst: the general loop's numbers, without its copies and interface calls
// (this is most of a DP-SGD step's work).
func distanceGradients(theta []float64, data *dataset.Dataset, i int, ball noise.Ball, smooth bool, y, dst []float64) {
	m := data.Items(i)
	for j := range m {
		if smooth {
			ball.Rand(y)
		}
		z := data.Item(i, j)
		var norm2 float64
		for k := range y {
			a := theta[k] // θ + y first, then − z: the general loop's rounding
			if smooth {
				a += y[k]
			}
			y[k] = a - z[k]
			norm2 += y[k] * y[k]
		}
		if norm2 == 0 {
			continue // a zero subgradient at the kink
		}
		norm := math.Sqrt(norm2)
		for k, e := range y {
			dst[k] += e / norm / float64(m)
		}
	}
}
