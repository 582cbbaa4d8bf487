// Package cryptorng gives rng streams backed by the operating system's
// cryptographic generator: the streams for runs whose output is meant to be
// private. They cannot be replayed.
package cryptorng

import (
	"crypto/rand"
	"encoding/binary"

	"github.com/uldplab/uldp/core/rng"
)

// New returns streams that read crypto/rand.
func New() *rng.Streams { return rng.NewExternal("crypto/rand", source{}) }

// source reads 8 bytes from crypto/rand per draw.
type source struct{}

func (source) Uint64() uint64 {
	var b [8]byte
	// crypto/rand.Read never returns an error on supported platforms (Go 1.24+).
	_, _ = rand.Read(b[:])
	return binary.LittleEndian.Uint64(b[:])
}
