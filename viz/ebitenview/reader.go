package ebitenview

import (
	"fmt"
	"image/color"
	"strconv"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/vector"

	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/prose"
)

// reader shows the lesson's text in the figure's place (H toggles it): the
// same text the web page shows beside its figure.
type reader struct {
	open   bool
	errata bool // the papers' errata instead of the lesson's text
	scroll int
	lines  []textLine
	height int    // of all the lines, in pixels
	key    string // what lines were laid out for: lesson and width
	drawn  string // what the figure image shows: key and scroll
}

// textLine is one laid-out line of the text.
type textLine struct {
	s    string
	x, y int
	size float64
	col  color.Color
}

// Text margins and sizes.
const (
	readMargin = 32
	readMaxW   = 760 // a comfortable line length
)

// layout wraps the text of the lesson called name (from text), or the
// errata, to the figure's width w (only when what is shown or the width
// changed).
func (r *reader) layout(name string, text func(string) (string, error), w int, width measurer) {
	if r.errata {
		name = "errata"
	}
	key := name + "/" + strconv.Itoa(w)
	if key == r.key {
		return
	}
	r.key, r.lines, r.drawn = key, nil, ""
	var blocks []prose.Block
	var err error
	switch {
	case r.errata:
		blocks, err = prose.ErrataBlocks()
	case text == nil:
		err = fmt.Errorf("no lesson text for %s in this app (the Errata button shows the errata)", name)
	default:
		var src string
		if src, err = text(name); err == nil {
			blocks, err = prose.Parse(src)
		}
	}
	if err != nil {
		blocks = []prose.Block{{Kind: prose.Para, Text: err.Error()}}
	}
	colW := float64(min(w-2*readMargin, readMaxW))
	y := readMargin
	for _, b := range blocks {
		size, col, indent, bullet := 15.0, rgba(viz.Ink, 1), 0, ""
		switch b.Kind {
		case prose.Title:
			size, col = 21, rgba(viz.Ink, 1)
		case prose.Heading:
			size, col = 17, rgba(viz.Blue, 1)
			y += 6
		case prose.Item:
			indent, bullet = 20, "•"
		}
		lh := int(size * 1.45)
		for i, s := range wrapWidth(b.Text, size, colW-float64(indent), width) {
			if i == 0 && bullet != "" {
				r.lines = append(r.lines, textLine{s: bullet, x: readMargin + 4, y: y, size: size, col: col})
			}
			r.lines = append(r.lines, textLine{s: s, x: readMargin + indent, y: y, size: size, col: col})
			y += lh
		}
		y += lh / 2
	}
	r.height = y + readMargin
}

// shown says what the reader puts in the figure's place.
func (r *reader) shown() reading {
	switch {
	case !r.open:
		return figureShown
	case r.errata:
		return errataText
	}
	return lessonText
}

// clamp keeps the scroll within the text for a view h pixels tall.
func (r *reader) clamp(h int) {
	r.scroll = max(0, min(r.scroll, r.height-h))
}

// draw paints the text onto dst (the figure's image) if it shows something
// else.
func (r *reader) draw(dst *ebiten.Image, p *painter) bool {
	h := dst.Bounds().Dy()
	r.clamp(h)
	state := r.key + "/" + strconv.Itoa(r.scroll)
	if state == r.drawn {
		return false
	}
	r.drawn = state
	dst.Fill(rgba(viz.Paper, 1))
	for _, l := range r.lines {
		y := l.y - r.scroll
		if y < -40 || y > h+40 {
			continue
		}
		p.text(dst, l.s, float64(l.x), float64(y), l.size, l.col, viz.Left)
	}
	hint := "H or Esc: back to the figure"
	if r.height > h {
		hint = "wheel or ↑ ↓: scroll · " + hint
	}
	w := dst.Bounds().Dx()
	vector.FillRect(dst, 0, float32(h-26), float32(w), 26, rgba(viz.Paper, 1), false)
	p.text(dst, hint, float64(w-12), float64(h-13), 12, rgba(viz.Muted, 1), viz.Right)
	return true
}
