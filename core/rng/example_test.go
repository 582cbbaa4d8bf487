package rng_test

import (
	"fmt"

	"github.com/uldplab/uldp/core/rng"
)

// Re-rolling one stream leaves the others exactly as they were.
func ExampleStreams_Reroll() {
	s := rng.New(42)
	gauss := s.Fresh().Get(rng.Gauss).Uint64()
	tdlap := s.Fresh().Get(rng.TDLap).Uint64()

	s.Reroll(rng.TDLap)
	fmt.Println("gauss unchanged:", s.Fresh().Get(rng.Gauss).Uint64() == gauss)
	fmt.Println("tdlap unchanged:", s.Fresh().Get(rng.TDLap).Uint64() == tdlap)
	// Output:
	// gauss unchanged: true
	// tdlap unchanged: false
}
