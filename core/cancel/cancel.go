// Package cancel is what long computations need of a context: whether to
// stop. Every context.Context is a Context, so native callers pass theirs;
// the browser's lessons pass Never. That keeps package context, and through
// Deadline's time.Time the whole of time's formatting (about 80 KB of
// WebAssembly), out of the lesson engines.
package cancel

// Context reports why work should stop: nil to go on, an error (such as
// context.Canceled) to stop with it.
type Context interface {
	Err() error
}

// Never is a Context that never stops.
var Never Context = never{}

type never struct{}

func (never) Err() error { return nil }
