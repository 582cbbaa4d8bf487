package wire

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"testing"
)

// What a Writer writes, a Reader reads back the same: nil apart from
// empty, NaN and infinities by their bits.
func TestRoundTrip(t *testing.T) {
	var w Writer
	w.Byte(7)
	w.Bool(true)
	w.Bool(false)
	w.Int(math.MaxUint32 - 1)
	w.Float(math.NaN())
	w.Float(math.Inf(-1))
	w.Floats(nil)
	w.Floats([]float64{})
	w.Floats([]float64{1.5, -2})
	w.Ints(nil)
	w.Ints([]int{0, 3})
	w.String("θ̂ ≤ 1")
	r := Reader{B: w.B}
	if r.Byte() != 7 || !r.Bool() || r.Bool() || r.Int() != math.MaxUint32-1 {
		t.Fatal("the first fields read back differently")
	}
	if x, y := r.Float(), r.Float(); !math.IsNaN(x) || !math.IsInf(y, -1) {
		t.Errorf("NaN and −∞ read back as %v and %v", x, y)
	}
	if a, b, c := r.Floats(), r.Floats(), r.Floats(); a != nil || b == nil || len(b) != 0 || !reflect.DeepEqual(c, []float64{1.5, -2}) {
		t.Errorf("slices of numbers read back as %#v, %#v, %#v", a, b, c)
	}
	if a, b := r.Ints(), r.Ints(); a != nil || !reflect.DeepEqual(b, []int{0, 3}) {
		t.Errorf("whole numbers read back as %#v, %#v", a, b)
	}
	if s := r.String(); s != "θ̂ ≤ 1" || r.Err != nil || r.Rest() != 0 {
		t.Errorf("the text read back as %q (err %v, %d bytes left)", s, r.Err, r.Rest())
	}
}

// Bytes cut short, a length beyond the bytes left, a flag that is
// neither 0 nor 1 and a text that is not UTF-8 are errors, and every read
// after the first gives zeros.
func TestReaderRefuses(t *testing.T) {
	var w Writer
	w.Floats([]float64{1, 2, 3})
	for _, c := range []struct {
		what string
		b    []byte
		read func(r *Reader)
	}{
		{"numbers cut short", w.B[:len(w.B)-1], func(r *Reader) { r.Floats() }},
		{"a length of 4 G numbers", []byte{0xfe, 0xff, 0xff, 0xff, 0}, func(r *Reader) { r.Floats() }},
		{"a length of 4 G whole numbers", []byte{0xfe, 0xff, 0xff, 0xff, 0}, func(r *Reader) { r.Ints() }},
		{"a flag of 2", []byte{2}, func(r *Reader) { r.Bool() }},
		{"a text that is not UTF-8", []byte{1, 0, 0, 0, 0xff}, func(r *Reader) { _ = r.String() }},
		{"a text longer than its bytes", []byte{9, 0, 0, 0, 'a'}, func(r *Reader) { _ = r.String() }},
	} {
		r := Reader{B: c.b}
		c.read(&r)
		if r.Err == nil {
			t.Errorf("%s: read without an error", c.what)
		}
		if r.Float() != 0 || r.Int() != 0 || r.Floats() != nil {
			t.Errorf("%s: a read after the error gave something", c.what)
		}
	}
}

