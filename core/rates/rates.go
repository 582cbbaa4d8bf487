// Package rates holds the published error bounds of private convex
// optimisation as data: each bound's shape as a function of the problem's
// sizes, with its hidden constants set to 1 and its logarithmic factors
// dropped (unless a bound's text keeps them), for plotting how the bounds
// move with n, m, d, ε and k. Shapes are for comparing slopes and
// crossings, never for reading off an error: the constants are unknown.
package rates

import (
	"math"
	"strings"

	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/internal/gof"
)

// Point is a problem's sizes: n users (or people), m items per user (or,
// for semi-sensitive bounds, m problems solved together), dimension d,
// privacy ε and δ, and the k values the sensitive feature takes
// (semi-sensitive bounds).
type Point struct {
	N, M, D, Eps, Delta, K float64
}

// Kind is what a bound promises.
type Kind string

// The kinds of bound.
const (
	Upper Kind = "upper" // an algorithm achieves it
	Lower Kind = "lower" // no private algorithm beats it (up to constants)
	Tight Kind = "tight" // both, up to logarithms
)

// Family is the privacy model a bound is about.
type Family string

// The families.
const (
	// UserLevel is user-level DP stochastic convex optimisation, excess
	// population risk of an L-Lipschitz loss on a set of diameter R, in
	// units of LR.
	UserLevel Family = "user-level"
	// SemiSensitive is semi-sensitive DP (only each example's sensitive
	// feature, one of k values, is protected), excess empirical
	// risk of a G-Lipschitz convex loss on a ball of radius R, in units
	// of RG.
	SemiSensitive Family = "semi-sensitive"
)

// Families lists the families in display order.
func Families() []Family { return []Family{UserLevel, SemiSensitive} }

// Bound is one published bound.
type Bound struct {
	// ID names the bound in links and readouts ("optimal").
	ID string
	// Label is the legend's text ("optimal (Asi & Liu 2024)").
	Label string
	// Formula is the shape in words, constants dropped.
	Formula string
	Kind    Kind
	Family  Family
	// Note says what the bound assumes or what it is for.
	Note  string
	shape func(p Point) float64
	// holds says why the bound does not apply at p ("" where it does):
	// a lower bound is proved on a hard instance of some dimension and
	// under conditions on ε and δ, and says nothing elsewhere. Nil for a
	// bound that applies at every point.
	holds func(p Point) string
}

// At is the bound's shape at p.
func (b Bound) At(p Point) float64 { return b.shape(p) }

// Holds returns nil where the bound applies at p, else an error saying
// what it needs.
func (b Bound) Holds(p Point) error {
	if b.holds == nil {
		return nil
	}
	if why := b.holds(p); why != "" {
		return format.Errorf("does not apply here: %s", why)
	}
	return nil
}

// Conditional reports whether the bound applies at some points only (see
// Holds).
func (b Bound) Conditional() bool { return b.holds != nil }

// semiLowerHolds is where Theorem 33 of the semi-sensitive paper applies:
// ε ≤ ln k, δ ≤ 0.4ε/k, and a dimension at least its hard instance's,
// which repeats each of n′ = ⌈n/r⌉ examples r = ⌊ln k/ε⌋ times and has
// d = n′k (Theorem 35's instance on n′ examples).
func semiLowerHolds(p Point) string {
	switch r := math.Floor(log(p.K) / p.Eps); {
	case r < 1:
		return format.Sprintf("needs ε ≤ ln k = %.3g", log(p.K))
	case p.Delta > 0.4*p.Eps/p.K:
		return format.Sprintf("needs δ ≤ 0.4ε/k = %.3g", 0.4*p.Eps/p.K)
	default:
		if need := math.Ceil(p.N/r) * p.K; p.D < need {
			return format.Sprintf("needs d ≥ ⌈n/⌊ln k/ε⌋⌉·k = %.4g, its hard instance's dimension", need)
		}
	}
	return ""
}

// semiBaseHolds is where Theorem 35 applies: e^ε/(e^ε + k − 1) + δ < 0.99
// and d ≥ nk, its instance's dimension.
func semiBaseHolds(p Point) string {
	if q := math.Exp(p.Eps)/(math.Exp(p.Eps)+p.K-1) + p.Delta; !(q < 0.99) {
		return format.Sprintf("needs e^ε/(e^ε + k − 1) + δ < 0.99, here %.3g", q)
	}
	if p.D < p.N*p.K {
		return format.Sprintf("needs d ≥ nk = %.4g, its hard instance's dimension", p.N*p.K)
	}
	return ""
}

var (
	sqrt = math.Sqrt
	log  = math.Log
)

