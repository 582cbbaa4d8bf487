package figure

// Plot maps query slots and values to pixels.
type Plot struct {
	X0, Y0, W, H float64
	Lo, Hi       float64
	Slots        int
}

func (p Plot) YOf(v float64) float64 { return p.Y0 + p.H*(p.Hi-v)/(p.Hi-p.Lo) }

func (p Plot) ValueAt(y float64) float64 { return p.Hi - (y-p.Y0)/p.H*(p.Hi-p.Lo) }

func (p Plot) SlotW() float64 { return p.W / float64(p.Slots) }

func (p Plot) SlotX(t int) float64 { return p.X0 + (float64(t)-0.5)*p.SlotW() } // t is 1-based

// XOf maps values to x pixels on a horizontal plot.
func (p Plot) XOf(v float64) float64 { return p.X0 + p.W*(v-p.Lo)/(p.Hi-p.Lo) }
