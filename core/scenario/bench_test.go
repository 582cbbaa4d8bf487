package scenario

import (
	"os"
	"strings"
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

// BenchmarkDecodeLongUnknownField: a misspelt key is compared with the known
// ones only when their lengths are within the suggestion's edit distance.
func BenchmarkDecodeLongUnknownField(b *testing.B) {
	raw := []byte(`{"` + strings.Repeat("x", 4096) + `": 1}`)
	for b.Loop() {
		if _, err := decode(raw); err == nil {
			b.Fatal("accepted an unknown field")
		}
	}
}
