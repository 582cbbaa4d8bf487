package semisens

import (
	"math"

	"github.com/uldplab/uldp/core/cancel"
	"github.com/uldplab/uldp/core/format"
)

// Oracle answers a gradient at w, or ok = false when it can answer no more
// (PVMW's FAIL).
type Oracle func(w []float64) (g []float64, ok bool, err error)

// Descent is a first-order method run on an Oracle over the ball B(0, R).
type Descent struct {
	// Steps is q, the oracle calls.
	Steps int
	// Radius is R.
	Radius float64
	// Step is the step size: R/(G√q) for projected gradient descent on a
	// G-Lipschitz loss, 1/(2λ) for the inexact-oracle method on a
	// λ-smooth one.
	Step float64
	// Last outputs the last iterate (the inexact-oracle method) instead
	// of the average of w₁…w_q (projected gradient descent).
	Last bool
}

// MaxSteps bounds a descent's oracle calls.
const MaxSteps = 100_000

// Validate checks the descent.
func (d Descent) Validate() error {
	switch {
	case d.Steps < 1 || d.Steps > MaxSteps:
		return format.Errorf("q = %d steps: give 1 to %d", d.Steps, MaxSteps)
	case !(d.Radius > 0) || math.IsInf(d.Radius, 1):
		return format.Errorf("R = %v: the domain's radius must be a finite number > 0", d.Radius)
	case !(d.Step > 0) || math.IsInf(d.Step, 1):
		return format.Errorf("step = %v: the step size must be a finite number > 0", d.Step)
	}
	return nil
}

// DescentResult is a descent's output and its path.
type DescentResult struct {
	W        []float64   `json:"w"`
	Iterates [][]float64 `json:"iterates"` // w₁ … w_{s} for the s answered calls
	Answered int         `json:"answered"`
	Failed   bool        `json:"failed"`
}

// Run descends from w₁ = 0: w_{s+1} = Π(w_s − step·g(w_s)). On a failed
// call it stops and outputs what it has (the average so far, or the last
// iterate). after, if not nil, sees every answered call.
func (d Descent) Run(ctx cancel.Context, dim int, oracle Oracle, after func(s int, w, g []float64)) (DescentResult, error) {
	if err := d.Validate(); err != nil {
		return DescentResult{}, err
	}
	w := make([]float64, dim)
	sum := make([]float64, dim)
	var res DescentResult
	for s := range d.Steps {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		g, ok, err := oracle(w)
		if err != nil {
			return res, err
		}
		if !ok {
			res.Failed = true
			break
		}
		res.Iterates = append(res.Iterates, append([]float64(nil), w...))
		for j := range w {
			sum[j] += w[j]
		}
		res.Answered++
		if after != nil {
			after(s+1, w, g)
		}
		for j := range w {
			w[j] -= d.Step * g[j]
		}
		project(w, d.Radius)
	}
	switch {
	case d.Last && res.Answered > 0:
		res.W = res.Iterates[len(res.Iterates)-1]
		if !res.Failed {
			res.W = w
		}
	case res.Answered > 0:
		res.W = sum
		scale(res.W, 1/float64(res.Answered))
	default:
		res.W = make([]float64, dim)
	}
	return res, nil
}

// project moves w onto the ball B(0, r).
func project(w []float64, r float64) {
	if n := norm(w); n > r {
		scale(w, r/n)
	}
}
