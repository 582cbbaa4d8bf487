package viz

import (
	"encoding/binary"
	"math"

	"github.com/uldplab/uldp/core/privacy"
)

// PanelVersion is the layout version of EncodeControls, EncodeReadouts,
// EncodeGuarantee and EncodePalette.
const PanelVersion = 2

// The side panel crosses to the browser in typed buffers like the frame
// (see Encode), not JSON, so the browser's engine links no encoding/json.
// Every buffer starts with uint32 PanelVersion; then, little-endian:
//
//	str   uint32 byte length, then UTF-8 bytes
//	f64   IEEE 754 binary64
//	u8    one byte (flags: 1 true, 0 false)
//	u32   unsigned 32-bit count
//
// EncodeControls: u32 count, then per control: str name, label, kind,
// value; f64 min, max, step; u8 flags (1 log, 2 disabled); str unit;
// u32 choices and each str; str help, key, group.
func EncodeControls(cs []Control, buf []byte) []byte {
	w := wire(buf[:0])
	w.u32(PanelVersion)
	w.u32(uint32(len(cs)))
	for _, c := range cs {
		w.str(c.Name)
		w.str(c.Label)
		w.str(string(c.Kind))
		w.str(c.Value)
		w.f64(c.Min)
		w.f64(c.Max)
		w.f64(c.Step)
		var flags uint8
		if c.Log {
			flags |= 1
		}
		if c.Disabled {
			flags |= 2
		}
		w.u8(flags)
		w.str(c.Unit)
		w.u32(uint32(len(c.Choices)))
		for _, ch := range c.Choices {
			w.str(ch)
		}
		w.str(c.Help)
		w.str(c.Key)
		w.str(c.Group)
	}
	return w
}

// EncodeReadouts: u32 count, then per readout: str name, label; f64 value;
// str text, formula; u8 warn.
func EncodeReadouts(rs []Readout, buf []byte) []byte {
	w := wire(buf[:0])
	w.u32(PanelVersion)
	w.u32(uint32(len(rs)))
	for _, r := range rs {
		w.str(r.Name)
		w.str(r.Label)
		w.f64(r.Value)
		w.str(r.Text)
		w.str(r.Formula)
		w.bool(r.Warn)
	}
	return w
}

// EncodeGuarantee: u8 private (0: no guarantee, eps and delta follow as
// NaN); f64 eps, delta; str mode; u8 certified; str note; u32 count, then
// per precondition: str what; f64 have; str op; f64 need; u8 met; then
// str level, whose change the claim covers ("at user level", …).
func EncodeGuarantee(g privacy.Guarantee, buf []byte) []byte {
	w := wire(buf[:0])
	w.u32(PanelVersion)
	private := g.Mode != privacy.NonPrivate && !math.IsInf(g.Eps, 1)
	w.bool(private)
	if private {
		w.f64(g.Eps)
		w.f64(g.Delta)
	} else {
		w.f64(math.NaN())
		w.f64(math.NaN())
	}
	w.str(g.Mode.String())
	w.bool(g.Certified())
	w.str(g.Note)
	w.u32(uint32(len(g.Preconditions)))
	for _, p := range g.Preconditions {
		w.str(p.What)
		w.f64(p.Have)
		w.str(string(p.Op))
		w.f64(p.Need)
		w.bool(p.Met)
	}
	w.str(g.Level())
	return w
}

// EncodePalette: u32 count, then r, g, b bytes per colour, in Colour order.
func EncodePalette(buf []byte) []byte {
	w := wire(buf[:0])
	w.u32(PanelVersion)
	w.u32(uint32(numColours))
	for c := range Colour(numColours) {
		r, g, b, _ := c.RGBA()
		w = append(w, r, g, b)
	}
	return w
}

// wire appends typed fields to a buffer.
type wire []byte

func (w *wire) u32(v uint32)  { *w = binary.LittleEndian.AppendUint32(*w, v) }
func (w *wire) f64(v float64) { *w = binary.LittleEndian.AppendUint64(*w, math.Float64bits(v)) }
func (w *wire) u8(v uint8)    { *w = append(*w, v) }
func (w *wire) str(s string)  { w.u32(uint32(len(s))); *w = append(*w, s...) }

func (w *wire) bool(v bool) {
	if v {
		w.u8(1)
	} else {
		w.u8(0)
	}
}
