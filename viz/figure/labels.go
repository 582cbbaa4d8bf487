package figure

import "github.com/uldplab/uldp/viz"

// Labels places labels that may crowd each other (one per dot, where dots
// can pile up): a label that would overlap one already placed is left out,
// so place the important ones first.
type Labels struct {
	// L is the list the labels are drawn into.
	L     *viz.List
	boxes [][4]float64
}

// Text draws a one-line label unless it would overlap a placed one, and
// says whether it did.
func (p *Labels) Text(at viz.Point, text string, size float64, c viz.Colour, align viz.Align) bool {
	tw := viz.TextWidth(text, size)
	x0 := at.X - [...]float64{0, tw / 2, tw}[align]
	b := [4]float64{x0, at.Y - size/2, x0 + tw, at.Y + size/2}
	for _, o := range p.boxes {
		if b[0] < o[2] && o[0] < b[2] && b[1] < o[3] && o[1] < b[3] {
			return false
		}
	}
	p.boxes = append(p.boxes, b)
	p.L.Text(at, text, size, c, align)
	return true
}

// Reserve keeps later labels off the box from (x0, y0) to (x1, y1): a
// panel drawn over the figure afterwards (an inset) that would hide them.
func (p *Labels) Reserve(x0, y0, x1, y1 float64) {
	p.boxes = append(p.boxes, [4]float64{x0, y0, x1, y1})
}
