// Package ebitenview renders ULDP Lab's scenes with Ebitengine: it paints
// display lists, draws the scene's declared controls as a side panel, and
// turns mouse, touch and keyboard input into viz.App calls. It holds no
// lesson logic; that lives in viz and core.
package ebitenview

import (
	"bytes"
	"image/color"
	"math"
	"os"
	"strings"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/text/v2"
	"github.com/hajimehoshi/ebiten/v2/vector"
	"golang.org/x/image/font/gofont/goregular"

	"github.com/uldplab/uldp/viz"
)

// fontPaths are tried before the built-in Go font, which lacks ⊤, ⊥, ∈ and
// combining accents (Δ̂). ULDP_FONT names another TrueType file.
var fontPaths = []string{
	"/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
	"/usr/share/fonts/TTF/DejaVuSans.ttf",
	"/Library/Fonts/DejaVuSans.ttf",
}

// mathPaths are tried after it for what DejaVu Sans lacks: the script
// capitals of the papers' sets (𝒦, 𝒟).
var mathPaths = []string{
	"/usr/share/fonts/truetype/dejavu/DejaVuMathTeXGyre.ttf",
	"/usr/share/fonts/TTF/DejaVuMathTeXGyre.ttf",
	"/Library/Fonts/DejaVuMathTeXGyre.ttf",
}

// loadFaces returns the font sources to draw with, best first.
func loadFaces() []*text.GoTextFaceSource {
	var out []*text.GoTextFaceSource
	paths := fontPaths
	if p := os.Getenv("ULDP_FONT"); p != "" {
		paths = append([]string{p}, paths...)
	}
	for _, list := range [][]string{paths, mathPaths} {
		for _, p := range list {
			f, err := os.Open(p)
			if err != nil {
				continue
			}
			src, err := text.NewGoTextFaceSource(f)
			f.Close()
			if err == nil {
				out = append(out, src)
				break
			}
		}
	}
	if src, err := text.NewGoTextFaceSource(bytes.NewReader(goregular.TTF)); err == nil {
		out = append(out, src)
	}
	return out
}

// measurer gives a string's width in pixels at a font size.
type measurer func(s string, size float64) float64

// width measures s as drawn at size.
func (p *painter) width(s string, size float64) float64 {
	return text.AdvanceAt(s, len(s), p.face(size))
}

