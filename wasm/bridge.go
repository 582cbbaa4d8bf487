//go:build js && wasm

// Package wasm is the browser's bridge to one lesson scene. Each lesson is
// its own WebAssembly module (wasm/build generates their mains from the
// lesson list), so a page downloads only the lesson it shows. Run exposes
// the scene to the page as the global object `uldp`. Every entry point
// recovers from panics and reports them as errors, because a panic in
// WebAssembly would kill the page.
package wasm

import (
	"encoding/json"
	"fmt"
	"runtime/debug"
	"syscall/js"

	"github.com/uldplab/uldp/viz"
)

// Run serves scene to the page until the page calls uldp.exit(): it sets
// the global `uldp`, calls the page's uldpReady() if there is one, and
// answers the page's calls.
func Run(scene viz.Scene) {
	b := &bridge{app: viz.NewApp(scene), done: make(chan struct{})}
	b.obj = js.Global().Get("Object").New()
	b.export()
	js.Global().Set("uldp", b.obj)
	if ready := js.Global().Get("uldpReady"); ready.Type() == js.TypeFunction {
		ready.Invoke()
	}
	<-b.done // keep the Go side alive for the page's callbacks
}

type bridge struct {
	app   *viz.App
	obj   js.Value
	frame []byte
	done  chan struct{}
}

// fn registers a guarded function: a panic inside becomes lastError and the
// fallback value, and is logged to the console.
func (b *bridge) fn(name string, fallback any, f func(args []js.Value) any) {
	b.obj.Set(name, js.FuncOf(func(_ js.Value, args []js.Value) (out any) {
		defer func() {
			if r := recover(); r != nil {
				msg := fmt.Sprintf("internal error in %s: %v", name, r)
				b.obj.Set("lastError", msg)
				js.Global().Get("console").Call("error", msg+"\n"+string(debug.Stack()))
				out = fallback
			}
		}()
		return f(args)
	}))
}

func errString(err error) any {
	if err != nil {
		return err.Error()
	}
	return ""
}

func asJSON(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return `{"error":` + fmt.Sprintf("%q", err.Error()) + `}`
	}
	return string(b)
}

func arg(args []js.Value, i int) js.Value {
	if i < len(args) {
		return args[i]
	}
	return js.Undefined()
}

func str(args []js.Value, i int) string {
	if v := arg(args, i); v.Type() == js.TypeString {
		return v.String()
	}
	return ""
}

func num(args []js.Value, i int) float64 {
	if v := arg(args, i); v.Type() == js.TypeNumber {
		return v.Float()
	}
	return 0
}

func (b *bridge) export() {
	a := b.app
	b.obj.Set("frameVersion", viz.FrameVersion)
	// exit ends the module, so a page switching lessons frees its memory.
	b.fn("exit", js.Undefined(), func([]js.Value) any {
		select {
		case <-b.done:
		default:
			close(b.done)
		}
		return js.Undefined()
	})
	b.fn("current", "", func([]js.Value) any { return a.Scene().Info().Name })
	b.fn("palette", "[]", func([]js.Value) any { return asJSON(viz.PaletteRGBA()) })
	b.fn("controls", "[]", func([]js.Value) any { return asJSON(a.Controls()) })
	b.fn("readouts", "[]", func([]js.Value) any { return asJSON(a.Readouts()) })
	b.fn("guarantee", "{}", func([]js.Value) any { return asJSON(a.Guarantee()) })
	b.fn("set", "internal error", func(args []js.Value) any { return errString(a.Set(str(args, 0), str(args, 1))) })
	b.fn("key", false, func(args []js.Value) any { return a.Key(str(args, 0)) })
	b.fn("tick", false, func(args []js.Value) any { return a.Tick(num(args, 0)) })
	b.fn("state", "", func([]js.Value) any { return a.State() })
	b.fn("restore", "internal error", func(args []js.Value) any { return errString(a.Restore(str(args, 0))) })
	// event(kind, x, y, pointer, delta): kind is "down", "move", "up" or "wheel".
	b.fn("event", false, func(args []js.Value) any {
		kinds := map[string]viz.EventKind{"down": viz.PointerDown, "move": viz.PointerMove, "up": viz.PointerUp, "wheel": viz.Wheel}
		k, ok := kinds[str(args, 0)]
		if !ok {
			return false
		}
		return a.Event(viz.Event{Kind: k, X: num(args, 1), Y: num(args, 2), Pointer: int(num(args, 3)), Delta: num(args, 4)})
	})
	// frame(w, h, force): the encoded display list as a Uint8Array, or null
	// if nothing changed since the last call.
	b.fn("frame", js.Null(), func(args []js.Value) any {
		l, changed := a.Frame(num(args, 0), num(args, 1))
		if !changed && !arg(args, 2).Truthy() {
			return js.Null()
		}
		b.frame = viz.Encode(l, b.frame[:0])
		out := js.Global().Get("Uint8Array").New(len(b.frame))
		js.CopyBytesToJS(out, b.frame)
		return out
	})
	// locate(id): [x, y] of the item with that id in the last frame, or null.
	b.fn("locate", js.Null(), func(args []js.Value) any {
		l := a.LastFrame()
		if l == nil {
			return js.Null()
		}
		p, ok := l.Locate(int(num(args, 0)))
		if !ok {
			return js.Null()
		}
		return []any{p.X, p.Y}
	})
	b.fn("exportTrace", js.Null(), func([]js.Value) any { return exported(a.ExportTrace()) })
	b.fn("exportCSV", js.Null(), func([]js.Value) any { return exported(a.ExportCSV()) })
	b.fn("canExport", js.Null(), func([]js.Value) any {
		tr, csv := a.Exportable()
		return map[string]any{"trace": tr, "csv": csv}
	})
}

// exported returns {data} or {error} for an export.
func exported(data []byte, err error) any {
	if err != nil {
		return map[string]any{"error": err.Error()}
	}
	return map[string]any{"data": string(data)}
}
