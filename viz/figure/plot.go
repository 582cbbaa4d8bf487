package figure

// Plot is a panel of the figure: its place in pixels, the values its
// axis spans, and, for a row of bars, how many slots it holds.
type Plot struct {
	// X0, Y0 are the top-left corner, W × H the size, in pixels.
	X0, Y0, W, H float64
	// Lo and Hi are the values at the axis's ends: the bottom and the top
	// of a vertical axis (YOf), the left and the right of a horizontal one
	// (XOf).
	Lo, Hi float64
	// Slots is how many bars share the width (SlotX).
	Slots int
}

// YOf maps a value to its y pixel on a vertical axis.
func (p Plot) YOf(v float64) float64 { return p.Y0 + p.H*(p.Hi-v)/(p.Hi-p.Lo) }

// ValueAt maps a y pixel back to its value (a drag on a vertical axis).
func (p Plot) ValueAt(y float64) float64 { return p.Hi - (y-p.Y0)/p.H*(p.Hi-p.Lo) }

// SlotW is the width of one slot.
func (p Plot) SlotW() float64 { return p.W / float64(p.Slots) }

// SlotX is the centre of slot t, counted from 1.
func (p Plot) SlotX(t int) float64 { return p.X0 + (float64(t)-0.5)*p.SlotW() }

// XOf maps values to x pixels on a horizontal plot.
func (p Plot) XOf(v float64) float64 { return p.X0 + p.W*(v-p.Lo)/(p.Hi-p.Lo) }
