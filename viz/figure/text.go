package figure

import (
	"math"
	"strconv"

	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/viz"
)

// ZoomLabel writes a magnification: "×3.5", "×22", "×110".
func ZoomLabel(x float64) string {
	if x >= 10 {
		return format.Sprintf("×%.0f", x)
	}
	return format.Sprintf("×%.2g", x)
}

// Subscript writes i with subscript digits: θ̂ plus Subscript(2) is θ̂₂.
func Subscript(i int) string {
	var out []rune
	for _, d := range strconv.Itoa(i) {
		out = append(out, '₀'+d-'0')
	}
	return string(out)
}

// Reset readies l for a w × h frame and reports whether the run the
// figure shows worked: when err is not nil it writes "Cannot run: " and
// the error across the frame, and the scene draws nothing else.
func Reset(l *viz.List, w, h float64, err error) bool {
	l.Reset(w, h)
	if err != nil {
		DrawFailure(l, w, 30, "Cannot run: "+err.Error())
		return false
	}
	return true
}

// DrawFailure writes a failed run's message across the figure, wrapped to
// its width, from y down.
func DrawFailure(l *viz.List, w, y float64, msg string) {
	for i, line := range viz.Wrap(msg, int(w/7)) {
		l.Text(viz.Point{X: 20, Y: y + 18*float64(i)}, line, 13, viz.Vermillion, viz.Left)
	}
}

// Decade labels 10^k compactly: 0.001 … 1000, else 1e−4.
func Decade(k int) string {
	if k >= -3 && k <= 3 {
		return strconv.FormatFloat(math.Pow(10, float64(k)), 'f', -1, 64)
	}
	return format.Sprintf("1e%d", k)
}
