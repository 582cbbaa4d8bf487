// Package wiretest is the reference decoder of viz's panel buffers
// (EncodeControls, EncodeReadouts, EncodeGuarantee, EncodePalette), for
// tests: the page's JS decoder (site/static/app.js, class Wire) reads the
// same fields in the same order. It also makes the finished runs that the
// tests of viz.Remote lessons hand to a copy, whole or spoilt.
package wiretest

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/internal/wire"
)

// reader reads one buffer, failing t on a short or long one.
type reader struct {
	t testing.TB
	b []byte
}

func (r *reader) u32() uint32 {
	v := binary.LittleEndian.Uint32(r.b)
	r.b = r.b[4:]
	return v
}
func (r *reader) f64() float64 {
	v := math.Float64frombits(binary.LittleEndian.Uint64(r.b))
	r.b = r.b[8:]
	return v
}
func (r *reader) u8() uint8   { v := r.b[0]; r.b = r.b[1:]; return v }
func (r *reader) bool() bool  { return r.u8() != 0 }
func (r *reader) str() string { n := r.u32(); s := string(r.b[:n]); r.b = r.b[n:]; return s }
func (r *reader) version() {
	if v := r.u32(); v != viz.PanelVersion {
		r.t.Fatalf("version %d, want %d", v, viz.PanelVersion)
	}
}
func (r *reader) done() {
	if len(r.b) != 0 {
		r.t.Fatalf("%d bytes left over", len(r.b))
	}
}

// Controls decodes EncodeControls.
func Controls(t testing.TB, b []byte) []viz.Control {
	r := &reader{t, b}
	r.version()
	out := make([]viz.Control, r.u32())
	for i := range out {
		c := &out[i]
		c.Name, c.Label, c.Kind, c.Value = r.str(), r.str(), viz.ControlKind(r.str()), r.str()
		c.Min, c.Max, c.Step = r.f64(), r.f64(), r.f64()
		flags := r.u8()
		c.Log, c.Disabled = flags&1 != 0, flags&2 != 0
		c.Unit = r.str()
		if n := r.u32(); n > 0 {
			c.Choices = make([]string, n)
			for k := range c.Choices {
				c.Choices[k] = r.str()
			}
		}
		c.Help, c.Key, c.Group = r.str(), r.str(), r.str()
	}
	r.done()
	return out
}

// Readouts decodes EncodeReadouts.
func Readouts(t testing.TB, b []byte) []viz.Readout {
	r := &reader{t, b}
	r.version()
	out := make([]viz.Readout, r.u32())
	for i := range out {
		out[i] = viz.Readout{Name: r.str(), Label: r.str(), Value: r.f64(), Text: r.str(), Formula: r.str(), Warn: r.bool()}
	}
	r.done()
	return out
}

// Guarantee decodes EncodeGuarantee: eps, delta, note and preconditions
// into g, and the flags and mode name beside it.
func Guarantee(t testing.TB, b []byte) (g privacy.Guarantee, private, certified bool, mode string) {
	r := &reader{t, b}
	r.version()
	private = r.bool()
	g.Eps, g.Delta = r.f64(), r.f64()
	mode = r.str()
	certified = r.bool()
	g.Note = r.str()
	for range r.u32() {
		g.Preconditions = append(g.Preconditions, privacy.Precondition{What: r.str(), Have: r.f64(), Op: privacy.Op(r.str()), Need: r.f64(), Met: r.bool()})
	}
	if level := r.str(); level == (privacy.Guarantee{Relation: privacy.SemiSensitive}).Level() {
		g.Relation = privacy.SemiSensitive
	}
	r.done()
	return g, private, certified, mode
}

// Palette decodes EncodePalette.
func Palette(t testing.TB, b []byte) [][3]uint8 {
	r := &reader{t, b}
	r.version()
	out := make([][3]uint8, r.u32())
	for i := range out {
		out[i] = [3]uint8{r.u8(), r.u8(), r.u8()}
	}
	r.done()
	return out
}

// Finished is a finished computation's bytes as a wire.Sender sends them
// before it cuts them into parts: why the settings were refused, if
// refused is not nil, or else the run encode writes.
func Finished(refused error, encode func(w *wire.Writer)) []byte {
	s := wire.Sender{Part: wire.MaxWhole}
	data, _ := s.Next(refused, encode)
	r := wire.Reader{B: data}
	r.Byte() // the part's header: its kind, its place, the total
	r.Int()
	r.Int()
	return r.B
}

// Last wraps a finished computation's bytes (Finished's, or bytes made to
// look like them) as one outcome, the last.
func Last(finished []byte) []byte {
	var s wire.Sender
	data, _ := s.Next(nil, func(w *wire.Writer) { w.B = append(w.B[:0], finished...) })
	return data
}
