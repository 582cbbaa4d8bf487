package viz

import (
	"math"
	"strings"
	"testing"
)

func TestHitTopmost(t *testing.T) {
	var l List
	l.Circle(Point{10, 10}, 5, Style{}, 1)
	l.Rect(Point{0, 0}, Point{20, 20}, Style{}, 2)
	l.Circle(Point{10, 10}, 5, Style{}, 0) // no id: ignored
	if got := l.Hit(Point{10, 10}, 0); got != 2 {
		t.Errorf("Hit = %d, want the topmost (2)", got)
	}
	if got := l.Hit(Point{23, 10}, 4); got != 2 {
		t.Errorf("slop: Hit = %d", got)
	}
	if got := l.Hit(Point{40, 40}, 4); got != 0 {
		t.Errorf("miss: Hit = %d", got)
	}
	if p, ok := l.Locate(2); !ok || p != (Point{10, 10}) {
		t.Errorf("Locate(2) = %v, %v", p, ok)
	}
	if _, ok := l.Locate(9); ok {
		t.Error("Locate found a missing id")
	}
}

func TestCameraRoundTripPanZoom(t *testing.T) {
	c := Fit(-1, 1, -2, 2, 0, 0, 400, 300, 10)
	p := c.ToScreen(0.3, -0.7)
	x, y := c.ToWorld(p)
	if !(math.Abs(x-0.3) <= 1e-12) || !(math.Abs(y+0.7) <= 1e-12) {
		t.Fatalf("round trip gave (%v, %v)", x, y)
	}
	if top := c.ToScreen(0, 2); !(math.Abs(top.Y-10) <= 1e-9) {
		t.Errorf("fit: y = 2 at pixel %v, want 10 (y grows upward)", top.Y)
	}
	c.Zoom(3, p)
	if q := c.ToScreen(0.3, -0.7); !(math.Abs(q.X-p.X) <= 1e-9) || !(math.Abs(q.Y-p.Y) <= 1e-9) {
		t.Errorf("zoom moved the point under the cursor: %v → %v", p, q)
	}
	before := c.ToScreen(0, 0)
	c.Pan(15, -5)
	after := c.ToScreen(0, 0)
	if !(math.Abs(after.X-before.X-15) <= 1e-9) || !(math.Abs(after.Y-before.Y+5) <= 1e-9) {
		t.Errorf("pan: %v → %v", before, after)
	}
}

func TestScaleBarAndTicks(t *testing.T) {
	c := Camera{Scale: 37} // 120 px ≈ 3.24 units
	if w, label := c.ScaleBar(120); w != 2 || label != "2" {
		t.Errorf("scale bar %v %q", w, label)
	}
	c.Scale = 1e-3
	if w, _ := c.ScaleBar(120); w != 1e5 {
		t.Errorf("scale bar at tiny scale %v", w)
	}
	ticks := NiceTicks(-3.2, 17.9, 5)
	if ticks[0] != 0 || ticks[len(ticks)-1] != 15 || len(ticks) != 4 {
		t.Errorf("ticks %v", ticks)
	}
	if TickLabel(0.1+0.2) != "0.3" || TickLabel(1e-17) != "0" {
		t.Errorf("labels %q %q", TickLabel(0.1+0.2), TickLabel(1e-17))
	}
}

func TestPalette(t *testing.T) {
	seen := map[[3]uint8]bool{}
	for c := Ink; c < numColours; c++ {
		r, g, b, a := c.RGBA()
		if a != 255 || seen[[3]uint8{r, g, b}] {
			t.Errorf("colour %d: %d %d %d %d (duplicate or transparent)", c, r, g, b, a)
		}
		seen[[3]uint8{r, g, b}] = true
	}
}

// A list refilled after Reset keeps every earlier item's points intact and
// stops allocating once warm.
func TestListResetReusesMemory(t *testing.T) {
	var l List
	fill := func() {
		l.Reset(100, 100)
		for i := range 1000 {
			l.Circle(Point{float64(i), 1}, 2, Style{Fill: Blue}, i+1)
			l.Line(Point{0, 0}, Point{float64(i), 2}, Style{Stroke: Ink})
		}
	}
	fill()
	for i, it := range l.Items {
		if it.Kind == Circle && it.P[0].X != float64(i/2) {
			t.Fatalf("item %d has point %v after arena growth", i, it.P)
		}
	}
	if allocs := testing.AllocsPerRun(10, fill); allocs != 0 {
		t.Errorf("refilling a warm list allocated %v times", allocs)
	}
}

