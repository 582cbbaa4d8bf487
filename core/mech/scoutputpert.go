package mech

import (
	"math"

	"github.com/uldplab/uldp/core/cancel"
	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/loss"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/core/trace"
)

// Δ rules of SCOutputPert (spec 000-002 §A-2, erratum A4).
const (
	// DeltaPaper is Alg. 2's line 1: Δ = 10G√(ln(1/β))/(μn√m).
	DeltaPaper = "paper"
	// DeltaCorollary adds Corollary 3.7's union bound:
	// Δ_cor = c_K·5G√((4κ+1)ln n + ln(1/β))/(μ(n − 4κ − 1)√m), c_K = 2 for a
	// constrained domain.
	DeltaCorollary = "corollary"
)

// The losses with exact minimisers (spec 000-002 §8.1).
const (
	// LossSquared is (μ/2)‖θ − x‖² on 𝒦 = B(0, RK), data in B(0, RX):
	// G = μ(RK + RX), θ*(y) = Π_𝒦(mean of y's items).
	LossSquared = "squared"
	// LossAbsolute is the 1-D |θ − x| + (μ/2)θ² on 𝒦 = [−RK, RK]:
	// G = 1 + μRK, θ* a ridge-shrunk median found exactly on sorted items.
	LossAbsolute = "absolute"
)

// SCParams configures SCOutputPert (Paper A, Alg. 2) for the squared or
// the absolute loss (Loss; "" is squared).
type SCParams struct {
	Eps, Delta float64
	// Beta is the failure probability the Δ formulas are stated for.
	Beta   float64
	Mu     float64
	RK, RX float64
	// Rule is DeltaPaper or DeltaCorollary.
	Rule  string
	Mode  privacy.Mode
	Kappa int
	Loss  string
}

// G is the loss's Lipschitz constant on 𝒦 (and B(0, RX) for the squared
// loss).
func (p SCParams) G() float64 {
	if p.Loss == LossAbsolute {
		return 1 + p.Mu*p.RK
	}
	return p.Mu * (p.RK + p.RX)
}

// Validate checks the parameters.
func (p SCParams) Validate() error {
	if !(p.Beta > 0 && p.Beta < 1/math.E) {
		return format.Errorf("beta = %v: the Δ formulas hold for 0 < β < 1/e", p.Beta)
	}
	for _, c := range []struct {
		name string
		v    float64
	}{{"mu", p.Mu}, {"rk", p.RK}, {"rx", p.RX}} {
		if !(c.v > 0) || math.IsInf(c.v, 1) {
			return format.Errorf("%s = %v: must be a finite number > 0", c.name, c.v)
		}
	}
	if p.Rule != DeltaPaper && p.Rule != DeltaCorollary {
		return format.Errorf("rule %q: use %s (Alg. 2 as printed) or %s (consistent with Corollary 3.7)", p.Rule, DeltaPaper, DeltaCorollary)
	}
	if p.Loss != "" && p.Loss != LossSquared && p.Loss != LossAbsolute {
		return format.Errorf("loss %q: use %s or %s", p.Loss, LossSquared, LossAbsolute)
	}
	return nil
}

// CheckData checks what the loss needs of the data: the same m for every
// user (θ* weighs every item alike), items in B(0, RX) for the squared
// loss, one dimension for the absolute loss.
func (p SCParams) CheckData(data *dataset.Dataset) (int, error) {
	m, ok := data.M()
	if !ok {
		return 0, format.Errorf("users hold different numbers of items: the minimiser weighs every item alike and needs the same m for every user")
	}
	if p.Loss == LossAbsolute {
		if data.Dim != 1 {
			return 0, format.Errorf("the absolute loss is 1-D here (its exact minimiser scans sorted items), but the data has d = %d", data.Dim)
		}
		return m, nil
	}
	for i := range data.Users {
		for j := range data.Items(i) {
			if norm(data.Item(i, j)) > p.RX*(1+1e-12) {
				return 0, format.Errorf("user %q item %d lies %.4g from the origin, outside the data radius R_X = %g: raise rx (the loss is only %g-Lipschitz inside it)", data.Users[i].ID, j+1, norm(data.Item(i, j)), p.RX, p.G())
			}
		}
	}
	return m, nil
}

