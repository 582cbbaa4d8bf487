package viz

import "github.com/uldplab/uldp/core/format"

// computingName names the readout of a change under way.
const computingName = "computing"

// LastRunShown says what a figure shows while a change computes, for a
// ComputingReadout.
const LastRunShown = "until it is done, the figure and the guarantee show the last run computed"

// ComputingReadout is a lesson's readout of a change under way, which the
// banner over its figure shows too: the stage, the share of the work done,
// and what the figure shows meanwhile.
func ComputingReadout(stage string, frac float64, meanwhile string) Readout {
	return Readout{Name: computingName, Label: "computing", Value: frac, Warn: true,
		Text: format.Sprintf("%s, %.0f%% — %s", stage, 100*frac, meanwhile)}
}

// drawComputing lays a banner over the top of the figure while the scene
// computes a change between frames: a bar and the scene's "computing"
// readout (what is being computed, how far it has come, and what the
// figure shows meanwhile). The readouts may be a screen away, beside or
// below the figure; without the banner a reader takes the figure for the
// run just asked for, and a lesson could forget to say it is busy.
func (a *App) drawComputing(l *List) {
	if _, live := a.Scene().(Live); live || !a.computing() || l == nil || l.Width <= 0 {
		return
	}
	var r Readout
	for _, x := range a.Scene().Readouts() {
		if x.Name == computingName {
			r = x
			break
		}
	}
	if r.Name == "" {
		return
	}
	// Flush with the top: a title there peeking out above would read as
	// struck through.
	const margin, pad, bar, size = 8.0, 8.0, 5.0, 12.0
	x0, y0 := margin, 0.5
	// The figure's whole width: a panel's heading half covered would read
	// as torn.
	w := l.Width - 2*margin
	text := r.Label + ": " + r.Text
	at := Point{X: x0 + pad, Y: y0 + pad + bar + 6 + 0.625*size}
	th := l.TextHeight(at, w-2*pad, text, size, Left)
	h := pad + bar + 6 + th + pad/2
	l.Rect(Point{X: x0, Y: y0}, Point{X: x0 + w, Y: y0 + h}, Style{Fill: Paper, Stroke: Muted, Width: 1}, 0)
	bx0, bx1 := x0+pad, x0+w-pad
	by := y0 + pad
	l.Rect(Point{X: bx0, Y: by}, Point{X: bx1, Y: by + bar}, Style{Fill: Paper, Stroke: Muted, Width: 1}, 0)
	if f := min(1, max(0, r.Value)); f > 0 {
		l.Rect(Point{X: bx0, Y: by}, Point{X: bx0 + f*(bx1-bx0), Y: by + bar}, Style{Fill: Blue}, 0)
	}
	l.TextIn(at, w-2*pad, text, size, Ink, Left)
}