// A run sent in parts is gathered whole, whatever the size of the parts,
// with the share gathered as progress; progress reports are kept.
func TestSentInParts(t *testing.T) {
	run := make([]byte, 1000)
	for i := range run {
		run[i] = byte(i * 7)
	}
	for _, size := range []int{1, 7, 999, 1000, 0} {
		s := Sender{Part: size}
		var g Gatherer
		if got, _, err := g.Take(Progress(0.25, "steps"), false); got != nil || err != nil || g.Frac != Computed(0.25) || g.Stage != "steps" {
			t.Fatalf("a progress report: %v; %v of %q", err, g.Frac, g.Stage)
		}
		var whole *Reader
		parts := 0
		for done := false; !done; parts++ {
			var data []byte
			data, done = s.Next(nil, func(w *Writer) { w.B = append(w.B, run...) })
			got, refused, err := g.Take(data, done)
			if err != nil || refused != nil {
				t.Fatalf("parts of %d: part %d: %v, refused %v", size, parts+1, err, refused)
			}
			if done {
				whole = got
			} else if got != nil || g.Stage != Preparing || !(g.Frac > Computed(1) && g.Frac < Reading(0)) {
				t.Fatalf("parts of %d: after part %d, a run and %v of %q", size, parts+1, g.Frac, g.Stage)
			}
		}
		if whole == nil || !bytes.Equal(whole.B, run) {
			t.Errorf("parts of %d: gathered bytes that differ from the run's %d", size, len(run))
		}
		// The run and the byte saying it is one.
		if want := (len(run) + 1 + max(size, 1) - 1) / max(size, 1); size > 0 && parts != want {
			t.Errorf("parts of %d: %d parts, want %d", size, parts, want)
		}
		if g.Stage != "" || g.Frac != 0 {
			t.Errorf("parts of %d: after the run, %v of %q", size, g.Frac, g.Stage)
		}
	}
}

// Outcomes that do not say what they are, or contradict themselves, are
// refused; a part out of place makes the run lost: nil with the last.
func TestGathererRefuses(t *testing.T) {
	one := func() []byte {
		var s Sender
		data, _ := s.Next(nil, func(w *Writer) {})
		return data
	}
	huge := one()
	copy(huge[5:9], []byte{0xff, 0xff, 0xff, 0xff})
	badKind := one()
	badKind[9] = 7
	var rs Sender
	refusal, _ := rs.Next(errors.New("no"), nil)
	refusal[10] = 9 // the message's length: beyond its bytes
	var es Sender
	empty, _ := es.Next(nil, func(w *Writer) { w.B = w.B[:0] })
	for _, c := range []struct {
		what string
		data []byte
		done bool
	}{
		{"a progress report said to be the last", Progress(0.5, "x"), true},
		{"a progress report cut short", Progress(0.5, "x")[:5], false},
		{"a progress report beyond 1", Progress(1.5, "x"), false},
		{"a progress report with bytes after it", append(Progress(0.5, "x"), 0), false},
		{"the last part said to be under way", one(), false},
		{"a part said to be the last", one()[:7], true},
		{"a run of 4 GB", huge, false},
		{"an outcome of no known kind", []byte{9}, false},
		{"nothing", nil, false},
		{"a finished computation of no known kind", badKind, true},
		{"a refusal longer than its bytes", refusal, true},
		{"a finished computation of no bytes", empty, true},
	} {
		var g Gatherer
		if _, _, err := g.Take(c.data, c.done); err == nil {
			t.Errorf("%s was taken", c.what)
		}
	}
	s := Sender{Part: 2}
	var g Gatherer
	first, _ := s.Next(nil, func(w *Writer) { w.B = append(w.B, 2, 3, 4, 5, 6) })
	second, _ := s.Next(nil, nil)
	third, done := s.Next(nil, nil)
	if !done {
		t.Fatal("six bytes in parts of 2 took more than three parts")
	}
	if got, _, err := g.Take(first, false); got != nil || err != nil {
		t.Fatalf("the first part: %v", err)
	}
	if got, _, err := g.Take(third, false); err == nil || got != nil {
		t.Fatal("the last part said to be under way was taken")
	}
	if got, refused, err := g.Take(third, true); got != nil || refused != nil || err != nil {
		t.Errorf("a run with its second part missing gathered %v (refused %v, %v)", got, refused, err)
	}
	if got, _, err := g.Take(second, false); got != nil || err != nil || g.Stage != "" {
		t.Errorf("a part after a lost run: %v, stage %q", err, g.Stage)
	}
	s.Reset()
	if data, done := s.Next(nil, func(w *Writer) { w.Byte(5) }); !done || data[len(data)-1] != 5 {
		t.Error("after Reset, the sender sent the old run")
	}
	// A refusal arrives as the error it was.
	rs.Reset()
	data, _ := rs.Next(errors.New("ε must be positive"), nil)
	if run, refused, err := g.Take(data, true); run != nil || err != nil || refused == nil || refused.Error() != "ε must be positive" {
		t.Errorf("a refusal gathered as %v, %v, %v", run, refused, err)
	}
}
