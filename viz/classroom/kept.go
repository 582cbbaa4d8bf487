package classroom

import (
	"sync"
	"sync/atomic"

	"github.com/uldplab/uldp/core/exercise"
)

// The readouts of a lesson at a state, with the state's own users, depend
// on nothing else: the lessons are deterministic. So they are computed
// once per process and kept, and grading a numeric or predict answer
// against a pack's key is a lookup and a comparison. Students' states and
// teachers' packs bring views of their own, so at most maxKept are kept,
// arbitrary ones forgotten beyond: the built-in pack has 39 keys, so a
// class's packs fit many times over, in at most 20 MB (states are at most
// 4 KiB).
const maxKept = 4096

// view is what a lesson's readouts depend on, or the audit lab's verdict
// on a broken variant (mutant) at a state.
type view struct {
	lesson, state, mutant string
	end                   bool
}

// keptReadouts is one view's readouts, computed once even when many
// gradings ask for them at the same time.
type keptReadouts struct {
	once sync.Once
	done atomic.Bool // set once rs and err are
	rs   []exercise.Reading
	err  error
}

type keptViews struct {
	mu sync.Mutex
	m  map[view]*keptReadouts
}

var kept = &keptViews{m: map[view]*keptReadouts{}}

// get returns v's readouts, computing them with compute the first time
// (an error is kept too: a lesson that refuses a state always will).
func (k *keptViews) get(v view, compute func() ([]exercise.Reading, error)) ([]exercise.Reading, error) {
	k.mu.Lock()
	e, ok := k.m[v]
	if !ok {
		if len(k.m) >= maxKept {
			for old := range k.m {
				delete(k.m, old)
				break
			}
		}
		e = &keptReadouts{}
		k.m[v] = e
	}
	k.mu.Unlock()
	e.once.Do(func() {
		e.rs, e.err = compute()
		e.done.Store(true)
	})
	return e.rs, e.err
}

// has reports whether v's readouts are computed and kept.
func (k *keptViews) has(v view) bool {
	k.mu.Lock()
	e, ok := k.m[v]
	k.mu.Unlock()
	return ok && e.done.Load()
}

// Forget drops every kept view: the next readings run the lessons again.
// A server never needs it; benchmarks call it to measure what keeping
// saves.
func Forget() {
	kept.mu.Lock()
	kept.m = map[view]*keptReadouts{}
	kept.mu.Unlock()
}
