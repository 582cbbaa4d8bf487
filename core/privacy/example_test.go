package privacy_test

import (
	"fmt"

	"github.com/uldplab/uldp/core/privacy"
)

// DelOutputPert's calibration chain at spec preset P1.
func ExampleDelOutputPert() {
	c, err := privacy.DelOutputPert(8, 0.1, 0.1)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range c.Steps {
		fmt.Printf("%s = %s = %.6g\n", s.Symbol, s.Formula, s.Value)
	}
	fmt.Println("proven here:", c.Valid)
	// Output:
	// ε̄ = ε/2 = 4
	// δ̄ = δ/(e^ε̄ + 2) = 0.00176684
	// κ = 1 + ⌈ln(1/δ̄)/ε̄⌉ = 3
	// 2κ = largest R1 (TDLap support {0..2κ}) = 6
	// 4κ = deletion depth of the stability test = 12
	// 8κΔ = sensitivity of the released centre = 2.4
	// σ = 2√(ln(2/δ̄))·8κΔ/ε̄ = 3.18208
	// proven here: false
}

// A ledger with a shared AboveThreshold spend and two disjoint user groups.
func ExampleLedger() {
	l := privacy.NewLedger(privacy.Basic, 0)
	_ = l.Add(privacy.Spend{Label: "AboveThreshold", Eps: 0.5})
	_ = l.Add(privacy.Spend{Label: "phase 1", Eps: 0.5, Delta: 1e-6, Group: "first half"})
	_ = l.Add(privacy.Spend{Label: "phase 2", Eps: 0.5, Delta: 1e-6, Group: "second half"})
	total, _ := l.Total()
	fmt.Printf("ε = %g, δ = %g\n", total.Eps, total.Delta)
	// Output: ε = 1, δ = 1e-06
}

// The classical Gaussian formula is flagged outside ε < 1.
func ExampleGaussianSigma() {
	c, _ := privacy.GaussianSigma(3, 1e-5, 1)
	a, _ := privacy.AnalyticGaussianSigma(3, 1e-5, 1)
	fmt.Printf("classical σ = %.4f (valid: %v)\nanalytic  σ = %.4f\n", c.Scale, c.Valid, a.Scale)
	// Output:
	// classical σ = 1.6149 (valid: false)
	// analytic  σ = 1.3906
}
