package optim

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"testing"

	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/internal/gof"
	"github.com/uldplab/uldp/core/loss"
	"github.com/uldplab/uldp/core/mech"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
)

// Spec §B-5 oracle 5 and §9.7 "Rates": Theorem 4.1 bounds the excess risk
// of a G-Lipschitz loss by G·‖θ̂ − θ*‖'s two terms, a statistical one
// ∝ 1/√(nm) and a privacy one ∝ 1/(n√m) up to logarithms. These tests
// isolate each term as §9.7 prescribes and fit log–log slopes of the root
// mean square ‖θ̂ − θ*‖ over a geometric grid: non-private mode for the
// statistical term, users who all agree for the privacy term.
//
// Both set-ups are linear: with the squared loss, no smoothing, every user
// kept and Θ wide enough never to project, θ̂ − θ* is an exactly Gaussian,
// isotropic vector (a fixed linear map of the items' or of ORME's Gaussian
// noise). So over S seeds in d dimensions, S·MSE/v is χ² with dS degrees
// of freedom (v the per-coordinate variance), and Laurent & Massart's tail
// bounds give every grid point's log-RMS error a sound band. The slopes'
// false-failure probability is the sum of those bands' failure
// probabilities and of the gate's chance to halt any run (computed
// exactly), stated per test below.

// rateRun is one grid point: the data for a seed, the run's parameters and
// the point θ̂ should estimate.
type rateRun struct {
	data   func(seed uint64) (*dataset.Dataset, error)
	params DPSGDParams
	target []float64
}

// rateFit is a grid point's measurement.
type rateFit struct {
	mse    float64 // mean of ‖θ̂ − θ*‖² over the seeds
	halted int     // runs whose gate failed (θ̂ = θ₀)
	cal    mech.ORMECalibration
}

// measure runs seeds seeds of r in parallel.
func (r rateRun) measure(t *testing.T, seeds int) rateFit {
	t.Helper()
	type run struct {
		sq     float64
		halted bool
		cal    mech.ORMECalibration
	}
	runs := overSeeds(t, seeds, 1000, func(s uint64) (run, error) {
		data, err := r.data(s)
		if err != nil {
			return run{}, err
		}
		res, _, err := DPSGD(context.Background(), r.params, data, rng.New(s), nil)
		var sq float64
		for k, v := range res.Theta {
			sq += (v - r.target[k]) * (v - r.target[k])
		}
		return run{sq, res.Halted > 0, res.ORME}, err
	})
	var fit rateFit
	for _, o := range runs {
		fit.mse += o.sq / float64(seeds)
		if o.halted {
			fit.halted++
		}
		fit.cal = o.cal
	}
	return fit
}

// overSeeds runs run for seeds first, first+1, … on every core and returns
// the results in seed order, so that sums over them do not depend on the
// scheduling.
func overSeeds[R any](t *testing.T, seeds int, first uint64, run func(seed uint64) (R, error)) []R {
	t.Helper()
	out := make([]R, seeds)
	errs := make([]error, seeds)
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i], errs[i] = run(first + uint64(i))
			}
		}()
	}
	for i := range seeds {
		next <- i
	}
	close(next)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	return out
}

// olsWeights are the least-squares slope's weights on points at xs:
// slope = Σ w_i y_i.
func olsWeights(xs []float64) []float64 {
	var mean float64
	for _, x := range xs {
		mean += x / float64(len(xs))
	}
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	w := make([]float64, len(xs))
	for i, x := range xs {
		w[i] = (x - mean) / ss
	}
	return w
}

// checkSlope fits ½ln(MSE) against ln(xs), asserts every point's level
// against want (the exact per-coordinate variances) inside its χ² band,
// and the slope within ±0.1 of exponent. allow is how far the exact
// variances' own slope may stray from exponent (the logarithms the
// theorem's O hides): checked, and refused as a design unless allow plus
// the statistical band fits inside 0.1, so that the test's false-failure
// probability is the bands'.
func checkSlope(t *testing.T, name string, xs []float64, fits []rateFit, want []float64, d, seeds int, x, exponent, allow float64) {
	t.Helper()
	lo, hi := gof.ChiSquareBand(d*seeds, x)
	band := math.Max(-0.5*math.Log(lo), 0.5*math.Log(hi))
	w := olsWeights(logs(xs))
	var slope, ideal, spread float64
	for i, f := range fits {
		ratio := f.mse / (float64(d) * want[i])
		if ratio < lo || ratio > hi {
			t.Errorf("%s = %v: MSE %.4g is %.3f × the exact d·v = %.4g, outside the χ² band [%.3f, %.3f]",
				name, xs[i], f.mse, ratio, float64(d)*want[i], lo, hi)
		}
		slope += w[i] * 0.5 * math.Log(f.mse)
		ideal += w[i] * 0.5 * math.Log(float64(d)*want[i])
		spread += math.Abs(w[i]) * band
	}
	if allow+spread > 0.1 {
		t.Fatalf("%s: design too weak for a ±0.1 test: allowance %.3f + statistical band %.3f > 0.1 (add seeds)", name, allow, spread)
	}
	t.Logf("%s: RMS slope %.3f (theorem %.2f, exact variances %.3f, band ±%.3f)", name, slope, exponent, ideal, spread)
	if !(math.Abs(ideal-exponent) <= allow) {
		t.Errorf("%s: the calibrated variances alone have slope %.3f, more than %.3f from the theorem's %.2f", name, ideal, allow, exponent)
	}
	if !(math.Abs(slope-exponent) <= 0.1) {
		t.Errorf("%s: log–log slope of the RMS error %.3f, want %.2f ± 0.1", name, slope, exponent)
	}
}

