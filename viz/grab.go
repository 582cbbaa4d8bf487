package viz

// Grab is a drag through a camera: what is held (an ID, 0 for nothing),
// the camera the pointer moves it in, and where the pointer took hold. A
// scene starts it on pointer down over what can be dragged and reads
// where that goes on every move.
type Grab struct {
	// ID is what is held, 0 for nothing.
	ID int
	// Cam is the view the drag happens in.
	Cam  Camera
	from [2]float64 // the pointer's world point at the start
	off  [2]float64 // the held point less the pointer's
}

// Start takes hold of id, whose point is at, with the pointer at ev in
// cam's view.
func (g *Grab) Start(id int, cam Camera, ev Event, at [2]float64) {
	x, y := cam.ToWorld(Point{X: ev.X, Y: ev.Y})
	g.ID, g.Cam, g.from, g.off = id, cam, [2]float64{x, y}, [2]float64{at[0] - x, at[1] - y}
}

// At is where the held point goes with the pointer at ev: it keeps its
// offset from the pointer, so it does not jump to the pointer's tip.
func (g *Grab) At(ev Event) [2]float64 {
	x, y := g.Cam.ToWorld(Point{X: ev.X, Y: ev.Y})
	return [2]float64{x + g.off[0], y + g.off[1]}
}

// Within is At kept inside the camera's view: a point dragged past the
// view's edge waits at it, rather than over a chart beside the view.
func (g *Grab) Within(ev Event) [2]float64 {
	at := g.At(ev)
	x0, y1 := g.Cam.ToWorld(Point{X: g.Cam.X0, Y: g.Cam.Y0})
	x1, y0 := g.Cam.ToWorld(Point{X: g.Cam.X0 + g.Cam.W, Y: g.Cam.Y0 + g.Cam.H})
	return [2]float64{min(max(at[0], min(x0, x1)), max(x0, x1)), min(max(at[1], min(y0, y1)), max(y0, y1))}
}

// Moved is how far the pointer has moved in the world since the start:
// what a held group of points (a user's items) moves by.
func (g *Grab) Moved(ev Event) [2]float64 {
	x, y := g.Cam.ToWorld(Point{X: ev.X, Y: ev.Y})
	return [2]float64{x - g.from[0], y - g.from[1]}
}

// End lets go, and reports whether anything was held.
func (g *Grab) End() bool { return LetGo(&g.ID) }
