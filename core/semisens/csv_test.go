package semisens

import (
	"bytes"
	"strings"
	"testing"

	"github.com/uldplab/uldp/core/rng"
)

func TestCSV(t *testing.T) {
	d, err := Generate(Spec{N: 50, K: 5, DimPub: 3, Effect: 2}, rng.New(2).Get(rng.Data))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteCSV(&b, d); err != nil {
		t.Fatal(err)
	}
	back, err := ReadCSV(bytes.NewReader(b.Bytes()), 5)
	if err != nil {
		t.Fatal(err)
	}
	if i, ok := Neighbours(d, back); !ok || i != -1 {
		t.Errorf("the CSV round trip changed the data (%d, %v)", i, ok)
	}
	for _, c := range []struct{ in, want string }{
		{"", "empty"},
		{"x1,label,sensitive\n", `column 1 should be "a1"`},
		{"a1,label,sensitive\n0.5,1,9\n", "line 2: sensitive value \"9\""},
		{"a1,label,sensitive\n0.5,0,1\n", "line 2: label \"0\""},
		{"a1,label,sensitive\nNaN,1,1\n", "line 2, column a1"},
		{"a1,label,sensitive\n0.5,1\n", "line 2"},
		{"a1,label,sensitive\n2,1,1\n", ""}, // a norm > 1 is the model's to refuse
		{"label,sensitive\n1,1\n", "has no public features"},
		{strings.Repeat("\x00", 3<<20), "line 1: a line is longer than 1048576 bytes"}, // /dev/zero: one endless line
	} {
		_, err := ReadCSV(strings.NewReader(c.in), 5)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: %v", c.in, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%q: %v, want %q", c.in, err, c.want)
		}
	}
}
