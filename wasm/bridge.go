//go:build js && wasm

// Package wasm is the browser's bridge to one lesson scene. Each lesson is
// its own WebAssembly module (wasm/build generates their mains from the
// lesson list), so a page downloads only the lesson it shows. Run exposes
// the scene to the page as the global object `uldp`; everything crosses as
// strings, numbers or typed buffers (viz.Encode, viz.EncodeControls, …),
// never JSON, so a lesson's module links no encoding/json. Every entry point
// recovers from panics and reports them as errors, because a panic in
// WebAssembly would kill the page.
package wasm

import (
	"bytes"
	"runtime"
	"strconv"
	"strings"
	"syscall/js"

	"github.com/uldplab/uldp/viz"
)

// Run serves scene to the page until the page calls uldp.exit(): it sets
// the global `uldp`, calls the page's uldpReady() if there is one, and
// answers the page's calls.
func Run(scene viz.Scene) { run(scene, nil) }

// RunRemote is Run for a lesson whose computation the page may hand to a
// Web Worker running another copy of the module (viz.Remote): the page
// gets remoteKey, hold, outcome and adopt besides. Other lessons' modules
// go without them (13 KB of code each).
func RunRemote(scene interface {
	viz.Scene
	viz.Remote
}) {
	run(scene, (*bridge).exportRemote)
}

// run serves scene to the page, with more functions if more is not nil.
func run(scene viz.Scene, more func(*bridge)) {
	// Long runs are computed a slice per frame, timed by the page's clock
	// (package time would add its initialisation to every module).
	perf := js.Global().Get("performance")
	viz.Clock = func() float64 { return perf.Call("now").Float() }
	b := &bridge{app: viz.NewApp(scene), done: make(chan struct{})}
	b.obj = js.Global().Get("Object").New()
	b.export()
	if more != nil {
		more(b)
	}
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
	// The panel's buffers as last sent, for sending only what changed.
	controls, readouts, guarantee panelBuf
}

// panelBuf is one panel buffer: the last one sent and a spare to encode
// into, swapped, so a steady panel allocates nothing.
type panelBuf struct{ sent, next []byte }

// send returns a Uint8Array of the freshly encoded next, or null when it
// equals what was sent last (unless force).
func (p *panelBuf) send(next []byte, force bool) any {
	p.next = next
	if !force && p.sent != nil && bytes.Equal(p.sent, p.next) {
		return js.Null()
	}
	p.sent, p.next = p.next, p.sent
	return toJS(p.sent)
}

func toJS(b []byte) js.Value {
	out := js.Global().Get("Uint8Array").New(len(b))
	js.CopyBytesToJS(out, b)
	return out
}

// guard registers a function on obj that recovers: a panic inside becomes
// obj.lastError and the fallback value, and is logged to the console.
func guard(obj js.Value, name string, fallback any, f func(args []js.Value) any) {
	obj.Set(name, js.FuncOf(func(_ js.Value, args []js.Value) (out any) {
		defer viz.BeginCall()()
		defer func() {
			if r := recover(); r != nil {
				msg := "internal error in " + name + ": " + panicText(r)
				obj.Set("lastError", msg)
				js.Global().Get("console").Call("error", msg+"\n"+stack())
				out = fallback
			}
		}()
		return f(args)
	}))
}

// stack is the calling goroutine's stack, each frame a function and its
// file and line. wasm/build blanks the engines' function names, and
// debug.Stack would hide every frame without one: the files and lines,
// which are kept, still find the code.
func stack() string {
	pcs := make([]uintptr, 64)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
	var b strings.Builder
	for {
		f, more := frames.Next()
		b.WriteString(f.Function + "\n\t" + f.File + ":" + strconv.Itoa(f.Line) + "\n")
		if !more {
			return b.String()
		}
	}
}

func panicText(r any) string {
	switch v := r.(type) {
	case error:
		return v.Error()
	case string:
		return v
	}
	return "unexpected panic"
}

func (b *bridge) fn(name string, fallback any, f func(args []js.Value) any) {
	guard(b.obj, name, fallback, f)
}

// result is a setting's answer to the page: "", the error's message, or
// {moveTo: state} for a setting another module of the lesson shows.
func result(err error) any {
	if el, ok := err.(viz.ElsewhereError); ok {
		return map[string]any{"moveTo": el.State}
	}
	return errString(err)
}