func TestDotsHitAndLocate(t *testing.T) {
	var l List
	l.Dots([]Point{{10, 10}, {50, 50}, {90, 10}}, 3, Style{Fill: Blue}, 100)
	if got := l.Hit(Point{51, 49}, 0); got != 101 {
		t.Errorf("Hit on dot 1 = %d, want 101", got)
	}
	if got := l.Hit(Point{30, 30}, 2); got != 0 {
		t.Errorf("Hit between dots = %d", got)
	}
	if p, ok := l.Locate(102); !ok || p != (Point{90, 10}) {
		t.Errorf("Locate(102) = %v, %v", p, ok)
	}
	if _, ok := l.Locate(103); ok {
		t.Error("Locate past the last dot")
	}
}

// A label that would run past the frame is broken onto lines that fit,
// moved up from the bottom edge; one that fits is left alone.
func TestTextFitsTheFrame(t *testing.T) {
	l := &List{Width: 200, Height: 100}
	l.Text(Point{10, 20}, "fits", 12, Ink, Left)
	l.Text(Point{10, 95}, "a legend far too long for a phone's narrow figure, in many words", 12, Ink, Left)
	l.Text(Point{60, 10}, "incomprehensibilities", 12, Ink, Right)
	if len(l.Items) < 4 || l.Items[0].Text != "fits" || l.Items[0].Size != 12 {
		t.Fatalf("items %+v", l.Items)
	}
	var words []string
	for _, it := range l.Items[1 : len(l.Items)-1] {
		right := it.P[0].X + TextWidth(it.Text, it.Size)
		if right > l.Width || it.P[0].Y+it.Size/2 > l.Height {
			t.Errorf("line %q ends at (%.0f, %.0f)", it.Text, right, it.P[0].Y)
		}
		words = append(words, it.Text)
	}
	if strings.Join(words, " ") != "a legend far too long for a phone's narrow figure, in many words" {
		t.Errorf("lines %q", words)
	}
	if last := l.Items[len(l.Items)-1]; last.Size >= 12 || last.P[0].X-TextWidth(last.Text, last.Size) < 0 {
		t.Errorf("an overlong word: %+v", last)
	}
}

// TextIn keeps a block within its column, TextHeight measures it before
// it is drawn, and TextAbove ends it at its anchor.
func TestTextInAColumn(t *testing.T) {
	const s = "the steps as at the user level, except those where Δ enters"
	l := &List{Width: 900, Height: 500}
	want := l.TextHeight(Point{X: 30}, 200, s, 12, Left)
	if got := l.TextIn(Point{30, 100}, 200, s, 12, Ink, Left); got != want || got < 3*15 {
		t.Fatalf("TextIn's height %v, TextHeight %v: want equal, ≥ 3 lines", got, want)
	}
	for _, it := range l.Items {
		if right := it.P[0].X + TextWidth(it.Text, it.Size); right > 230 {
			t.Errorf("line %q ends at %.0f, past the column's 230", it.Text, right)
		}
	}
	l.Items = l.Items[:0]
	l.TextAbove(Point{30, 100}, 200, s, 12, Ink, Left)
	if last := l.Items[len(l.Items)-1]; last.P[0].Y != 100 || l.Items[0].P[0].Y >= 100 {
		t.Errorf("TextAbove: first line at %v, last at %v; want the last at 100", l.Items[0].P[0].Y, last.P[0].Y)
	}
}

