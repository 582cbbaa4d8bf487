package ebitenview

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"strconv"
	"strings"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/vector"

	"github.com/uldplab/uldp/viz"
)

// PanelWidth is the side panel's width in pixels.
const PanelWidth = 340

// FigureRect returns where the figure goes in a w × h window: everything left
// of the panel.
func FigureRect(w, h int) image.Rectangle {
	return image.Rect(0, 0, max(w-PanelWidth, 100), h)
}

// widget is one laid-out panel element.
type widget struct {
	r     image.Rectangle
	kind  string // "read", "tab", "button", "slider", "choice", "toggle", "field", "label"
	ctl   viz.Control
	scene int    // for tabs
	text  string // for labels and the read button
	col   color.Color
	size  float64
	bare  bool   // the control's label is on the line above
	act   string // what an exercise button does
}

const (
	rowH   = 26
	padX   = 12
	labelW = 112
)

// reading is what the figure's place shows.
type reading uint8

const (
	figureShown reading = iota
	lessonText
	errataText
)

// note is a message in the panel: an error (Vermillion) or news such as a
// saved screenshot.
type note struct {
	text string
	err  bool
}

// layout places the panel's widgets for the app's current state, from y
// scrolled by scroll pixels, and returns them with the height of all of
// them unscrolled. Draw and input use the same layout, so what is clicked
// is what was drawn. Text is wrapped and labels placed by measured width.
func layout(a *viz.App, x0, w, scroll int, msg note, words string, shown reading, width measurer, ex *exerciseView) ([]widget, int) {
	var out []widget
	y := 8 - scroll
	add := func(h int, wd widget) {
		wd.r = image.Rect(x0+padX, y, x0+w-padX, y+h)
		out = append(out, wd)
		y += h + 6
	}
	label := func(s string, c color.Color, size float64) {
		for _, line := range wrapWidth(s, size, float64(w-2*padX), width) {
			add(int(size)+4, widget{kind: "label", text: line, col: c, size: size})
		}
	}
	read, errata := "Lesson text (H)", "Errata"
	switch shown {
	case lessonText:
		read = "Back to the figure (H)"
	case errataText:
		errata = "Back to the figure"
	}
	half := (w - 2*padX - 4) / 2
	out = append(out,
		widget{r: image.Rect(x0+padX, y, x0+padX+half, y+rowH), kind: "read", text: read},
		widget{r: image.Rect(x0+padX+half+4, y, x0+w-padX, y+rowH), kind: "errata", text: errata})
	y += rowH + 6
	if ex != nil {
		exerciseWidgets(ex, a.Scene().Info().Name, label, func(ws ...widget) {
			out = append(out, exRow(ws, x0, w, y)...)
			y += rowH + 6
		})
		y += 8
	}
	for i, info := range a.Scenes() {
		add(rowH-2, widget{kind: "tab", scene: i, text: fmt.Sprintf("%d %s", i+1, info.Title)})
	}
	y += 4
	if msg.text != "" {
		c := rgba(viz.Green, 1)
		if msg.err {
			c = rgba(viz.Vermillion, 1)
		}
		label(msg.text, c, 13)
	}
	if words != "" {
		label(words, rgba(viz.Ink, 1), 13)
		y += 4
	}
	// Guarantee first: it is always visible.
	g := a.Guarantee()
	gc := rgba(viz.Green, 1)
	if !g.Certified() {
		gc = rgba(viz.Vermillion, 1)
	}
	label(g.String(), gc, 13)
	controls := a.Controls()
	// An uncertified lesson's line saying why, and its button to the
	// nearest certified settings (none where it has the line only).
	for _, c := range controls {
		if c.Group == viz.GroupGuarantee {
			label(c.Help, rgba(viz.Muted, 1), 12)
			if !c.Disabled {
				add(rowH, widget{kind: "button", ctl: c})
			}
		}
	}
	for _, p := range g.Preconditions {
		c := rgba(viz.Muted, 1)
		if !p.Met {
			c = rgba(viz.Vermillion, 1)
		}
		label("• "+p.String(), c, 12)
	}
	y += 4
	var row []viz.Control
	flush := func() { // stepper buttons share a row
		if len(row) == 0 {
			return
		}
		bw := (w - 2*padX - 4*(len(row)-1)) / len(row)
		for i, c := range row {
			r := image.Rect(x0+padX+i*(bw+4), y, x0+padX+i*(bw+4)+bw, y+rowH)
			out = append(out, widget{r: r, kind: "button", ctl: c})
		}
		y += rowH + 6
		row = nil
	}
	for _, c := range controls {
		if c.Group == viz.GroupGuarantee {
			continue // with the guarantee, above
		}
		if c.Group == "stepper" && c.Kind == viz.Button {
			row = append(row, c)
			if len(row) == 3 {
				flush()
			}
			continue
		}
		flush()
		kind := map[viz.ControlKind]string{viz.Button: "button", viz.Slider: "slider", viz.Choice: "choice", viz.Toggle: "toggle"}[c.Kind]
		if kind == "" {
			kind = "field"
		}
		// A label too long for the space left of the control goes on the
		// line above it, whole.
		bare := kind != "button" && width(c.Label, 13) > labelW-8
		if bare {
			label(c.Label, rgba(viz.Ink, 1), 13)
		}
		add(rowH, widget{kind: kind, ctl: c, bare: bare})
	}
	flush()
	y += 4
	for _, r := range a.Readouts() {
		s := r.Text
		if r.Label != "" && r.Name != "status" {
			s = r.Label + ": " + r.Text
		}
		c := rgba(viz.Ink, 1)
		if r.Warn {
			c = rgba(viz.Vermillion, 1)
		}
		label(s, c, 12)
	}
	label(keysLegend(controls, a.FigureKeys(), len(a.Scenes())), rgba(viz.Muted, 1), 11)
	return out, y + scroll
}