// AbsoluteFunc is DelOutputPert's f for the absolute loss with ridge
// (lambda/2)(θ − c)² over [lo, hi]: the exact minimiser on x₋U.
func AbsoluteFunc(lambda, c, lo, hi float64) func(*dataset.Dataset) (SubsetFunc, error) {
	return func(data *dataset.Dataset) (SubsetFunc, error) {
		users := make([][]float64, data.N())
		for i, u := range data.Users {
			users[i] = u.Points
		}
		return loss.Absolute{Lambda: lambda, C: c, Lo: lo, Hi: hi}.Subsets(users), nil
	}
}

// TargetSens returns Δ for n users of m items under the rule; the
// corollary rule needs κ (it grows with the search depth 4κ).
func (p SCParams) TargetSens(n, m, kappa int) (float64, error) {
	return SCTargetSens(p.Rule, p.G(), p.Mu, p.Beta, n, m, kappa)
}

// SCTargetSens is SCOutputPert's Δ for a G-Lipschitz, μ-strongly convex
// loss: the paper's 10G√ln(1/β)/(μn√m), or the corollary's
// 2·5G√((4κ+1)ln n + ln(1/β))/(μ(n − 4κ − 1)√m).
func SCTargetSens(rule string, G, mu, beta float64, n, m, kappa int) (float64, error) {
	// Both are twice a user's gradient spread over μ·(users left): with
	// failure e^{−L}, L = ln(1/β) for one user, and for the corollary a
	// union bound over every user of every deletion set up to 4κ + 1.
	switch rule {
	case DeltaPaper:
		return 2 * meanSpread(G, m, math.Log(1/beta)) / (mu * float64(n)), nil
	case DeltaCorollary:
		if n <= 4*kappa+1 {
			return 0, format.Errorf("n = %d: the corollary Δ needs n > 4κ+1 = %d", n, 4*kappa+1)
		}
		return 2 * meanSpread(G, m, float64(4*kappa+1)*math.Log(float64(n))+math.Log(1/beta)) / (mu * float64(n-4*kappa-1)), nil
	}
	return 0, format.Errorf("rule %q: use %s or %s", rule, DeltaPaper, DeltaCorollary)
}

// meanSpread is Lemma 3.8 for one user's mean: of N zero-sum vectors of
// norm at most G, the mean of m drawn without replacement has norm above
// 5G√(L/m) with probability at most e^{−L}.
func meanSpread(G float64, m int, L float64) float64 {
	return 5 * G * math.Sqrt(L/float64(m))
}

// SCOutputPert runs Alg. 2: Δ from the rule, then DelOutputPert with
// f = θ*, the projected mean. Every user must hold the same number of items
// (θ* is the mean of all items) and every item must lie in B(0, RX).
func SCOutputPert(ctx cancel.Context, p SCParams, data *dataset.Dataset, streams *rng.Streams, progress Progress) (DelResult, *trace.Trace, error) {
	if err := p.Validate(); err != nil {
		return DelResult{}, nil, err
	}
	m, err := p.CheckData(data)
	if err != nil {
		return DelResult{}, nil, err
	}
	del := DelParams{Eps: p.Eps, Delta: p.Delta, Mode: p.Mode, Kappa: p.Kappa, Sens: 1}
	if p.Loss == LossAbsolute {
		del.Func = AbsoluteFunc(p.Mu, 0, -p.RK, p.RK)
	} else {
		k := loss.Ball{Centre: make([]float64, data.Dim), Radius: p.RK}
		del.Map = func(mean []float64) []float64 { return k.Project(mean, mean) }
	}
	cal, err := del.DelCalibration()
	if err != nil {
		return DelResult{}, nil, err
	}
	del.Sens, err = p.TargetSens(data.N(), m, cal.Kappa)
	if err != nil {
		return DelResult{}, nil, err
	}
	res, tr, err := DelOutputPert(ctx, del, data, streams, progress)
	if err != nil {
		return DelResult{}, nil, err
	}
	tr.Mechanism = "scoutputpert"
	formula := "10G√ln(1/β)/(μn√m)"
	if p.Rule == DeltaCorollary {
		formula = "2·5G√((4κ+1)ln n + ln(1/β))/(μ(n−4κ−1)√m)"
	}
	step := trace.Step{Kind: KindSCDelta, Text: format.Sprintf("Δ = %s = %.4g (%s rule; G = μ(R_K + R_X) = %.4g)", formula, del.Sens, p.Rule, p.G()), Data: del.Sens}
	tr.Steps = append([]trace.Step{step}, tr.Steps...)
	return res, tr, nil
}

// KindSCDelta is the step where SCOutputPert fixes its target Δ.
const KindSCDelta trace.Kind = "sc.delta"

func norm(v []float64) float64 { return loss.Dist(v, make([]float64, len(v))) }
