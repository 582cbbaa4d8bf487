package scenario

import (
	"os"
	"testing"
)

func BenchmarkDecode(b *testing.B) {
	raw, err := os.ReadFile("testdata/inline.json")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := decode(raw); err != nil {
			b.Fatal(err)
		}
	}
}
