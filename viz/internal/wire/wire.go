// Package wire writes and reads the typed buffers that cross from Go to
// the page (the side panel's, see viz.EncodeControls) and between copies
// of a lesson: a lesson's computation goes from the copy that computes it
// (the page's compute worker, the desktop's goroutine) to the copy that
// shows it (viz.Remote) as progress reports, then a finished run sent in
// parts (Sender) and gathered (Gatherer).
//
// The bytes are little-endian numbers, lengths before slices (all ones for
// nil, which a trace's JSON tells from empty). A Reader refuses, rather
// than allocates, a length longer than the bytes left (each element
// taking at least the bytes its reader says), and a Gatherer a run over
// MaxWhole, so a corrupt buffer cannot make a copy allocate without bound.
package wire

import (
	"encoding/binary"
	"errors"
	"math"
	"strconv"
	"unicode/utf8"
)

// Writer appends an outcome's fields to B.
type Writer struct{ B []byte }

const nilLen = math.MaxUint32

// Byte writes one byte.
func (w *Writer) Byte(v byte) { w.B = append(w.B, v) }

// Bool writes 1 or 0.
func (w *Writer) Bool(v bool) {
	if v {
		w.Byte(1)
	} else {
		w.Byte(0)
	}
}

// Int writes v, which must be in [0, 2³²−1), in four bytes.
func (w *Writer) Int(v int) { w.B = binary.LittleEndian.AppendUint32(w.B, uint32(v)) }

// Float writes v's eight bytes.
func (w *Writer) Float(v float64) {
	w.B = binary.LittleEndian.AppendUint64(w.B, math.Float64bits(v))
}

// Length writes a slice's length, or that it is nil.
func (w *Writer) Length(n int, isNil bool) {
	if isNil {
		n = nilLen
	}
	w.Int(n)
}

// Floats writes a slice of numbers, nil kept apart from empty.
func (w *Writer) Floats(v []float64) {
	w.Length(len(v), v == nil)
	for _, x := range v {
		w.Float(x)
	}
}

// Ints writes a slice of whole numbers in [0, 2³²−1), nil kept apart
// from empty.
func (w *Writer) Ints(v []int) {
	w.Length(len(v), v == nil)
	for _, x := range v {
		w.Int(x)
	}
}

// String writes a text.
func (w *Writer) String(v string) {
	w.Int(len(v))
	w.B = append(w.B, v...)
}

// ErrShort is a Reader's error for bytes that end early or do not say
// what the reader expects.
var ErrShort = errors.New("an outcome cut short")

// Reader reads what a Writer wrote. The first short or malformed read sets
// Err, and every read after it gives zeros: check Err once, after a group
// of reads.
type Reader struct {
	B   []byte
	Err error
}

// Take returns the next n bytes (nil, setting Err, when fewer are left).
func (r *Reader) Take(n int) []byte {
	if r.Err != nil || n < 0 || n > len(r.B) {
		r.Err = ErrShort
		return nil
	}
	out := r.B[:n]
	r.B = r.B[n:]
	return out
}

// Rest is how many bytes are left.
func (r *Reader) Rest() int { return len(r.B) }

// Byte reads one byte.
func (r *Reader) Byte() byte {
	if b := r.Take(1); b != nil {
		return b[0]
	}
	return 0
}

// Bool reads 1 or 0; any other byte is an error.
func (r *Reader) Bool() bool {
	switch r.Byte() {
	case 0:
		return false
	case 1:
		return true
	}
	r.Err = ErrShort
	return false
}

// Int reads four bytes' whole number.
func (r *Reader) Int() int {
	if b := r.Take(4); b != nil {
		return int(binary.LittleEndian.Uint32(b))
	}
	return 0
}

// Float reads a number.
func (r *Reader) Float() float64 {
	if b := r.Take(8); b != nil {
		return math.Float64frombits(binary.LittleEndian.Uint64(b))
	}
	return 0
}

