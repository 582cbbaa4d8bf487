package privacy

import (
	"math"

	"github.com/uldplab/uldp/core/format"
)

// CheckEps reports whether ε is a finite number > 0.
func CheckEps(eps float64) error {
	if !(eps > 0) || math.IsInf(eps, 1) {
		return format.Errorf("eps = %v: ε must be a finite number > 0 (e.g. 1)", eps)
	}
	return nil
}

// CheckDelta reports whether 0 < δ < 1.
func CheckDelta(delta float64) error {
	if !(delta > 0 && delta < 1) {
		return format.Errorf("delta = %v: δ must lie strictly between 0 and 1 (e.g. 1e-5)", delta)
	}
	return nil
}

// CheckSens reports whether a sensitivity Δ is a finite number > 0.
func CheckSens(sens float64) error {
	if !(sens > 0) || math.IsInf(sens, 1) {
		return format.Errorf("sens = %v: the sensitivity Δ must be a finite number > 0", sens)
	}
	return nil
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
