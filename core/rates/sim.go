package rates

import (
	"math"

	"github.com/uldplab/uldp/core/cancel"
	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/internal/gof"
	"github.com/uldplab/uldp/core/loss"
	"github.com/uldplab/uldp/core/mech"
	"github.com/uldplab/uldp/core/optim"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
)

// The simulated points are user-level DP-SGD with outlier removal (Asi &
// Liu's algorithm, the lessons' own implementation, paper constants and
// Theorem 4.1's τ) on the squared loss, items N(μ, I) in d dimensions, T
// steps of size η from θ₀ = μ in a domain too wide to project onto. Its
// distance to the optimum ‖θ̂ − μ‖ bounds a G-Lipschitz loss's excess risk
// by G times it, and it is exactly Gaussian here (optim.ItemGain and
// NoiseGain), so every point has an exact expected size and exact error
// bars.
const (
	SimSteps = 10
	SimEta   = 0.5
	// simRadius is the domain's radius: wide enough that no iterate is
	// ever projected at the sizes the explorer simulates.
	simRadius = 1000
)

// SimLimits bound the sizes the explorer simulates (a run costs about
// n·m·d·T, plus ORME's pairs), so a sweep finishes in seconds.
var SimLimits = Point{N: 6400, M: 256, D: 64, Eps: 8, K: math.Inf(1), Delta: 0.5}

// SimLow is the smallest simulated sizes: ORME needs a crowd.
var SimLow = Point{N: 50, M: 1, D: 1, Eps: 0.05}

// centre is μ, the same in every dimension's first coordinates.
func centre(d int) []float64 {
	c := make([]float64, d)
	c[0] = 0.4
	if d > 1 {
		c[1] = -0.2
	}
	return c
}

// sizes are p's integer sizes.
func sizes(p Point) (n, m, d int) {
	return int(math.Round(p.N)), int(math.Round(p.M)), int(math.Round(p.D))
}

// SimParams is the run at p.
func SimParams(p Point) optim.DPSGDParams {
	n, m, d := sizes(p)
	tau := optim.Theorem41(p.Eps, p.Delta, 1, 2*simRadius, n, m, d, SimSteps).Tau
	return optim.DPSGDParams{Eps: p.Eps, Delta: p.Delta, Loss: loss.Squared{Mu: 1}, Radius: simRadius,
		Theta0: centre(d), Steps: SimSteps, Eta: SimEta, Tau: tau, Mode: privacy.Paper}
}

// Simulable says why p cannot be simulated, or nil.
func Simulable(p Point) error {
	if err := p.Check(); err != nil {
		return err
	}
	n, m, d := sizes(p)
	switch {
	case n < int(SimLow.N) || n > int(SimLimits.N):
		return format.Errorf("n = %d: the explorer simulates %v to %v users", n, SimLow.N, SimLimits.N)
	case m > int(SimLimits.M) || m < 1:
		return format.Errorf("m = %d: the explorer simulates 1 to %v items per user", m, SimLimits.M)
	case d > int(SimLimits.D) || d < 1:
		return format.Errorf("d = %d: the explorer simulates 1 to %v dimensions", d, SimLimits.D)
	case p.Eps < SimLow.Eps || p.Eps > SimLimits.Eps:
		return format.Errorf("ε = %v: the explorer simulates ε from %v to %v", p.Eps, SimLow.Eps, SimLimits.Eps)
	}
	return nil
}

// Expected is the exact root mean square of ‖θ̂ − μ‖ at p when every
// user is kept and no gate fails, and ORME's σ there.
func Expected(p Point) (rms, sigma float64, err error) {
	items, noise, sigma, err := parts(p)
	return math.Hypot(items, noise), sigma, err
}

// parts splits Expected's mean square into the items' part and the
// noise's, as root mean squares.
func parts(p Point) (items, noise, sigma float64, err error) {
	if err := Simulable(p); err != nil {
		return 0, 0, 0, err
	}
	n, m, d := sizes(p)
	cal, err := SimParams(p).ORME(n, m, d).Calibrate(n)
	if err != nil {
		return 0, 0, 0, err
	}
	c := optim.ItemGain(SimEta, SimSteps)
	items = c * math.Sqrt(float64(d)/float64(n*m))
	noise = cal.Sigma * math.Sqrt(float64(d)*optim.NoiseGain(SimEta, SimSteps))
	return items, noise, cal.Sigma, nil
}

// Constants are the optimal bound's two hidden constants for the simulated
// algorithm at p: its error's items part over 1/√(nm) and its noise part
// over √d/(nε√m). The bound hides them; the noise's carries the
// logarithms of τ and σ, which is why it is large.
func Constants(p Point) (stat, priv float64, err error) {
	items, noise, _, err := parts(p)
	if err != nil {
		return 0, 0, err
	}
	return items * math.Sqrt(p.N*p.M), noise * p.N * p.Eps * math.Sqrt(p.M) / math.Sqrt(p.D), nil
}