// keysLegend lists the keys that do something in this lesson: its
// controls', the figure's own (figure, "" for none), the app's.
func keysLegend(cs []viz.Control, figure string, lessons int) string {
	var keys []string
	for _, c := range cs {
		if c.Key == "" || c.Kind != viz.Button && c.Kind != viz.Toggle {
			continue
		}
		k := map[string]string{"ArrowLeft": "←", "ArrowRight": "→", "Space": "space", "End": "End", "Home": "Home"}[c.Key]
		if k == "" {
			k = strings.ToUpper(c.Key)
		}
		keys = append(keys, k+" "+strings.ToLower(c.Label))
	}
	if figure != "" {
		keys = append(keys, figure)
	}
	keys = append(keys, viz.LessonKeysLegend(lessons), "H text", "D describe the figure", "P screenshot")
	return "keys: " + strings.Join(keys, " · ")
}

// sliderValue maps a pointer x inside the track to the control's value.
func sliderValue(c viz.Control, track image.Rectangle, x int) float64 {
	t := math.Max(0, math.Min(1, float64(x-track.Min.X)/float64(track.Dx())))
	v := c.Min + t*(c.Max-c.Min)
	if c.Log && c.Min > 0 {
		v = c.Min * math.Pow(c.Max/c.Min, t)
	}
	if c.Step > 0 {
		v = math.Min(c.Max, c.Min+math.Round((v-c.Min)/c.Step)*c.Step)
	}
	return v
}

// sliderPos is the inverse of sliderValue, in [0, 1].
func sliderPos(c viz.Control) float64 {
	v, err := strconv.ParseFloat(c.Value, 64)
	if err != nil || c.Max <= c.Min {
		return 0
	}
	if c.Log && c.Min > 0 {
		return math.Max(0, math.Min(1, math.Log(v/c.Min)/math.Log(c.Max/c.Min)))
	}
	return math.Max(0, math.Min(1, (v-c.Min)/(c.Max-c.Min)))
}

// track is a slider's track within its widget (the label takes the left).
func track(r image.Rectangle) image.Rectangle {
	return image.Rect(r.Min.X+labelW, r.Min.Y, r.Max.X-64, r.Max.Y)
}

