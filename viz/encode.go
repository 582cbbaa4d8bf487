package viz

import (
	"encoding/binary"
	"math"
	"slices"
)

// FrameVersion is the layout version of Encode's buffer.
const FrameVersion = 1

// itemHeader is the number of float32 fields before an item's points:
// kind, stroke, fill, alpha, width, dashed, align, size, id, r, textOffset,
// textLength, pointCount.
const itemHeader = 13

// Encode packs a display list into one little-endian buffer for the
// browser, so a frame crosses the wasm boundary as a single copy:
//
//	uint32 version, uint32 item count, uint32 float count, float32 width,
//	float32 height, then per item itemHeader float32 fields and 2·n point
//	coordinates, then the UTF-8 bytes of every item's text (each item holds
//	its offset and length into them).
func Encode(l *List, buf []byte) []byte {
	floats := 0
	textLen := 0
	for i := range l.Items {
		floats += itemHeader + 2*len(l.Items[i].P)
		textLen += len(l.Items[i].Text)
	}
	need := 20 + 4*floats + textLen
	// Grow geometrically: frames grow a little as a run plays, and a buffer
	// of exactly the last size would be replaced on every one of them.
	buf = slices.Grow(buf[:0], need)[:need]
	le := binary.LittleEndian
	le.PutUint32(buf[0:], FrameVersion)
	le.PutUint32(buf[4:], uint32(len(l.Items)))
	le.PutUint32(buf[8:], uint32(floats))
	le.PutUint32(buf[12:], math.Float32bits(float32(l.Width)))
	le.PutUint32(buf[16:], math.Float32bits(float32(l.Height)))
	off := 20
	put := func(v float64) {
		le.PutUint32(buf[off:], math.Float32bits(float32(v)))
		off += 4
	}
	text := 20 + 4*floats
	textOff := 0
	for i := range l.Items {
		it := &l.Items[i]
		dashed := 0.0
		if it.Style.Dashed {
			dashed = 1
		}
		alpha := it.Style.Alpha
		if alpha == 0 {
			alpha = 1
		}
		for _, v := range [...]float64{float64(it.Kind), float64(it.Style.Stroke), float64(it.Style.Fill), alpha,
			it.Style.Width, dashed, float64(it.Align), it.Size, float64(it.ID), it.R,
			float64(textOff), float64(len(it.Text)), float64(len(it.P))} {
			put(v)
		}
		for _, p := range it.P {
			put(p.X)
			put(p.Y)
		}
		copy(buf[text+textOff:], it.Text)
		textOff += len(it.Text)
	}
	return buf
}
