package viz_test

import (
	"math"
	"reflect"
	"testing"

	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/internal/wiretest"
)

func TestPanelBuffersRoundTrip(t *testing.T) {
	cs := []viz.Control{
		{Name: "eps", Label: "ε", Kind: viz.Slider, Value: "1", Min: 0.01, Max: 10, Log: true, Unit: "nats", Help: "privacy", Key: "e"},
		{Name: "mode", Label: "mode", Kind: viz.Choice, Value: "sound", Choices: []string{"paper", "sound", "𝒦"}, Disabled: true, Group: "stepper"},
		{Name: "step", Label: "step ▶", Kind: viz.Button, Step: 1},
	}
	buf := viz.EncodeControls(cs, nil)
	if got := wiretest.Controls(t, buf); !reflect.DeepEqual(got, cs) {
		t.Errorf("controls:\n got %+v\nwant %+v", got, cs)
	}
	// A reused buffer is overwritten, not appended to.
	if again := viz.EncodeControls(cs[:1], buf); !reflect.DeepEqual(wiretest.Controls(t, again), cs[:1]) {
		t.Error("reusing the buffer changed the result")
	}
	rs := []viz.Readout{{Name: "sigma", Label: "σ", Value: 3.5, Text: "3.5", Formula: "Δ/ε"}, {Name: "warn", Warn: true, Value: math.Inf(1)}}
	if got := wiretest.Readouts(t, viz.EncodeReadouts(rs, nil)); !reflect.DeepEqual(got, rs) {
		t.Errorf("readouts:\n got %+v\nwant %+v", got, rs)
	}
	g := privacy.Guarantee{Eps: 1, Delta: 1e-6, Mode: privacy.Paper, Note: "as printed",
		Preconditions: []privacy.Precondition{privacy.Require("n ≥ 100", 20, privacy.AtLeast, 100), privacy.Fact("users disjoint", true)}}
	got, private, certified, mode := wiretest.Guarantee(t, viz.EncodeGuarantee(g, nil))
	if !private || certified != g.Certified() || mode != "paper" || got.Eps != 1 || got.Delta != 1e-6 || got.Note != g.Note || !reflect.DeepEqual(got.Preconditions, g.Preconditions) {
		t.Errorf("guarantee: %+v private=%v certified=%v mode=%q", got, private, certified, mode)
	}
	g.Relation = privacy.SemiSensitive
	if got, _, _, _ := wiretest.Guarantee(t, viz.EncodeGuarantee(g, nil)); got.Relation != privacy.SemiSensitive {
		t.Errorf("a semi-sensitive claim decoded as %q", got.Relation)
	}
	np := privacy.Guarantee{Mode: privacy.NonPrivate, Eps: math.Inf(1)}
	if _, private, _, mode := wiretest.Guarantee(t, viz.EncodeGuarantee(np, nil)); private || mode != "non-private" {
		t.Errorf("non-private guarantee decoded as private=%v mode %q", private, mode)
	}
	pal := wiretest.Palette(t, viz.EncodePalette(nil))
	if len(pal) != int(viz.PurpleText)+1 {
		t.Fatalf("palette of %d colours, want %d", len(pal), viz.PurpleText+1)
	}
	for c, rgb := range pal {
		if r, g, b, _ := viz.Colour(c).RGBA(); rgb != [3]uint8{r, g, b} {
			t.Errorf("colour %d: %v, want %v", c, rgb, [3]uint8{r, g, b})
		}
	}
}
