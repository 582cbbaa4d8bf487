// Package viz holds ULDP Lab's lesson scenes as pure Go: each scene owns its
// state, turns input into state changes and draws into a display list —
// circles, lines, polylines, polygons, rects, arrows and text in screen
// pixels, coloured from one colour-blind-safe palette. Backends (the
// Ebitengine desktop app, the browser canvas) only paint lists and forward
// input, so a scene looks and behaves the same everywhere and its tests
// assert on lists and state, never on pixels.
package viz

import (
	"math"
	"strconv"
	"unicode/utf8"
)

// Colour indexes the palette. The hues are Okabe & Ito's (2008) set, which
// stays distinguishable under the common colour-vision deficiencies.
type Colour uint8

// The palette.
const (
	None       Colour = iota // not drawn
	Ink                      // text and axes
	Muted                    // secondary text, light marks
	Grid                     // grid lines
	Paper                    // background
	Blue                     // primary data
	Orange                   // the "private" side, noise
	Green                    // pass, kept
	Vermillion               // fail, removed, warnings
	Sky                      // secondary data
	Yellow                   // highlights
	Purple                   // thresholds: Okabe–Ito's reddish purple, which reads as pink, so texts call it pink
	// Darker versions of the hues for text, which needs 4.5:1 against the
	// paper where the hues give 1.4–3.9:1: List.Text draws text given in a
	// hue in its text version (5.2:1 or more on the paper).
	BlueText
	OrangeText
	GreenText
	VermillionText
	SkyText
	YellowText
	PurpleText
	numColours
)

// textColour is the colour text given in c is drawn in.
func textColour(c Colour) Colour {
	switch c {
	case Blue:
		return BlueText
	case Orange:
		return OrangeText
	case Green:
		return GreenText
	case Vermillion:
		return VermillionText
	case Sky:
		return SkyText
	case Yellow:
		return YellowText
	case Purple:
		return PurpleText
	}
	return c
}

// RGBA returns the colour's components.
func (c Colour) RGBA() (r, g, b, a uint8) {
	p := palette[c%numColours]
	return p[0], p[1], p[2], p[3]
}

var palette = [numColours][4]uint8{
	None:       {0, 0, 0, 0},
	Ink:        {27, 27, 31, 255},
	Muted:      {110, 110, 120, 255},
	Grid:       {226, 224, 218, 255},
	Paper:      {251, 250, 247, 255},
	Blue:       {0, 114, 178, 255},
	Orange:     {230, 159, 0, 255},
	Green:      {0, 158, 115, 255},
	Vermillion: {213, 94, 0, 255},
	Sky:        {86, 180, 233, 255},
	Yellow:     {240, 228, 66, 255},
	Purple:     {204, 121, 167, 255},
	// The hues darkened in lightness alone, to 5.2:1 on the paper.
	BlueText:       {0, 107, 168, 255},
	OrangeText:     {138, 96, 0, 255},
	GreenText:      {0, 117, 85, 255},
	VermillionText: {172, 76, 0, 255},
	SkyText:        {21, 110, 160, 255},
	YellowText:     {113, 106, 9, 255},
	PurpleText:     {173, 66, 125, 255},
}

// Kind is a display-list primitive.
type Kind uint8

// The primitives.
const (
	Circle   Kind = iota + 1 // P[0] centre, R radius
	Line                     // P[0] → P[1]
	Polyline                 // open path through P
	Polygon                  // closed, filled path through P
	Rect                     // corners P[0], P[1]
	Arrow                    // P[0] → P[1] with a head at P[1]
	Text                     // at P[0], aligned by Align
	// Dots are filled circles of radius R, one per point, sharing a style;
	// dot k answers hit-tests as ID + k. One item holds a whole point cloud.
	Dots
	// Layer starts a layer, the items up to its LayerEnd, that looks the
	// same whenever its Text (a key) is the same: a backend may paint it
	// once and reuse the pixels while the key stays, so a figure's static
	// part (a loss landscape of hundreds of cells) costs nothing to paint
	// while the rest animates. Layers do not nest.
	Layer
	LayerEnd
)

