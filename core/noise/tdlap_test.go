package noise

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/uldplab/uldp/core/internal/gof"
	"github.com/uldplab/uldp/core/rng"
)

// printedClose reports whether got rounds to the decimal literal printed, i.e.
// lies within half a unit of its last printed digit. The spec's tables carry
// 6–7 significant digits, so this is as tight as they allow; the 1e-9 checks
// below compare against an independent direct summation instead.
func printedClose(t *testing.T, what string, got float64, printed string) {
	t.Helper()
	want, err := strconv.ParseFloat(printed, 64)
	if err != nil {
		t.Fatalf("%s: bad literal %q", what, printed)
	}
	mant, exp := printed, 0
	if i := strings.IndexAny(printed, "eE"); i >= 0 {
		mant = printed[:i]
		exp, _ = strconv.Atoi(printed[i+1:])
	}
	decimals := 0
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		decimals = len(mant) - i - 1
	}
	tol := 0.5*math.Pow(10, float64(exp-decimals)) + 1e-15*math.Abs(want)
	if !(math.Abs(got-want) <= tol) {
		t.Errorf("%s = %.10g, spec prints %s (tolerance %.2g)", what, got, printed, tol)
	}
}

func relClose(t *testing.T, what string, got, want, rel float64) {
	t.Helper()
	if !(math.Abs(got-want) <= rel*math.Abs(want)) {
		t.Errorf("%s = %.17g, want %.17g (relative tolerance %g)", what, got, want, rel)
	}
}

// Spec 000-002 §9.1: TDLap(ε̄, δ̄) rows with ε̄ = ε/2 and δ̄ = δ/(e^{ε̄}+2).
var calibrationTable = []struct {
	eps, delta float64
	kappa      int
	z, pmf0    string
	pmfKappa   string
}{
	{1, 1e-5, 27, "4.082984", "3.3577e-7", "0.244919"},
	{1, 1e-3, 18, "4.082608", "3.0228e-5", "0.244941"},
	{1, 0.5, 5, "3.829921", "2.1433e-2", "0.261102"},
	{0.5, 1e-5, 52, "8.041607", "2.8108e-7", "0.124353"},
	{4, 0.2, 3, "1.312259", "1.8889e-3", "0.762044"},
	{8, 0.1, 3, "1.037314", "5.9232e-6", "0.964028"},
}

func TestTDLapGoldenTable(t *testing.T) {
	for _, row := range calibrationTable {
		epsBar := row.eps / 2
		deltaBar := row.delta / (math.Exp(epsBar) + 2)
		d, err := NewTDLap(epsBar, deltaBar, rng.New(1).Source(rng.TDLap))
		if err != nil {
			t.Fatal(err)
		}
		if d.Kappa() != row.kappa {
			t.Errorf("ε=%v δ=%v: κ = %d, spec %d", row.eps, row.delta, d.Kappa(), row.kappa)
			continue
		}
		printedClose(t, "Z", d.Normaliser(), row.z)
		printedClose(t, "pmf(0)", d.PMF(0), row.pmf0)
		printedClose(t, "pmf(κ)", d.PMF(d.Kappa()), row.pmfKappa)

		// 1e-9 (here 1e-12) against a direct summation, smallest terms first.
		var z float64
		for x := 0; x <= 2*d.Kappa(); x++ {
			z += math.Exp(-epsBar * math.Abs(float64(x-d.Kappa())))
		}
		relClose(t, "Z vs direct sum", d.Normaliser(), z, 1e-12)
	}
}

func TestTDLapGoldenPMFAndCDF(t *testing.T) {
	// ε = 1, δ = 0.5 ⇒ ε̄ = 0.5, κ = 5.
	d, err := NewTDLapKappa(0.5, 5, nil)
	if err != nil {
		t.Fatal(err)
	}
	pmf := strings.Fields("0.021433 0.035336 0.058260 0.096054 0.158366 0.261102 0.158366 0.096054 0.058260 0.035336 0.021433")
	cdf := strings.Fields("0.021433 0.056769 0.115029 0.211083 0.369449 0.630551 0.788917 0.884971 0.943231 0.978567 1")
	for x := range pmf {
		printedClose(t, "pmf("+strconv.Itoa(x)+")", d.PMF(x), pmf[x])
		printedClose(t, "cdf("+strconv.Itoa(x)+")", d.CDF(x), cdf[x])
	}
	// ε = 8, δ = 0.1 ⇒ ε̄ = 4, κ = 3.
	d, _ = NewTDLapKappa(4, 3, nil)
	for x, s := range strings.Fields("5.923191e-6 3.233953e-4 1.765678e-2 9.640278e-1") {
		printedClose(t, "pmf", d.PMF(x), s)
		printedClose(t, "pmf mirrored", d.PMF(6-x), s)
	}
	for x, s := range strings.Fields("5.923191e-6 3.293185e-4 1.798610e-2 9.820139e-1") {
		printedClose(t, "cdf", d.CDF(x), s)
	}
}

