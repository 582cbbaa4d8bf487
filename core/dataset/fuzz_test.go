package dataset

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// FuzzReadCSV: the CSV reader never panics, every rejection has a message,
// and whatever it accepts is valid and survives a write/read round trip.
func FuzzReadCSV(f *testing.F) {
	for _, s := range []string{
		"user,x1,x2\n1,0.5,-0.2\n1,0.1,0.3\n2,1,2\n2,3,4\n",
		"user,x1\na,1\nb,2\na,3\nb,4\n",
		"user,x1\n# comment\n1,1e308\n",
		"user,x1\n1,NaN\n",
		"id,x1\n",
		"user,x1\n\"1\n",
		"user,x1\n\"#a\",1\nb,2\n",
	} {
		f.Add([]byte(s), false)
	}
	f.Add([]byte("user,x1\n1,1\n1,2\n2,3\n"), true)
	f.Fuzz(func(t *testing.T, b []byte, ragged bool) {
		d, err := ReadCSV(bytes.NewReader(b), ragged)
		if err != nil {
			if strings.TrimSpace(err.Error()) == "" {
				t.Fatalf("rejection without a message for %q", b)
			}
			return
		}
		if err := d.Validate(ragged); err != nil {
			t.Fatalf("accepted an invalid dataset: %v", err)
		}
		var buf bytes.Buffer
		if err := WriteCSV(&buf, d); err != nil {
			t.Fatal(err)
		}
		back, err := ReadCSV(&buf, ragged)
		if err != nil {
			t.Fatalf("written CSV does not read back: %v\n%s", err, buf.String())
		}
		if !reflect.DeepEqual(d, back) {
			t.Fatalf("round trip changed the data")
		}
	})
}
