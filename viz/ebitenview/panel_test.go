package ebitenview

import (
	"image"
	"math"
	"strings"
	"testing"

	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/scenes"
)

func TestSliderMapsBothWays(t *testing.T) {
	tr := image.Rect(100, 0, 300, 20)
	for _, c := range []viz.Control{
		{Min: 0.05, Max: 20, Log: true},
		{Min: -50, Max: 50},
		{Min: -50, Max: 50, Step: 0.5},
	} {
		for _, x := range []int{100, 137, 200, 299, 300} {
			v := sliderValue(c, tr, x)
			c.Value = viz.FormatNumber(v)
			back := tr.Min.X + int(math.Round(sliderPos(c)*float64(tr.Dx())))
			if d := back - x; d < -1 || d > 1 {
				t.Errorf("%+v: x %d → %v → x %d", c, x, v, back)
			}
		}
	}
	if v := sliderValue(viz.Control{Min: 1, Max: 2}, tr, 50); v != 1 {
		t.Errorf("left of the track clamps to Min, got %v", v)
	}
}

func TestWrapAndCycle(t *testing.T) {
	lines := viz.Wrap("(ε = 1, δ = 0)-DP at user level, paper mode: certified", 20)
	for _, l := range lines {
		if len([]rune(l)) > 20 {
			t.Errorf("line %q longer than 20", l)
		}
	}
	if strings.Join(lines, " ") != "(ε = 1, δ = 0)-DP at user level, paper mode: certified" {
		t.Errorf("wrap lost words: %q", lines)
	}
	c := viz.Control{Choices: []string{"a", "b", "c"}, Value: "a"}
	if cycle(c, false) != "b" || cycle(c, true) != "c" {
		t.Error("cycle")
	}
}

// Every declared control becomes a widget inside the panel, and every scene a tab.
func TestLayoutShowsEveryControl(t *testing.T) {
	app := viz.NewApp(scenes.All()...)
	ws := layout(app, 900, PanelWidth, 0, "")
	seen := map[string]bool{}
	tabs := 0
	for _, w := range ws {
		if w.kind == "tab" {
			tabs++
		}
		if w.ctl.Name != "" {
			seen[w.ctl.Name] = true
		}
		if w.r.Min.X < 900 || w.r.Max.X > 900+PanelWidth {
			t.Errorf("%s %q outside the panel: %v", w.kind, w.ctl.Name, w.r)
		}
	}
	for _, c := range app.Controls() {
		if !seen[c.Name] {
			t.Errorf("control %q has no widget", c.Name)
		}
	}
	if tabs != len(app.Scenes()) {
		t.Errorf("%d tabs for %d scenes", tabs, len(app.Scenes()))
	}
	if r := FigureRect(1200, 760); r.Dx() != 1200-PanelWidth || r.Dy() != 760 {
		t.Errorf("FigureRect = %v", r)
	}
}
