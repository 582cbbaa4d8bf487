package dataset

import (
	"bytes"
	"testing"

	"github.com/uldplab/uldp/core/rng"
)

// The playground's largest preset: 2,000 users × 20 items in 2-D.
var playground = Spec{Kind: Gaussian, N: 2000, M: 20, D: 2}

func BenchmarkGenerate(b *testing.B) {
	for b.Loop() {
		if _, err := Generate(playground, rng.New(1)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMeans(b *testing.B) {
	d, _ := Generate(playground, rng.New(1))
	for b.Loop() {
		d.Means()
	}
}

func BenchmarkReadCSV(b *testing.B) {
	d, _ := Generate(playground, rng.New(1))
	var buf bytes.Buffer
	if err := WriteCSV(&buf, d); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	for b.Loop() {
		if _, err := ReadCSV(bytes.NewReader(buf.Bytes()), false); err != nil {
			b.Fatal(err)
		}
	}
}
