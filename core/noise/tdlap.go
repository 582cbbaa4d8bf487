package noise

import (
	"math"
	"math/rand/v2"

	"github.com/uldplab/uldp/core/format"
)

// MaxKappa caps κ so the 2κ+1 sampling table stays small (1.6 MB). κ grows
// like ln(1/δ)/ε; hitting the cap means ε or δ is far smaller than any lesson
// or real run needs.
const MaxKappa = 100_000

// TDLap is the shifted truncated discrete Laplace distribution TDLap(ε, δ) of
// Ghazi et al. (2023, Def. 3.4): support {0, 1, …, 2κ}, pmf(x) ∝ exp(−ε|x−κ|),
// with κ = 1 + ⌈ln(1/δ)/ε⌉. It is symmetric about κ, adjacent pmf values are
// within a factor e^{±ε}, and each end carries at most δ·e^{−ε} — the three
// facts DelOutputPert's privacy proof uses.
//
// Construct it with NewTDLap (κ from ε and δ) or NewTDLapKappa (κ chosen by
// hand, for toy runs whose guarantee must then be recomputed).
type TDLap struct {
	eps   float64
	kappa int
	z     float64
	// cut[k] = round(CDF(k)·2⁵³); X = min{k : u < cut[k]} for a 53-bit
	// uniform u, so Pr[X = k] = (cut[k] − cut[k−1])·2⁻⁵³ exactly.
	cut []uint64
	// guide[g] is the smallest k with cut[k] > g·2⁵³/len(guide): a draw
	// starts its search there and scans at most a few cells (Chen's
	// cutpoint method), so Rand is O(1) for any κ and returns exactly the
	// inverse-CDF value.
	guide      []int32
	guideShift uint
	// Src is the generator Rand draws from.
	Src rand.Source
}

// TDLapKappa returns κ(ε, δ) = 1 + ⌈ln(1/δ)/ε⌉, or an error naming the bad
// parameter.
func TDLapKappa(eps, delta float64) (int, error) {
	if err := checkEps(eps); err != nil {
		return 0, err
	}
	if !(delta > 0 && delta < 1) {
		return 0, format.Errorf("delta = %v: TDLap needs 0 < δ < 1", delta)
	}
	k := 1 + math.Ceil(-math.Log(delta)/eps)
	if k > MaxKappa {
		return 0, format.Errorf("κ = 1 + ⌈ln(1/δ)/ε⌉ = %.4g exceeds the cap %d at ε = %v, δ = %v: increase ε or δ", k, MaxKappa, eps, delta)
	}
	return int(k), nil
}

// NewTDLap returns TDLap(ε, δ) drawing from src.
func NewTDLap(eps, delta float64, src rand.Source) (*TDLap, error) {
	k, err := TDLapKappa(eps, delta)
	if err != nil {
		return nil, err
	}
	return NewTDLapKappa(eps, k, src)
}

// NewTDLapKappa returns the TDLap shape with decay ε and a hand-chosen κ ≥ 1.
// The δ it certifies is then only TailDelta(), not whatever δ was intended.
func NewTDLapKappa(eps float64, kappa int, src rand.Source) (*TDLap, error) {
	if err := checkEps(eps); err != nil {
		return nil, err
	}
	if kappa < 1 || kappa > MaxKappa {
		return nil, format.Errorf("kappa = %d: choose 1 ≤ κ ≤ %d", kappa, MaxKappa)
	}
	t := &TDLap{eps: eps, kappa: kappa, Src: src}
	// Z = 1 + 2e^{−ε}(1 − e^{−εκ})/(1 − e^{−ε}); Expm1 keeps it exact for small ε.
	t.z = 1 + 2*math.Exp(-eps)*math.Expm1(-eps*float64(kappa))/math.Expm1(-eps)
	t.cut = make([]uint64, 2*kappa+1)
	for x := range t.cut {
		t.cut[x] = uint64(math.Round(t.CDF(x) * 0x1p53))
	}
	t.cut[2*kappa] = 1 << 53
	bits := uint(1)
	for 1<<bits < len(t.cut) {
		bits++
	}
	t.guide = make([]int32, 1<<bits)
	t.guideShift = 53 - bits
	k := 0
	for g := range t.guide {
		for t.cut[k] <= uint64(g)<<t.guideShift {
			k++
		}
		t.guide[g] = int32(k)
	}
	return t, nil
}

func checkEps(eps float64) error {
	if !(eps > 0) || math.IsInf(eps, 1) {
		return format.Errorf("eps = %v: ε must be a finite number > 0", eps)
	}
	return nil
}

// Eps returns the decay ε.
func (t *TDLap) Eps() float64 { return t.eps }

// Kappa returns the shift κ; the support is {0, …, 2κ}.
func (t *TDLap) Kappa() int { return t.kappa }

// Normaliser returns Z = Σ_x exp(−ε|x−κ|).
func (t *TDLap) Normaliser() float64 { return t.z }

// PMF returns Pr[X = x] (0 outside the support).
func (t *TDLap) PMF(x int) float64 {
	if x < 0 || x > 2*t.kappa {
		return 0
	}
	d := x - t.kappa
	if d < 0 {
		d = -d
	}
	return math.Exp(-t.eps*float64(d)) / t.z
}

// CDF returns Pr[X ≤ x], from the closed-form geometric sums (no running
// total, so no accumulated rounding), mirrored so CDF(2κ) = 1 exactly.
func (t *TDLap) CDF(x int) float64 {
	switch {
	case x < 0:
		return 0
	case x >= 2*t.kappa:
		return 1
	case x >= t.kappa:
		return 1 - t.lowerCDF(2*t.kappa-x-1)
	}
	return t.lowerCDF(x)
}

// lowerCDF is Σ_{j=0}^{x} e^{−ε(κ−j)}/Z for 0 ≤ x < κ.
func (t *TDLap) lowerCDF(x int) float64 {
	return math.Exp(-t.eps*float64(t.kappa-x)) * math.Expm1(-t.eps*float64(x+1)) / math.Expm1(-t.eps) / t.z
}

// Mean returns κ (the distribution is symmetric about κ).
func (t *TDLap) Mean() float64 { return float64(t.kappa) }

// Variance returns Σ (x−κ)² pmf(x).
func (t *TDLap) Variance() float64 {
	var v float64
	for j := t.kappa; j >= 1; j-- { // small terms first
		v += float64(j) * float64(j) * math.Exp(-t.eps*float64(j))
	}
	return 2 * v / t.z
}

// TailDelta returns pmf(0) = pmf(2κ), the mass at each end. For κ = κ(ε, δ)
// it is at most δ·e^{−ε}.
func (t *TDLap) TailDelta() float64 { return t.PMF(0) }

// Rand draws one value by inverse CDF over the 2κ+1 weights: one 64-bit
// draw u, then the smallest k with u < cut[k], found from the guide table.
func (t *TDLap) Rand() int {
	return t.inverse(mustSrc(t.Src).Uint64() >> 11)
}

// inverse returns the smallest k with u < cut[k], for a 53-bit u.
func (t *TDLap) inverse(u uint64) int {
	k := int(t.guide[u>>t.guideShift])
	for u >= t.cut[k] {
		k++
	}
	return k
}