// Fitted is the optimal bound's shape with the constants stat and priv:
// stat/√(nm) + priv·√d/(nε√m).
func Fitted(p Point, stat, priv float64) float64 {
	return stat/math.Sqrt(p.N*p.M) + priv*math.Sqrt(p.D)/(p.N*p.Eps*math.Sqrt(p.M))
}

// Measurement is a simulated point: seeds runs at p.
type Measurement struct {
	Point Point
	// MSE is the mean of ‖θ̂ − μ‖² over the runs that did not halt; RMS
	// its root (NaN when every run halted).
	MSE, RMS float64
	// Lo and Hi bound the true RMS at 95% (exact for Gaussian errors: the
	// runs' total squared error is σ²·χ² with d degrees of freedom a run).
	Lo, Hi float64
	Seeds  int
	// Halted counts runs whose gate failed: they answer θ₀, which here is
	// the optimum itself, so they are left out of MSE rather than counted
	// as perfect. A crowd too small for ORME halts often.
	Halted int
	Sigma  float64
}

// Measure runs seeds runs at p, seeds first, first+1, …, reporting the
// steps done of seeds·SimSteps to progress (may be nil) after every step,
// and again while a run's data are drawn: a caller computing between
// frames gets control back that often.
func Measure(ctx cancel.Context, p Point, seeds int, first uint64, progress func(done, total int64)) (Measurement, error) {
	if err := Simulable(p); err != nil {
		return Measurement{}, err
	}
	if seeds < 1 {
		return Measurement{}, format.Errorf("seeds = %d: at least 1", seeds)
	}
	n, m, d := sizes(p)
	params := SimParams(p)
	mu := centre(d)
	out := Measurement{Point: p, Seeds: seeds}
	for i := range seeds {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		s := first + uint64(i)
		var step mech.Progress
		var pause func()
		if progress != nil {
			base, total := int64(i*SimSteps), int64(seeds*SimSteps)
			step = func(done, _ int64) { progress(base+done, total) }
			pause = func() { progress(base, total) }
		}
		data, err := dataset.GenerateWith(ctx, dataset.Spec{Kind: dataset.Gaussian, N: n, M: m, D: d, Center: mu}, rng.New(s), pause)
		if err != nil {
			return out, err
		}
		res, _, err := optim.DPSGD(ctx, params, data, rng.New(s), step)
		if err != nil {
			return out, err
		}
		out.Sigma = res.ORME.Sigma
		if res.Halted > 0 {
			out.Halted++
		} else {
			for k, v := range res.Theta {
				out.MSE += (v - mu[k]) * (v - mu[k])
			}
		}
		if progress != nil {
			progress(int64((i+1)*SimSteps), int64(seeds*SimSteps))
		}
	}
	runs := seeds - out.Halted
	if runs == 0 {
		out.MSE, out.RMS, out.Lo, out.Hi = math.NaN(), math.NaN(), math.NaN(), math.NaN()
		return out, nil
	}
	out.MSE /= float64(runs)
	out.RMS = math.Sqrt(out.MSE)
	lo, hi := gof.ChiSquareBand(d*runs, math.Log(40))
	out.Lo, out.Hi = math.Sqrt(out.MSE/hi), math.Sqrt(out.MSE/lo)
	return out, nil
}

// HaltBound bounds the chance that any of seeds runs at p halts: per run
// and step, one minus the gate's exact pass probability when every pair of
// users is within τ (score n).
func HaltBound(p Point, seeds int) (float64, error) {
	n, m, d := sizes(p)
	cal, err := SimParams(p).ORME(n, m, d).Calibrate(n)
	if err != nil {
		return 0, err
	}
	return float64(SimSteps*seeds) * (1 - mech.ATPassProbability(cal.Gate, float64(n))), nil
}

// DropBound bounds the chance that, in any of seeds runs at p, two users'
// means lie more than τ apart (then not every user need be kept, and the
// error is no longer the closed form's): two users' mean difference is
// N(0, 2I/m), so ‖·‖² > τ² has probability P(χ²_d > τ²m/2) ≤ e^{−y²} with
// y = (√(τ²m − d) − √d)/2 (Laurent & Massart's upper tail), over n²/2
// pairs and T steps (the iterate moves every user's gradient alike).
func DropBound(p Point, seeds int) float64 {
	n, m, d := sizes(p)
	tau := SimParams(p).Tau
	q := tau * tau * float64(m) / 2
	if q <= float64(d) {
		return 1
	}
	y := (math.Sqrt(2*q-float64(d)) - math.Sqrt(float64(d))) / 2
	return math.Min(1, float64(n*n)/2*float64(seeds)*math.Exp(-y*y))
}
