package main

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"slices"
)

// maxFill is the longest run of zeros fillGaps writes out to join two data
// segments. Go's linker starts a new segment at every run of 8 or more
// zeros, and most of a module's 30,000–40,000 segments are the runtime's
// table from code addresses to functions (findfunctab): 20 bytes a bucket,
// 2 of them non-zero. Each segment costs about 7 bytes of header whose
// offsets no compressor can predict, while zeros cost it next to nothing;
// joined, an engine is 6–7 % smaller with brotli or gzip (the audit lab's
// 785 → 736 KB brotli). Larger runs (the few big zero areas) stay gaps, so
// the raw module grows only by the filled zeros (about 0.4 MB), which the
// page's memory holds either way.
const maxFill = 1024

// fillGaps returns the WebAssembly module mod with its data segments joined
// wherever at most maxFill zeros separate them, in offset order. The memory a module starts
// with is the same byte for byte: the zeros written out are zeros the
// memory already had. It accepts what Go's linker writes, active segments
// of memory 0 at constant offsets, and refuses anything else.
func fillGaps(mod []byte, maxFill int) ([]byte, error) {
	if len(mod) < 8 || !bytes.Equal(mod[:4], []byte("\x00asm")) {
		return nil, errors.New("not a WebAssembly module")
	}
	out := append([]byte(nil), mod[:8]...)
	for r := (reader{b: mod, i: 8}); r.i < len(mod); {
		id := r.byte()
		size := r.uleb()
		body := r.bytes(size)
		if r.err != nil {
			return nil, fmt.Errorf("section %d: %v", id, r.err)
		}
		if id == sectionDataCount {
			// It would have to change with the count, before the code.
			return nil, errors.New("the module has a data count section, which Go's linker does not write")
		}
		if id != sectionData {
			out = appendSection(out, id, body)
			continue
		}
		segs, err := readSegments(body)
		if err != nil {
			return nil, fmt.Errorf("data section: %v", err)
		}
		joined, err := join(segs, maxFill)
		if err != nil {
			return nil, fmt.Errorf("data section: %v", err)
		}
		out = appendSection(out, sectionData, dataBody(joined))
	}
	return out, nil
}

// The sections and instructions fillGaps reads and writes.
const (
	sectionData      = 11
	sectionDataCount = 12
	opI32Const       = 0x41
	opEnd            = 0x0b
)

// segment is an active data segment: data at memory offset off.
type segment struct {
	off  uint32
	data []byte
}

// dataBody is a data section's body holding segs.
func dataBody(segs []segment) []byte {
	body := appendULEB(nil, uint64(len(segs)))
	for _, s := range segs {
		body = append(body, 0, opI32Const)
		body = appendSLEB(body, int64(int32(s.off)))
		body = append(body, opEnd)
		body = appendULEB(body, uint64(len(s.data)))
		body = append(body, s.data...)
	}
	return body
}

func readSegments(body []byte) ([]segment, error) {
	r := reader{b: body}
	n := r.uleb()
	segs := make([]segment, 0, min(n, len(body)))
	for k := 0; k < n && r.err == nil; k++ {
		// Each check stands only if what it read was there: a short or
		// malformed number is reported as such, after the loop.
		if flags := r.uleb(); r.err == nil && flags != 0 {
			return nil, fmt.Errorf("segment %d is not an active segment of memory 0 (flags %d)", k, flags)
		}
		if op := r.byte(); r.err == nil && op != opI32Const {
			return nil, fmt.Errorf("segment %d's offset is not a constant (opcode %#x)", k, op)
		}
		// An i32.const, which memory reads as unsigned: -1 is offset 2³²−1.
		off := uint32(r.sleb())
		if op := r.byte(); r.err == nil && op != opEnd {
			return nil, fmt.Errorf("segment %d's offset is not a constant (no end after it)", k)
		}
		data := r.bytes(r.uleb())
		segs = append(segs, segment{off, data})
	}
	if r.err == nil && r.i != len(body) {
		r.err = fmt.Errorf("%d bytes after the last segment", len(body)-r.i)
	}
	return segs, r.err
}

// join merges segments at most maxFill bytes apart, and refuses overlapping
// ones: which of two writes to the same byte a module keeps depends on
// their order, which joining would change.
func join(segs []segment, maxFill int) ([]segment, error) {
	segs = slices.Clone(segs)
	slices.SortFunc(segs, func(a, b segment) int { return cmp.Compare(a.off, b.off) })
	var out []segment
	for _, s := range segs {
		if n := len(out); n > 0 {
			last := &out[n-1]
			switch gap := int64(s.off) - (int64(last.off) + int64(len(last.data))); {
			case gap < 0:
				return nil, fmt.Errorf("segments overlap at offset %d", s.off)
			case gap <= int64(maxFill):
				last.data = append(append(last.data, make([]byte, gap)...), s.data...)
				continue
			}
		}
		out = append(out, segment{s.off, append([]byte(nil), s.data...)})
	}
	return out, nil
}

// reader decodes WebAssembly's bytes and LEB128 numbers, keeping the first
// error (a truncated or oversized value) and reading zeros after it.
type reader struct {
	b   []byte
	i   int
	err error
}

func (r *reader) byte() byte {
	if r.err != nil || r.i >= len(r.b) {
		r.fail("the module ends early")
		return 0
	}
	r.i++
	return r.b[r.i-1]
}

func (r *reader) bytes(n int) []byte {
	if r.err != nil || n < 0 || n > len(r.b)-r.i {
		r.fail("the module ends early")
		return nil
	}
	r.i += n
	return r.b[r.i-n : r.i]
}

// uleb reads an unsigned LEB128 number of at most 32 bits.
func (r *reader) uleb() int {
	var v uint32
	for shift := 0; ; shift += 7 {
		c := r.byte()
		if shift == 28 && c > 0x0f {
			r.fail("a number over 32 bits")
			return 0
		}
		v |= uint32(c&0x7f) << shift
		if c < 0x80 {
			return int(v)
		}
	}
}

// sleb reads a signed LEB128 number of at most 32 bits.
func (r *reader) sleb() int32 {
	var v uint32
	for shift := 0; ; shift += 7 {
		c := r.byte()
		// The fifth byte holds bit 31 and must repeat it in its unused
		// bits: 0x00–0x07 for a positive number, 0x78–0x7f for a negative.
		if shift == 28 && c > 0x07 && (c < 0x78 || c > 0x7f) {
			r.fail("a number over 32 bits")
			return 0
		}
		v |= uint32(c&0x7f) << shift
		if c < 0x80 {
			if shift < 25 && c&0x40 != 0 {
				v |= ^uint32(0) << (shift + 7)
			}
			return int32(v)
		}
	}
}

func (r *reader) fail(msg string) {
	if r.err == nil {
		r.err = errors.New(msg)
		r.i = len(r.b)
	}
}

func appendSection(out []byte, id byte, body []byte) []byte {
	out = append(out, id)
	out = appendULEB(out, uint64(len(body)))
	return append(out, body...)
}

func appendULEB(b []byte, v uint64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v == 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

func appendSLEB(b []byte, v int64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}
