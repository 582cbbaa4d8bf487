package dataset

import (
	"math"
	"math/rand/v2"
	"strings"

	"github.com/uldplab/uldp/core/cancel"
	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/noise"
	"github.com/uldplab/uldp/core/rng"
)

// Generator kinds.
const (
	// Gaussian draws n·m i.i.d. N(Center, Spread²I) items, then deals them
	// to users at random — the data model of both papers.
	Gaussian = "gaussian"
	// Clusters places Clusters centres on a circle of radius Separation (a
	// segment in 1-D); each user belongs to one centre (round robin) and
	// draws all items there.
	Clusters = "clusters"
	// HeavyTail draws i.i.d. items with Student-t(DF) coordinates scaled by
	// Spread, then deals them at random.
	HeavyTail = "heavy-tail"
	// Outliers is Gaussian plus Outliers users whose items sit at distance
	// Separation from Center, each in its own random direction.
	Outliers = "outliers"
	// Homogeneous gives each user one N(Center, Spread²I) point repeated m
	// times: per-user means no longer concentrate like 1/√m.
	Homogeneous = "homogeneous"
)

// Kinds lists the generator kinds.
var Kinds = []string{Gaussian, Clusters, HeavyTail, Outliers, Homogeneous}

// Spec describes a generated dataset. Zero values take the defaults given
// per field.
type Spec struct {
	Kind string `json:"kind"`
	N    int    `json:"n"`
	M    int    `json:"m"`
	D    int    `json:"d"`
	// Spread is the items' standard deviation per coordinate (default 1).
	Spread float64 `json:"spread,omitempty"`
	// Center is the data centre (default the origin).
	Center []float64 `json:"center,omitempty"`
	// Clusters is the number of clusters (clusters kind; default 2).
	Clusters int `json:"clusters,omitempty"`
	// Separation is the cluster circle's radius (default 5) or the outliers'
	// distance (default 10).
	Separation float64 `json:"separation,omitempty"`
	// DF is Student-t's degrees of freedom (heavy-tail kind; default 2).
	DF float64 `json:"df,omitempty"`
	// Outliers is the number of far-away users (outliers kind; default 1).
	Outliers int `json:"outliers,omitempty"`
}

// withDefaults fills zero fields.
func (s Spec) withDefaults() Spec {
	if s.Spread == 0 {
		s.Spread = 1
	}
	if s.Kind == Clusters && s.Clusters == 0 {
		s.Clusters = 2
	}
	if s.Separation == 0 {
		switch s.Kind {
		case Clusters:
			s.Separation = 5
		case Outliers:
			s.Separation = 10
		}
	}
	if s.Kind == HeavyTail && s.DF == 0 {
		s.DF = 2
	}
	if s.Kind == Outliers && s.Outliers == 0 {
		s.Outliers = 1
	}
	return s
}

// Validate checks the spec after defaults.
func (s Spec) Validate() error {
	s = s.withDefaults()
	known := false
	for _, k := range Kinds {
		known = known || s.Kind == k
	}
	if !known {
		return format.Errorf("generator kind %q: use one of %s", s.Kind, strings.Join(Kinds, ", "))
	}
	if s.N < 1 || s.M < 1 || s.D < 1 {
		return format.Errorf("n = %d, m = %d, d = %d: users, items per user and dimension must all be ≥ 1", s.N, s.M, s.D)
	}
	if float64(s.N)*float64(s.M)*float64(s.D) > MaxValues {
		return format.Errorf("n·m·d = %.0f exceeds the cap of %d coordinates: reduce n, m or d", float64(s.N)*float64(s.M)*float64(s.D), MaxValues)
	}
	if !(s.Spread > 0) || math.IsInf(s.Spread, 0) {
		return format.Errorf("spread = %v: must be a finite number > 0", s.Spread)
	}
	if s.Center != nil && len(s.Center) != s.D {
		return format.Errorf("center has %d coordinates but d = %d: give one per dimension or omit it", len(s.Center), s.D)
	}
	for _, c := range s.Center {
		if math.IsNaN(c) || math.IsInf(c, 0) {
			return format.Errorf("center contains %v: coordinates must be finite", c)
		}
	}
	if s.Separation < 0 || math.IsNaN(s.Separation) || math.IsInf(s.Separation, 0) {
		return format.Errorf("separation = %v: must be a finite number ≥ 0", s.Separation)
	}
	switch s.Kind {
	case Clusters:
		if s.Clusters < 1 || s.Clusters > s.N {
			return format.Errorf("clusters = %d: need 1 ≤ clusters ≤ n = %d", s.Clusters, s.N)
		}
	case HeavyTail:
		if !(s.DF > 0) || math.IsInf(s.DF, 0) {
			return format.Errorf("df = %v: Student-t needs finite degrees of freedom > 0", s.DF)
		}
	case Outliers:
		if s.Outliers < 0 || s.Outliers > s.N {
			return format.Errorf("outliers = %d: need 0 ≤ outliers ≤ n = %d", s.Outliers, s.N)
		}
	}
	return nil
}

