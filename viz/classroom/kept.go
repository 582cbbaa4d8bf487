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

// keptEntry is one view's value, computed once even when many gradings
// ask for it at the same time.
type keptEntry[V any] struct {
	once sync.Once
	done atomic.Bool // set once v and err are
	v    V
	err  error
}

// keptViews holds values by view, at most maxKept of them.
type keptViews[V any] struct {
	mu sync.Mutex
	m  map[view]*keptEntry[V]
}

func newKept[V any]() *keptViews[V] { return &keptViews[V]{m: map[view]*keptEntry[V]{}} }

// verdict is the audit lab's verdict on a broken variant at a pair.
type verdict struct {
	caught bool
	why    string
}

var (
	kept     = newKept[[]exercise.Reading]() // lessons' readouts
	verdicts = newKept[verdict]()            // the audit lab's verdicts
)

// get returns v's value, computing it with compute the first time (an
// error is kept too: a lesson that refuses a state always will).
func (k *keptViews[V]) get(v view, compute func() (V, error)) (V, error) {
	k.mu.Lock()
	e, ok := k.m[v]
	if !ok {
		if len(k.m) >= maxKept {
			for old := range k.m {
				delete(k.m, old)
				break
			}
		}
		e = &keptEntry[V]{}
		k.m[v] = e
	}
	k.mu.Unlock()
	e.once.Do(func() {
		e.v, e.err = compute()
		e.done.Store(true)
	})
	return e.v, e.err
}

// has reports whether v's value is computed and kept.
func (k *keptViews[V]) has(v view) bool {
	k.mu.Lock()
	e, ok := k.m[v]
	k.mu.Unlock()
	return ok && e.done.Load()
}

// forget drops every kept value.
func (k *keptViews[V]) forget() {
	k.mu.Lock()
	k.m = map[view]*keptEntry[V]{}
	k.mu.Unlock()
}

// Forget drops every kept view: the next readings run the lessons again.
// A server never needs it; benchmarks call it to measure what keeping
// saves.
func Forget() {
	kept.forget()
	verdicts.forget()
}
