package robust

import "math"

// Index counts close pairs among points: how many points lie within a
// radius of each point. Paper B's outlier removal needs that twice per
// query (pairs within τ for the concentration score, neighbours within 2τ
// for the keep ramp), and a concentrated dataset — the one the algorithm
// exists for — has Θ(n²) close pairs, so counting them one by one is
// quadratic exactly when it matters.
//
// The index is a k-d tree with each node's bounding box, walked against
// itself (a dual-tree count): node pairs entirely within the radius add
// their sizes in one step, pairs entirely beyond it are skipped, and only
// pairs straddling the radius go down to single points, where the test is
// exactly the plain loop's. Results equal the O(n²) loop's bit for bit.
// The zero Index holds no points; Reset builds it over some.
type Index struct {
	pts   [][]float64
	perm  []int     // points in tree order: node k holds perm[lo:hi]
	flat  []float64 // their coordinates in tree order, d per point
	d     int
	nodes []node
	boxes []float64 // the nodes' min and max corners, 2d per node
}

type node struct {
	lo, hi      int // range in perm
	min, max    []float64
	left, right int // children, −1 for a leaf
}

// leafSize is where the tree stops splitting: below it the plain loop is
// cheaper than more boxes.
const leafSize = 16

// NewIndex builds the tree over points (all of one dimension; not copied,
// so they must not change while the index is in use).
func NewIndex(points [][]float64) *Index {
	ix := &Index{}
	ix.Reset(points)
	return ix
}

// Reset builds the tree over points again, in the memory of the last
// build where it is large enough: a caller that builds one per query
// (ORME, every step of a run) then leaves the collector no garbage of
// coordinates and boxes. The index answers as NewIndex(points) does.
func (ix *Index) Reset(points [][]float64) {
	n := len(points)
	ix.pts, ix.d, ix.nodes = points, 0, ix.nodes[:0]
	ix.perm = grow(ix.perm, n)
	for i := range ix.perm {
		ix.perm[i] = i
	}
	if n == 0 {
		return
	}
	d := len(points[0])
	ix.d = d
	ix.flat = grow(ix.flat, n*d)[:0]
	for _, p := range points {
		ix.flat = append(ix.flat, p...)
	}
	// Halving splits stop at leafSize, so every leaf but a lone root
	// holds at least leafSize/2 points (an equal run, more): fewer than
	// 2n/(leafSize/2) nodes, whose boxes are cut from one slice that
	// never moves.
	ix.boxes = grow(ix.boxes, 2*d*(2*(n/(leafSize/2)+1)))
	ix.build(0, n)
}

// grow returns s with length n, reallocated only when its capacity is short.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

func (ix *Index) build(lo, hi int) int {
	d := ix.d
	box := ix.boxes[2*d*len(ix.nodes) : 2*d*(len(ix.nodes)+1) : 2*d*(len(ix.nodes)+1)]
	n := node{lo: lo, hi: hi, min: box[:d:d], max: box[d:], left: -1, right: -1}
	for k := range d {
		n.min[k], n.max[k] = math.Inf(1), math.Inf(-1)
	}
	for i := lo; i < hi; i++ {
		for k, v := range ix.flat[i*d : i*d+d] {
			if v < n.min[k] {
				n.min[k] = v
			}
			if v > n.max[k] {
				n.max[k] = v
			}
		}
	}
	id := len(ix.nodes)
	ix.nodes = append(ix.nodes, n)
	if hi-lo <= leafSize {
		return id
	}
	axis := 0
	for k := range d {
		if n.max[k]-n.min[k] > n.max[axis]-n.min[axis] {
			axis = k
		}
	}
	if n.max[axis] == n.min[axis] {
		return id // all points equal: a leaf, however large (bulk-counted)
	}
	mid := (lo + hi) / 2
	ix.selectAt(lo, hi, mid, axis)
	left := ix.build(lo, mid)
	right := ix.build(mid, hi)
	ix.nodes[id].left, ix.nodes[id].right = left, right
	return id
}