// checkSigma compares a scale the code computed with one worked out
// independently.
func checkSigma(t *testing.T, what string, got, want float64) {
	t.Helper()
	if !(math.Abs(got-want) <= 1e-12*want) {
		t.Errorf("%s: %.17g from the code, %.17g worked out", what, got, want)
	}
}

func logs(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = math.Log(x)
	}
	return out
}

// agreeingUsers is n users whose m items all sit at the origin: the
// concentration score is n, everyone is kept, the kept mean is exact, and
// θ̂'s only error is ORME's noise.
func agreeingUsers(n, m int) *dataset.Dataset {
	d := &dataset.Dataset{Dim: 2}
	for i := range n {
		d.Users = append(d.Users, dataset.User{ID: fmt.Sprint(i), Points: make([]float64, 2*m)})
	}
	return d
}

// haltBound is Σ over runs and steps of Pr[a query fails the gate]: a
// union bound on any run halting (each query's marginal is exact).
func haltBound(cal mech.ORMECalibration, score float64, steps, seeds int) float64 {
	return float64(steps*seeds) * (1 - mech.ATPassProbability(cal.Gate, score))
}

// The privacy term against n: σ ∝ τ√T/(nε) (spec §9.7: σ² ∝ τ²T/(n²ε²))
// at a fixed τ. Users all at the origin, θ₀ there too, so θ̂ is ORME's noise
// averaged along the descent: per coordinate σ²·NoiseGain(η, T).
// DP-SGD's δ/(2Tmnd) puts √(ln(e^ε·T/δ′)·ln(e^{ε/2}/δ′)) into σ, which
// bends the slope by about ½/ln + ½/ln ≈ 0.022 at δ = 10⁻¹² (δ that small
// keeps the bend small): allowed 0.025. False-failure probability: 6 bands at e^{−16.5} ≈ 6.8·10⁻⁸ each plus
// the halting bound logged below: < 10⁻⁶. The expected variances come from
// σ worked out independently of the code: Prop. 3.6's σ at δ′ = δ/(2Tmnd),
// evaluated in mpmath (sigmas below), which the run's σ must equal.
func TestDPSGDPrivacyTermSlopeInN(t *testing.T) {
	if testing.Short() {
		t.Skip("Monte Carlo over 3 × 1,000 runs")
	}
	const seeds, steps, eta, x = 1000, 10, 0.5, 16.5
	ns := []float64{128, 512, 2048}
	sigmas := []float64{0.37741036866641459, 0.0973875779724338, 0.02510552337895595}
	var fits []rateFit
	var want []float64
	var halt float64
	for i, n := range ns {
		r := rateRun{
			data: func(uint64) (*dataset.Dataset, error) { return agreeingUsers(int(n), 1), nil },
			params: DPSGDParams{Eps: 8, Delta: 1e-12, Loss: loss.Squared{Mu: 1}, Radius: 100, Theta0: []float64{0, 0},
				Steps: steps, Eta: eta, Tau: 1, Mode: privacy.Paper},
			target: []float64{0, 0},
		}
		f := r.measure(t, seeds)
		fits = append(fits, f)
		checkSigma(t, fmt.Sprintf("n = %v", n), f.cal.Sigma, sigmas[i])
		want = append(want, sigmas[i]*sigmas[i]*NoiseGain(eta, steps))
		halt += haltBound(f.cal, n, steps, seeds)
		if f.halted > 0 {
			t.Errorf("n = %v: %d runs halted, though the union bound on halting is %.2g", n, f.halted, halt)
		}
	}
	t.Logf("halting probability ≤ %.2g", halt)
	if halt > 1e-7 {
		t.Fatalf("halting bound %.2g spoils the stated false-failure probability", halt)
	}
	checkSlope(t, "n", ns, fits, want, 2, seeds, x, -1, 0.025)
}

