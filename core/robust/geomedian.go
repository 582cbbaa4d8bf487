package robust

import "math"

// GeometricMedian returns argmin_x Σᵢ‖x − pᵢ‖₂ by Weiszfeld's iteration,
// to a relative step of tol. It is here as Ghazi et al.'s counterexample (its
// App. B.10): unlike the coordinate-wise median it is not 1-Lipschitz —
// moving every point by α can move it by 1 — so it cannot stand in for
// the robust statistic.
func GeometricMedian(points [][]float64, tol float64) []float64 {
	// Weiszfeld creeps towards a median that sits on a data point (its
	// weights blow up there), so test those first, exactly.
	for _, p := range points {
		if atPointOptimal(points, p) {
			return append([]float64(nil), p...)
		}
	}
	d := len(points[0])
	x := make([]float64, d)
	for _, p := range points { // start at the mean
		for k, v := range p {
			x[k] += v / float64(len(points))
		}
	}
	next := make([]float64, d)
	for range 10_000 {
		var wsum float64
		clear(next)
		for _, p := range points {
			dist := euclid(x, p)
			if dist == 0 {
				dist = 1e-300 // not the median (tested above): pass through
			}
			w := 1 / dist
			wsum += w
			for k, v := range p {
				next[k] += w * v
			}
		}
		var step, size float64
		for k := range next {
			next[k] /= wsum
			step = math.Max(step, math.Abs(next[k]-x[k]))
			size = math.Max(size, math.Abs(next[k]))
		}
		x, next = next, x
		if step <= tol*(1+size) {
			break
		}
	}
	return x
}

// atPointOptimal reports whether the data point p minimises the sum of
// distances: ‖Σ_{q≠p} (q − p)/‖q − p‖‖ ≤ the number of copies of p
// (Vardi & Zhang 2000).
func atPointOptimal(points [][]float64, p []float64) bool {
	pull := make([]float64, len(p))
	copies := 0
	for _, q := range points {
		dist := euclid(p, q)
		if dist == 0 {
			copies++
			continue
		}
		for k := range pull {
			pull[k] += (q[k] - p[k]) / dist
		}
	}
	var n float64
	for _, v := range pull {
		n += v * v
	}
	return math.Sqrt(n) <= float64(copies)
}

func euclid(a, b []float64) float64 {
	var s float64
	for k := range a {
		s += (a[k] - b[k]) * (a[k] - b[k])
	}
	return math.Sqrt(s)
}
