package viz

import (
	"encoding/binary"
	"math"
	"reflect"
	"testing"

	"github.com/uldplab/uldp/core/privacy"
)

// reader is the reference decoder of the panel buffers: the page's JS
// decoder (site/static/app.js, class Wire) reads the same fields in the same
// order.
type reader struct {
	t *testing.T
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
	if v := r.u32(); v != PanelVersion {
		r.t.Fatalf("version %d, want %d", v, PanelVersion)
	}
}
func (r *reader) done() {
	if len(r.b) != 0 {
		r.t.Fatalf("%d bytes left over", len(r.b))
	}
}

func decodeControls(t *testing.T, b []byte) []Control {
	r := &reader{t, b}
	r.version()
	out := make([]Control, r.u32())
	for i := range out {
		c := &out[i]
		c.Name, c.Label, c.Kind, c.Value = r.str(), r.str(), ControlKind(r.str()), r.str()
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

func decodeReadouts(t *testing.T, b []byte) []Readout {
	r := &reader{t, b}
	r.version()
	out := make([]Readout, r.u32())
	for i := range out {
		out[i] = Readout{Name: r.str(), Label: r.str(), Value: r.f64(), Text: r.str(), Formula: r.str(), Warn: r.bool()}
	}
	r.done()
	return out
}

func decodeGuarantee(t *testing.T, b []byte) (g privacy.Guarantee, private, certified bool, mode string) {
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
	r.done()
	return g, private, certified, mode
}

func TestPanelBuffersRoundTrip(t *testing.T) {
	cs := []Control{
		{Name: "eps", Label: "ε", Kind: Slider, Value: "1", Min: 0.01, Max: 10, Log: true, Unit: "nats", Help: "privacy", Key: "e"},
		{Name: "mode", Label: "mode", Kind: Choice, Value: "sound", Choices: []string{"paper", "sound", "𝒦"}, Disabled: true, Group: "stepper"},
		{Name: "step", Label: "step ▶", Kind: Button, Step: 1},
	}
	buf := EncodeControls(cs, nil)
	if got := decodeControls(t, buf); !reflect.DeepEqual(got, cs) {
		t.Errorf("controls:\n got %+v\nwant %+v", got, cs)
	}
	// A reused buffer is overwritten, not appended to.
	if again := EncodeControls(cs[:1], buf); !reflect.DeepEqual(decodeControls(t, again), cs[:1]) {
		t.Error("reusing the buffer changed the result")
	}
	rs := []Readout{{Name: "sigma", Label: "σ", Value: 3.5, Text: "3.5", Formula: "Δ/ε"}, {Name: "warn", Warn: true, Value: math.Inf(1)}}
	if got := decodeReadouts(t, EncodeReadouts(rs, nil)); !reflect.DeepEqual(got, rs) {
		t.Errorf("readouts:\n got %+v\nwant %+v", got, rs)
	}
	g := privacy.Guarantee{Eps: 1, Delta: 1e-6, Mode: privacy.Paper, Note: "as printed",
		Preconditions: []privacy.Precondition{privacy.Require("n ≥ 100", 20, privacy.AtLeast, 100), privacy.Fact("users disjoint", true)}}
	got, private, certified, mode := decodeGuarantee(t, EncodeGuarantee(g, nil))
	if !private || certified != g.Certified() || mode != "paper" || got.Eps != 1 || got.Delta != 1e-6 || got.Note != g.Note || !reflect.DeepEqual(got.Preconditions, g.Preconditions) {
		t.Errorf("guarantee: %+v private=%v certified=%v mode=%q", got, private, certified, mode)
	}
	np := privacy.Guarantee{Mode: privacy.NonPrivate, Eps: math.Inf(1)}
	if _, private, _, mode := decodeGuarantee(t, EncodeGuarantee(np, nil)); private || mode != "non-private" {
		t.Errorf("non-private guarantee decoded as private=%v mode %q", private, mode)
	}
	r := &reader{t, EncodePalette(nil)}
	r.version()
	if n := r.u32(); n != uint32(numColours) || len(r.b) != 3*int(n) {
		t.Fatalf("palette: %d colours in %d bytes", n, len(r.b))
	}
	if rr, gg, bb, _ := Blue.RGBA(); r.b[3*Blue] != rr || r.b[3*Blue+1] != gg || r.b[3*Blue+2] != bb {
		t.Error("palette: blue is not where Colour says")
	}
}