// Align places text relative to its anchor point.
type Align uint8

// Text alignments (horizontal; text is vertically centred on its anchor).
const (
	Left Align = iota
	Centre
	Right
)

// Point is a position in screen pixels (y down).
type Point struct{ X, Y float64 }

// Style is how an item is painted. Alpha scales both stroke and fill.
type Style struct {
	Stroke Colour
	Fill   Colour
	Width  float64 // stroke width in pixels
	Alpha  float64 // 0 means opaque
	Dashed bool
}

// Item is one primitive.
type Item struct {
	Kind  Kind
	Style Style
	P     []Point
	R     float64
	Text  string
	Size  float64 // text size in pixels
	Align Align
	// ID names what the item shows for hit-testing (a user, a bar); 0 is
	// "nothing".
	ID int
}

// List is a frame's display list, painted in order.
type List struct {
	Width, Height float64
	Items         []Item
	// arena backs the points of items added through the helpers, so a
	// scene that Resets and refills its list each frame allocates nothing
	// once warm (tens of thousands of points in the playground).
	arena []Point
	// open is one past the index of the Layer item EndLayer will close;
	// 0 when no layer is open.
	open int
}

// Reset empties the list for a new w × h frame, keeping its memory.
func (l *List) Reset(w, h float64) {
	l.Width, l.Height = w, h
	l.Items = l.Items[:0]
	l.arena = l.arena[:0]
	l.open = 0
}

// points returns n arena slots holding pts.
func (l *List) points(pts ...Point) []Point {
	k := len(l.arena)
	l.arena = append(l.arena, pts...)
	return l.arena[k : k+len(pts) : k+len(pts)]
}

// Add appends items.
func (l *List) Add(items ...Item) { l.Items = append(l.Items, items...) }

// Circle adds a circle.
func (l *List) Circle(c Point, r float64, s Style, id int) {
	l.Items = append(l.Items, Item{Kind: Circle, Style: s, P: l.points(c), R: r, ID: id})
}

// Line adds a segment.
func (l *List) Line(a, b Point, s Style) {
	l.Items = append(l.Items, Item{Kind: Line, Style: s, P: l.points(a, b)})
}

// Arrow adds a segment with a head at b.
func (l *List) Arrow(a, b Point, s Style) {
	l.Items = append(l.Items, Item{Kind: Arrow, Style: s, P: l.points(a, b)})
}

// Rect adds an axis-aligned rectangle with corners a and b.
func (l *List) Rect(a, b Point, s Style, id int) {
	l.Items = append(l.Items, Item{Kind: Rect, Style: s, P: l.points(a, b), ID: id})
}

// Polyline adds an open path.
func (l *List) Polyline(pts []Point, s Style) { l.Add(Item{Kind: Polyline, Style: s, P: pts}) }

// Polygon adds a closed, filled path.
func (l *List) Polygon(pts []Point, s Style) { l.Add(Item{Kind: Polygon, Style: s, P: pts}) }

// Dots adds a cloud of same-style dots; dot k has ID id + k (id 0: none).
func (l *List) Dots(pts []Point, r float64, s Style, id int) {
	l.Items = append(l.Items, Item{Kind: Dots, Style: s, P: l.points(pts...), R: r, ID: id})
}

// Layer starts a layer: the items up to EndLayer, whose pixels a backend
// may keep while they stay the same (see the Layer kind).
func (l *List) Layer() {
	if l.open != 0 {
		panic("viz: Layer inside a layer (layers do not nest)")
	}
	l.Items = append(l.Items, Item{Kind: Layer})
	l.open = len(l.Items)
}

// EndLayer ends the layer Layer started and keys it by what its items
// draw, so the key changes exactly when the pixels may: a scene cannot
// forget to name something its layer shows.
func (l *List) EndLayer() {
	if l.open == 0 {
		panic("viz: EndLayer without Layer")
	}
	l.Items[l.open-1].Text = strconv.FormatUint(layerKey(l.Items[l.open:]), 36)
	l.open = 0
	l.Items = append(l.Items, Item{Kind: LayerEnd})
}