// bounds are the families' bounds, transcribed from the papers (logs
// omitted as the papers' comparisons do).
var bounds = []Bound{
	{ID: "lower", Label: "lower bound (Levy et al. 2021)", Formula: "1/√(nm) + √d/(nε√m)", Kind: Lower, Family: UserLevel,
		Note:  "no user-level private algorithm does better, up to constants",
		shape: func(p Point) float64 { return 1/sqrt(p.N*p.M) + sqrt(p.D)/(p.N*p.Eps*sqrt(p.M)) }},
	{ID: "optimal", Label: "optimal (Asi & Liu 2024; Lowy, Liu & Asi 2024)", Formula: "1/√(nm) + √d/(nε√m)", Kind: Tight, Family: UserLevel,
		Note:  "achieved, so the lower bound is tight; Lowy, Liu & Asi reach it with far fewer gradients, and Bassily & Sun 2023 for smooth losses under size conditions",
		shape: func(p Point) float64 { return 1/sqrt(p.N*p.M) + sqrt(p.D)/(p.N*p.Eps*sqrt(p.M)) }},
	{ID: "levy", Label: "first upper bound (Levy et al. 2021)", Formula: "1/√(nm) + d/(nε√m)", Kind: Upper, Family: UserLevel,
		Note:  "smooth losses; a factor √d above the optimum",
		shape: func(p Point) float64 { return 1/sqrt(p.N*p.M) + p.D/(p.N*p.Eps*sqrt(p.M)) }},
	{ID: "ghazi23", Label: "Ghazi et al. 2023", Formula: "1/√(nm) + √d/(n√m ε^2.5)", Kind: Upper, Family: UserLevel,
		Note:  "non-smooth losses allowed, but super-polynomial time",
		shape: func(p Point) float64 { return 1/sqrt(p.N*p.M) + sqrt(p.D)/(p.N*sqrt(p.M)*math.Pow(p.Eps, 2.5)) }},
	{ID: "linear", Label: "linear time (Bassily & Sun 2023; Lowy, Liu & Asi 2024)", Formula: "(1 + √d)/√(nmε)", Kind: Upper, Family: UserLevel,
		Note:  "one pass over the items; the privacy term falls only as 1/√n",
		shape: func(p Point) float64 { return (1 + sqrt(p.D)) / sqrt(p.N*p.M*p.Eps) }},
	{ID: "group", Label: "group privacy on an item-level algorithm", Formula: "1/√(nm) + √d/(εn)", Kind: Upper, Family: UserLevel,
		Note:  "protect all m items of a user by protecting each at ε/m: the privacy term does not improve with m",
		shape: func(p Point) float64 { return 1/sqrt(p.N*p.M) + sqrt(p.D)/(p.Eps*p.N) }},
	{ID: "item", Label: "item-level DP on the nm items", Formula: "1/√(nm) + √d/(nmε)", Kind: Tight, Family: UserLevel,
		Note:  "protects one item, not a user: shown for scale, it is not a user-level guarantee",
		shape: func(p Point) float64 { return 1/sqrt(p.N*p.M) + sqrt(p.D)/(p.N*p.M*p.Eps) }},

	{ID: "pvmw", Label: "upper bound, semi-sensitive (PVMW)", Formula: "(ln k · ln(1/δ))^¼ · √(ln(mn)) / √(εn)", Kind: Upper, Family: SemiSensitive,
		Note: "no dependence on d; m problems answered together",
		shape: func(p Point) float64 {
			return math.Pow(log(p.K)*log(1/p.Delta), 0.25) * sqrt(log(math.Max(p.M*p.N, math.E))) / sqrt(p.Eps*p.N)
		}},
	{ID: "semi-lower", Label: "lower bound, semi-sensitive", Formula: "min(1, √(ln k/(εn)))", Kind: Lower, Family: SemiSensitive,
		Note:  "for ε ≤ ln k and δ ≤ 0.4ε/k, on a hard instance of dimension about nk/⌊ln k/ε⌋: drawn only where it applies",
		shape: func(p Point) float64 { return math.Min(1, sqrt(log(p.K)/(p.Eps*p.N))) }, holds: semiLowerHolds},
	{ID: "semi-base", Label: "second lower bound, semi-sensitive", Formula: "1/√n", Kind: Lower, Family: SemiSensitive,
		Note:  "once the sensitive values are private enough that e^ε/(e^ε + k − 1) + δ < 0.99, on a hard instance of dimension nk: drawn only where it applies",
		shape: func(p Point) float64 { return 1 / sqrt(p.N) }, holds: semiBaseHolds},
	{ID: "label", Label: "label DP (Ghazi et al. 2021)", Formula: "√(k ln(1/δ))/(ε√n)", Kind: Upper, Family: SemiSensitive,
		Note:  "grows like √k where PVMW grows like (ln k)^¼",
		shape: func(p Point) float64 { return sqrt(p.K*log(1/p.Delta)) / (p.Eps * sqrt(p.N)) }},
	{ID: "full", Label: "full DP (Bassily, Smith & Thakurta 2014)", Formula: "min(1, √(d ln(1/δ))/(εn))", Kind: Tight, Family: SemiSensitive,
		Note:  "protects every feature; grows with d, which semi-sensitive bounds do not",
		shape: func(p Point) float64 { return math.Min(1, sqrt(p.D*log(1/p.Delta))/(p.Eps*p.N)) }},
}

