package viz

import (
	"math"

	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/viz/internal/wire"
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
	w := wire.Writer{B: buf[:0]}
	w.Int(PanelVersion)
	w.Int(len(cs))
	for _, c := range cs {
		w.String(c.Name)
		w.String(c.Label)
		w.String(string(c.Kind))
		w.String(c.Value)
		w.Float(c.Min)
		w.Float(c.Max)
		w.Float(c.Step)
		var flags uint8
		if c.Log {
			flags |= 1
		}
		if c.Disabled {
			flags |= 2
		}
		w.Byte(flags)
		w.String(c.Unit)
		w.Int(len(c.Choices))
		for _, ch := range c.Choices {
			w.String(ch)
		}
		w.String(c.Help)
		w.String(c.Key)
		w.String(c.Group)
	}
	return w.B
}

// EncodeReadouts: u32 count, then per readout: str name, label; f64 value;
// str text, formula; u8 warn.
func EncodeReadouts(rs []Readout, buf []byte) []byte {
	w := wire.Writer{B: buf[:0]}
	w.Int(PanelVersion)
	w.Int(len(rs))
	for _, r := range rs {
		w.String(r.Name)
		w.String(r.Label)
		w.Float(r.Value)
		w.String(r.Text)
		w.String(r.Formula)
		w.Bool(r.Warn)
	}
	return w.B
}

// EncodeGuarantee: u8 private (0: no guarantee, eps and delta follow as
// NaN); f64 eps, delta; str mode; u8 certified; str note; u32 count, then
// per precondition: str what; f64 have; str op; f64 need; u8 met; then
// str level, whose change the claim covers ("at user level", …).
func EncodeGuarantee(g privacy.Guarantee, buf []byte) []byte {
	w := wire.Writer{B: buf[:0]}
	w.Int(PanelVersion)
	private := g.Mode != privacy.NonPrivate && !math.IsInf(g.Eps, 1)
	w.Bool(private)
	if private {
		w.Float(g.Eps)
		w.Float(g.Delta)
	} else {
		w.Float(math.NaN())
		w.Float(math.NaN())
	}
	w.String(g.Mode.String())
	w.Bool(g.Certified())
	w.String(g.Note)
	w.Int(len(g.Preconditions))
	for _, p := range g.Preconditions {
		w.String(p.What)
		w.Float(p.Have)
		w.String(string(p.Op))
		w.Float(p.Need)
		w.Bool(p.Met)
	}
	w.String(g.Level())
	return w.B
}

// EncodePalette: u32 count, then r, g, b bytes per colour, in Colour order.
func EncodePalette(buf []byte) []byte {
	w := wire.Writer{B: buf[:0]}
	w.Int(PanelVersion)
	w.Int(int(numColours))
	for c := range Colour(numColours) {
		r, g, b, _ := c.RGBA()
		w.B = append(w.B, r, g, b)
	}
	return w.B
}