// selectAt reorders rows lo…hi−1 (coordinates in flat, ids in perm) so
// that row k holds the point sorting by the axis would put there, smaller
// ones before it and larger after (Hoare's selection): the median split
// without a full sort, moving rows so later passes read memory in order.
func (ix *Index) selectAt(lo, hi, k, axis int) {
	d, flat := ix.d, ix.flat
	at := func(i int) float64 { return flat[i*d+axis] }
	swap := func(i, j int) {
		ix.perm[i], ix.perm[j] = ix.perm[j], ix.perm[i]
		for c := range d {
			flat[i*d+c], flat[j*d+c] = flat[j*d+c], flat[i*d+c]
		}
	}
	for hi-lo > 1 {
		a, b, c := at(lo), at((lo+hi)/2), at(hi-1)
		pivot := max(min(a, b), min(max(a, b), c)) // median of three
		i, j := lo, hi-1
		for i <= j {
			for at(i) < pivot {
				i++
			}
			for at(j) > pivot {
				j--
			}
			if i <= j {
				swap(i, j)
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j + 1
		case k >= i:
			lo = i
		default:
			return
		}
	}
}

// Counts returns, for each point, the number of points within distance r
// of it (‖x − y‖² ≤ r², itself included). Their sum is the number of
// ordered pairs within r, diagonal included.
func (ix *Index) Counts(r float64) []int { return ix.CountsAt(r)[0] }

// CountsAt is Counts for several radii in one walk of the tree (ORME needs
// τ and 2τ): node pairs are decided per radius, and a point pair's distance
// is computed once for all the radii still open.
func (ix *Index) CountsAt(radii ...float64) [][]int {
	c := counter{ix: ix}
	for _, r := range radii {
		c.r2 = append(c.r2, r*r)
		c.acc = append(c.acc, make([]int, len(ix.nodes)))
		c.counts = append(c.counts, make([]int, len(ix.pts)))
	}
	if len(ix.pts) == 0 || len(radii) == 0 {
		return c.counts
	}
	c.pair(0, 0, 1<<len(radii)-1)
	for k := range radii {
		c.push(k, 0, 0)
	}
	return c.counts
}

type counter struct {
	ix     *Index
	r2     []float64 // per radius
	acc    [][]int   // per radius and node: neighbours every point in it gained in bulk
	counts [][]int   // per radius and point
}

// Box distances are decided with a relative margin: a node pair within or
// beyond the radius only by rounding goes down to the exact point test.
const margin = 1e-9

// decide settles the radii in open for boxes at squared distances near
// (closest) and far (farthest) apart: beyond a radius there is nothing to
// count, within it everything counts (bulk). It returns the radii still
// open and those to count in bulk.
func (c *counter) decide(open uint, near, far float64) (rest, bulk uint) {
	for k, r2 := range c.r2 {
		if open&(1<<k) == 0 {
			continue
		}
		switch {
		case near > r2*(1+margin):
			open &^= 1 << k
		case far < r2*(1-margin):
			bulk |= 1 << k
			open &^= 1 << k
		}
	}
	return open, bulk
}

func (c *counter) pair(a, b int, open uint) {
	na, nb := &c.ix.nodes[a], &c.ix.nodes[b]
	var near, far float64 // squared min and max distance between the boxes
	for k := range na.min {
		gap := nb.min[k] - na.max[k]
		if g := na.min[k] - nb.max[k]; g > gap {
			gap = g
		}
		if gap > 0 {
			near += gap * gap
		}
		span := na.max[k] - nb.min[k]
		if s := nb.max[k] - na.min[k]; s > span {
			span = s
		}
		far += span * span
	}
	open, bulk := c.decide(open, near, far)
	for k := range c.r2 {
		if bulk&(1<<k) != 0 {
			c.acc[k][a] += nb.hi - nb.lo
			if a != b {
				c.acc[k][b] += na.hi - na.lo
			}
		}
	}
	if open == 0 {
		return
	}
	aLeaf, bLeaf := na.left < 0, nb.left < 0
	switch {
	case aLeaf && bLeaf:
		c.leaves(na, nb, a == b, open)
	case a == b:
		c.pair(na.left, na.left, open)
		c.pair(na.left, na.right, open)
		c.pair(na.right, na.right, open)
	case bLeaf || (!aLeaf && na.hi-na.lo >= nb.hi-nb.lo):
		c.pair(na.left, b, open)
		c.pair(na.right, b, open)
	default:
		c.pair(a, nb.left, open)
		c.pair(a, nb.right, open)
	}
}

// leaves tests two leaves (one leaf with itself if same) point by point,
// after checking each point of a against b's box as a whole.
func (c *counter) leaves(na, nb *node, same bool, open uint) {
	flat, perm, d := c.ix.flat, c.ix.perm, c.ix.d
	for x := na.lo; x < na.hi; x++ {
		p := flat[x*d : x*d+d]
		start, todo := nb.lo, open
		if same {
			start = x
		} else {
			var near, far float64
			for k, v := range p {
				lo, hi := nb.min[k], nb.max[k]
				switch {
				case v < lo:
					near += (lo - v) * (lo - v)
				case v > hi:
					near += (v - hi) * (v - hi)
				}
				span := v - lo
				if hi-v > span {
					span = hi - v
				}
				far += span * span
			}
			var bulk uint
			todo, bulk = c.decide(open, near, far)
			for k := range c.r2 {
				if bulk&(1<<k) != 0 {
					c.counts[k][perm[x]] += nb.hi - nb.lo
					for y := nb.lo; y < nb.hi; y++ {
						c.counts[k][perm[y]]++
					}
				}
			}
			if todo == 0 {
				continue
			}
		}
		for y := start; y < nb.hi; y++ {
			q := flat[y*d : y*d+d]
			var s float64
			for k, v := range p {
				e := v - q[k]
				s += e * e
			}
			for k, r2 := range c.r2 {
				if todo&(1<<k) != 0 && s <= r2 {
					c.counts[k][perm[x]]++
					if !same || y != x {
						c.counts[k][perm[y]]++
					}
				}
			}
		}
	}
}

// push hands each node's bulk counts for radius k down to its points.
func (c *counter) push(k, node, inherited int) {
	n := &c.ix.nodes[node]
	total := inherited + c.acc[k][node]
	if n.left < 0 {
		for _, p := range c.ix.perm[n.lo:n.hi] {
			c.counts[k][p] += total
		}
		return
	}
	c.push(k, n.left, total)
	c.push(k, n.right, total)
}

// NaiveCounts is Counts by the plain O(n²) loop: the reference the index
// must equal, and the faster choice for a few dozen points.
func NaiveCounts(points [][]float64, r float64) []int {
	counts := make([]int, len(points))
	r2 := r * r
	for i, p := range points {
		counts[i]++ // itself
		for j := i + 1; j < len(points); j++ {
			if dist2(p, points[j]) <= r2 {
				counts[i]++
				counts[j]++
			}
		}
	}
	return counts
}

func dist2(a, b []float64) float64 {
	var s float64
	for k := range a {
		d := a[k] - b[k]
		s += d * d
	}
	return s
}

// Score is Paper B's concentration score s = (1/n)·#{(j, k): ‖v_j − v_k‖ ≤
// τ} from the points' counts within τ (ordered pairs, diagonal included):
// s ∈ [1, n], and s = n iff every pair is within τ.
func Score(countsTau []int) float64 {
	var pairs int
	for _, c := range countsTau {
		pairs += c
	}
	return float64(pairs) / float64(len(countsTau))
}

// Keep is Paper B's selection ramp for a user with f neighbours within 2τ
// among n: 0 if f < n/2, 1 if f ≥ 2n/3, (f − n/2)/(n/6) between, compared
// in integers (2f < n, 3f ≥ 2n) so no rounding moves a user across a
// threshold.
func Keep(f, n int) float64 {
	switch {
	case 2*f < n:
		return 0
	case 3*f >= 2*n:
		return 1
	}
	return float64(6*f-3*n) / float64(n)
}
