package semisens

import (
	"math"

	"github.com/uldplab/uldp/core/format"
)

// Beliefs are every example's distribution over the k sensitive values,
// kept as log-weights: over L updates a log-weight moves by at most L·η·c,
// which float64 carries without loss.
type Beliefs struct {
	n, k int
	logp []float64 // row i is logp[i·k : (i+1)·k]
	prob []float64 // exp(logp), kept in step: every answer reads it
}

// Uniform is p⁰: every example's k values equally likely.
func Uniform(n, k int) *Beliefs {
	b := &Beliefs{n: n, k: k, logp: make([]float64, n*k), prob: make([]float64, n*k)}
	l := -math.Log(float64(k))
	for i := range b.logp {
		b.logp[i], b.prob[i] = l, 1/float64(k)
	}
	return b
}

// FromProbs returns the beliefs p[i][y], each row a distribution with
// positive entries (rows are renormalised).
func FromProbs(p [][]float64) (*Beliefs, error) {
	if len(p) == 0 || len(p[0]) < 2 {
		return nil, format.Errorf("p: give one row of k ≥ 2 probabilities per example")
	}
	k := len(p[0])
	b := &Beliefs{n: len(p), k: k, logp: make([]float64, len(p)*k), prob: make([]float64, len(p)*k)}
	for i, row := range p {
		if len(row) != k {
			return nil, format.Errorf("p[%d] has %d entries, p[0] has %d: every row needs k", i, len(row), k)
		}
		s := 0.0
		for y, x := range row {
			if !(x > 0) || math.IsInf(x, 1) {
				return nil, format.Errorf("p[%d][%d] = %v: beliefs must be positive and finite (a zero can never recover under multiplicative updates)", i, y, x)
			}
			s += x
		}
		if math.Abs(s-1) > 1e-6 {
			return nil, format.Errorf("p[%d] sums to %.9g: each row is a distribution and sums to 1", i, s)
		}
		for y, x := range row {
			b.logp[i*k+y], b.prob[i*k+y] = math.Log(x/s), x/s
		}
	}
	return b, nil
}

// N is the number of examples, K the number of values.
func (b *Beliefs) N() int { return b.n }

// K is the number of sensitive values.
func (b *Beliefs) K() int { return b.k }

// P is pᵢ(y).
func (b *Beliefs) P(i, y int) float64 { return b.prob[i*b.k+y] }

// Probs returns every pᵢ(y) as rows.
func (b *Beliefs) Probs() [][]float64 {
	out := make([][]float64, b.n)
	for i := range out {
		out[i] = make([]float64, b.k)
		for y := range out[i] {
			out[i][y] = b.P(i, y)
		}
	}
	return out
}

// Clone returns a copy.
func (b *Beliefs) Clone() *Beliefs {
	return &Beliefs{n: b.n, k: b.k, logp: append([]float64(nil), b.logp...), prob: append([]float64(nil), b.prob...)}
}

// Answer is the beliefs' answer f(p) = (1/n) Σᵢ Σ_y pᵢ(y) f(xᵢ^pub, y),
// written to dst (allocated if nil). It reads public data and p only.
func Answer(pub *Public, b *Beliefs, q Query, dst []float64) []float64 {
	dst = zeroed(dst, q.Dim())
	if oh, ok := fast(pub, q); ok {
		oh.answer(b, dst)
		return dst
	}
	v := make([]float64, q.Dim())
	for i := range b.n {
		for y := range b.k {
			q.Eval(pub, i, y, v)
			w := b.P(i, y)
			for j, x := range v {
				dst[j] += w * x
			}
		}
	}
	scale(dst, 1/float64(b.n))
	return dst
}

// Potential is Ψ = (1/n) Σᵢ −ln pᵢ(truthᵢ): the beliefs' average
// cross-entropy against the true values (ln k for uniform beliefs, 0 for
// certainty). Only a simulation knows truth.
func Potential(b *Beliefs, truth []int) float64 {
	s := 0.0
	for i, y := range truth {
		s -= b.logp[i*b.k+y]
	}
	return s / float64(b.n)
}

// MWUParams are the step's learning rate η and truncation c.
type MWUParams struct {
	Eta, C float64
}