// Generate builds the dataset from the "data" stream (values) and the "perm"
// stream (random allocation), so re-rolling one leaves the other fixed.
func Generate(s Spec, streams *rng.Streams) (*Dataset, error) {
	return GenerateWith(cancel.Never, s, streams, nil)
}

// pauseEvery is how many coordinates GenerateWith allocates or draws
// between two calls of its pause: about 0.1 ms natively.
const pauseEvery = 1 << 14

// GenerateWith is Generate for a caller that computes between frames: it
// calls pause (nil: never) after every block of about pauseEvery
// coordinates allocated or drawn, and gives up with ctx's error at the
// next block once ctx reports one; the data's final check is one pass
// with no pause (2 ms natively at 1.6 million coordinates). The data are
// Generate's, value for value: at the rates explorer's largest sizes,
// building them in one piece held a browser tab for 120 ms.
func GenerateWith(ctx cancel.Context, s Spec, streams *rng.Streams, pause func()) (*Dataset, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	s = s.withDefaults()
	if s.Center == nil {
		s.Center = make([]float64, s.D)
	}
	done := 0
	block := func(coords int) error {
		if done += coords; done < pauseEvery {
			return nil
		}
		done = 0
		if pause != nil {
			pause()
		}
		return ctx.Err()
	}
	r := streams.Get(rng.Data)
	d := &Dataset{Dim: s.D, Users: make([]User, s.N)}
	for i, id := range NumberedIDs(s.N) {
		// A user's items are an allocation of their own: one for every
		// item would zero megabytes of fresh memory with no pause.
		d.Users[i] = User{ID: id, Points: make([]float64, s.M*s.D)}
		// Written here, in order: fresh memory faults in on its first
		// touch, and the items are drawn into their slots in random order,
		// which would fault it all in within one block (10 ms natively
		// at 1,600 × 64 × 16).
		clear(d.Users[i].Points)
		if err := block(s.M * s.D); err != nil {
			return nil, err
		}
	}
	gauss := func(dst []float64, centre []float64, spread float64) {
		for k := range dst {
			dst[k] = centre[k] + spread*r.NormFloat64()
		}
	}
	switch s.Kind {
	case Gaussian, HeavyTail, Outliers:
		// The n·m items are i.i.d., dealt to the item slots by a uniform
		// random permutation (Paper A's random-permutation model): slot
		// gets item perm[slot]. Drawing the permutation first lets each
		// item be drawn straight into its slot, in the items' order, so
		// the values and their places are those of drawing every item
		// into a pool and dealing it, without the pool. (The permutation
		// has a stream of its own; an external source, which every stream
		// shares, sees the draws in another order, with the same law.)
		slotOf, err := dealing(streams.Get(rng.Perm), s.N*s.M, block)
		if err != nil {
			return nil, err
		}
		t := noise.StudentT{Nu: s.DF, Sigma: s.Spread, Src: r}
		for _, slot := range slotOf {
			dst := d.Item(slot/s.M, slot%s.M)
			if s.Kind == HeavyTail {
				for k := range dst {
					dst[k] = s.Center[k] + t.Rand()
				}
			} else {
				gauss(dst, s.Center, s.Spread)
			}
			if err := block(s.D); err != nil {
				return nil, err
			}
		}
		if s.Kind == Outliers {
			// The last Outliers users move far away, each in its own direction.
			dir := make([]float64, s.D)
			far := make([]float64, s.D)
			for i := s.N - s.Outliers; i < s.N; i++ {
				unit(dir, r)
				for k := range far {
					far[k] = s.Center[k] + s.Separation*dir[k]
				}
				for j := 0; j < s.M; j++ {
					gauss(d.Item(i, j), far, s.Spread)
				}
				if err := block(s.M * s.D); err != nil {
					return nil, err
				}
			}
		}
	case Clusters:
		centres := clusterCentres(s)
		for i := range d.Users {
			c := centres[i%s.Clusters]
			for j := 0; j < s.M; j++ {
				gauss(d.Item(i, j), c, s.Spread)
			}
			if err := block(s.M * s.D); err != nil {
				return nil, err
			}
		}
	case Homogeneous:
		for i := range d.Users {
			gauss(d.Item(i, 0), s.Center, s.Spread)
			for j := 1; j < s.M; j++ {
				copy(d.Item(i, j), d.Item(i, 0))
			}
			if err := block(s.M * s.D); err != nil {
				return nil, err
			}
		}
	}
	// What the readers refuse, the generator does not write: a spread near
	// the largest float makes coordinates overflow.
	if err := d.Validate(false); err != nil {
		return nil, format.Errorf("the generated data is unusable (%v): reduce the spread, the separation or the centre", err)
	}
	return d, nil
}

