package mech_test

import (
	"context"
	"fmt"

	"github.com/uldplab/uldp/core/mech"
	"github.com/uldplab/uldp/core/rng"
)

// Three query values against Δ = 10 at ε = 2: step by step, then the exact
// probability of each halting time.
func ExampleRunAboveThreshold() {
	p := mech.ATParams{Eps: 2, Threshold: 10}
	queries := []float64{14, 11, 6}
	_, tr, err := mech.RunAboveThreshold(context.Background(), p, queries, rng.New(4))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range tr.Steps {
		fmt.Println(s.Text)
	}
	dist := mech.ATHaltDistribution(p, queries)
	for k, pr := range dist[:len(queries)] {
		fmt.Printf("Pr[first ⊥ at query %d] = %.4f\n", k+1, pr)
	}
	fmt.Printf("Pr[all pass] = %.4f\n", dist[len(queries)])
	// Output:
	// noisy threshold Δ̂ = Δ − Λ = 10 − 0.3495 = 9.65 (Λ ~ Lap(1), drawn once for every query)
	// query 1: q + ν = 14 + 1.2 = 15.2 ≥ Δ̂ = 9.65 → ⊤
	// query 2: q + ν = 11 + 0.8964 = 11.9 ≥ Δ̂ = 9.65 → ⊤
	// query 3: q + ν = 6 − 0.02042 = 5.98 < Δ̂ = 9.65 → ⊥
	// halt after query 3: AboveThreshold answers nothing more
	// Pr[first ⊥ at query 1] = 0.0872
	// Pr[first ⊥ at query 2] = 0.2998
	// Pr[first ⊥ at query 3] = 0.5487
	// Pr[all pass] = 0.0643
}