// Length reads a slice's length, -1 for nil; one longer than the bytes
// left (each element takes size of them) is refused before allocating.
func (r *Reader) Length(size int) int {
	n := r.Int()
	if r.Err != nil || n == nilLen {
		return -1
	}
	if n > len(r.B)/size {
		r.Err = ErrShort
		return -1
	}
	return n
}

// Floats reads a slice of numbers.
func (r *Reader) Floats() []float64 {
	n := r.Length(8)
	if n < 0 {
		return nil
	}
	out := make([]float64, n)
	for i := range out {
		out[i] = r.Float()
	}
	return out
}

// Ints reads a slice of whole numbers.
func (r *Reader) Ints() []int {
	n := r.Length(4)
	if n < 0 {
		return nil
	}
	out := make([]int, n)
	for i := range out {
		out[i] = r.Int()
	}
	return out
}

// String reads a text, which must be UTF-8.
func (r *Reader) String() string {
	b := r.Take(r.Int())
	if r.Err == nil && !utf8.Valid(b) {
		r.Err = errors.New("an outcome's text that is not UTF-8")
	}
	return string(b)
}

// The kinds of outcome: a progress report while computing, then the
// finished run's parts.
const (
	kindProgress byte = iota
	kindPart
)

// Progress is an outcome saying how far the computation is (frac, in
// [0, 1]) and what it is doing.
func Progress(frac float64, stage string) []byte {
	var w Writer
	w.Byte(kindProgress)
	w.Float(frac)
	w.String(stage)
	return w.B
}

// DefaultPart is the most bytes of a run one outcome carries: copying one
// into the page's Go takes a millisecond or two; a 9 MB run in one took
// 40 ms.
const DefaultPart = 1 << 20

// MaxWhole bounds a whole run's bytes, so that a corrupt total is refused
// before it is allocated.
const MaxWhole = 64 << 20

// Sender sends a finished run in parts of at most Part bytes
// (DefaultPart if 0).
type Sender struct {
	Part  int
	whole []byte
	at    int
}

// A finished computation's first byte: a run, or why its settings were
// refused.
const (
	finishedRun byte = iota
	finishedRefused
)

// Next returns the next part of the finished computation, and whether it
// is the last. The first call after Reset encodes it: why the settings
// were refused, if refused is not nil, or else the run, with encode.
func (s *Sender) Next(refused error, encode func(w *Writer)) (data []byte, done bool) {
	if s.whole == nil {
		w := Writer{B: []byte{finishedRun}}
		if refused != nil {
			w.B[0] = finishedRefused
			w.String(refused.Error())
		} else {
			encode(&w)
		}
		s.whole, s.at = w.B, 0
	}
	size := s.Part
	if size <= 0 {
		size = DefaultPart
	}
	part := s.whole[s.at:min(len(s.whole), s.at+size)]
	w := Writer{B: make([]byte, 0, 9+len(part))}
	w.Byte(kindPart)
	w.Int(s.at)
	w.Int(len(s.whole))
	w.B = append(w.B, part...)
	s.at += len(part)
	return w.B, s.at == len(s.whole)
}

// Reset forgets the run sent, for the next.
func (s *Sender) Reset() { s.whole, s.at = nil, 0 }

// A run computed elsewhere fills one bar: the other copy's progress the
// first computedShare of it, the parts' arrival on to receivedShare, and
// the reading of the run here (Reading) the rest, so that the bar does not
// go back as the run's parts arrive and are read. (It does when a run the
// page had begun is handed out: the other copy starts it over.)
const (
	computedShare = 0.9
	receivedShare = 0.95
)

// Preparing is the stage while the run computed elsewhere arrives and is
// read: a student needs no word of cores.
const Preparing = "preparing the figure"

// Computed is the bar's share when the other copy reports frac done.
func Computed(frac float64) float64 { return computedShare * frac }

// Reading is the bar's share when frac of the gathered run has been read.
func Reading(frac float64) float64 { return receivedShare + (1-receivedShare)*frac }

