package mech

import (
	"context"
	"fmt"
	"math"

	"github.com/uldplab/uldp/core/dataset"
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

// SCParams configures SCOutputPert (Paper A, Alg. 2) for the squared loss
// ℓ(θ; x) = (μ/2)‖θ − x‖² on the ball 𝒦 = B(0, RK), with data in B(0, RX):
// G = μ(RK + RX) and θ*(y) = Π_𝒦(mean of y's items).
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
}

// G is the loss's Lipschitz constant on 𝒦 × B(0, RX).
func (p SCParams) G() float64 { return p.Mu * (p.RK + p.RX) }

// Validate checks the parameters.
func (p SCParams) Validate() error {
	if !(p.Beta > 0 && p.Beta < 1/math.E) {
		return fmt.Errorf("beta = %v: the Δ formulas hold for 0 < β < 1/e", p.Beta)
	}
	for _, c := range []struct {
		name string
		v    float64
	}{{"mu", p.Mu}, {"rk", p.RK}, {"rx", p.RX}} {
		if !(c.v > 0) || math.IsInf(c.v, 1) {
			return fmt.Errorf("%s = %v: must be a finite number > 0", c.name, c.v)
		}
	}
	if p.Rule != DeltaPaper && p.Rule != DeltaCorollary {
		return fmt.Errorf("rule %q: use %s (Alg. 2 as printed) or %s (consistent with Corollary 3.7)", p.Rule, DeltaPaper, DeltaCorollary)
	}
	return nil
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
	sm := math.Sqrt(float64(m))
	switch rule {
	case DeltaPaper:
		return 10 * G * math.Sqrt(math.Log(1/beta)) / (mu * float64(n) * sm), nil
	case DeltaCorollary:
		if n <= 4*kappa+1 {
			return 0, fmt.Errorf("n = %d: the corollary Δ needs n > 4κ+1 = %d", n, 4*kappa+1)
		}
		return 2 * 5 * G * math.Sqrt(float64(4*kappa+1)*math.Log(float64(n))+math.Log(1/beta)) / (mu * float64(n-4*kappa-1) * sm), nil
	}
	return 0, fmt.Errorf("rule %q: use %s or %s", rule, DeltaPaper, DeltaCorollary)
}

// SCOutputPert runs Alg. 2: Δ from the rule, then DelOutputPert with
// f = θ*, the projected mean. Every user must hold the same number of items
// (θ* is the mean of all items) and every item must lie in B(0, RX).
func SCOutputPert(ctx context.Context, p SCParams, data *dataset.Dataset, streams *rng.Streams, progress Progress) (DelResult, *trace.Trace, error) {
	if err := p.Validate(); err != nil {
		return DelResult{}, nil, err
	}
	m, ok := data.M()
	if !ok {
		return DelResult{}, nil, fmt.Errorf("users hold different numbers of items: SCOutputPert's θ* is the mean of all items and needs the same m for every user")
	}
	for i := range data.Users {
		for j := range data.Items(i) {
			if norm(data.Item(i, j)) > p.RX*(1+1e-12) {
				return DelResult{}, nil, fmt.Errorf("user %q item %d lies %.4g from the origin, outside the data radius R_X = %g: raise rx (the loss is only %g-Lipschitz inside it)", data.Users[i].ID, j+1, norm(data.Item(i, j)), p.RX, p.G())
			}
		}
	}
	k := loss.Ball{Centre: make([]float64, data.Dim), Radius: p.RK}
	del := DelParams{Eps: p.Eps, Delta: p.Delta, Mode: p.Mode, Kappa: p.Kappa, Sens: 1,
		Map: func(mean []float64) []float64 { return k.Project(mean, mean) }}
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
	step := trace.Step{Kind: KindSCDelta, Text: fmt.Sprintf("Δ = %s = %.4g (%s rule; G = μ(R_K + R_X) = %.4g)", formula, del.Sens, p.Rule, p.G()), Data: del.Sens}
	tr.Steps = append([]trace.Step{step}, tr.Steps...)
	return res, tr, nil
}

// KindSCDelta is the step where SCOutputPert fixes its target Δ.
const KindSCDelta trace.Kind = "sc.delta"

func norm(v []float64) float64 { return loss.Dist(v, make([]float64, len(v))) }
