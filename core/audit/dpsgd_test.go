package audit

import (
	"context"
	"math"
	"math/bits"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/internal/gof"
	"github.com/uldplab/uldp/core/loss"
	"github.com/uldplab/uldp/core/optim"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
)

// usersAt gives each user two items, 0.05 either side of its value, so the
// runs average items rather than read them.
func usersAt(vals []float64) *dataset.Dataset {
	d := &dataset.Dataset{Dim: 1, Users: make([]dataset.User, len(vals))}
	for i, v := range vals {
		d.Users[i] = dataset.User{ID: strconv.Itoa(i + 1), Points: []float64{v - 0.05, v + 0.05}}
	}
	return d
}

// rampCloud is 40 users whose gate passes each query only sometimes
// (score 32.6 against 4n/5 = 32) and two of whom sit on the keep ramp
// (24 neighbours within 2τ, between n/2 and 2n/3); two far users are
// dropped for sure.
func rampCloud() []float64 {
	v := append(crowd(22, 0), crowd(14, 0.9)...)
	return append(v, -1.5, -1.5, 5, 5)
}

// Without noise and without ramp users a run is deterministic: the sampler
// must then give the real run's answer.
func TestSampleDPSGDIsTheRunWithoutNoise(t *testing.T) {
	data := usersAt(append(crowd(30, 0.2), crowd(5, 3)...))
	p := optim.DPSGDParams{Eps: 1, Delta: 1e-6, Loss: loss.Squared{Mu: 2}, Radius: 1, Theta0: []float64{-0.8},
		Steps: 6, Eta: 0.3, Tau: 0.5, Mode: privacy.NonPrivate}
	real, _, err := optim.DPSGD(context.Background(), p, data, rng.New(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := SampleDPSGD(p, data, "")
	if err != nil {
		t.Fatal(err)
	}
	got, err := runs.Sample(rng.New(2))
	if err != nil || got == nil || !(math.Abs(got[0]-real.Theta[0]) <= 1e-12) {
		t.Fatalf("sampler %v (%v), run %v", got, err, real.Theta)
	}
	// The far users are dropped by the ramp, so keeping everyone moves θ.
	runs, _ = SampleDPSGD(p, data, ORMEKeepAll)
	if all, _ := runs.Sample(rng.New(2)); math.Abs(all[0]-real.Theta[0]) < 0.05 {
		t.Errorf("keep-all gives %v, the real run %v: the far users should pull it", all, real.Theta)
	}
}

// The sampler draws from the real run's law: both halt with the gate's
// exact probability, and their answers agree in distribution (two-sample
// Kolmogorov distance within two DKW bands). The test can fail: the
// sampler of the keep-all variant is far outside the bands. False-failure
// probability ≤ 3·10⁻⁶ (Hoeffding twice at 10⁻⁶, DKW twice at 5·10⁻⁷).
func TestSampleDPSGDMatchesRuns(t *testing.T) {
	data := usersAt(rampCloud())
	p := optim.DPSGDParams{Eps: 4, Delta: 1e-3, Loss: loss.Squared{Mu: 1}, Radius: 0.3,
		Steps: 3, Eta: 0.5, Tau: 1, Mode: privacy.Paper}
	me := p.ORME(40, 2, 1)
	cal, err := me.Calibrate(40)
	if err != nil {
		t.Fatal(err)
	}
	halt := haltProbability(me, cal, "", 32.6)
	if halt < 0.2 || halt > 0.8 {
		t.Fatalf("Pr[halt] = %v: the test needs both halts and answers", halt)
	}
	const runs = 10_000
	var realOut []float64
	realHalts := 0
	for i := range runs {
		res, _, err := optim.DPSGD(context.Background(), p, data, rng.New(uint64(1000+i)), nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Halted > 0 {
			realHalts++
			continue
		}
		realOut = append(realOut, res.Theta[0])
	}
	sample := func(mutant string) ([]float64, int) {
		sampled, err := SampleDPSGD(p, data, mutant)
		if err != nil {
			t.Fatal(err)
		}
		if !(math.Abs(sampled.Halt-halt) <= 1e-12) && mutant == "" {
			t.Fatalf("Halt = %v, the gate's law %v", sampled.Halt, halt)
		}
		var out []float64
		halts := 0
		st := rng.New(7)
		for range runs {
			o, err := sampled.Sample(st)
			switch {
			case err != nil:
				t.Fatal(err)
			case o == nil:
				halts++
			default:
				out = append(out, o[0])
			}
		}
		return out, halts
	}
	smpOut, smpHalts := sample("")
	tol := gof.Hoeffding(runs, 1, 1e-6)
	for name, h := range map[string]int{"real runs": realHalts, "sampler": smpHalts} {
		if f := float64(h) / runs; !(math.Abs(f-halt) <= tol) {
			t.Errorf("%s halt %.4f of the time, the gate's law says %.4f (± %.4f)", name, f, halt, tol)
		}
	}
	band := dkwBand(len(realOut), 5e-7) + dkwBand(len(smpOut), 5e-7)
	if ks := kolmogorov(realOut, smpOut); ks > band {
		t.Errorf("answers differ: Kolmogorov distance %.4f > %.4f", ks, band)
	}
	allOut, _ := sample(ORMEKeepAll)
	if ks := kolmogorov(realOut, allOut); ks < 1.5*band {
		t.Errorf("keep-all's answers are only %.4f from the real ones (band %.4f): the comparison has no power", ks, band)
	}
}

// dkwBand is the DKW half-width for n samples at false-failure alpha.
func dkwBand(n int, alpha float64) float64 {
	return math.Sqrt(math.Log(2/alpha) / (2 * float64(n)))
}

// kolmogorov is sup |F_a − F_b| over the two empirical distributions.
func kolmogorov(a, b []float64) float64 {
	a, b = slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b))
	var i, j int
	var worst float64
	for i < len(a) && j < len(b) {
		x := math.Min(a[i], b[j])
		for i < len(a) && a[i] == x {
			i++
		}
		for j < len(b) && b[j] == x {
			j++
		}
		worst = math.Max(worst, math.Abs(float64(i)/float64(len(a))-float64(j)/float64(len(b))))
	}
	return worst
}

// dpsgdLab is the audit lab's DP-SGD: sound ORME inside, 8 steps among
// 600 users, whose proof needs n > 502.
var dpsgdLab = optim.DPSGDParams{Eps: 8, Delta: 0.1, Loss: loss.Squared{Mu: 1}, Radius: 50,
	Steps: 8, Eta: 0.5, Tau: 1, Mode: privacy.Sound}

// Sound DP-SGD keeps its promise on the lab's pairs; keep-all and no-gate
// are caught by sampling whole runs. α = 10⁻³ per audit.
func TestDPSGDAudit(t *testing.T) {
	far := crowd(600, 0)
	farB := slices.Clone(far)
	farB[599] = 1e4
	two := append(crowd(300, 0), crowd(300, 100)...)
	twoB := slices.Clone(two)
	twoB[0] = 100
	auditPairs(t, []labPair{{"far-user", far, farB, ORMEKeepAll}, {"two-crowds", two, twoB, ORMENoGate}},
		func(vals []float64, mutant string) (Sampler, privacy.Guarantee, error) {
			r, err := SampleDPSGD(dpsgdLab, oneD(vals...), mutant)
			return r.Sample, r.Guarantee, err
		})
}

// labPair is a neighbouring pair of the audit lab's, with the variant it
// catches.
type labPair struct {
	name    string
	a, b    []float64
	catches string
}

// auditPairs audits each pair by sampling, with the real mechanism and
// with the variant it catches: the real one passes, the variant is
// caught, and the real one's promise is certified. sample prepares a
// side's runs. α = 10⁻³ per audit.
func auditPairs(t *testing.T, pairs []labPair, sample func(vals []float64, mutant string) (Sampler, privacy.Guarantee, error)) {
	t.Helper()
	for _, pr := range pairs {
		for _, mutant := range []string{"", pr.catches} {
			sa, g, err := sample(pr.a, mutant)
			if err != nil {
				t.Fatal(err)
			}
			sb, _, err := sample(pr.b, mutant)
			if err != nil {
				t.Fatal(err)
			}
			if !g.Certified() {
				t.Fatalf("the lab's settings are outside the proof: %+v", g)
			}
			r, err := MonteCarlo(context.Background(), sa, sb, g, MCConfig{Runs: 100_000, Alpha: 1e-3, Seed: 1}, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s, variant %q: ε ≥ %.3g (%s, worst %s)", pr.name, mutant, r.EpsLower, r.Verdict, r.Worst.Name)
			want := "pass"
			if mutant != "" {
				want = "violation"
			}
			if r.Verdict != want {
				t.Errorf("%s, variant %q: %s (ε ≥ %.3g), want %s", pr.name, mutant, r.Verdict, r.EpsLower, want)
			}
		}
	}
}

// A DP-SGD run shows only whether its gate failed, never when: with the
// squared loss the scores repeat, and over every pair of neighbouring
// scores the one binary outcome loses at most Δ_s/b₁ = 2 (the threshold
// noise's share) — for the real gate and for the half-score-noise variant
// alike. Whole-run audits cannot see that variant at ε = 8; the gate's own
// audit (ORMEGatePair on flipping scores) does.
func TestDPSGDHidesHalfScoreNoise(t *testing.T) {
	const n = 600
	me := dpsgdLab.ORME(n, 1, 1)
	cal, err := me.Calibrate(n)
	if err != nil {
		t.Fatal(err)
	}
	sens := 2 * float64(n-1) / n
	bound := sens / cal.ThresholdScale
	for _, mutant := range []string{"", ORMEHalfScoreNoise} {
		var worst float64
		for s := cal.Gate.Threshold - 30; s <= cal.Gate.Threshold+30; s += 0.25 {
			a, b := haltProbability(me, cal, mutant, s), haltProbability(me, cal, mutant, s+sens)
			// Probabilities below 10⁻⁸ are left out: the law is accurate
			// to about 10⁻¹², so their ratios are noise.
			if a > 1e-8 && b > 1e-8 {
				worst = math.Max(worst, math.Abs(math.Log(a/b)))
			}
			if a < 1-1e-8 && b < 1-1e-8 {
				worst = math.Max(worst, math.Abs(math.Log((1-a)/(1-b))))
			}
		}
		t.Logf("variant %q: the halting outcome loses at most %.4f (bound Δ_s/b₁ = %.4f)", mutant, worst, bound)
		if worst > bound*(1+1e-6) || worst < bound*0.99 {
			t.Errorf("variant %q: worst loss %v, want Δ_s/b₁ = %v (reached deep in the tail)", mutant, worst, bound)
		}
	}
}

func TestSampleDPSGDRefuses(t *testing.T) {
	data := usersAt(crowd(10, 0))
	for _, c := range []struct {
		name   string
		edit   func(*optim.DPSGDParams)
		mutant string
	}{
		{"distance loss", func(p *optim.DPSGDParams) { p.Loss = loss.Distance{} }, ""},
		{"smoothing", func(p *optim.DPSGDParams) { p.Smoothing = 0.1 }, ""},
		{"no steps", func(p *optim.DPSGDParams) { p.Steps = 0 }, ""},
		{"unknown variant", func(p *optim.DPSGDParams) {}, "no-noise"},
	} {
		p := dpsgdLab
		c.edit(&p)
		if _, err := SampleDPSGD(p, data, c.mutant); err == nil {
			t.Errorf("%s: accepted", c.name)
		} else {
			t.Logf("%s: %v", c.name, err)
		}
	}
}

// Jumping by geometric gaps keeps each user independently with
// probability q: the kept subsets of 6 users follow q^|S|(1 − q)^{6−|S|}
// (χ² over all 64 subsets), and 301 users at q = 1/100 give a
// Binomial(301, 1/100) count. False-failure probability ≤ 2·10⁻⁶.
func TestCoinGroupKeepsIndependently(t *testing.T) {
	subsets := func(q float64, users, runs int) map[uint64]int {
		g := coinGroup{logMiss: math.Log1p(-q), users: make([]int, users)}
		r := rng.New(11).Get(rng.Keep)
		seen := map[uint64]int{}
		for range runs {
			var mask uint64
			count := 0
			for j := g.next(r, -1); j < users; j = g.next(r, j) {
				if users <= 64 {
					mask |= 1 << j
				}
				count++
			}
			if users > 64 {
				mask = uint64(count)
			}
			seen[mask]++
		}
		return seen
	}
	const q = 0.3
	seen := subsets(q, 6, 100_000)
	counts, probs := make([]int, 64), make([]float64, 64)
	for mask := range uint64(64) {
		k := float64(bits.OnesCount64(mask))
		counts[mask], probs[mask] = seen[mask], math.Pow(q, k)*math.Pow(1-q, 6-k)
	}
	if err := gof.ChiSquare(counts, probs, 1e-6); err != nil {
		t.Errorf("6 users at q = %v: %v", q, err)
	}
	seen = subsets(0.01, 301, 100_000)
	counts, probs = make([]int, 302), make([]float64, 302)
	for k := range 302 {
		counts[k] = seen[uint64(k)]
		lg, _ := math.Lgamma(302)
		a, _ := math.Lgamma(float64(k + 1))
		b, _ := math.Lgamma(float64(302 - k))
		probs[k] = math.Exp(lg - a - b + float64(k)*math.Log(0.01) + float64(301-k)*math.Log1p(-0.01))
	}
	if err := gof.ChiSquare(counts, probs, 1e-6); err != nil {
		t.Errorf("301 users at q = 0.01: %v", err)
	}
}

// scCloud is 80 users of the localisation's test: a crowd over [0, 0.9]
// and every twentieth user at 100, far beyond 2τ, which ORME drops; each
// phase's group holds at least one. Its phases halt with probabilities
// 0.78, 0.47 and 0.20 at ε = 4.
func scCloud() *dataset.Dataset {
	vals := make([]float64, 80)
	for i := range vals {
		vals[i] = 0.45 * float64(i%3)
		if i%20 == 7 {
			vals[i] = 100
		}
	}
	return usersAt(vals)
}

// The localisation's sampler draws from the real run's law: each phase of
// the real run halts with the probability the sampler computes exactly,
// runs whose every phase halted come out as often, and the answers agree
// in distribution; both promise the same. The comparison has power: the
// keep-all variant's answers are far outside the bands. False-failure
// probability ≤ 6·10⁻⁶ (Hoeffding five times at 10⁻⁶, DKW twice at
// 5·10⁻⁷).
func TestSampleDPSGDSCMatchesRuns(t *testing.T) {
	data := scCloud()
	p := optim.DPSGDSCParams{Eps: 4, Delta: 1e-3, Mu: 1, Radius: 1, RX: 1, Steps: 3, Mode: privacy.Paper, Unsmoothed: true}
	runs, err := SampleDPSGDSC(p, data, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(runs.Halts) != 3 || !(runs.Halts[0] > 0.7 && runs.Halts[2] > 0.1 && runs.Halts[2] < 0.3) {
		t.Fatalf("Pr[phase halts] = %v: the test needs phases that halt and phases that run", runs.Halts)
	}
	const n = 10_000
	halts := make([]int, 3)
	var realOut []float64
	realAll := 0
	for i := range n {
		res, _, err := optim.DPSGDSC(context.Background(), p, data, rng.New(uint64(1000+i)), nil)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 && !reflect.DeepEqual(res.Guarantee, runs.Guarantee) {
			t.Errorf("the sampler promises %+v, the run %+v", runs.Guarantee, res.Guarantee)
		}
		all := true
		for j, ph := range res.Phases {
			if ph.Halted > 0 {
				halts[j]++
			} else {
				all = false
			}
		}
		if all {
			realAll++
			continue
		}
		realOut = append(realOut, res.Theta[0])
	}
	tol := gof.Hoeffding(n, 1, 1e-6)
	for j, h := range halts {
		if f := float64(h) / n; !(math.Abs(f-runs.Halts[j]) <= tol) {
			t.Errorf("phase %d halts %.4f of the time, the exact law says %.4f (± %.4f)", j+1, f, runs.Halts[j], tol)
		}
	}
	sample := func(r DPSGDSCRuns) ([]float64, int) {
		var out []float64
		all := 0
		st := rng.New(7)
		for range n {
			o, err := r.Sample(st)
			switch {
			case err != nil:
				t.Fatal(err)
			case o == nil:
				all++
			default:
				out = append(out, o[0])
			}
		}
		return out, all
	}
	smpOut, smpAll := sample(runs)
	want := runs.Halts[0] * runs.Halts[1] * runs.Halts[2]
	for name, h := range map[string]int{"real runs": realAll, "sampler": smpAll} {
		if f := float64(h) / n; !(math.Abs(f-want) <= tol) {
			t.Errorf("%s halt in every phase %.4f of the time, the law says %.4f (± %.4f)", name, f, want, tol)
		}
	}
	band := dkwBand(len(realOut), 5e-7) + dkwBand(len(smpOut), 5e-7)
	if ks := kolmogorov(realOut, smpOut); ks > band {
		t.Errorf("answers differ: Kolmogorov distance %.4f > %.4f", ks, band)
	}
	all, err := SampleDPSGDSC(p, data, ORMEKeepAll)
	if err != nil {
		t.Fatal(err)
	}
	if allOut, _ := sample(all); kolmogorov(realOut, allOut) < 1.5*band {
		t.Errorf("keep-all's answers are only %.4f from the real ones (band %.4f): the comparison has no power", kolmogorov(realOut, allOut), band)
	}
}

func TestSampleDPSGDSCRefuses(t *testing.T) {
	p := optim.DPSGDSCParams{Eps: 4, Delta: 1e-3, Mu: 1, Radius: 1, RX: 1, Steps: 3, Mode: privacy.Paper, Unsmoothed: true}
	for name, c := range map[string]struct {
		p      optim.DPSGDSCParams
		data   *dataset.Dataset
		mutant string
		want   string
	}{
		"smoothed":            {func() optim.DPSGDSCParams { q := p; q.Unsmoothed = false; return q }(), scCloud(), "", "unsmoothed"},
		"too few users":       {p, usersAt(crowd(9, 0)), "", "bring"},
		"no data":             {p, nil, "", "no data"},
		"θ₀ of 2 coordinates": {func() optim.DPSGDSCParams { q := p; q.Theta0 = []float64{0, 0}; return q }(), scCloud(), "", "theta0 has 2"},
		"C = 1.5":             {func() optim.DPSGDSCParams { q := p; q.C = 1.5; return q }(), scCloud(), "", "must exceed 2"},
		"unknown variant":     {p, scCloud(), "no-noise", "variant"},
	} {
		_, err := SampleDPSGDSC(c.p, c.data, c.mutant)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", name, err, c.want)
		}
	}
}

// scLab is the audit lab's localisation: sound ORME at (8, 0.1) in every
// phase, T_i capped at 8, on 8,192 users of one item: 4 phases, whose
// first group of 512 is past the 502 users the proof needs.
var scLab = optim.DPSGDSCParams{Eps: 8, Delta: 0.1, Mu: 1, Radius: 50, RX: 1, Steps: 8, Mode: privacy.Sound, Unsmoothed: true}

// scLabUsers is how many users scLab's pairs hold; scLastGroup is the
// first user of its last phase's group, whom the pairs change: the
// phases after a change would pull the answer back.
const scLabUsers, scLastGroup = 8192, 512 + 1024 + 2048

// The sound localisation keeps its promise on the lab's pairs; keep-all
// and no-gate are caught by sampling whole runs. α = 10⁻³ per audit.
func TestDPSGDSCAudit(t *testing.T) {
	far := crowd(scLabUsers, 0)
	farB := slices.Clone(far)
	// The phases' σ run from 6,600 down to 1,000 (τ follows G = μ(R + R_X)
	// = 51): the kept far user moves the last phase's mean by 10⁸/4096 ≫ σ.
	farB[scLastGroup] = 1e8
	two := make([]float64, scLabUsers)
	for i := range two {
		two[i] = float64(i%2) * 1e4 // half of every group in each crowd
	}
	twoB := slices.Clone(two)
	twoB[scLastGroup] = 1e4
	auditPairs(t, []labPair{{"far-user", far, farB, ORMEKeepAll}, {"two-crowds", two, twoB, ORMENoGate}},
		func(vals []float64, mutant string) (Sampler, privacy.Guarantee, error) {
			r, err := SampleDPSGDSC(scLab, oneD(vals...), mutant)
			if err == nil && len(r.Halts) != 4 {
				t.Fatalf("%d phases, want 4", len(r.Halts))
			}
			return r.Sample, r.Guarantee, err
		})
}

// Without noise and without ramp users a localisation is deterministic:
// the sampler must give the real run's answer, from a start outside Θ
// projected as the run projects it.
func TestSampleDPSGDSCIsTheRunWithoutNoise(t *testing.T) {
	data := usersAt(crowd(40, 0.3))
	p := optim.DPSGDSCParams{Eps: 4, Delta: 1e-3, Mu: 1, Radius: 1, RX: 1, Steps: 3, Mode: privacy.NonPrivate, Unsmoothed: true, Theta0: []float64{-3}}
	real, _, err := optim.DPSGDSC(context.Background(), p, data, rng.New(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := SampleDPSGDSC(p, data, "")
	if err != nil {
		t.Fatal(err)
	}
	got, err := runs.Sample(rng.New(2))
	if err != nil || got == nil || !(math.Abs(got[0]-real.Theta[0]) <= 1e-12) || real.Phases[0].Start[0] != -3 {
		t.Fatalf("sampler %v (%v), run %v from %v", got, err, real.Theta, real.Phases[0].Start)
	}
}
