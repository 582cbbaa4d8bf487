package loss

import (
	"math"
	"slices"
)

// Absolute is the 1-D absolute loss |θ − x| (Lipschitz G = 1, convex, not
// smooth) with a ridge (Lambda/2)(θ − C)², minimised over [Lo, Hi]: the
// "private median" of spec 000-002 §8.1, exact in O(N) on sorted items.
type Absolute struct {
	Lambda, C float64 // Lambda > 0 makes the minimiser unique
	Lo, Hi    float64
}

// Minimise returns the minimiser over [Lo, Hi] of
// (1/N)Σ|θ − x_j| + (λ/2)(θ − c)² for ascending xs (N ≥ 1). Its
// subgradient (#{x < θ} − #{x > θ} + [−1, 1]·#{x = θ})/N + λ(θ − c) rises
// with θ, so the zero lies either strictly between two distinct items,
// where the count term is constant, or at an item whose subgradient
// interval straddles 0; a 1-D strictly convex function's constrained
// minimiser is then the clamp of the free one.
func (a Absolute) Minimise(xs []float64) float64 {
	n := float64(len(xs))
	theta := a.C - 1/a.Lambda // beyond the last item: all N below
	below, prev := 0, math.Inf(-1)
	for i := 0; i < len(xs); {
		v := xs[i]
		j := i
		for j < len(xs) && xs[j] == v {
			j++
		}
		// Between prev and v, `below` items lie below θ.
		if t := a.C - (2*float64(below)-n)/(n*a.Lambda); t > prev && t < v {
			theta = t
			break
		}
		lo := (float64(below)-(n-float64(j)))/n - float64(j-i)/n + a.Lambda*(v-a.C)
		hi := lo + 2*float64(j-i)/n
		if lo <= 0 && 0 <= hi {
			theta = v
			break
		}
		below, prev, i = j, v, j
	}
	return math.Max(a.Lo, math.Min(a.Hi, theta))
}

// AbsSubsets evaluates an Absolute minimiser on the items of the users not
// removed, for the exact stability search (it is a mech.SubsetFunc).
type AbsSubsets struct {
	a     Absolute
	vals  []float64 // every item, ascending
	owner []int     // the user of each
	buf   []float64
}

// Subsets prepares users' 1-D items (users[i] holds user i's items).
func (a Absolute) Subsets(users [][]float64) *AbsSubsets {
	type item struct {
		v float64
		u int
	}
	var all []item
	for u, xs := range users {
		for _, v := range xs {
			all = append(all, item{v, u})
		}
	}
	slices.SortFunc(all, func(p, q item) int {
		switch {
		case p.v < q.v:
			return -1
		case p.v > q.v:
			return 1
		}
		return 0
	})
	s := &AbsSubsets{a: a, vals: make([]float64, len(all)), owner: make([]int, len(all)), buf: make([]float64, 0, len(all))}
	for k, it := range all {
		s.vals[k], s.owner[k] = it.v, it.u
	}
	return s
}

// Without writes the minimiser on the users outside mask into dst[0].
func (s *AbsSubsets) Without(mask uint32, dst []float64) []float64 {
	s.buf = s.buf[:0]
	for k, v := range s.vals {
		if mask&(1<<s.owner[k]) == 0 {
			s.buf = append(s.buf, v)
		}
	}
	dst[0] = s.a.Minimise(s.buf)
	return dst
}