// drawPanel paints the widgets, laid out in window coordinates, onto dst
// shifted by dx pixels (dst is the panel's own image).
func (g *Game) drawPanel(dst *ebiten.Image, ws []widget, dx int) {
	p := g.paint
	ink := rgba(viz.Ink, 1)
	box := func(r image.Rectangle, fill color.Color, stroke color.Color) {
		vector.FillRect(dst, float32(r.Min.X), float32(r.Min.Y), float32(r.Dx()), float32(r.Dy()), fill, false)
		vector.StrokeRect(dst, float32(r.Min.X), float32(r.Min.Y), float32(r.Dx()), float32(r.Dy()), 1, stroke, false)
	}
	white := color.White
	border := color.NRGBA{185, 182, 173, 255}
	mid := func(r image.Rectangle) float64 { return float64(r.Min.Y+r.Max.Y) / 2 }
	ctlLabel := func(w widget) {
		if !w.bare {
			p.text(dst, w.ctl.Label, float64(w.r.Min.X), mid(w.r), 13, ink, viz.Left)
		}
	}
	for _, w := range ws {
		w.r = w.r.Add(image.Pt(dx, 0))
		switch w.kind {
		case "label":
			p.text(dst, w.text, float64(w.r.Min.X), mid(w.r), w.size, w.col, viz.Left)
		case "read", "errata":
			box(w.r, rgba(viz.Paper, 1), rgba(viz.Blue, 1))
			p.text(dst, w.text, float64(w.r.Min.X+w.r.Max.X)/2, mid(w.r), 14, rgba(viz.Blue, 1), viz.Centre)
		case "tab":
			fill, tc := color.Color(white), color.Color(ink)
			if w.scene == g.current() {
				fill, tc = rgba(viz.Blue, 1), white
			}
			box(w.r, fill, border)
			p.text(dst, w.text, float64(w.r.Min.X+8), mid(w.r), 14, tc, viz.Left)
		case "button":
			tc := color.Color(ink)
			if w.ctl.Disabled {
				tc = color.NRGBA{160, 160, 166, 255}
			}
			box(w.r, white, border)
			p.text(dst, w.ctl.Label, float64(w.r.Min.X+w.r.Max.X)/2, mid(w.r), 13, tc, viz.Centre)
		case "slider":
			ctlLabel(w)
			t := track(w.r)
			y := float32(mid(w.r))
			vector.StrokeLine(dst, float32(t.Min.X), y, float32(t.Max.X), y, 3, border, true)
			kx := float32(float64(t.Min.X) + sliderPos(w.ctl)*float64(t.Dx()))
			vector.FillCircle(dst, kx, y, 7, rgba(viz.Blue, 1), true)
			p.text(dst, w.ctl.Value, float64(w.r.Max.X), mid(w.r), 12, ink, viz.Right)
		case "choice":
			ctlLabel(w)
			r := image.Rect(w.r.Min.X+labelW, w.r.Min.Y, w.r.Max.X, w.r.Max.Y)
			box(r, white, border)
			p.text(dst, "◀  "+w.ctl.Value+"  ▶", float64(r.Min.X+r.Max.X)/2, mid(r), 13, ink, viz.Centre)
		case "toggle":
			ctlLabel(w)
			r := image.Rect(w.r.Min.X+labelW, w.r.Min.Y+5, w.r.Min.X+labelW+16, w.r.Min.Y+21)
			box(r, white, border)
			if w.ctl.Value == "true" {
				vector.FillRect(dst, float32(r.Min.X+3), float32(r.Min.Y+3), 10, 10, rgba(viz.Blue, 1), false)
			}
		case "exbutton":
			box(w.r, white, rgba(viz.Blue, 1))
			p.text(dst, w.text, float64(w.r.Min.X+w.r.Max.X)/2, mid(w.r), 13, rgba(viz.Blue, 1), viz.Centre)
		case "exfield":
			stroke := color.Color(border)
			if g.editing == exField {
				stroke = rgba(viz.Orange, 1)
			}
			box(w.r, white, stroke)
			p.text(dst, truncate(w.text, w.r.Dx()/7), float64(w.r.Min.X+6), mid(w.r), 13, ink, viz.Left)
		case "field":
			ctlLabel(w)
			r := image.Rect(w.r.Min.X+labelW, w.r.Min.Y, w.r.Max.X, w.r.Max.Y)
			value, stroke := w.ctl.Value, color.Color(border)
			if g.editing == w.ctl.Name {
				value, stroke = g.edit+"▏", rgba(viz.Orange, 1)
			}
			box(r, white, stroke)
			p.text(dst, truncate(value, r.Dx()/7), float64(r.Min.X+6), mid(r), 13, ink, viz.Left)
		}
	}
	// The panel scrolls with the wheel; say so while something is below.
	if b := dst.Bounds(); g.content-g.scroll > b.Dy() {
		vector.FillRect(dst, 0, float32(b.Dy()-22), float32(b.Dx()), 22, rgba(viz.Paper, 1), false)
		vector.StrokeLine(dst, 0, float32(b.Dy()-22), float32(b.Dx()), float32(b.Dy()-22), 1, border, false)
		p.text(dst, "▼ more below: scroll the panel", float64(b.Dx())/2, float64(b.Dy()-11), 12, rgba(viz.Blue, 1), viz.Centre)
	}
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n || n < 2 {
		return s
	}
	return string(r[:n-1]) + "…"
}
