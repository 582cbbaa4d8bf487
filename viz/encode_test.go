package viz

import (
	"encoding/binary"
	"math"
	"reflect"
	"testing"
)

// decode is the reference reader of Encode's layout; the browser's
// renderer (site/static/app.js) reads the same fields in the same order.
func decode(b []byte) *List {
	le := binary.LittleEndian
	n := int(le.Uint32(b[4:]))
	floats := int(le.Uint32(b[8:]))
	l := &List{Width: float64(math.Float32frombits(le.Uint32(b[12:]))), Height: float64(math.Float32frombits(le.Uint32(b[16:])))}
	off := 20
	get := func() float64 {
		v := math.Float32frombits(le.Uint32(b[off:]))
		off += 4
		return float64(v)
	}
	text := b[20+4*floats:]
	for range n {
		var it Item
		it.Kind = Kind(get())
		it.Style.Stroke, it.Style.Fill = Colour(get()), Colour(get())
		it.Style.Alpha, it.Style.Width = get(), get()
		it.Style.Dashed = get() == 1
		it.Align, it.Size, it.ID, it.R = Align(get()), get(), int(get()), get()
		to, tl, np := int(get()), int(get()), int(get())
		it.Text = string(text[to : to+tl])
		for range np {
			it.P = append(it.P, Point{get(), get()})
		}
		l.Items = append(l.Items, it)
	}
	return l
}

func TestEncodeRoundTrip(t *testing.T) {
	l := &List{Width: 800, Height: 600}
	l.Circle(Point{10.5, 20.25}, 6, Style{Fill: Orange, Stroke: Ink, Width: 1}, 3)
	l.Rect(Point{1, 2}, Point{30, 40}, Style{Fill: Blue, Alpha: 0.25}, 7)
	l.Text(Point{400, 6}, "Δ̂ = 9.65 → ⊤", 12, Purple, Centre)
	l.Polyline([]Point{{0, 0}, {1, 1}, {2, 0}}, Style{Stroke: Green, Width: 2, Dashed: true})
	l.Text(Point{700, 8}, "q1", 11, Ink, Right)
	got := decode(Encode(l, nil))
	// Encode writes opaque as alpha 1.
	want := *l
	want.Items = append([]Item(nil), l.Items...)
	for i := range want.Items {
		if want.Items[i].Style.Alpha == 0 {
			want.Items[i].Style.Alpha = 1
		}
	}
	if got.Width != want.Width || got.Height != want.Height || !reflect.DeepEqual(got.Items, want.Items) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got.Items, want.Items)
	}
	// Re-encoding into the same buffer reuses it.
	buf := Encode(l, nil)
	again := Encode(l, buf[:0])
	if &again[0] != &buf[0] {
		t.Error("Encode did not reuse the buffer")
	}
}

// A reused buffer is grown geometrically, so a frame that grows a little
// each step does not allocate each step.
func TestEncodeReusesGrowingBuffer(t *testing.T) {
	l := &List{Width: 100, Height: 100}
	var buf []byte
	allocs := 0
	for i := range 200 {
		l.Line(Point{0, 0}, Point{float64(i), 1}, Style{Stroke: Ink})
		before := cap(buf)
		buf = Encode(l, buf[:0])
		if cap(buf) != before {
			allocs++
		}
	}
	// Exact-size buffers would reallocate on all 200 frames; append-style
	// growth (×2, then ×1.25 past 256 bytes) needs 13 over this 150-fold
	// growth.
	if allocs > 25 {
		t.Errorf("200 growing frames reallocated the buffer %d times", allocs)
	}
}

// BenchmarkUsersFrame is lesson 1's frame at 2,000 users × 20 items: the
// display list written without and with a layer round it (the layer's key
// hashes every point), and encoded for the page.
func BenchmarkUsersFrame(b *testing.B) {
	var l List
	l.Reset(1280, 900)
	pts := make([]Point, 20)
	for i := range pts {
		pts[i] = Point{X: float64(i), Y: float64(2 * i)}
	}
	build := func(layer bool) {
		l.Reset(1280, 900)
		if layer {
			l.Layer()
		}
		for range 2000 {
			l.Dots(pts, 1.6, Style{Fill: Blue, Alpha: 0.55}, 1)
		}
		for range 2000 {
			l.Circle(Point{X: 3, Y: 4}, 5.5, Style{Fill: Blue, Stroke: Ink, Width: 1}, 1)
		}
		if layer {
			l.EndLayer()
		}
	}
	var buf []byte
	b.Run("list", func(b *testing.B) {
		for b.Loop() {
			build(false)
		}
	})
	b.Run("list+layer", func(b *testing.B) {
		for b.Loop() {
			build(true)
		}
	})
	b.Run("encode", func(b *testing.B) {
		for b.Loop() {
			buf = Encode(&l, buf)
		}
	})
}
