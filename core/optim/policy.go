package optim

import (
	"math"
	"math/bits"

	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/loss"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
)

// EmptyPolicy says what an outlier-removal step does when its coins keep
// nobody. Neither of Lowy, Liu & Asi's algorithms handles it (spec 001-004
// §7.6): it happens only off their high-probability event.
type EmptyPolicy int

const (
	// EmptyDefault is the algorithm's own default: EmptyHalt for
	// outlier-iterate removal, EmptyZero for the accelerated variant.
	EmptyDefault EmptyPolicy = iota
	// EmptyHalt stops the run as a failed gate does.
	EmptyHalt
	// EmptyStart releases the phase's start point (plus the phase's noise)
	// in place of the kept iterates' mean.
	EmptyStart
	// EmptyZero uses the zero vector in place of the kept gradients' mean.
	EmptyZero
)

var emptyNames = [...]string{"default", "halt", "start", "zero"}

// String names the policy as flags spell it.
func (e EmptyPolicy) String() string { return enumName(emptyNames[:], int(e)) }

// ParseEmptyPolicy reads a policy's name.
func ParseEmptyPolicy(s string) (EmptyPolicy, error) {
	i, err := parseEnum("empty-set policy", emptyNames[1:], s)
	return EmptyPolicy(i + 1), err
}

// ShortPolicy says what a phased run does when a phase has too few users
// for one group (B-ALG1: ⌊n_i/C⌋ = 0) or one minibatch (n_i = 0).
type ShortPolicy int

const (
	// ShortStop ends the phases there and outputs the last phase's point,
	// as the spec recommends.
	ShortStop ShortPolicy = iota
	// ShortRefuse refuses the run, naming the phase.
	ShortRefuse
)

var shortNames = [...]string{"stop", "refuse"}

// String names the policy as flags spell it.
func (s ShortPolicy) String() string { return enumName(shortNames[:], int(s)) }

// ParseShortPolicy reads a policy's name.
func ParseShortPolicy(s string) (ShortPolicy, error) {
	i, err := parseEnum("short-phase policy", shortNames[:], s)
	return ShortPolicy(i), err
}

// OversizePolicy says what the accelerated variant does when its minibatch
// size K_i exceeds the phase's n_i users, as the printed K_i always does at
// sizes a computer can run (spec 001-004 E-B5).
type OversizePolicy int

const (
	// OversizeCap takes K_i = n_i and flags the assumption as violated.
	OversizeCap OversizePolicy = iota
	// OversizeRefuse refuses the run.
	OversizeRefuse
)

var oversizeNames = [...]string{"cap", "refuse"}

// String names the policy as flags spell it.
func (o OversizePolicy) String() string { return enumName(oversizeNames[:], int(o)) }

// ParseOversizePolicy reads a policy's name.
func ParseOversizePolicy(s string) (OversizePolicy, error) {
	i, err := parseEnum("oversize policy", oversizeNames[:], s)
	return OversizePolicy(i), err
}

func enumName(names []string, i int) string {
	if i < 0 || i >= len(names) {
		return format.Sprintf("%d", i)
	}
	return names[i]
}

func parseEnum(what string, names []string, s string) (int, error) {
	for i, n := range names {
		if n == s {
			return i, nil
		}
	}
	return 0, format.Errorf("%s %q: use %s", what, s, orList(names))
}

// orList writes "a, b or c".
func orList(xs []string) string {
	switch len(xs) {
	case 0:
		return ""
	case 1:
		return xs[0]
	}
	out := xs[0]
	for _, x := range xs[1 : len(xs)-1] {
		out += ", " + x
	}
	return out + " or " + xs[len(xs)-1]
}

// phaseUsers is n_i = ⌊(1 − 2^{−q})·n/2^{q·i}⌋, the users phase i of
// Lowy, Liu & Asi's algorithms takes: Σ_i n_i ≤ n·2^{−q}.
func phaseUsers(n int, q float64, i int) int {
	return int(math.Floor((1 - math.Exp2(-q)) * float64(n) / math.Exp2(q*float64(i))))
}

// phaseCount is l for Lowy, Liu & Asi's phased algorithms: the override,
// or ⌊log₂ n⌋.
func phaseCount(override, n int) int {
	if override > 0 {
		return override
	}
	return bits.Len(uint(n)) - 1
}

// userOrder is the order phases take users in: file order, or a random
// permutation from the "perm" stream.
func userOrder(n int, o Order, streams *rng.Streams) []int {
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	if o == Shuffled {
		streams.Get(rng.Perm).Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
	}
	return order
}

// checks collects what is wrong with a set of parameters.
type checks []error

func (c *checks) bad(msg string, args ...any) { *c = append(*c, format.Errorf(msg, args...)) }

// ballChecks starts the checks of an optimiser over the ball B(0, R) that
// steps on an L-Lipschitz smooth loss: ε and δ, the loss, L and R.
func ballChecks(eps, delta float64, f loss.Smooth, lipschitz, radius float64) checks {
	c := checks{privacy.CheckEps(eps), privacy.CheckDelta(delta)}
	if f == nil {
		c.bad("no loss: choose squared or huber")
	}
	c.positive("lipschitz", lipschitz, "L, the bound on the item gradients' norm")
	c.positive("radius", radius, "R, the radius of the domain ball")
	return c
}

// override wants an optional setting v finite and > 0, or 0 for its
// default dflt.
func (c *checks) override(name string, v float64, what, dflt string) {
	if v < 0 || math.IsInf(v, 1) || math.IsNaN(v) {
		c.bad("%s = %v: %s must be a finite number > 0 (0 for %s)", name, v, what, dflt)
	}
}

// positive wants v finite and > 0.
func (c *checks) positive(name string, v float64, what string) {
	if !(v > 0) || math.IsInf(v, 1) {
		c.bad("%s = %v: %s must be a finite number > 0", name, v, what)
	}
}

// startInBall wants theta0 (nil: the centre) in ℝ^d and in B(0, r).
func (c *checks) startInBall(theta0 []float64, d int, r float64) {
	if theta0 == nil {
		return
	}
	if len(theta0) != d {
		c.bad("theta0 has %d coordinates, the data %d", len(theta0), d)
	} else if dist := loss.Dist(theta0, make([]float64, d)); dist > r {
		c.bad("theta0 lies at distance %.4g from the centre, outside the domain ball of radius R = %g", dist, r)
	}
}
