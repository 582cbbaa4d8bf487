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
// w, with G = 1. The query keeps w and exponentials of it: w must not
// change while the query is in use, and the query is not for use by
// several goroutines at once.
func (Logistic) Gradient(w []float64) OneHot { return &logisticGrad{w: w} }

type logisticGrad struct {
	w []float64
	// eb[0][y] = exp(−w[d_pub+y]/√3) and eb[1][y] = exp(+w[d_pub+y]/√3),
	// made at the first Scales; nil when one is not a normal number (the
	// product below would then lose the value), and Scales computes each
	// sigmoid whole.
	eb    [2][]float64
	ready bool
}

func (g *logisticGrad) Dim() int { return len(g.w) }

func (g *logisticGrad) Eval(pub *Public, i, y int, dst []float64) {
	feature(pub, i, y, dst)
	scale(dst, g.scale(pub, i, y))
}

// Scales writes sᵢ(y) = −b·σ(−b·z_y), z_y = (base + w_y)/√3, for every y.
// With eˣ factored as e^{b·base/√3}·e^{b·w_y/√3}, it is one exponential
// per example and the k candidates' own, shared by every example, instead
// of k per example: the beliefs' answer and the MWU scores spent most of
// their time in exp (one division and product stay per candidate). The
// product rounds two exponents, a₁ = b·base/√3 and a₂ = b·w_y/√3, for
// their sum: its relative error is about (1 + |a₁| + |a₂|) ulps, as exp's
// own grows with its argument (at the lesson's radius, |aᵢ| ≤ 5).
func (g *logisticGrad) Scales(pub *Public, i int, dst []float64) {
	dp, b := pub.DimPub(), pub.Labels[i]
	base := dot(g.w[:dp], pub.Features[i]) + g.w[len(g.w)-1]
	if !g.ready {
		g.ready = true
		g.eb = [2][]float64{expBlock(g.w[dp:dp+len(dst)], -invSqrt3), expBlock(g.w[dp:dp+len(dst)], invSqrt3)}
	}
	eb := g.eb[0]
	if b > 0 {
		eb = g.eb[1]
	}
	if a := math.Exp(b * base * invSqrt3); eb != nil && normal(a) {
		// σ(−b·z) = 1/(1 + e^{b·z}).
		for y := range dst {
			dst[y] = -b / (1 + a*eb[y])
		}
		return
	}
	for y := range dst {
		dst[y] = -b * sigmoid(-b*(base+g.w[dp+y])*invSqrt3)
	}
}

// expBlock returns exp(c·x) for every x, or nil if one is not a normal
// number.
func expBlock(x []float64, c float64) []float64 {
	out := make([]float64, len(x))
	for j, v := range x {
		if out[j] = math.Exp(c * v); !normal(out[j]) {
			return nil
		}
	}
	return out
}

// normal reports a finite x ≥ the smallest normal float64: a factor whose
// product keeps its relative precision.
func normal(x float64) bool { return x >= 0x1p-1022 && x <= math.MaxFloat64 }

// scale is ∂ℓ/∂z = −b·σ(−b·z) at z = ⟨w, φᵢ(y)⟩.
func (g *logisticGrad) scale(pub *Public, i, y int) float64 {
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
