// Package semisens is convex optimisation with semi-sensitive features
// (Ghazi, Kamath, Kumar, Manurangsi, Meka & Zhang, COLT 2024): every example
// has public features and one sensitive value among k, and privacy covers
// the sensitive value only.
//
// The package holds the semi-sensitive neighbouring relation, the
// multiplicative-weights step over per-example beliefs (MWU), Private
// Vector Multiplicative Weights (PVMW) with its zCDP accounting, and the
// gradient-oracle reductions that train a model through PVMW.
//
// The sensitive values live inside a Dataset and leave it through one
// door, Dataset.TrueAnswer, which counts its reads. Everything that may
// run on released values only — the MWU step, a query, the beliefs'
// answer — receives the Public part, which has no sensitive values to
// read: post-processing is a property of the types, not a promise.
package semisens

import (
	"math"

	"github.com/uldplab/uldp/core/format"
)

// Public is what everyone may see: n examples' public features, their
// public labels (nil when there are none), and the number k of values the
// sensitive feature takes.
type Public struct {
	K        int
	Features [][]float64
	Labels   []float64
}

// N is the number of examples.
func (p *Public) N() int { return len(p.Features) }

// DimPub is the number of public features (0 for no examples).
func (p *Public) DimPub() int {
	if len(p.Features) == 0 {
		return 0
	}
	return len(p.Features[0])
}

// Dataset is a Public part and each example's sensitive value, 0 … K−1.
type Dataset struct {
	Public
	sensitive []int
	reads     int
}

// MaxCells bounds n·k, the beliefs PVMW keeps (16 MB of float64).
const MaxCells = 2_000_000

// New checks its arguments and returns the dataset whose example i has
// public features features[i], public label labels[i] (labels may be nil)
// and sensitive value sensitive[i] ∈ {0, …, k−1}.
func New(k int, features [][]float64, labels []float64, sensitive []int) (*Dataset, error) {
	n := len(features)
	switch {
	case k < 2:
		return nil, format.Errorf("k = %d: the sensitive feature needs at least 2 values", k)
	case n == 0:
		return nil, format.Errorf("no examples: give at least one")
	case len(sensitive) != n:
		return nil, format.Errorf("%d sensitive values for %d examples: give one per example", len(sensitive), n)
	case labels != nil && len(labels) != n:
		return nil, format.Errorf("%d labels for %d examples: give one per example, or none", len(labels), n)
	case float64(n)*float64(k) > MaxCells:
		return nil, format.Errorf("n·k = %d × %d beliefs: at most %d; use fewer examples or values", n, k, MaxCells)
	}
	d := len(features[0])
	for i, f := range features {
		if len(f) != d {
			return nil, format.Errorf("example %d has %d public features, example 1 has %d: give every example the same", i+1, len(f), d)
		}
		for _, x := range f {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, format.Errorf("example %d: public feature %v is not a finite number", i+1, x)
			}
		}
		if labels != nil && (math.IsNaN(labels[i]) || math.IsInf(labels[i], 0)) {
			return nil, format.Errorf("example %d: label %v is not a finite number", i+1, labels[i])
		}
		if y := sensitive[i]; y < 0 || y >= k {
			return nil, format.Errorf("example %d: sensitive value %d is outside 1…%d", i+1, y+1, k)
		}
	}
	return &Dataset{Public: Public{K: k, Features: features, Labels: labels}, sensitive: append([]int(nil), sensitive...)}, nil
}

// Neighbour returns the semi-sensitive neighbour of d in which example i's
// sensitive value is y (0-based) and nothing else changes: the public
// parts are shared, as the relation requires.
func (d *Dataset) Neighbour(i, y int) (*Dataset, error) {
	if i < 0 || i >= d.N() {
		return nil, format.Errorf("example %d: the dataset has examples 1…%d", i+1, d.N())
	}
	if y < 0 || y >= d.K {
		return nil, format.Errorf("sensitive value %d: the feature takes values 1…%d", y+1, d.K)
	}
	nb := &Dataset{Public: d.Public, sensitive: append([]int(nil), d.sensitive...)}
	nb.sensitive[i] = y
	return nb, nil
}

// Neighbours reports whether d and e are semi-sensitive neighbours: the
// same public part and at most one sensitive value different. It returns
// the example that differs, or −1 when none does.
func Neighbours(d, e *Dataset) (int, bool) {
	if d.K != e.K || d.N() != e.N() || !samePublic(&d.Public, &e.Public) {
		return -1, false
	}
	at := -1
	for i, y := range d.sensitive {
		if e.sensitive[i] != y {
			if at >= 0 {
				return -1, false
			}
			at = i
		}
	}
	return at, true
}

func samePublic(a, b *Public) bool {
	if (a.Labels == nil) != (b.Labels == nil) {
		return false
	}
	for i := range a.Features {
		if a.Labels != nil && a.Labels[i] != b.Labels[i] {
			return false
		}
		for j, x := range a.Features[i] {
			if b.Features[i][j] != x {
				return false
			}
		}
	}
	return true
}

// TrueAnswer is f(D) = (1/n) Σᵢ f(xᵢ^pub, xᵢ^priv), written to dst
// (allocated if nil): the one read of the sensitive values a private
// algorithm makes, counted in Reads.
func (d *Dataset) TrueAnswer(q Query, dst []float64) []float64 {
	d.reads += d.N()
	return answerAt(&d.Public, d.sensitive, q, dst)
}

// answerAt is (1/n) Σᵢ f(xᵢ^pub, valuesᵢ).
func answerAt(pub *Public, values []int, q Query, dst []float64) []float64 {
	dst = zeroed(dst, q.Dim())
	v := make([]float64, q.Dim())
	for i, y := range values {
		q.Eval(pub, i, y, v)
		for j, x := range v {
			dst[j] += x
		}
	}
	scale(dst, 1/float64(len(values)))
	return dst
}

// Reads is how many sensitive values TrueAnswer has read so far.
func (d *Dataset) Reads() int { return d.reads }

// Reveal returns the sensitive values, 0-based: what only a simulation
// can show (the potential Ψ, the true cell of a belief). It counts as n
// reads.
func (d *Dataset) Reveal() []int {
	d.reads += d.N()
	return append([]int(nil), d.sensitive...)
}

func zeroed(dst []float64, n int) []float64 {
	if cap(dst) < n {
		return make([]float64, n)
	}
	dst = dst[:n]
	clear(dst)
	return dst
}

func scale(x []float64, a float64) {
	for i := range x {
		x[i] *= a
	}
}