// layerKey hashes what items draw (not their IDs, which only hit-tests
// read) with FNV-1a over 64-bit words. Each step of it is a bijection of
// the running hash for a given word, so two layers differing in one
// number never share a key; lengths are hashed, so no two item sequences
// run together alike.
func layerKey(items []Item) uint64 {
	const prime = 1099511628211
	h := uint64(14695981039346656037)
	for i := range items {
		it := &items[i]
		s := &it.Style
		dashed := uint64(0)
		if s.Dashed {
			dashed = 1
		}
		h = (h ^ (uint64(it.Kind) | uint64(s.Stroke)<<8 | uint64(s.Fill)<<16 | uint64(it.Align)<<24 | dashed<<31 | uint64(len(it.P))<<32)) * prime
		h = (h ^ math.Float64bits(s.Width)) * prime
		h = (h ^ math.Float64bits(s.Alpha)) * prime
		h = (h ^ math.Float64bits(it.R)) * prime
		h = (h ^ math.Float64bits(it.Size)) * prime
		// The hot loop: a layer of 40,000 dots hashes 80,000 numbers a
		// frame. The x and y run as two chains, which the processor
		// multiplies side by side, each step still a bijection of its
		// chain; both then fold into h one after the other.
		x, y := h, ^h
		for _, p := range it.P {
			x = (x ^ math.Float64bits(p.X)) * prime
			y = (y ^ math.Float64bits(p.Y)) * prime
		}
		h = ((h^x)*prime ^ y) * prime
		h = (h ^ uint64(len(it.Text))) * prime
		for k := 0; k < len(it.Text); k++ {
			h = (h ^ uint64(it.Text[k])) * prime
		}
	}
	return h
}

// TextWidth estimates a text's width in pixels at size: 0.55 em a
// character, a little above DejaVu Sans's average, so a scene can fit text
// to its frame without font metrics.
func TextWidth(text string, size float64) float64 {
	return 0.55 * size * float64(utf8.RuneCountInString(text))
}

// NumberWidth is TextWidth for text that holds figures: each digit counts
// 0.64 em, its width in DejaVu Sans, so a column of numbers is measured
// as wide as it prints.
func NumberWidth(text string, size float64) float64 {
	digits := 0
	for _, r := range text {
		if '0' <= r && r <= '9' {
			digits++
		}
	}
	return TextWidth(text, size) + 0.09*size*float64(digits)
}

// Text adds a label and returns the height of its block: one line is
// 1.25 size. Text that would run past the frame's edge (a long legend on a
// phone) is broken at spaces onto lines below its anchor (the block moved
// up if it would leave the frame at the bottom), and a word too long for
// any line is drawn smaller; a layout stacks what follows by the height.
// Text given in a hue is drawn in its darker text version (GreenText for
// Green), so that it reads at 4.5:1 or more.
func (l *List) Text(at Point, text string, size float64, c Colour, align Align) float64 {
	return l.TextIn(at, 0, text, size, c, align)
}

// TextIn is Text kept within a column width px wide (one column of a
// two-column layout) as well as within the frame; width ≤ 0 means the
// frame only.
func (l *List) TextIn(at Point, width float64, text string, size float64, c Colour, align Align) float64 {
	room := l.room(at, width, align)
	lines := textLines(text, size, room)
	lh := 1.25 * size
	if bottom := at.Y + float64(len(lines)-1)*lh + size/2; len(lines) > 1 && bottom > l.Height && l.Height > 0 {
		at.Y = math.Max(size/2, at.Y-(bottom-l.Height))
	}
	for i, line := range lines {
		s := size
		if w := TextWidth(line, size); room > 0 && w > room {
			s = size * room / w
		}
		p := Point{at.X, at.Y + float64(i)*lh}
		l.Items = append(l.Items, Item{Kind: Text, Style: Style{Fill: textColour(c)}, P: l.points(p), Text: line, Size: s, Align: align})
	}
	return float64(len(lines)) * lh
}

