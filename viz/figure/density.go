package figure

import (
	"github.com/uldplab/uldp/core/noise"
	"github.com/uldplab/uldp/core/privacy"
)

// Density returns a calibration's noise density at x: Laplace's or the
// Gaussian's.
func Density(cal privacy.Calibration, x float64) float64 {
	if cal.Mechanism == privacy.MechLaplace {
		return noise.Laplace{Scale: cal.Scale}.Prob(x)
	}
	return noise.Gaussian{Sigma: cal.Scale}.Prob(x)
}
