// Package scenes holds the lessons' scenes. Each is a viz.Scene: pure Go
// state, input handling and drawing, shared by the desktop app and the web
// site.
package scenes

import "github.com/uldplab/uldp/viz"

// All returns a fresh instance of every lesson scene, in lesson order.
func All() []viz.Scene {
	return []viz.Scene{NewPlayground(), NewCalibration(), NewAboveThreshold(), NewStability(), NewOutlier(), NewDPSGD(), NewPhased(), NewAuditLab()}
}

// failedReadouts is the one readout a lesson shows when its run failed;
// label says what could not be done ("cannot run", "cannot audit").
func failedReadouts(label string, err error) []viz.Readout {
	return []viz.Readout{{Name: "error", Label: label, Text: err.Error(), Warn: true}}
}

// drawFailure writes a failed run's message across the figure, wrapped to
// its width, from y down.
func drawFailure(l *viz.List, w, y float64, msg string) {
	for i, line := range viz.Wrap(msg, int(w/7)) {
		l.Text(viz.Point{X: 20, Y: y + 18*float64(i)}, line, 13, viz.Vermillion, viz.Left)
	}
}
