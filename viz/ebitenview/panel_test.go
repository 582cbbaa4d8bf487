package ebitenview

import (
	"image"
	"math"
	"strings"
	"testing"

	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/lessons"
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
	app := viz.NewApp(lessons.All()...)
	ws, _ := layout(app, 900, PanelWidth, 0, note{}, "", figureShown, newPainter().width, nil)
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

// In every lesson the panel's text fits where it is drawn, measured with
// the fonts it is drawn in: wrapped lines within the panel, a control's
// label left of it only if it fits there (else on the line above), and the
// keys legend names only keys the lesson has.
func TestPanelTextFits(t *testing.T) {
	p := newPainter()
	app := viz.NewApp(lessons.All()...)
	for i, info := range app.Scenes() {
		if err := app.Switch(i); err != nil {
			t.Fatal(err)
		}
		ws, height := layout(app, 900, PanelWidth, 0, note{text: "an error message long enough to need more than one line of the panel", err: true}, "", figureShown, p.width, nil)
		for _, w := range ws {
			switch {
			case w.kind == "label" && p.width(w.text, w.size) > float64(w.r.Dx())+0.5:
				t.Errorf("%s: label %q is %.0f px wide in a %d px line", info.Name, w.text, p.width(w.text, w.size), w.r.Dx())
			case w.ctl.Name != "" && w.kind != "button" && !w.bare && p.width(w.ctl.Label, 13) > labelW-8:
				t.Errorf("%s: control label %q does not fit left of its control", info.Name, w.ctl.Label)
			}
		}
		if last := ws[len(ws)-1]; height < last.r.Max.Y {
			t.Errorf("%s: height %d above the last widget's bottom %d", info.Name, height, last.r.Max.Y)
		}
		legend := keysLegend(app.Controls(), "", len(app.Scenes()))
		_, stepped := app.Scene().(viz.Stepped)
		if strings.Contains(legend, "→") != stepped {
			t.Errorf("%s: legend %q (stepped: %v)", info.Name, legend, stepped)
		}
		if !strings.Contains(legend, viz.LessonKeysLegend(len(app.Scenes()))) {
			t.Errorf("%s: legend %q", info.Name, legend)
		}
	}
}

// Every lesson's text lays out within the figure's width, at the widths of
// a small and a large window.
func TestReaderLaysOutEveryLesson(t *testing.T) {
	p := newPainter()
	for _, l := range lessons.Lessons() {
		name := l.New().Info().Name
		for _, w := range []int{500, 1200} {
			var r reader
			r.layout(name, lessons.Text, w, p.width)
			if len(r.lines) < 10 || r.height < 400 {
				t.Errorf("%s at %d px: %d lines, %d px", name, w, len(r.lines), r.height)
			}
			for _, ln := range r.lines {
				if right := float64(ln.x) + p.width(ln.s, ln.size); right > float64(w-readMargin)+0.5 && strings.Contains(ln.s, " ") {
					t.Errorf("%s at %d px: %q ends at %.0f px", name, w, ln.s, right)
				}
			}
		}
	}
}

// A log slider over a count stops on whole numbers (it once gave 20.66
// users).
func TestLogCountSliderIsWhole(t *testing.T) {
	tr := image.Rect(100, 0, 300, 20)
	c := viz.Control{Min: 20, Max: 1000, Step: 10, Log: true}
	for x := 90; x <= 310; x++ {
		v := sliderValue(c, tr, x)
		if v != math.Round(v) || math.Mod(v-20, 10) != 0 || v < 20 || v > 1000 {
			t.Fatalf("x %d → %v", x, v)
		}
	}
}

// No lesson's control takes a key the desktop keeps for itself (it would
// never reach the lesson).
func TestLessonKeysLeaveTheDesktopsOwn(t *testing.T) {
	for _, sc := range lessons.All() {
		for _, c := range sc.Controls() {
			if k := strings.ToLower(c.Key); k == shotKey || k == textKey || k == wordsKey {
				t.Errorf("%s: %s takes the desktop's key %q", sc.Info().Name, c.Name, c.Key)
			}
		}
	}
}

// Key D shows the figure's description at the panel's top, above the
// guarantee, wrapped to the panel.
func TestPanelShowsTheDescription(t *testing.T) {
	app := viz.NewApp(lessons.All()...)
	app.Frame(900, 640)
	words := app.Describe()
	ws, _ := layout(app, 900, PanelWidth, 0, note{}, words, figureShown, newPainter().width, nil)
	var shown []string
	for _, w := range ws {
		if w.kind == "label" {
			shown = append(shown, w.text)
		}
	}
	joined := strings.Join(shown, " ")
	if !strings.Contains(joined, strings.Join(strings.Fields(words)[:6], " ")) {
		t.Errorf("the panel does not show the description %q: %q", words, joined)
	}
	if i, j := strings.Index(joined, strings.Fields(words)[0]), strings.Index(joined, app.Guarantee().String()[:10]); i < 0 || j < i {
		t.Errorf("the description (at %d) is not above the guarantee (at %d)", i, j)
	}
}

// An uncertified lesson's panel says why under the guarantee, and offers
// its nearest certified settings there when it has them.
func TestPanelSaysWhyNotCertified(t *testing.T) {
	app := viz.NewApp(lessons.All()...)
	for i, info := range app.Scenes() {
		if err := app.Switch(i); err != nil {
			t.Fatal(err)
		}
		app.Settle()
		var want *viz.Control
		for _, c := range app.Controls() {
			if c.Name == viz.CtlCertify {
				want = &c
			}
		}
		if want == nil {
			continue
		}
		ws, _ := layout(app, 900, PanelWidth, 0, note{}, "", figureShown, newPainter().width, nil)
		var text string
		buttons := 0
		for _, w := range ws {
			if w.kind == "label" {
				text += w.text + " "
			}
			if w.kind == "button" && w.ctl.Name == viz.CtlCertify {
				buttons++
			}
		}
		if first := strings.Fields(want.Help)[:6]; !strings.Contains(text, strings.Join(first, " ")) {
			t.Errorf("%s: the panel leaves out why it is not certified (%q…)", info.Name, strings.Join(first, " "))
		}
		if wantButtons := map[bool]int{true: 0, false: 1}[want.Disabled]; buttons != wantButtons {
			t.Errorf("%s: %d buttons to the certified settings, want %d", info.Name, buttons, wantButtons)
		}
	}
}
