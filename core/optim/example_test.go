package optim_test

import (
	"context"
	"fmt"

	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/loss"
	"github.com/uldplab/uldp/core/mech"
	"github.com/uldplab/uldp/core/optim"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
)

// Phased-ERM on 2,000 tight users: three phases at (ε/3, δ/3), each
// proving stability by the certificate, the ledger summing to (ε, δ).
func ExamplePhasedERM() {
	data, _ := dataset.Generate(dataset.Spec{Kind: dataset.Gaussian, N: 2000, M: 10, D: 2, Spread: 0.001, Center: []float64{0.2, 0.1}}, rng.New(3))
	p := optim.PhasedParams{Eps: 1, Delta: 1e-5, Beta: 0.01, Mu: 1, RK: 1, RX: 2, Rule: mech.DeltaPaper, Phases: 3}
	res, _, err := optim.PhasedERM(context.Background(), p, data, rng.New(1), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	total, _ := res.Ledger.Total()
	for _, ph := range res.Phases {
		fmt.Printf("phase %d: λ = %.3g, R = %.3g, κ′ = %d, certified %v\n", ph.I, ph.Lambda, ph.Radius, ph.Kappa, ph.Certified)
	}
	fmt.Printf("total (ε, δ) = (%g, %g); %s\n", total.Eps, total.Delta, res.Guarantee)
	// Output:
	// phase 1: λ = 0.00134, R = 2.24e+03, κ′ = 84, certified true
	// phase 2: λ = 0.00537, R = 559, κ′ = 84, certified true
	// phase 3: λ = 0.0215, R = 140, κ′ = 84, certified true
	// total (ε, δ) = (1, 1e-05); (ε = 1, δ = 1e-05)-DP at user level, paper mode: certified
}

// Strongly-Convex-ERM: a first release θ₀ at (ε/2, δ/2) fixes a ball of
// radius R′ around it; Phased-ERM at (ε/2, δ/2) works inside that ball.
// At this size R′ dwarfs 𝒦 = B(0, 1): the first stage narrows nothing yet.
func ExampleStronglyConvexERM() {
	data, _ := dataset.Generate(dataset.Spec{Kind: dataset.Gaussian, N: 2000, M: 10, D: 2, Spread: 0.001, Center: []float64{0.2, 0.1}}, rng.New(3))
	p := optim.PhasedParams{Eps: 1, Delta: 1e-5, Beta: 0.01, Mu: 1, RK: 1, RX: 2, Rule: mech.DeltaPaper, Phases: 2}
	res, _, err := optim.StronglyConvexERM(context.Background(), p, data, rng.New(1), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	st := res.Stage1
	fmt.Printf("stage 1: σ = %.3g, R′ = σ(√d + √(2 ln(1/β))) = %.3g\n", st.Sigma, st.Radius)
	for _, s := range res.Ledger.Spends() {
		fmt.Printf("%s: ε = %g\n", s.Label, s.Eps)
	}
	// Output:
	// stage 1: σ = 134, R′ = σ(√d + √(2 ln(1/β))) = 598
	// stage 1: ε = 0.5
	// phase 1: ε = 0.25
	// phase 2: ε = 0.25
}

// Outlier-iterate removal on 400 tight users in sound mode with eight
// groups: each phase's groups end close together (score C, nobody
// dropped), yet the gate's Lap(20/ε) noise is wide against C = 8, and
// phase 4 halts on a full score. Eight groups are too few for the gate's
// margin, so the guarantee is not certified.
func ExampleOutlierIterateRemoval() {
	data, _ := dataset.Generate(dataset.Spec{Kind: dataset.Gaussian, N: 400, M: 5, D: 2, Spread: 0.01, Center: []float64{0.2, 0.1}}, rng.New(3))
	p := optim.OIRParams{Eps: 4, Delta: 1e-5, Loss: loss.Squared{Mu: 1}, Lipschitz: 2, Radius: 1, Eta: 0.2, PExp: 1, QExp: 0.5,
		Groups: 8, TauScale: 0.5, Mode: privacy.Sound}
	res, _, err := optim.OutlierIterateRemoval(context.Background(), p, data, rng.New(1), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, ph := range res.Phases {
		fmt.Printf("phase %d: %d users, score %g of C = %d, %d groups kept, passed %v\n", ph.I, ph.Users, ph.Score, res.Groups, len(ph.Kept), ph.Passed)
	}
	fmt.Printf("%d gradients for nm = %d; certified %v\n", res.Gradients, 400*5, res.Guarantee.Certified())
	// Output:
	// phase 1: 82 users, score 8 of C = 8, 8 groups kept, passed true
	// phase 2: 58 users, score 8 of C = 8, 8 groups kept, passed true
	// phase 3: 41 users, score 8 of C = 8, 8 groups kept, passed true
	// phase 4: 29 users, score 8 of C = 8, 0 groups kept, passed false
	// 1000 gradients for nm = 2000; certified false
}
