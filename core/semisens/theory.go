package semisens

import (
	"math"

	"github.com/uldplab/uldp/core/format"
)

// TheoryParams are the paper's parameters for PVMW (Theorem 13's proof):
// ζ = ½, c = 3, η the fixed point below, τ = 16η, L_max = 1 + ⌊ln k/η²⌋.
type TheoryParams struct {
	Eta  float64 `json:"eta"`
	Tau  float64 `json:"tau"`
	LMax int     `json:"lmax"`
	// Trivial says the guarantee says nothing: every answer lies in the
	// unit ball, so an error bound 18η ≥ 1 is met by answering 0.
	Trivial bool `json:"trivial"`
}

// Theory returns the paper's parameters for n examples, k values, budget
// ρ, T queries (a float: the reductions ask T = n²) and failure
// probability β: η is the smallest positive real
// with η > 1000·(ln k/ρ)^{1/4}·√(ln(n·T·ln k/(ρβη)))/√n, found by
// bisection in log space (the right side falls as η grows).
func Theory(n, k int, rho, queries, beta float64) (TheoryParams, error) {
	switch {
	case n < 1 || k < 2 || !(queries >= 1) || math.IsInf(queries, 1):
		return TheoryParams{}, format.Errorf("n = %d, k = %d, T = %v: need n ≥ 1, k ≥ 2, T ≥ 1", n, k, queries)
	case !(rho > 0 && rho < 1):
		return TheoryParams{}, format.Errorf("ρ = %v: Theorem 13 takes ρ in (0, 1)", rho)
	case !(beta > 0 && beta < 0.5):
		return TheoryParams{}, format.Errorf("β = %v: Theorem 13 takes β in (0, ½)", beta)
	}
	lk := math.Log(float64(k))
	fn := float64(n)
	rhs := func(eta float64) float64 {
		l := math.Log(fn * queries * lk / (rho * beta * eta))
		return 1000 * math.Pow(lk/rho, 0.25) * math.Sqrt(max(l, 0)) / math.Sqrt(fn)
	}
	lo, hi := math.Log(1e-12), math.Log(1e12)
	for range 200 {
		mid := (lo + hi) / 2
		if math.Exp(mid) > rhs(math.Exp(mid)) {
			hi = mid
		} else {
			lo = mid
		}
	}
	eta := math.Exp(hi)
	tp := TheoryParams{Eta: eta, Tau: 16 * eta, Trivial: 18*eta >= 1}
	l := 1 + math.Floor(lk/(eta*eta))
	tp.LMax = int(min(l, MaxLMax))
	return tp, nil
}