// The privacy term against m, at Theorem 4.1's τ = G·ln(ndm·e^ε·T/δ)/√m:
// the only way m enters ORME's noise. τ's logarithm and σ's two bend the
// slope by ≈ 0.043 at δ = 10⁻¹²: allowed 0.045. False-failure probability
// as above. τ and σ worked out in mpmath as above: τ = ln(ndm·e^ε·T/δ)/√m,
// σ at δ′ = δ/(2Tmnd).
func TestDPSGDPrivacyTermSlopeInM(t *testing.T) {
	if testing.Short() {
		t.Skip("Monte Carlo over 3 × 2,000 runs")
	}
	const seeds, steps, eta, x, n = 2000, 10, 0.5, 16.5, 192
	ms := []float64{4, 16, 64}
	taus := []float64{22.635271561315106, 11.664209370937525, 6.0053914806087491}
	sigmas := []float64{5.9319600414545313, 3.1511887952169204, 1.6709964637771304}
	var fits []rateFit
	var want []float64
	var halt float64
	for i, m := range ms {
		tau := Theorem41(8, 1e-12, 1, 200, n, int(m), 2, steps).Tau
		checkSigma(t, fmt.Sprintf("τ at m = %v", m), tau, taus[i])
		r := rateRun{
			data: func(uint64) (*dataset.Dataset, error) { return agreeingUsers(n, int(m)), nil },
			params: DPSGDParams{Eps: 8, Delta: 1e-12, Loss: loss.Squared{Mu: 1}, Radius: 100, Theta0: []float64{0, 0},
				Steps: steps, Eta: eta, Tau: tau, Mode: privacy.Paper},
			target: []float64{0, 0},
		}
		f := r.measure(t, seeds)
		fits = append(fits, f)
		checkSigma(t, fmt.Sprintf("m = %v", m), f.cal.Sigma, sigmas[i])
		want = append(want, sigmas[i]*sigmas[i]*NoiseGain(eta, steps))
		halt += haltBound(f.cal, n, steps, seeds)
		if f.halted > 0 {
			t.Errorf("m = %v: %d runs halted", m, f.halted)
		}
	}
	if halt > 1e-7 {
		t.Fatalf("halting bound %.2g spoils the stated false-failure probability", halt)
	}
	checkSlope(t, "m", ms, fits, want, 2, seeds, x, -0.5, 0.045)
}

// The statistical term: non-private mode, i.i.d. N(μ, I) items, θ₀ = μ.
// Every user is kept (τ = 10⁶) and the gate always passes, so θ̂ − μ =
// c_T·(x̄ − μ) with c_T = 1 − (1 − (1−η)^T)/(ηT) exactly: per coordinate
// c_T²/(nm), slope −1/2 in n and in m. False-failure probability: 12
// bands at e^{−16.5}: < 10⁻⁶.
func TestDPSGDStatisticalTermSlopes(t *testing.T) {
	if testing.Short() {
		t.Skip("Monte Carlo over 6 × 600 runs")
	}
	const seeds, steps, eta, x = 600, 10, 0.5, 16.5
	centre := []float64{0.4, -0.2}
	cT := ItemGain(eta, steps)
	point := func(n, m int) (rateFit, float64) {
		r := rateRun{
			data: func(seed uint64) (*dataset.Dataset, error) {
				return dataset.Generate(dataset.Spec{Kind: dataset.Gaussian, N: n, M: m, D: 2, Center: centre}, rng.New(seed))
			},
			params: DPSGDParams{Eps: 1, Delta: 1e-5, Loss: loss.Squared{Mu: 1}, Radius: 10, Theta0: centre,
				Steps: steps, Eta: eta, Tau: 1e6, Mode: privacy.NonPrivate},
			target: centre,
		}
		return r.measure(t, seeds), cT * cT / float64(n*m)
	}
	grids := []struct {
		name string
		xs   []float64
		at   func(v float64) (rateFit, float64)
	}{
		{"n (m = 4)", []float64{16, 64, 256}, func(v float64) (rateFit, float64) { return point(int(v), 4) }},
		{"m (n = 32)", []float64{2, 8, 32}, func(v float64) (rateFit, float64) { return point(32, int(v)) }},
	}
	for _, g := range grids {
		var fits []rateFit
		var want []float64
		for _, v := range g.xs {
			f, w := g.at(v)
			fits, want = append(fits, f), append(want, w)
		}
		checkSlope(t, g.name, g.xs, fits, want, 2, seeds, x, -0.5, 1e-9)
	}
}
