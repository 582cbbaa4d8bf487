package cryptorng

import (
	"testing"

	"github.com/uldplab/uldp/core/rng"
)

func TestStreams(t *testing.T) {
	c := New()
	if c.Replayable() || c.Seed() != 0 || c.String() != "crypto/rand (not replayable)" {
		t.Fatalf("crypto streams: replayable %v, seed %d, %q", c.Replayable(), c.Seed(), c)
	}
	a, b := c.Get(rng.Gauss).Uint64(), c.Get(rng.Gauss).Uint64()
	x, y := c.Get(rng.Gauss).Uint64(), c.Get(rng.Gauss).Uint64()
	// An accidental match of 128 random bits has probability 2⁻¹²⁸.
	if a == x && b == y {
		t.Fatal("the crypto stream repeated itself")
	}
	if c.Fresh().Replayable() {
		t.Error("Fresh lost the external source")
	}
}
