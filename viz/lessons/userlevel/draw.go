package userlevel

import (
	"math"
	"slices"

	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/robust"
	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/figure"
)

func (p *Scene) itemID(i, j int) int { return 1 + i*p.spec.M + j }
func (p *Scene) userID(i int) int    { return 1 + p.spec.N*p.spec.M + i }

// fit points the camera at the data's bounding box, below the header's
// text (measured with every note it can show, so that it fits at any zoom).
func (p *Scene) fit(w, h float64) {
	x0, x1, y0, y1 := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for i := range p.data.Users {
		for j := range p.data.Items(i) {
			it := p.data.Item(i, j)
			x0, x1 = math.Min(x0, it[0]), math.Max(x1, it[0])
			y0, y1 = math.Min(y0, it[1]), math.Max(y1, it[1])
		}
	}
	top := p.header(&viz.List{Width: w, Height: h}, 0, viz.Camera{}) - 20
	p.cam = viz.Fit(x0, x1, y0, y1, 0, top, w, h-top, 40)
	p.fitW, p.fitH = w, h
	p.fitted = true
}

// Draw paints items, user means, the three summaries and the sensitivity
// balls. The list is reused from frame to frame.
func (p *Scene) Draw(w, h float64) *viz.List {
	if !p.fitted || (p.drag == dragNone && (p.fitW != w || p.fitH != h)) {
		p.fit(w, h)
	}
	l := &p.list
	l.Reset(w, h)
	c := p.cam
	centre := c.ToScreen(p.mean[0], p.mean[1])
	// The domain the worst-case sensitivities assume.
	l.Circle(centre, p.radius*c.Scale, viz.Style{Stroke: viz.Muted, Width: 1, Dashed: true}, 0)

	// The users' items and means are one layer, which a backend paints
	// once while it stays the same. The user being dragged is drawn above
	// it, outside, so a drag leaves the layer (up to 40,000 dots and 2,000
	// ringed means) as it was.
	dragged := -1
	if p.drag == dragUser || p.drag == dragItem {
		dragged = p.dragUser
	}
	l.Layer()
	for i := range p.data.Users {
		if i != dragged {
			p.drawUser(l, i)
		}
	}
	for i := range p.means {
		if i != dragged {
			p.drawMean(l, i)
		}
	}
	l.EndLayer()
	if dragged >= 0 {
		p.drawUser(l, dragged)
		p.drawMean(l, dragged)
	}

	// Summaries: coordinate median (diamond), trimmed mean (square), then
	// the mean (cross) over them on a paper halo: on concentrated users
	// the three coincide, and the filled marks hid the cross.
	md := c.ToScreen(p.median[0], p.median[1])
	l.Polygon([]viz.Point{{X: md.X, Y: md.Y - 7}, {X: md.X + 7, Y: md.Y}, {X: md.X, Y: md.Y + 7}, {X: md.X - 7, Y: md.Y}},
		viz.Style{Fill: viz.Purple, Stroke: viz.Ink, Width: 1})
	tm := c.ToScreen(p.trimmed[0], p.trimmed[1])
	l.Rect(viz.Point{X: tm.X - 5, Y: tm.Y - 5}, viz.Point{X: tm.X + 5, Y: tm.Y + 5}, viz.Style{Fill: viz.Green, Stroke: viz.Ink, Width: 1}, 0)
	for _, st := range []viz.Style{{Stroke: viz.Paper, Width: 6}, {Stroke: viz.Ink, Width: 3}} {
		const s = 10
		l.Line(viz.Point{X: centre.X - s, Y: centre.Y}, viz.Point{X: centre.X + s, Y: centre.Y}, st)
		l.Line(viz.Point{X: centre.X, Y: centre.Y - s}, viz.Point{X: centre.X, Y: centre.Y + s}, st)
	}
	for _, b := range p.balls() {
		l.Circle(centre, math.Max(b.radius*c.Scale, 1.5), viz.Style{Stroke: b.col, Width: 2}, 0)
	}
	in := p.drawInset(l, w, h)
	// The header sits on paper: the domain's circle, as large as R, and
	// items dragged up would otherwise run through its text. Its height
	// is known once it is written, so the backing is sized after.
	back := len(l.Items)
	l.Rect(viz.Point{}, viz.Point{X: w}, viz.Style{Fill: viz.Paper, Alpha: 0.92}, 0)
	bottom := p.header(l, c.Scale, in)
	l.Items[back].P[1].Y = bottom + 4
	c.DrawScaleBar(l)
	return l
}

