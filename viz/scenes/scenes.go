// Package scenes holds the lessons' scenes. Each is a viz.Scene: pure Go
// state, input handling and drawing, shared by the desktop app and the web
// site.
package scenes

import "github.com/uldplab/uldp/viz"

// All returns a fresh instance of every lesson scene, in lesson order.
func All() []viz.Scene {
	return []viz.Scene{NewPlayground(), NewCalibration(), NewAboveThreshold(), NewStability(), NewOutlier(), NewDPSGD(), NewPhased(), NewAuditLab()}
}
