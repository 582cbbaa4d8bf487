package robust

import (
	"math"
	"slices"
)

// fastRange bounds the spread, in radii, the fast path accepts: its terms
// are products e^{a/r}·e^{−b/r}, each factor within e^{±700}.
const fastRange = 600

// planeScore is KernelScore's exp-kernel sum for points in 1 or 2
// dimensions in O(B log B), or false when their spread exceeds fastRange
// radii. In the rotated coordinates u = x + y, v = x − y, a point q after
// p in u-order with v_q ≥ v_p has |dx| ≥ |dy| and dx ≥ 0, so its term is
// e^{x_p/r}·e^{−x_q/r}; with v_q < v_p it has |dy| ≥ |dx|, dy ≥ 0, and
// the term is e^{y_p/r}·e^{−y_q/r}. A sweep in decreasing u with two
// Fenwick trees over the v-ranks sums each kind in O(log B) per point.
func planeScore(flat []float64, d int, r float64) (float64, bool) {
	b := len(flat) / d
	xs, ys := make([]float64, b), make([]float64, b)
	for i := range b {
		xs[i] = flat[i*d]
		if d == 2 {
			ys[i] = flat[i*d+1]
		}
	}
	x0, x1 := slices.Min(xs), slices.Max(xs)
	y0, y1 := slices.Min(ys), slices.Max(ys)
	if !((x1-x0)/r <= fastRange && (y1-y0)/r <= fastRange) { // (NaN fails too)
		return 0, false
	}
	type pt struct {
		u, v, ex, ey, inx, iny float64 // e^{x/r}, e^{y/r} and their inverses, from the minima
		rank                   int
	}
	ps := make([]pt, b)
	for i := range b {
		ax, ay := (xs[i]-x0)/r, (ys[i]-y0)/r
		ps[i] = pt{u: xs[i] + ys[i], v: xs[i] - ys[i], ex: math.Exp(ax), ey: math.Exp(ay), inx: math.Exp(-ax), iny: math.Exp(-ay)}
	}
	// v-ranks, ties sharing the lowest rank so "v_q ≥ v_p" is a suffix.
	byV := make([]int, b)
	for i := range byV {
		byV[i] = i
	}
	slices.SortFunc(byV, func(i, j int) int { return cmpF(ps[i].v, ps[j].v) })
	for k, i := range byV {
		ps[i].rank = k
		if k > 0 && ps[i].v == ps[byV[k-1]].v {
			ps[i].rank = ps[byV[k-1]].rank
		}
	}
	order := make([]int, b)
	for i := range order {
		order[i] = i
	}
	// Decreasing u. Points tied in u may come in either order: with du = 0,
	// |dx| = |dy| and both kinds of term are the same number.
	slices.SortFunc(order, func(i, j int) int { return cmpF(ps[j].u, ps[i].u) })
	fx, fy := make([]float64, b+1), make([]float64, b+1)
	add := func(f []float64, k int, v float64) {
		for k++; k <= b; k += k & -k {
			f[k] += v
		}
	}
	prefix := func(f []float64, k int) float64 { // ranks < k
		var s float64
		for ; k > 0; k -= k & -k {
			s += f[k]
		}
		return s
	}
	// Points already swept come after p in u-order. fx is indexed by
	// reversed rank, so "v ≥ v_p" is a prefix too: a suffix taken as total
	// minus prefix would lose its tiny terms to the others' large ones.
	// Every term a query sums is at most p's own inverse, so none swamps.
	var pairs float64
	for _, i := range order {
		p := ps[i]
		geq := prefix(fx, b-p.rank)
		below := prefix(fy, p.rank)
		pairs += p.ex*geq + p.ey*below
		add(fx, b-1-p.rank, p.inx)
		add(fy, p.rank, p.iny)
	}
	return (float64(b) + 2*pairs) / float64(b), true
}

func cmpF(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