// drawUser draws user i's items: small dots once the figure holds over
// 4,000.
func (p *Scene) drawUser(l *viz.List, i int) {
	r := 3.0
	if p.spec.N*p.spec.M > 4000 {
		r = 1.6
	}
	c := p.cam
	pts := p.dots[:0]
	for j := range p.data.Items(i) {
		it := p.data.Item(i, j)
		pts = append(pts, c.ToScreen(it[0], it[1]))
	}
	p.dots = pts
	l.Dots(pts, r, viz.Style{Fill: figure.UserColours[i%len(figure.UserColours)], Alpha: 0.55}, p.itemID(i, 0))
}

// drawMean draws user i's mean, ringed, in yellow while it is dragged.
func (p *Scene) drawMean(l *viz.List, i int) {
	st := viz.Style{Fill: figure.UserColours[i%len(figure.UserColours)], Stroke: viz.Ink, Width: 1}
	if p.drag == dragUser && p.dragUser == i {
		st.Stroke, st.Width = viz.Yellow, 3
	}
	u := p.means[i]
	l.Circle(p.cam.ToScreen(u[0], u[1]), 5.5, st, p.userID(i))
}

// ballsInset returns a view magnifying the mean's neighbourhood when the
// item-level ball and the largest real influence are too small to see in
// the main view (the default's are a few pixels), wide enough for the
// larger of the two; a camera of width 0 otherwise.
func (p *Scene) ballsInset(w, h float64) viz.Camera {
	small := math.Max(p.itemSens(), p.maxInfluence)
	if small*p.cam.Scale >= 12 {
		return viz.Camera{}
	}
	top := p.header(&viz.List{Width: w, Height: h}, 0, viz.Camera{}) + 4
	in, beside := figure.CornerInset(p.cam, w, top, h, p.mean, 1.25*small, slices.Values(p.means))
	if beside { // every corner covers users: better no inset than one over them
		return viz.Camera{}
	}
	return in
}

// drawInset draws the mean's neighbourhood magnified, with the balls that
// fit in it, and returns its camera (width 0: none).
func (p *Scene) drawInset(l *viz.List, w, h float64) viz.Camera {
	in := p.ballsInset(w, h)
	if in.W == 0 {
		return in
	}
	figure.DrawInsetFrame(l, p.cam, in, "around the mean")
	centre := in.ToScreen(p.mean[0], p.mean[1])
	st := viz.Style{Stroke: viz.Ink, Width: 2}
	l.Line(viz.Point{X: centre.X - 7, Y: centre.Y}, viz.Point{X: centre.X + 7, Y: centre.Y}, st)
	l.Line(viz.Point{X: centre.X, Y: centre.Y - 7}, viz.Point{X: centre.X, Y: centre.Y + 7}, st)
	for _, b := range p.balls() {
		if rad := b.radius * in.Scale; rad <= in.W/2-4 {
			l.Circle(centre, math.Max(rad, 1.5), viz.Style{Stroke: b.col, Width: 2}, 0)
		}
	}
	return in
}

// ball is a sensitivity ball drawn around the mean.
type ball struct {
	radius float64
	col    viz.Colour
	label  string
}

// balls are the sensitivity balls around the mean: drawn over the markers,
// since a ball smaller than the markers would hide under them.
func (p *Scene) balls() []ball {
	return []ball{
		{p.userSens(), viz.Vermillion, "user-level ball 2R/n"},
		{p.itemSens(), viz.Blue, "item-level ball 2R/(nm)"},
		{p.maxInfluence, viz.Green, "largest real influence of one user"},
	}
}