// TextAbove is TextIn with the block's last line at at.Y, the lines above
// it: for a title that must end just above what it names.
func (l *List) TextAbove(at Point, width float64, text string, size float64, c Colour, align Align) float64 {
	at.Y -= l.TextHeight(at, width, text, size, align) - 1.25*size
	return l.TextIn(at, width, text, size, c, align)
}

// TextHeight is the height TextIn would give the text, without drawing
// it: for a layout that must make room first.
func (l *List) TextHeight(at Point, width float64, text string, size float64, align Align) float64 {
	return float64(len(textLines(text, size, l.room(at, width, align)))) * 1.25 * size
}

// room is the width text anchored at at may take: to the frame's edge (or
// both edges, centred), and at most width when width > 0; 0 means no limit.
func (l *List) room(at Point, width float64, align Align) float64 {
	const margin = 4
	room := l.Width - at.X - margin
	switch align {
	case Centre:
		room = 2 * (math.Min(at.X, l.Width-at.X) - margin)
	case Right:
		room = at.X - margin
	}
	if l.Width == 0 {
		room = 0
	}
	if width > 0 && (room <= 0 || width < room) {
		room = width
	}
	return room
}

// textLines breaks text into lines that fit room at size (one line when
// it fits, or room ≤ 0).
func textLines(text string, size, room float64) []string {
	if room <= 0 || TextWidth(text, size) <= room {
		return []string{text}
	}
	return Wrap(text, int(room/(0.55*size)))
}

// Hit returns the ID of the topmost item with an ID under p, within slop
// pixels for thin shapes, or 0.
func (l *List) Hit(p Point, slop float64) int {
	for i := len(l.Items) - 1; i >= 0; i-- {
		it := &l.Items[i]
		if it.ID == 0 {
			continue
		}
		switch it.Kind {
		case Circle:
			dx, dy := p.X-it.P[0].X, p.Y-it.P[0].Y
			r := it.R + slop
			if dx*dx+dy*dy <= r*r {
				return it.ID
			}
		case Dots:
			r := it.R + slop
			for k := len(it.P) - 1; k >= 0; k-- {
				dx, dy := p.X-it.P[k].X, p.Y-it.P[k].Y
				if dx*dx+dy*dy <= r*r {
					return it.ID + k
				}
			}
		case Rect:
			x0, x1 := minmax(it.P[0].X, it.P[1].X)
			y0, y1 := minmax(it.P[0].Y, it.P[1].Y)
			if p.X >= x0-slop && p.X <= x1+slop && p.Y >= y0-slop && p.Y <= y1+slop {
				return it.ID
			}
		}
	}
	return 0
}

func minmax(a, b float64) (float64, float64) {
	if a > b {
		return b, a
	}
	return a, b
}

// HitEvent is Hit at a pointer event's point: what the pointer is on in
// the frame last drawn, 0 for nothing (and when nothing is drawn yet, l nil).
// A keyboard's event names its item (Target), which is the answer while
// the frame holds it.
func (l *List) HitEvent(ev Event, slop float64) int {
	if l == nil {
		return 0
	}
	if ev.Target != 0 {
		if _, ok := l.Locate(ev.Target); ok {
			return ev.Target
		}
	}
	return l.Hit(Point{X: ev.X, Y: ev.Y}, slop)
}

// Locate returns the centre of the topmost item with the given ID.
func (l *List) Locate(id int) (Point, bool) {
	for i := len(l.Items) - 1; i >= 0; i-- {
		it := &l.Items[i]
		if it.Kind == Dots && it.ID != 0 && id >= it.ID && id < it.ID+len(it.P) {
			return it.P[id-it.ID], true
		}
		if it.ID != id || len(it.P) == 0 {
			continue
		}
		if it.Kind == Rect {
			return Point{(it.P[0].X + it.P[1].X) / 2, (it.P[0].Y + it.P[1].Y) / 2}, true
		}
		return it.P[0], true
	}
	return Point{}, false
}