// dealing returns the slot each of n items is dealt to: the inverse of
// r.Perm(n), which gives slot s the item Perm[s], made by Perm's own draws
// (its Fisher–Yates shuffle) with a block counted per element, since a
// permutation of a hundred thousand slots takes milliseconds.
func dealing(r *rand.Rand, n int, block func(int) error) ([]int, error) {
	// Both slices are written once in order before their random writes,
	// a block at a time: fresh memory faults in on its first touch, which
	// scattered writes would take all in one block.
	perm, slotOf := make([]int, n), make([]int, n)
	for i := range perm {
		perm[i], slotOf[i] = i, 0
		if err := block(2); err != nil {
			return nil, err
		}
	}
	for i := n - 1; i > 0; i-- {
		j := r.IntN(i + 1)
		perm[i], perm[j] = perm[j], perm[i]
		if err := block(1); err != nil {
			return nil, err
		}
	}
	for slot, item := range perm {
		slotOf[item] = slot
		if err := block(1); err != nil {
			return nil, err
		}
	}
	return slotOf, nil
}

// clusterCentres spreads the centres evenly on a circle of radius Separation
// in the first two coordinates, or evenly over [−Separation, Separation] in
// one dimension (where a circle would make centres coincide).
func clusterCentres(s Spec) [][]float64 {
	out := make([][]float64, s.Clusters)
	for c := range out {
		out[c] = append([]float64(nil), s.Center...)
		if s.D == 1 {
			if s.Clusters > 1 {
				out[c][0] += s.Separation * (2*float64(c)/float64(s.Clusters-1) - 1)
			}
			continue
		}
		angle := 2 * math.Pi * float64(c) / float64(s.Clusters)
		out[c][0] += s.Separation * math.Cos(angle)
		out[c][1] += s.Separation * math.Sin(angle)
	}
	return out
}

// unit fills dst with a uniformly random unit vector.
func unit(dst []float64, r interface{ NormFloat64() float64 }) {
	for {
		var n2 float64
		for k := range dst {
			dst[k] = r.NormFloat64()
			n2 += dst[k] * dst[k]
		}
		if n2 > 0 {
			n := math.Sqrt(n2)
			for k := range dst {
				dst[k] /= n
			}
			return
		}
	}
}