// Gatherer takes another copy's outcomes: it keeps the last progress
// report and gathers the parts of the finished run.
type Gatherer struct {
	// Frac and Stage are the bar's share (Computed) and the stage of the
	// last progress report ("" before any); while parts arrive, a share
	// between it and Reading(0), and Preparing.
	Frac  float64
	Stage string
	got   []byte
	lost  bool
}

// Take reads one outcome, done when the other copy said it was its last.
// With the last part it returns a reader of the run, or why the other copy
// refused the settings; neither when a part went missing (the run
// restarted while its parts came in: the hold ends with nothing read, and
// the front end hands the run out again or the caller computes it). An
// outcome that does not decode is an error.
func (g *Gatherer) Take(data []byte, done bool) (run *Reader, refused, err error) {
	r := Reader{B: data}
	switch r.Byte() {
	case kindProgress:
		frac, stage := r.Float(), r.String()
		if done || r.Err != nil || !(frac >= 0 && frac <= 1) || r.Rest() != 0 {
			return nil, nil, errors.New("a progress report that does not decode")
		}
		g.Frac, g.Stage = Computed(frac), stage
		return nil, nil, nil
	case kindPart:
		at, total := r.Int(), r.Int()
		if r.Err != nil || total > MaxWhole || total < at+r.Rest() || done != (at+r.Rest() == total) {
			return nil, nil, errors.New("a part of a run that does not decode")
		}
		if at == 0 {
			// Room for the whole: appending by doubling would copy
			// megabytes within one call.
			g.got, g.lost = make([]byte, 0, total), false
		}
		if g.lost || at != len(g.got) {
			g.got, g.lost = nil, true
		} else {
			g.got = append(g.got, r.B...)
			g.Frac, g.Stage = computedShare+(receivedShare-computedShare)*float64(len(g.got))/float64(total), Preparing
		}
	default:
		return nil, nil, errors.New("an outcome that does not decode")
	}
	if !done {
		return nil, nil, nil
	}
	whole, lost := g.got, g.lost
	*g = Gatherer{}
	if lost {
		return nil, nil, nil
	}
	all := &Reader{B: whole}
	kind := all.Byte()
	if all.Err != nil {
		return nil, nil, errors.New("a run of no bytes")
	}
	switch kind {
	case finishedRun:
		return all, nil, nil
	case finishedRefused:
		msg := all.String()
		if all.Err != nil || all.Rest() != 0 {
			return nil, nil, errors.New("a refusal that does not decode")
		}
		return nil, errors.New(msg), nil
	}
	return nil, nil, errors.New("a run that does not decode")
}

// Reset forgets what was gathered and reported.
func (g *Gatherer) Reset() { *g = Gatherer{} }

// Handoff is a lesson's side of a computation another copy may do: on the
// copy computing it, the run being sent; on the copy shown, what the
// other said and sent, and whether the lesson's job reads the run
// (Decoding) or, the run not decoding, computes it (FellBack). Neither of
// those two is handed out again.
type Handoff struct {
	Send     Sender
	Got      Gatherer
	Decoding bool
	FellBack bool
}

// Progress is the bar's share and the stage of the run under way, given
// the lesson's own job's: the other copy's report while it computes, the
// reading's place on the one bar while the job reads its run, else the
// job's own.
func (h *Handoff) Progress(frac float64, stage string) (float64, string) {
	switch {
	case h.Decoding:
		return Reading(frac), Preparing
	case h.Got.Stage != "":
		return h.Got.Frac, h.Got.Stage
	}
	return frac, stage
}

// Key names a computation: the lesson's name and every number and word it
// depends on, numbers exactly (so that a copy restored from a link with
// rounded settings names another).
func Key(name string, numbers []float64, words ...string) string {
	b := []byte(name)
	for _, v := range numbers {
		b = strconv.AppendFloat(append(b, ' '), v, 'g', -1, 64)
	}
	for _, w := range words {
		b = append(append(b, ' '), w...)
	}
	return string(b)
}