// wrapWidth breaks s at spaces into lines no wider than w pixels (a word
// wider than w gets a line of its own).
func wrapWidth(s string, size, w float64, width measurer) []string {
	var lines []string
	cur := ""
	for _, word := range strings.Fields(s) {
		next := word
		if cur != "" {
			next = cur + " " + word
			if width(next, size) > w {
				lines, next = append(lines, cur), word
			}
		}
		cur = next
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	return lines
}

// painter draws display lists. Dots and small circles are scaled copies
// of one anti-aliased disc and straight lines are plain quads, so Ebitengine
// batches them into a few draw calls; only curves, polygons and large rings
// go through vector's anti-aliased path filling, which is one draw call per
// shape and far too slow for thousands of dots on a software renderer.
type painter struct {
	sources []*text.GoTextFaceSource
	faces   map[float64]text.Face
	path    vector.Path
	disc    *ebiten.Image
	op      ebiten.DrawImageOptions
}

// discSize is the pre-rendered disc's diameter in pixels.
const discSize = 64

// smallCircle is the largest radius drawn with the disc sprite.
const smallCircle = 16

func newPainter() *painter {
	return &painter{sources: loadFaces(), faces: map[float64]text.Face{}}
}

func (p *painter) face(size float64) text.Face {
	if f, ok := p.faces[size]; ok {
		return f
	}
	var faces []text.Face
	for _, s := range p.sources {
		faces = append(faces, &text.GoTextFace{Source: s, Size: size})
	}
	var f text.Face = faces[0]
	if len(faces) > 1 {
		if m, err := text.NewMultiFace(faces...); err == nil {
			f = m
		}
	}
	p.faces[size] = f
	return f
}

func rgba(c viz.Colour, alpha float64) color.NRGBA {
	r, g, b, _ := c.RGBA()
	if alpha == 0 {
		alpha = 1
	}
	return color.NRGBA{r, g, b, uint8(math.Round(255 * math.Max(0, math.Min(1, alpha))))}
}

// text draws s at (x, y), vertically centred, aligned horizontally.
func (p *painter) text(dst *ebiten.Image, s string, x, y, size float64, c color.Color, align viz.Align) {
	op := &text.DrawOptions{}
	op.GeoM.Translate(x, y)
	op.ColorScale.ScaleWithColor(c)
	op.PrimaryAlign = [...]text.Align{text.AlignStart, text.AlignCenter, text.AlignEnd}[align%3]
	op.SecondaryAlign = text.AlignCenter
	text.Draw(dst, s, p.face(size), op)
}

// paint draws l onto dst (whose origin is the figure's top-left corner).
func (p *painter) paint(dst *ebiten.Image, l *viz.List) {
	for i := range l.Items {
		it := &l.Items[i]
		st := it.Style
		stroke, fill := rgba(st.Stroke, st.Alpha), rgba(st.Fill, st.Alpha)
		w := float32(math.Max(st.Width, 1))
		switch it.Kind {
		case viz.Circle:
			c := it.P[0]
			switch {
			case it.R <= smallCircle && st.Fill != viz.None:
				// A stroked dot: the stroke colour's disc under the fill's.
				if st.Stroke != viz.None {
					p.dot(dst, c, it.R+float64(w)/2, stroke)
					p.dot(dst, c, math.Max(it.R-float64(w)/2, 0.5), fill)
				} else {
					p.dot(dst, c, it.R, fill)
				}
			default:
				if st.Fill != viz.None {
					vector.FillCircle(dst, float32(c.X), float32(c.Y), float32(it.R), fill, true)
				}
				if st.Stroke != viz.None {
					p.ring(dst, c, float32(it.R), w, stroke)
				}
			}
		case viz.Dots:
			for _, c := range it.P {
				p.dot(dst, c, it.R, fill)
			}
		case viz.Line:
			if st.Stroke != viz.None {
				p.line(dst, it.P[0], it.P[1], w, stroke, st.Dashed)
			}
		case viz.Polyline:
			if st.Stroke == viz.None || len(it.P) < 2 {
				continue
			}
			if st.Dashed {
				for k := 1; k < len(it.P); k++ {
					p.line(dst, it.P[k-1], it.P[k], w, stroke, true)
				}
				continue
			}
			// One anti-aliased path: curves (noise densities) stay smooth.
			p.trace(it.P)
			op := &vector.DrawPathOptions{AntiAlias: true}
			op.ColorScale.ScaleWithColor(stroke)
			vector.StrokePath(dst, &p.path, &vector.StrokeOptions{Width: w, LineJoin: vector.LineJoinRound}, op)
		case viz.Polygon:
			p.trace(it.P)
			p.path.Close()
			if st.Fill != viz.None {
				p.fillPath(dst, fill)
			}
			if st.Stroke != viz.None {
				op := &vector.DrawPathOptions{AntiAlias: true}
				op.ColorScale.ScaleWithColor(stroke)
				vector.StrokePath(dst, &p.path, &vector.StrokeOptions{Width: w}, op)
			}
		case viz.Rect:
			x0, x1 := math.Min(it.P[0].X, it.P[1].X), math.Max(it.P[0].X, it.P[1].X)
			y0, y1 := math.Min(it.P[0].Y, it.P[1].Y), math.Max(it.P[0].Y, it.P[1].Y)
			if st.Fill != viz.None {
				vector.FillRect(dst, float32(x0), float32(y0), float32(x1-x0), float32(y1-y0), fill, false)
			}
			if st.Stroke != viz.None {
				vector.StrokeRect(dst, float32(x0), float32(y0), float32(x1-x0), float32(y1-y0), w, stroke, false)
			}
		case viz.Arrow:
			a, b := it.P[0], it.P[1]
			p.line(dst, a, b, w, stroke, st.Dashed)
			dx, dy := b.X-a.X, b.Y-a.Y
			n := math.Hypot(dx, dy)
			if n == 0 {
				continue
			}
			ux, uy := dx/n, dy/n
			head := math.Min(9, n/2)
			p.path.Reset()
			p.path.MoveTo(float32(b.X), float32(b.Y))
			p.path.LineTo(float32(b.X-head*ux+head*0.5*uy), float32(b.Y-head*uy-head*0.5*ux))
			p.path.LineTo(float32(b.X-head*ux-head*0.5*uy), float32(b.Y-head*uy+head*0.5*ux))
			p.path.Close()
			p.fillPath(dst, stroke)
		case viz.Text:
			c := st.Fill
			if c == viz.None {
				c = viz.Ink
			}
			size := it.Size
			if size == 0 {
				size = 12
			}
			p.text(dst, it.Text, it.P[0].X, it.P[0].Y, size, rgba(c, st.Alpha), it.Align)
		}
	}
}

// trace sets the painter's path to the open path through pts.
func (p *painter) trace(pts []viz.Point) {
	p.path.Reset()
	for k, q := range pts {
		if k == 0 {
			p.path.MoveTo(float32(q.X), float32(q.Y))
		} else {
			p.path.LineTo(float32(q.X), float32(q.Y))
		}
	}
}

// ring strokes a circle with miter joins. vector.StrokeCircle joins its
// segments round, and a lesson's dozens of overlapping τ rings then took
// seconds a frame under a software renderer; mitred, milliseconds (on a
// flattened circle the joins' angles are tiny, so a mitre is invisible).
func (p *painter) ring(dst *ebiten.Image, c viz.Point, r, w float32, clr color.Color) {
	p.path.Reset()
	p.path.MoveTo(float32(c.X)+r, float32(c.Y))
	p.path.Arc(float32(c.X), float32(c.Y), r, 0, 2*math.Pi, vector.Clockwise)
	p.path.Close()
	op := &vector.DrawPathOptions{AntiAlias: true}
	op.ColorScale.ScaleWithColor(clr)
	vector.StrokePath(dst, &p.path, &vector.StrokeOptions{Width: w}, op)
}

func (p *painter) fillPath(dst *ebiten.Image, c color.Color) {
	op := &vector.DrawPathOptions{AntiAlias: true}
	op.ColorScale.ScaleWithColor(c)
	vector.FillPath(dst, &p.path, nil, op)
}

// dot draws a filled disc of radius r centred at c with the disc sprite.
func (p *painter) dot(dst *ebiten.Image, c viz.Point, r float64, clr color.Color) {
	if p.disc == nil {
		p.disc = ebiten.NewImage(discSize, discSize)
		vector.FillCircle(p.disc, discSize/2, discSize/2, discSize/2, color.White, true)
	}
	op := &p.op
	op.GeoM.Reset()
	op.GeoM.Scale(2*r/discSize, 2*r/discSize)
	op.GeoM.Translate(c.X-r, c.Y-r)
	op.ColorScale.Reset()
	op.ColorScale.ScaleWithColor(clr)
	op.Filter = ebiten.FilterLinear
	dst.DrawImage(p.disc, op)
}

// line strokes a segment as a batched quad, in 6-on/4-off dashes when dashed.
func (p *painter) line(dst *ebiten.Image, a, b viz.Point, w float32, c color.Color, dashed bool) {
	if !dashed {
		vector.StrokeLine(dst, float32(a.X), float32(a.Y), float32(b.X), float32(b.Y), w, c, false)
		return
	}
	n := math.Hypot(b.X-a.X, b.Y-a.Y)
	for s := 0.0; s < n; s += 10 {
		e := math.Min(s+6, n)
		t0, t1 := s/n, e/n
		vector.StrokeLine(dst,
			float32(a.X+(b.X-a.X)*t0), float32(a.Y+(b.Y-a.Y)*t0),
			float32(a.X+(b.X-a.X)*t1), float32(a.Y+(b.Y-a.Y)*t1), w, c, false)
	}
}
