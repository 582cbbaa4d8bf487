package scenetest

import (
	"testing"
	"time"

	"github.com/uldplab/uldp/viz"
)

// The front ends give viz a clock, and so do the tests of every package
// that imports this one: work between frames is then sliced as on a page.
func init() {
	start := time.Now()
	viz.Clock = func() float64 { return float64(time.Since(start)) / 1e6 }
}

// FakeClock makes every reading of viz.Clock a millisecond later than the
// last, until t ends: slices then end after as many readings whatever the
// machine's speed.
func FakeClock(t testing.TB) {
	old := viz.Clock
	t.Cleanup(func() { viz.Clock = old })
	var now float64
	viz.Clock = func() float64 { now++; return now }
}