func errString(err error) any {
	if err != nil {
		return err.Error()
	}
	return ""
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
	// collect runs the garbage collector. The rehearsal worker calls it:
	// a browser compiles the collector's code (marking, sweeping, 196
	// functions) when it first runs, and a rehearsal too short to
	// collect left that to the page's thread, 10–20 ms inside a reader's
	// key press.
	b.fn("collect", js.Undefined(), func([]js.Value) any { runtime.GC(); return js.Undefined() })
	b.fn("current", "", func([]js.Value) any { return a.Scene().Info().Name })
	b.fn("palette", js.Null(), func([]js.Value) any { return toJS(viz.EncodePalette(nil)) })
	// controls(force), readouts(force), guarantee(force): the panel's
	// typed buffers, or null when unchanged since the last call.
	b.fn("controls", js.Null(), func(args []js.Value) any {
		return b.controls.send(viz.EncodeControls(a.Controls(), b.controls.next), arg(args, 0).Truthy())
	})
	b.fn("readouts", js.Null(), func(args []js.Value) any {
		return b.readouts.send(viz.EncodeReadouts(a.Readouts(), b.readouts.next), arg(args, 0).Truthy())
	})
	b.fn("guarantee", js.Null(), func(args []js.Value) any {
		return b.guarantee.send(viz.EncodeGuarantee(a.Guarantee(), b.guarantee.next), arg(args, 0).Truthy())
	})
	// set and restore answer "" or an error's message, or {moveTo: state}
	// when another module of the lesson shows the setting.
	b.fn("set", "internal error", func(args []js.Value) any { return result(a.Set(str(args, 0), str(args, 1))) })
	b.fn("key", false, func(args []js.Value) any { return a.Key(str(args, 0)) })
	b.fn("tick", false, func(args []js.Value) any { return a.Tick(num(args, 0)) })
	// describe() and label(): the figure in words, and its accessible name.
	b.fn("describe", "", func([]js.Value) any { return a.Describe() })
	b.fn("label", "", func([]js.Value) any { return a.Label() })
	b.fn("figureKeys", "", func([]js.Value) any { return a.FigureKeys() })
	b.fn("busy", false, func([]js.Value) any { return a.Busy() })
	// release(): let go of an item the keyboard holds (the figure lost
	// the focus); true if one was held.
	b.fn("release", false, func([]js.Value) any { return a.Release() })
	// reduceMotion(on): the reader's prefers-reduced-motion.
	b.fn("reduceMotion", js.Undefined(), func(args []js.Value) any { a.ReduceMotion(arg(args, 0).Truthy()); return js.Undefined() })
	b.fn("state", "", func([]js.Value) any { return a.State() })
	b.fn("restore", "internal error", func(args []js.Value) any { return result(a.Restore(str(args, 0))) })
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
		return toJS(b.frame)
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
	// The dataset's CSV is made here; the trace's JSON by the export module
	// (RunExporter), which this module's state and CSV rebuild the run in.
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

// RunExporter serves trace exports for the lessons given as the global object
// `uldpExport`: trace(state, csv) rebuilds the view from a lesson module's
// state and dataset CSV and returns {data: JSON} or {error}. The page loads
// this module only when a trace is exported, so lessons carry no JSON.
func RunExporter(scenes ...viz.Scene) {
	app := viz.NewApp(scenes...)
	ServeText("uldpExport", map[string]Text{
		"trace": func(state, csv string) ([]byte, error) { return app.ExportTraceOf(state, []byte(csv)) },
	})
}

// Text is a function of one or two of the page's strings (the second ""
// when the page gives one) answering bytes, a document, or an error.
type Text func(a, b string) ([]byte, error)

// ServeText serves fns to the page as the global object called global, each
// answering {data: string} or {error: message}, until the page is closed;
// it calls the page's globalReady() (uldpExportReady, …) once they are
// there. A panic answers null and leaves its message in global.lastError.
func ServeText(global string, fns map[string]Text) {
	obj := js.Global().Get("Object").New()
	for name, f := range fns {
		guard(obj, name, js.Null(), func(args []js.Value) any {
			return exported(f(str(args, 0), str(args, 1)))
		})
	}
	js.Global().Set(global, obj)
	if ready := js.Global().Get(global + "Ready"); ready.Type() == js.TypeFunction {
		ready.Invoke()
	}
	select {} // serve until the page is closed
}

// exportRemote adds what a lesson whose computation another copy can do
// (viz.Remote) needs: the page asks handOut every frame, holds the
// computation it hands to its compute worker, and adopts the outcomes the
// worker's copy answers with outcome; the worker's copy names its own
// with remoteKey. Only RunRemote's modules link it.
func (b *bridge) exportRemote() {
	b.fn("remoteKey", "", func([]js.Value) any { return b.app.RemoteKey() })
	b.fn("handOut", "", func([]js.Value) any { return b.app.HandOut() })
	b.fn("hold", js.Undefined(), func(args []js.Value) any { b.app.Hold(str(args, 0)); return js.Undefined() })
	b.fn("outcome", js.Null(), func([]js.Value) any {
		data, done := b.app.Outcome()
		if data == nil {
			return js.Null()
		}
		return map[string]any{"data": toJS(data), "done": done}
	})
	b.fn("adopt", "internal error", func(args []js.Value) any {
		v := arg(args, 1)
		if v.Type() != js.TypeObject || !v.InstanceOf(js.Global().Get("Uint8Array")) {
			return "adopt: the outcome must be a Uint8Array"
		}
		data := make([]byte, v.Length())
		js.CopyBytesToGo(data, v)
		return errString(b.app.Adopt(str(args, 0), data, arg(args, 2).Truthy()))
	})
}
