package robust

import "math"

// Kernel turns an ℓ∞ distance into a closeness in [0, 1].
type Kernel int

const (
	// ExpKernel is Ghazi et al.'s smooth kernel exp(−dist/r): moving a point by
	// Δ changes each term by a factor at most e^{Δ/r}, which is what makes
	// later scores stable (Lemma 3.9).
	ExpKernel Kernel = iota
	// BoxKernel is the indicator 1[dist ≤ r] earlier work used: it jumps
	// when a distance crosses r, however little the point moved.
	BoxKernel
)

// Of returns the kernel's value at distance dist for radius r.
func (k Kernel) Of(dist, r float64) float64 {
	if k == BoxKernel {
		if dist <= r {
			return 1
		}
		return 0
	}
	return math.Exp(-dist / r)
}

// String names the kernel.
func (k Kernel) String() string {
	if k == BoxKernel {
		return "indicator 1[‖·‖∞ ≤ r]"
	}
	return "exp(−‖·‖∞/r)"
}

// KernelScore returns Ghazi et al.'s concentration score of the B points in flat
// (point i is flat[i·d:(i+1)·d]): s = (1/B)ΣᵢΣⱼ K(‖Qᵢ − Qⱼ‖∞), diagonal
// included, so s lies in [1, B] and equals B exactly when all points
// coincide. rows (length B, or nil) receives each point's row sum ΣⱼK.
// The B² terms are the algorithm's dominant cost: in 1 or 2 dimensions,
// with no rows asked for, the exp kernel's sum takes O(B log B) instead
// (equal to the plain sum up to rounding, see planeScore).
func KernelScore(flat []float64, d int, r float64, k Kernel, rows []float64) float64 {
	if k == ExpKernel && rows == nil && d <= 2 && len(flat) > 0 {
		if s, ok := planeScore(flat, d, r); ok {
			return s
		}
	}
	b := len(flat) / d
	own := rows
	if own == nil {
		own = make([]float64, b)
	}
	for i := range own[:b] {
		own[i] = 1
	}
	for i := range b {
		p := flat[i*d : i*d+d]
		var ri float64
		for j := i + 1; j < b; j++ {
			q := flat[j*d : j*d+d]
			var dist float64
			for c, v := range p {
				dist = math.Max(dist, math.Abs(v-q[c]))
			}
			kv := k.Of(dist, r)
			ri += kv
			own[j] += kv
		}
		own[i] += ri
	}
	var s float64
	for _, v := range own[:b] {
		s += v
	}
	return s / float64(b)
}

// BadScore is (2/3 + 1/(3e))·B, the bound on the score of B points no ℓ∞
// box of radius r of which holds 2B/3 (Lemma 3.8, with the spec's reading
// 2B/3 of its precondition): each row has fewer than 2B/3 terms of at most
// 1 and the rest below e^{−1}.
func BadScore(b int) float64 { return (2.0/3 + 1/(3*math.E)) * float64(b) }

// MaxBox returns the largest number of the points in flat that one ℓ∞ box
// of radius rho (side 2·rho) holds, and that box's centre. Some best box
// has each lower edge at a point's coordinate, so trying those is exact;
// the cost is about B^{d+1}, meant for the small batches of a lesson.
func MaxBox(flat []float64, d int, rho float64) (int, []float64) {
	b := len(flat) / d
	idx := make([]int, b)
	for i := range idx {
		idx[i] = i
	}
	lower := make([]float64, d)
	best, bestLower := 0, make([]float64, d)
	var walk func(k int, in []int)
	walk = func(k int, in []int) {
		if len(in) <= best {
			return
		}
		if k == d {
			best = len(in)
			copy(bestLower, lower)
			return
		}
		next := make([]int, 0, len(in))
		for _, c := range in {
			lo := flat[c*d+k]
			next = next[:0]
			for _, i := range in {
				if v := flat[i*d+k]; v >= lo && v <= lo+2*rho {
					next = append(next, i)
				}
			}
			lower[k] = lo
			walk(k+1, next)
		}
	}
	walk(0, idx)
	for k := range bestLower {
		bestLower[k] += rho
	}
	return best, bestLower
}