// header writes the balls' legend, the markers' legend and the hint, each
// below the last, and returns the y below them. A ball smaller than the
// markers at the camera's scale (every ball, for scale 0) says where to
// see it: in the inset (in, when it has a width and the ball fits there),
// else by zooming.
func (p *Scene) header(l *viz.List, scale float64, in viz.Camera) float64 {
	y := 18.0
	for _, b := range p.balls() {
		note := b.label
		switch {
		case b.radius*scale >= 10:
		case in.W > 0 && b.radius*in.Scale <= in.W/2-4:
			note += " (small here: see the inset)"
		default:
			note += " (smaller than the markers: zoom in)"
		}
		y += l.Text(viz.Point{X: 14, Y: y}, "◯ "+note, 12, b.col, viz.Left) + 3
	}
	// Each legend glyph in the colour the figure draws it in; an entry
	// that does not fit the row starts the next.
	x := 14.0
	for _, e := range []struct {
		text string
		col  viz.Colour
	}{{"✚ mean of user means", viz.Ink}, {"◆ coordinate median", viz.Purple}, {"■ trimmed mean", viz.Green}} {
		tw := viz.TextWidth(e.text, 12)
		if x > 14 && x+tw > l.Width-4 {
			x, y = 14, y+18
		}
		l.Text(viz.Point{X: x, Y: y}, e.text, 12, e.col, viz.Left)
		x += tw + 14
	}
	y += 18
	y += l.Text(viz.Point{X: 14, Y: y}, format.Sprintf("%d users × %d items · drag an item, or a user's ringed mean to move all its items", p.spec.N, p.spec.M), 12, viz.Muted, viz.Left)
	return y
}

// Pointer drags an item, a whole user (its mean) or the view; the wheel zooms.
func (p *Scene) Pointer(ev viz.Event) bool {
	pt := viz.Point{X: ev.X, Y: ev.Y}
	switch ev.Kind {
	case viz.PointerDown:
		id := p.list.HitEvent(ev, 3)
		nm := p.spec.N * p.spec.M
		p.lastX, p.lastY = p.cam.ToWorld(pt)
		switch {
		case id > nm:
			p.drag, p.dragUser = dragUser, id-nm-1
		case id > 0:
			p.drag, p.dragUser, p.dragItem = dragItem, (id-1)/p.spec.M, (id-1)%p.spec.M
		default:
			p.drag, p.panX, p.panY = dragPan, ev.X, ev.Y
		}
		return p.drag != dragPan
	case viz.PointerMove:
		switch p.drag {
		case dragPan:
			p.cam.Pan(ev.X-p.panX, ev.Y-p.panY)
			p.panX, p.panY = ev.X, ev.Y
			return true
		case dragItem, dragUser:
			x, y := p.cam.ToWorld(pt)
			dx, dy := x-p.lastX, y-p.lastY
			p.lastX, p.lastY = x, y
			if dx == 0 && dy == 0 {
				return false
			}
			p.move(dx, dy)
			return true
		}
	case viz.PointerUp:
		moved := p.drag != dragNone
		p.drag = dragNone
		return moved
	case viz.Wheel:
		p.cam.Zoom(math.Pow(1.15, ev.Delta), pt)
		return true
	}
	return false
}

// move shifts the dragged item, or every item of the dragged user, and
// updates that user's mean and the summaries.
func (p *Scene) move(dx, dy float64) {
	i := p.dragUser
	items := []int{p.dragItem}
	if p.drag == dragUser {
		items = items[:0]
		for j := range p.data.Items(i) {
			items = append(items, j)
		}
	}
	for _, j := range items {
		it := p.data.Item(i, j)
		it[0] += dx
		it[1] += dy
	}
	old := [2]float64{p.means[i][0], p.means[i][1]}
	p.data.UserMean(i, p.means[i])
	for k := range p.sorted {
		robust.Replace(p.sorted[k], old[k], p.means[i][k])
	}
	p.updateSummary()
}