// Validate checks c > 0 and 0 < η ≤ 1/c, the range where a candidate's
// weight moves by a factor in [e^{−1}, e] at most, as the analysis needs.
func (p MWUParams) Validate() error {
	if !(p.C > 0) || math.IsInf(p.C, 1) {
		return format.Errorf("c = %v: the truncation must be a finite number > 0 (the paper's is 3)", p.C)
	}
	if !(p.Eta > 0) || p.Eta > 1/p.C*(1+1e-12) {
		return format.Errorf("η = %v: the learning rate must be in (0, 1/c] = (0, %.6g]; lower η or c", p.Eta, 1/p.C)
	}
	return nil
}

// MWUStep is what one step computed: the direction φ = (v − f(p))/ι, the
// beliefs' answer before the step, every truncated score s_{i,y} (row i
// is Scores[i·k : (i+1)·k]) and how many scores the truncation cut.
type MWUStep struct {
	Phi     []float64 `json:"phi"`
	Before  []float64 `json:"before"`
	Scores  []float64 `json:"-"`
	Clipped int       `json:"clipped"`
}

// MWU is the Linear Vector Query Multiplicative Update: with
// φ = (v − f(p))/ι, every pᵢ(y) is multiplied by exp(η·trunc_c(⟨φ, f(xᵢ^pub, y)⟩))
// and each row renormalised, in place. Its inputs are public data, the
// beliefs and released values (v, ι): it has no sensitive value to read.
// A negative ι (Laplace noise on a small norm) flips φ; the truncation
// still bounds every factor, which is all the printed algorithm relies on.
func MWU(pub *Public, b *Beliefs, q Query, v []float64, iota float64, p MWUParams) (MWUStep, error) {
	if err := p.Validate(); err != nil {
		return MWUStep{}, err
	}
	if len(v) != q.Dim() {
		return MWUStep{}, format.Errorf("v has %d coordinates, the query %d", len(v), q.Dim())
	}
	if iota == 0 || math.IsNaN(iota) || math.IsInf(iota, 0) {
		return MWUStep{}, format.Errorf("ι = %v: the noisy error norm must be a finite number other than 0", iota)
	}
	st := MWUStep{Before: Answer(pub, b, q, nil), Scores: make([]float64, b.n*b.k)}
	st.Phi = make([]float64, len(v))
	for j := range v {
		st.Phi[j] = (v[j] - st.Before[j]) / iota
	}
	raw := Scores(pub, q, st.Phi, st.Scores)
	for i := range b.n {
		row := b.logp[i*b.k : (i+1)*b.k]
		top := math.Inf(-1)
		for y := range row {
			s := raw[i*b.k+y]
			if math.Abs(s) > p.C {
				st.Clipped++
			}
			s = Trunc(s, p.C)
			raw[i*b.k+y] = s
			row[y] += p.Eta * s
			top = max(top, row[y])
		}
		normaliseFrom(row, b.prob[i*b.k:(i+1)*b.k], top)
	}
	return st, nil
}

// Scores writes every candidate's raw score ⟨φ, f(xᵢ^pub, y)⟩, before
// truncation, into dst (n·k, row i at i·k; allocated if nil). It reads
// public data only.
func Scores(pub *Public, q Query, phi []float64, dst []float64) []float64 {
	n, k := pub.N(), pub.K
	if len(dst) != n*k {
		dst = make([]float64, n*k)
	}
	if oh, ok := fast(pub, q); ok {
		oh.dots(phi, dst)
		return dst
	}
	u := make([]float64, q.Dim())
	for i := range n {
		for y := range k {
			q.Eval(pub, i, y, u)
			dst[i*k+y] = dot(phi, u)
		}
	}
	return dst
}

// normalise makes row i's log-weights a distribution's logarithms and
// its probabilities their exponentials.
func (b *Beliefs) normalise(i int) {
	row := b.logp[i*b.k : (i+1)*b.k]
	top := math.Inf(-1)
	for _, l := range row {
		top = max(top, l)
	}
	normaliseFrom(row, b.prob[i*b.k:(i+1)*b.k], top)
}

// normaliseFrom is normalise given the row's largest entry: exp is taken
// once per entry, for the sum and the probabilities alike.
func normaliseFrom(row, prob []float64, top float64) {
	z := 0.0
	for y, l := range row {
		prob[y] = math.Exp(l - top)
		z += prob[y]
	}
	lz := top + math.Log(z)
	for y := range row {
		row[y] -= lz
		prob[y] /= z
	}
}