func TestTDLapIdentities(t *testing.T) {
	for _, p := range []struct{ eps, delta float64 }{
		{0.5, 2.740686e-6}, {2, 0.0213}, {4, 1.766842e-3}, {0.01, 1e-6}, {0.3, 0.9}, {50, 1e-9},
	} {
		d, err := NewTDLap(p.eps, p.delta, nil)
		if err != nil {
			t.Fatal(err)
		}
		k := d.Kappa()
		var sum, running float64
		for x := 0; x <= 2*k; x++ {
			pm := d.PMF(x)
			sum += pm
			running += pm
			if !(math.Abs(d.CDF(x)-running) <= 1e-12) {
				t.Fatalf("ε=%v: CDF(%d) = %.15g, running sum %.15g", p.eps, x, d.CDF(x), running)
			}
			if d.PMF(2*k-x) != pm {
				t.Fatalf("ε=%v: pmf(%d) ≠ pmf(%d)", p.eps, x, 2*k-x)
			}
			if x > 0 {
				r := pm / d.PMF(x-1)
				if r > math.Exp(p.eps)*(1+1e-12) || r < math.Exp(-p.eps)*(1-1e-12) {
					t.Fatalf("ε=%v: pmf(%d)/pmf(%d) = %v outside e^{±ε}", p.eps, x, x-1, r)
				}
			}
		}
		relClose(t, "Σ pmf", sum, 1, 1e-12)
		if bound := p.delta * math.Exp(-p.eps); d.PMF(0) > bound {
			t.Errorf("ε=%v δ=%v: pmf(0) = %g > δe^{−ε} = %g", p.eps, p.delta, d.PMF(0), bound)
		}
		if d.CDF(2*k) != 1 || d.CDF(-1) != 0 || d.PMF(-1) != 0 || d.PMF(2*k+1) != 0 {
			t.Errorf("ε=%v: support edges wrong", p.eps)
		}
		var v float64
		for x := 0; x <= 2*k; x++ {
			v += float64((x-k)*(x-k)) * d.PMF(x)
		}
		relClose(t, "variance", d.Variance(), v, 1e-9)
	}
}

func TestTDLapRejectsBadParameters(t *testing.T) {
	for _, p := range []struct{ eps, delta float64 }{
		{0, 0.1}, {-1, 0.1}, {math.NaN(), 0.1}, {math.Inf(1), 0.1},
		{1, 0}, {1, 1}, {1, -0.1}, {1, math.NaN()}, {1e-9, 1e-9},
	} {
		if _, err := NewTDLap(p.eps, p.delta, nil); err == nil {
			t.Errorf("NewTDLap(%v, %v) accepted", p.eps, p.delta)
		} else if err.Error() == "" {
			t.Errorf("empty error message")
		}
	}
	if _, err := NewTDLapKappa(1, 0, nil); err == nil {
		t.Error("κ = 0 accepted")
	}
}

// The cut table realises the pmf to within the 2⁻⁵³ grid of the uniform draw.
func TestTDLapSamplerTableIsExact(t *testing.T) {
	d, _ := NewTDLapKappa(0.5, 27, nil)
	prev := uint64(0)
	for x, c := range d.cut {
		p := float64(c-prev) * 0x1p-53
		if !(math.Abs(p-d.PMF(x)) <= 0x1p-52) {
			t.Fatalf("Pr[X=%d] from table %.17g, pmf %.17g", x, p, d.PMF(x))
		}
		prev = c
	}
}

func TestTDLapSamplerFits(t *testing.T) {
	// False-failure probability 1e-4 per distribution (χ² at alpha = 1e-4; fixed seed).
	for _, p := range []struct {
		eps   float64
		kappa int
	}{{0.5, 5}, {2, 3}, {0.25, 12}} {
		d, _ := NewTDLapKappa(p.eps, p.kappa, rng.New(11).Source(rng.TDLap))
		const n = 200_000
		counts := make([]int, 2*p.kappa+1)
		for range n {
			counts[d.Rand()]++
		}
		probs := make([]float64, len(counts))
		for x := range probs {
			probs[x] = d.PMF(x)
		}
		if err := gof.ChiSquare(counts, probs, 1e-4); err != nil {
			t.Errorf("TDLap(%v, κ=%d): %v", p.eps, p.kappa, err)
		}
	}
}

// The guide table must return exactly the plain inverse CDF (smallest k with
// u < cut[k]) for every u, including the cut points themselves.
func TestTDLapGuideTableIsTheInverseCDF(t *testing.T) {
	for _, k := range []int{1, 3, 27, 5000} {
		d, _ := NewTDLapKappa(0.01, k, nil)
		plain := func(u uint64) int {
			x := 0
			for u >= d.cut[x] {
				x++
			}
			return x
		}
		r := rng.New(uint64(k)).Get(rng.TDLap)
		us := []uint64{0, 1<<53 - 1}
		for _, c := range d.cut[:len(d.cut)-1] {
			us = append(us, c-1, c, c+1)
		}
		for range 100_000 {
			us = append(us, r.Uint64()>>11)
		}
		for _, u := range us {
			if u >= 1<<53 {
				continue
			}
			if got, want := d.inverse(u), plain(u); got != want {
				t.Fatalf("κ=%d u=%d: guide gives %d, inverse CDF %d", k, u, got, want)
			}
		}
	}
}
