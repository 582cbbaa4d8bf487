package optim

import "math"

// On the squared loss ½‖θ − x‖² (loss.Squared{Mu: 1}), with every user kept,
// no smoothing and a domain too wide to project, a DP-SGD run started at the
// population optimum μ is linear in its randomness: θ̂ − μ =
// ItemGain(η, T)·(x̄ − μ) + the steps' noises averaged along the descent,
// each step's noise weighed so that its variance enters as
// NoiseGain(η, T)·σ². These closed forms are what the rate tests and the
// rates explorer check measured errors against.

// ItemGain is c_T = 1 − (1 − (1−η)^T)/(ηT): how much of the items' mean
// error x̄ − μ the average of T iterates keeps, started at μ.
func ItemGain(eta float64, steps int) float64 {
	return 1 - (1-math.Pow(1-eta, float64(steps)))/(eta*float64(steps))
}

// NoiseGain is Σ_t V_t for θ̂ = (1/T)Σ e_t with e_1 fixed and
// e_{t+1} = (1−η)e_t − ηξ_t: the variance of θ̂'s noise part per unit
// variance of ξ, (1/T²)·Σ_{s=1}^{T−1} (1 − (1−η)^{T−s})².
func NoiseGain(eta float64, steps int) float64 {
	var v float64
	for s := 1; s < steps; s++ {
		v += math.Pow(1-math.Pow(1-eta, float64(steps-s)), 2)
	}
	return v / float64(steps*steps)
}
