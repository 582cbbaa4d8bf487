package scenetest

import (
	"time"

	"github.com/uldplab/uldp/viz"
)

// The front ends give viz a clock, and so do the tests of every package
// that imports this one: work between frames is then sliced as on a page.
func init() {
	start := time.Now()
	viz.Clock = func() float64 { return float64(time.Since(start)) / 1e6 }
}
