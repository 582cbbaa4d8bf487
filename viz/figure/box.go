package figure

import (
	"math"

	"github.com/uldplab/uldp/viz"
)

// Clamp is v kept within [lo, hi]: a mark beyond an axis's end drawn at
// the end.
func Clamp(v, lo, hi float64) float64 { return math.Max(lo, math.Min(hi, v)) }

// UserColours cycles through the palette's hues so neighbouring users differ.
var UserColours = []viz.Colour{viz.Blue, viz.Orange, viz.Green, viz.Vermillion, viz.Sky, viz.Purple, viz.Yellow}

// Box is a panel's place in the frame.
type Box struct{ X, Y, W, H float64 }

// Fits reports whether text written at y stays inside b.
func (b Box) Fits(l *viz.List, y float64, text string, size float64) bool {
	return y+l.TextHeight(viz.Point{X: b.X, Y: y}, b.W, text, size, viz.Left) <= b.Y+b.H
}
