package semisens

import (
	"math"

	"github.com/uldplab/uldp/core/format"
)

// Logistic is logistic regression on the feature map φᵢ(y) = [aᵢ; e_y; 1]/√3
// with the public label bᵢ ∈ {−1, +1}: ℓ(w; xᵢ) = ln(1 + exp(−bᵢ⟨w, φᵢ(yᵢ)⟩)),
// plus (μ/2)‖w‖² when Mu > 0. While every ‖aᵢ‖ ≤ 1, ‖φ‖ ≤ 1, so the data
// term is 1-Lipschitz (G = 1) and ¼-smooth, and its gradient is itself a
// query into the unit ball. The regulariser's gradient μw is public: it is
// added to the oracle's answer, never asked of the data.
type Logistic struct {
	Mu float64
}

// Dim is the parameter's dimension d_pub + k + 1.
func (Logistic) Dim(pub *Public) int { return pub.DimPub() + pub.K + 1 }

// Check refuses data the model cannot take: labels other than ±1, public
// features outside the unit ball.
func (Logistic) Check(pub *Public) error {
	if pub.Labels == nil {
		return format.Errorf("logistic regression needs a public label per example (±1)")
	}
	for i, b := range pub.Labels {
		if b != 1 && b != -1 {
			return format.Errorf("example %d: label %v; logistic regression takes −1 or +1", i+1, b)
		}
		if n := norm(pub.Features[i]); n > 1+1e-9 {
			return format.Errorf("example %d: public features of norm %.6g > 1; scale them into the unit ball (the loss is then 1-Lipschitz)", i+1, n)
		}
	}
	return nil
}

// margin is ⟨w, φᵢ(y)⟩.
func margin(pub *Public, w []float64, i, y int) float64 {
	dp := pub.DimPub()
	return (dot(w[:dp], pub.Features[i]) + w[dp+y] + w[len(w)-1]) * invSqrt3
}

// Loss is ℓ(w; xᵢ^pub, y).
func (m Logistic) Loss(pub *Public, w []float64, i, y int) float64 {
	return softplus(-pub.Labels[i]*margin(pub, w, i, y)) + m.Mu/2*dot(w, w)
}

// Smoothness is λ = ¼ + μ, the data term's ¼ from ‖φ‖ ≤ 1.
func (m Logistic) Smoothness() float64 { return 0.25 + m.Mu }

// Gradient is the query f(x, y) = ∇_w ℓ(w; x^pub, y)/G of the data term at
// w, with G = 1.
func (Logistic) Gradient(w []float64) OneHot { return logisticGrad{w} }

type logisticGrad struct{ w []float64 }

func (g logisticGrad) Dim() int { return len(g.w) }

func (g logisticGrad) Eval(pub *Public, i, y int, dst []float64) {
	feature(pub, i, y, dst)
	scale(dst, g.scale(pub, i, y))
}

func (g logisticGrad) Scales(pub *Public, i int, dst []float64) {
	// The public part of the margin is the same for every candidate.
	dp, b := pub.DimPub(), pub.Labels[i]
	base := dot(g.w[:dp], pub.Features[i]) + g.w[len(g.w)-1]
	for y := range dst {
		dst[y] = -b * sigmoid(-b*(base+g.w[dp+y])*invSqrt3)
	}
}

// scale is ∂ℓ/∂z = −b·σ(−b·z) at z = ⟨w, φᵢ(y)⟩.
func (g logisticGrad) scale(pub *Public, i, y int) float64 {
	b := pub.Labels[i]
	return -b * sigmoid(-b*margin(pub, g.w, i, y))
}

func sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

// softplus is ln(1 + eˣ) without overflow.
func softplus(x float64) float64 {
	if x > 0 {
		return x + math.Log1p(math.Exp(-x))
	}
	return math.Log1p(math.Exp(x))
}
