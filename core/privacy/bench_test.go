package privacy

import "testing"

var sinkCal Calibration

// The noise-calibration lesson re-solves on every slider move.
func BenchmarkAnalyticGaussianSigma(b *testing.B) {
	for b.Loop() {
		sinkCal, _ = AnalyticGaussianSigma(1, 1e-5, 1)
	}
}

func BenchmarkDelOutputPert(b *testing.B) {
	for b.Loop() {
		c, _ := DelOutputPert(1, 1e-5, 1)
		sinkCal = c.Calibration
	}
}