// Bounds returns the family's bounds in legend order.
func Bounds(f Family) []Bound {
	var out []Bound
	for _, b := range bounds {
		if b.Family == f {
			out = append(out, b)
		}
	}
	return out
}

// RuleOfThumb is the dimension below which full-DP methods beat the
// semi-sensitive upper bound at p, logarithms dropped: d* = √(ln k)·ε·n.
func RuleOfThumb(p Point) float64 { return sqrt(log(p.K)) * p.Eps * p.N }

// Crossover is the dimension at which the full-DP bound meets the
// semi-sensitive upper bound (PVMW) at p, logarithms kept, and false when
// they do not meet (full DP's bound, capped at 1, stays below).
func Crossover(p Point) (float64, bool) {
	full, pvmw := bounds[boundIndex("full")], bounds[boundIndex("pvmw")]
	target := pvmw.At(p)
	at := func(d float64) float64 { q := p; q.D = d; return full.At(q) }
	lo, hi := 1e-6, 1e18
	if at(lo) >= target || at(hi) < target {
		return 0, false
	}
	for range 200 { // bisection on ln d: full DP's bound grows with d
		mid := math.Sqrt(lo * hi)
		if at(mid) < target {
			lo = mid
		} else {
			hi = mid
		}
	}
	return math.Sqrt(lo * hi), true
}

func boundIndex(id string) int {
	for i, b := range bounds {
		if b.ID == id {
			return i
		}
	}
	panic("rates: no bound " + id) // the table is fixed: a typo is a bug
}

// Balance is where, along a, the optimal user-level bound's two terms are
// equal: its privacy term √d/(nε√m) dominates on one side, its
// statistical term 1/√(nm) on the other, where every user-level bound but
// the linear-time one comes down to that same term and their curves meet.
// The ratio of the terms, √d/(ε√n), does not involve m or k: false there.
func Balance(a Axis, p Point) (float64, bool) {
	switch a {
	case AxisN:
		return p.D / (p.Eps * p.Eps), true
	case AxisD:
		return p.N * p.Eps * p.Eps, true
	case AxisEps:
		return sqrt(p.D / p.N), true
	}
	return 0, false
}

// Axis is a size the explorer can sweep.
type Axis string

// The axes, with their sweep ranges.
const (
	AxisN   Axis = "n"
	AxisM   Axis = "m"
	AxisD   Axis = "d"
	AxisEps Axis = "eps"
	AxisK   Axis = "k"
)

// Range is an axis's sweep, on a log scale.
func (a Axis) Range() (lo, hi float64) {
	switch a {
	case AxisN:
		return 10, 1e7
	case AxisM:
		return 1, 1e4
	case AxisD:
		return 1, 1e6
	case AxisEps:
		return 0.01, 10
	}
	return 2, 1e6
}

// With returns p with the axis's size set to x.
func (a Axis) With(p Point, x float64) Point {
	switch a {
	case AxisN:
		p.N = x
	case AxisM:
		p.M = x
	case AxisD:
		p.D = x
	case AxisEps:
		p.Eps = x
	case AxisK:
		p.K = x
	}
	return p
}

// Of is the axis's size in p.
func (a Axis) Of(p Point) float64 {
	switch a {
	case AxisN:
		return p.N
	case AxisM:
		return p.M
	case AxisD:
		return p.D
	case AxisEps:
		return p.Eps
	}
	return p.K
}

// Axes lists a family's axes: what its bounds depend on.
func Axes(f Family) []Axis {
	if f == SemiSensitive {
		return []Axis{AxisN, AxisEps, AxisK, AxisD, AxisM}
	}
	return []Axis{AxisN, AxisM, AxisD, AxisEps}
}

// Slope is the local log–log slope of b along a at p (a central
// difference over a factor of 1.01), which is the bound's exponent where
// one term dominates.
func (b Bound) Slope(a Axis, p Point, x float64) float64 {
	lo, hi := b.At(a.With(p, x/1.01)), b.At(a.With(p, x*1.01))
	return (math.Log(hi) - math.Log(lo)) / (2 * math.Log(1.01))
}

// Check validates a point: every size positive and finite, δ below 1/2,
// k at least 2.
func (p Point) Check() error {
	var bad []string
	for _, v := range []struct {
		name string
		x    float64
	}{{"n", p.N}, {"m", p.M}, {"d", p.D}, {"ε", p.Eps}, {"δ", p.Delta}, {"k", p.K}} {
		if !(v.x > 0) || math.IsInf(v.x, 0) {
			bad = append(bad, v.name)
		}
	}
	switch {
	case len(bad) > 0:
		return format.Errorf("%s must be positive and finite", strings.Join(bad, ", "))
	case p.Delta >= 0.5:
		return format.Errorf("δ = %v: the bounds need δ < 1/2", p.Delta)
	case p.K < 2:
		return format.Errorf("k = %v: the sensitive feature takes at least 2 values", p.K)
	}
	return nil
}

// LogSlope is the least-squares slope of ln y against ln x: a set of
// points' exponent.
func LogSlope(xs, ys []float64) float64 { return gof.LogSlope(xs, ys) }