// A layer's key is what its items draw: the same for the same pixels,
// another when any number, colour, text or the item count changes, and
// blind to IDs.
func TestLayerKey(t *testing.T) {
	key := func(edit func(*List)) string {
		var l List
		l.Reset(100, 100)
		l.Text(Point{X: 1, Y: 2}, "before", 12, Ink, Left)
		l.Layer()
		l.Rect(Point{}, Point{X: 1, Y: 1}, Style{Fill: Blue}, 0)
		l.Dots([]Point{{X: 3, Y: 4}, {X: 5, Y: 6}}, 1.5, Style{Fill: Green, Alpha: 0.5}, 7)
		l.Text(Point{X: 9, Y: 9}, "label", 12, Ink, Left)
		edit(&l)
		l.EndLayer()
		if n := len(l.Items); l.Items[1].Kind != Layer || l.Items[n-1].Kind != LayerEnd || l.open != 0 {
			t.Fatalf("layer items %+v", l.Items)
		}
		return l.Items[1].Text
	}
	same := key(func(*List) {})
	if same == "" || same != key(func(*List) {}) {
		t.Fatalf("the same layer keyed %q and %q", same, key(func(*List) {}))
	}
	if k := key(func(l *List) { l.Items[3].ID = 99 }); k != same {
		t.Errorf("an ID changed the key: %q against %q", k, same)
	}
	for name, edit := range map[string]func(*List){
		"a point's y":   func(l *List) { l.Items[3].P[1].Y = math.Nextafter(6, 7) },
		"a point's x":   func(l *List) { l.Items[3].P[0].X = math.Nextafter(3, 2) },
		"a kind":        func(l *List) { l.Items[2].Kind = Polygon },
		"a stroke":      func(l *List) { l.Items[2].Style.Stroke = Ink },
		"a width":       func(l *List) { l.Items[2].Style.Width = 2 },
		"a text size":   func(l *List) { l.Items[4].Size = 13 },
		"an alignment":  func(l *List) { l.Items[4].Align = Centre },
		"a fill":        func(l *List) { l.Items[2].Style.Fill = Vermillion },
		"dashed":        func(l *List) { l.Items[2].Style.Dashed = true },
		"an alpha":      func(l *List) { l.Items[3].Style.Alpha = 0.55 },
		"a radius":      func(l *List) { l.Items[3].R = 1.6 },
		"a text":        func(l *List) { l.Items[4].Text = "labels" },
		"one item more": func(l *List) { l.Line(Point{}, Point{X: 1}, Style{Stroke: Ink}) },
		"one point less": func(l *List) {
			l.Items[3].P = l.Items[3].P[:1]
		},
	} {
		if k := key(edit); k == same {
			t.Errorf("%s did not change the key %q", name, k)
		}
	}
	var l List
	l.Layer()
	l.EndLayer()
	if len(l.Items) != 2 || l.Hit(Point{}, 1) != 0 {
		t.Errorf("empty layer: %+v", l.Items)
	}
	// Misuse is a bug in the scene, and loud: a nested layer would lose
	// the outer one's drawing on the page.
	for name, misuse := range map[string]func(){
		"nested": func() { l.Layer(); l.Layer() },
		"ended":  func() { l.Reset(1, 1); l.EndLayer() },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s layer: no panic", name)
				}
			}()
			misuse()
		}()
	}
}

// Text drawn in any colour of the palette reads at 4.5:1 or more on the
// paper and on white, as WCAG asks of normal text.
func TestTextContrast(t *testing.T) {
	lum := func(c Colour) float64 {
		r, g, b, _ := c.RGBA()
		f := func(v uint8) float64 {
			x := float64(v) / 255
			if x <= 0.03928 {
				return x / 12.92
			}
			return math.Pow((x+0.055)/1.055, 2.4)
		}
		return 0.2126*f(r) + 0.7152*f(g) + 0.0722*f(b)
	}
	white := 1.0
	for c := Ink; c < numColours; c++ {
		if c == Grid || c == Paper {
			continue // backgrounds, never text
		}
		var l List
		l.Text(Point{}, "x", 12, c, Left)
		fg := lum(l.Items[0].Style.Fill)
		for _, bg := range []float64{lum(Paper), white} {
			if ratio := (bg + 0.05) / (fg + 0.05); ratio < 4.5 {
				t.Errorf("text in colour %d: %.2f:1 on a background of luminance %.3f", c, ratio, bg)
			}
		}
	}
}
