// Package rng derives independent, named random streams from one seed.
//
// Every random choice in ULDP Lab draws from a named stream ("tdlap", "gauss",
// "at-threshold", …). Streams are derived from the seed and the name alone, so
// drawing more or fewer numbers from one stream never shifts another, and
// re-rolling one source (Reroll) changes that stream only. This is what lets a
// lesson re-draw R1 while keeping the Gaussian noise fixed, and what makes
// "same seed ⇒ same trace" hold when an edited dataset consumes a different
// number of draws from some stream (common random numbers).
//
// Seeded streams are for teaching and testing: anyone who knows the seed knows
// the noise. Real releases use package cryptorng, whose streams read the
// operating system's cryptographic generator and cannot be replayed. (It is
// a package of its own so that front ends without it — the browser engine —
// do not link crypto/rand.)
package rng

import (
	"hash/fnv"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/uldplab/uldp/core/format"
)

// Names of the streams the algorithms use. Any non-empty name is allowed;
// these constants keep the spelling in one place.
const (
	Data        = "data"         // dataset generators
	Perm        = "perm"         // random allocation of items to users
	TDLap       = "tdlap"        // DelOutputPert's R1
	Gauss       = "gauss"        // Gaussian output noise
	Laplace     = "laplace"      // Laplace noise outside AboveThreshold
	DLaplace    = "dlaplace"     // discrete Laplace noise
	ATThreshold = "at-threshold" // AboveThreshold's threshold noise
	ATQuery     = "at-query"     // AboveThreshold's per-query noise
	Keep        = "keep"         // ORME's keep coins
	Smoothing   = "smoothing"    // randomized-smoothing perturbations
	Order       = "order"        // the order SGD visits a group's items in
	Batch       = "batch"        // which users a minibatch step draws
)

// Streams hands out one generator per name. The zero value is not usable; call
// New or NewExternal. A Streams is not safe for concurrent use: give each
// goroutine its own (see Fresh).
type Streams struct {
	seed    uint64
	ext     rand.Source // every stream reads it; nil for seeded streams
	extName string
	rerolls map[string]uint64
	live    map[string]*rand.Rand
	scope   string // prefix of every stream name (see Scope)
}

// New returns seeded, replayable streams. Use it for lessons and tests only:
// the seed determines every draw.
func New(seed uint64) *Streams {
	return &Streams{seed: seed, rerolls: map[string]uint64{}, live: map[string]*rand.Rand{}}
}

// NewExternal returns streams that all read src, named for readouts, for
// runs whose output is meant to be private (cryptorng passes the operating
// system's generator). They cannot be replayed, so a Stepper built on them
// cannot branch with common random numbers.
func NewExternal(name string, src rand.Source) *Streams {
	return &Streams{ext: src, extName: name, rerolls: map[string]uint64{}, live: map[string]*rand.Rand{}}
}

// Seed returns the root seed (0 for external streams).
func (s *Streams) Seed() uint64 { return s.seed }

// Replayable reports whether the streams come from a seed (false: they read
// an external source, which cannot be replayed).
func (s *Streams) Replayable() bool { return s.ext == nil }

// Get returns the generator for name. Repeated calls with the same name return
// the same generator, continuing where the last caller stopped.
func (s *Streams) Get(name string) *rand.Rand {
	if r, ok := s.live[s.scope+name]; ok {
		return r
	}
	r := rand.New(s.Source(name))
	s.live[s.scope+name] = r
	return r
}

// Source returns a fresh source for name, positioned at the stream's start.
// Most callers want Get; Source suits gonum-style distributions that hold a
// rand.Source.
func (s *Streams) Source(name string) rand.Source {
	if name == "" {
		// An unnamed stream would silently alias another caller's draws.
		panic("rng: empty stream name")
	}
	if s.ext != nil {
		return s.ext
	}
	hi, lo := derive(s.seed, s.scope+name, s.rerolls[name])
	return rand.NewPCG(hi, lo)
}

// Reroll gives name a new, independent sequence (and restarts it); every
// other stream is untouched.
func (s *Streams) Reroll(name string) {
	s.rerolls[name]++
	for k := range s.live {
		if k == name || strings.HasSuffix(k, "/"+name) {
			delete(s.live, k) // in every scope
		}
	}
}

// Scope returns a view of s whose stream name is s's name/name: phases of
// a phased algorithm each draw from their own streams, so a phase that
// stops early shifts no later phase's draws. The view shares s's state; a
// Reroll of a name, on s or any view, re-rolls it in every scope.
func (s *Streams) Scope(name string) *Streams {
	v := *s
	v.scope = s.scope + name + "/"
	return &v
}

// Rerolls returns the names that have been re-rolled with their counts,
// sorted by name, so a front end can show and share them.
func (s *Streams) Rerolls() []Reroll {
	out := make([]Reroll, 0, len(s.rerolls))
	for n, c := range s.rerolls {
		if c > 0 {
			out = append(out, Reroll{Name: n, Count: c})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Reroll records how often a stream was re-rolled.
type Reroll struct {
	Name  string `json:"name"`
	Count uint64 `json:"count"`
}

// Fresh returns unconsumed streams with the same seed and re-rolls: a replay
// of the same randomness from the start.
func (s *Streams) Fresh() *Streams {
	f := &Streams{seed: s.seed, ext: s.ext, extName: s.extName, scope: s.scope, rerolls: make(map[string]uint64, len(s.rerolls)), live: map[string]*rand.Rand{}}
	for n, c := range s.rerolls {
		f.rerolls[n] = c
	}
	return f
}

// String describes the streams for logs and readouts.
func (s *Streams) String() string {
	if s.ext != nil {
		return s.extName + " (not replayable)"
	}
	return format.Sprintf("seed %d", s.seed)
}

// derive mixes the seed, the name and the re-roll count into a PCG state.
// FNV-1a spreads the name; two SplitMix64 rounds decorrelate nearby seeds.
func derive(seed uint64, name string, reroll uint64) (uint64, uint64) {
	h := fnv.New64a()
	h.Write([]byte(name))
	key := h.Sum64()
	hi := splitmix(seed ^ splitmix(key))
	lo := splitmix(hi ^ splitmix(key+reroll*0x9e3779b97f4a7c15))
	return hi, lo
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
