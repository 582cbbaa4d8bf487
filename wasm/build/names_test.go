package main

import (
	"bytes"
	"encoding/binary"
	"os"
	"strings"
	"testing"
)

// A Go program with its names blanked runs under Node as before: a value
// method reached through a nil pointer is still a panic it recovers, with
// the runtime's message and, printed as the bridge prints one, a stack that
// reaches the line of the call; a function made by reflect survives a
// collection while it runs; and the names are gone.
func TestBlankNamesOnAGoProgram(t *testing.T) {
	run := nodeRunner(t)
	linked := goProgram(t, `package main

import (
	"fmt"
	"reflect"
	"runtime"
	"runtime/debug"
	"strings"
)

type T struct{ n int }

func (t T) Value() int { return t.n }

type valuer interface{ Value() int }

// opaque keeps the compiler from calling T.Value directly: the call must
// go through the wrapper (*T).Value, which calls runtime.panicwrap.
//
//go:noinline
func opaque() valuer { return (*T)(nil) }

// stack is the stack as the engines' bridge prints one (package wasm):
// function, file and line of each frame.
func stack() string {
	pcs := make([]uintptr, 64)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
	var b strings.Builder
	for {
		f, more := frames.Next()
		fmt.Fprintf(&b, "%s\n\t%s:%d\n", f.Function, f.File, f.Line)
		if !more {
			return b.String()
		}
	}
}

func main() {
	v := opaque()
	func() {
		defer func() {
			r := recover()
			fmt.Println("recovered:", r)
			fmt.Println("the stack reaches the call:", strings.Contains(stack(), "main.go:49"))
			// debug.Stack hides frames without a name: with the names
			// blanked, it loses the line of the call.
			fmt.Println("debug.Stack reaches it:", strings.Contains(string(debug.Stack()), "main.go:49"))
		}()
		v.Value()
	}()
	// The collector scans makeFuncStub's frame by its name.
	var swap func(int, int) (int, int)
	reflect.ValueOf(&swap).Elem().Set(reflect.MakeFunc(reflect.TypeOf(swap), func(in []reflect.Value) []reflect.Value {
		runtime.GC()
		return []reflect.Value{in[1], in[0]}
	}))
	x, y := swap(1, 2)
	fmt.Println("swapped:", x, y)
	pc, _, _, _ := runtime.Caller(0)
	fmt.Printf("this function: %q\n", runtime.FuncForPC(pc).Name())
}
`)
	mod, err := os.ReadFile(linked)
	if err != nil {
		t.Fatal(err)
	}
	joined, err := fillGaps(mod, maxFill)
	if err != nil {
		t.Fatal(err)
	}
	blanked, n, err := blankNames(joined)
	if err != nil {
		t.Fatal(err)
	}
	if len(blanked) != len(joined) {
		t.Fatalf("the module went from %d to %d bytes: blanking must keep its layout", len(joined), len(blanked))
	}
	const panicked = "recovered: value method main.T.Value called using nil *T pointer\nthe stack reaches the call: true\n"
	const ran = "swapped: 2 1\n"
	if got, want := run(writeModule(t, joined)), panicked+"debug.Stack reaches it: true\n"+ran+"this function: \"main.main\"\n"; got != want {
		t.Fatalf("the joined program printed %q, want %q", got, want)
	}
	if got, want := run(writeModule(t, blanked)), panicked+"debug.Stack reaches it: false\n"+ran+"this function: \"\"\n"; got != want {
		t.Errorf("the blanked program printed %q, want %q", got, want)
	}
	if n < 20_000 {
		t.Errorf("%d bytes of names blanked; a Go program has more than 20,000", n)
	}
	if _, _, err := blankNames(blanked); err == nil || !strings.Contains(err.Error(), "blanked already") {
		t.Errorf("blanking again: %v; want a refusal", err)
	}
	t.Logf("%d bytes of names blanked", n)
}

// fakeTable is a PC-line table laid out as Go's linker writes it.
type fakeTable struct {
	nfunc    uint64   // what the header says
	names    []string // one per function
	entries  []uint32 // each function's entry
	ids      []byte   // each function's ID
	args     []uint32 // each function's argument size
	nameOffs []int32  // each function's name offset (nil: where its name is)
}

// module builds the table into a module defining funcs functions, its
// header at address base, with the further data segments extra.
func (f fakeTable) module(funcs int, base uint32, extra ...segment) []byte {
	var names []byte
	offs := f.nameOffs
	for _, n := range f.names {
		if f.nameOffs == nil {
			offs = append(offs, int32(len(names)))
		}
		names = append(append(names, n...), 0)
	}
	hdr := make([]byte, pcHeaderSize)
	copy(hdr, pcHeaderStart)
	nameOff := uint64(pcHeaderSize)
	cuOff := nameOff + uint64(len(names))
	pclnOff := cuOff + 8 // a cutab of two uint32s
	for i, w := range []uint64{f.nfunc, 1, 0, nameOff, cuOff, cuOff + 4, cuOff + 4, pclnOff} {
		binary.LittleEndian.PutUint64(hdr[8+8*i:], w)
	}
	pcln := make([]byte, (len(f.entries)+1)*funcEntrySize)
	for i, e := range f.entries {
		info := make([]byte, funcInfoSize)
		binary.LittleEndian.PutUint32(info, e)
		binary.LittleEndian.PutUint32(info[funcNameAt:], uint32(offs[i]))
		binary.LittleEndian.PutUint32(info[funcArgsAt:], f.args[i])
		info[funcIDAt] = f.ids[i]
		binary.LittleEndian.PutUint32(pcln[i*funcEntrySize:], e)
		binary.LittleEndian.PutUint32(pcln[i*funcEntrySize+4:], uint32(len(pcln)))
		pcln = append(pcln, info...)
	}
	data := append(append(append(hdr, names...), make([]byte, 8)...), pcln...)
	funcSection := section(sectionFunc, append(appendULEB(nil, uint64(funcs)), make([]byte, funcs)...))
	return module(funcSection, dataSection(append([]segment{{base, data}}, extra...)...))
}

// goodTable has a function of each kind: one whose name goes, the
// layout's reference, a wrapper, and one whose argument size is unknown.
func goodTable() fakeTable {
	return fakeTable{nfunc: 4, names: []string{"main.main", "runtime.gopanic", "main.(*T).Value", "reflect.makeFuncStub"},
		entries: []uint32{0x10000, 0x20000, 0x30000, 0x40000}, ids: []byte{0, funcIDGopanic, funcIDWrapper, 0}, args: []uint32{8, 16, 8, argsUnknown}}
}

func TestBlankNamesKeepsWhatTheRuntimeReads(t *testing.T) {
	mod := goodTable().module(4, 4096)
	out, n, err := blankNames(mod)
	if err != nil {
		t.Fatal(err)
	}
	if want := len("main.main") + len("runtime.gopanic"); n != want {
		t.Errorf("%d bytes blanked, want %d", n, want)
	}
	for _, gone := range []string{"main.main", "runtime.gopanic"} {
		if bytes.Contains(out, []byte(gone)) {
			t.Errorf("%s is still there", gone)
		}
	}
	for _, kept := range []string{"\x00main.(*T).Value\x00", "\x00reflect.makeFuncStub\x00"} {
		if !bytes.Contains(out, []byte(kept)) {
			t.Errorf("%q was blanked", kept)
		}
	}
	if !bytes.Contains(mod, []byte("main.main")) {
		t.Error("blankNames changed its argument")
	}
}

func TestBlankNamesRefusesWhatItCannotRead(t *testing.T) {
	for _, c := range []struct {
		name string
		mod  []byte
		want string
	}{
		{"not wasm", []byte("\x7fELF...."), "not a WebAssembly module"},
		{"no data", module(section(sectionFunc, []byte{0})), "not a Go program"},
		{"another layout", bytes.Replace(goodTable().module(4, 4096), pcHeaderStart, []byte{0xf0, 0xff, 0xff, 0xff, 0, 0, 1, 8}, 1),
			"0 places start like its header, want 1"},
		{"a function more", goodTable().module(5, 4096), "it lists 4 functions, the module defines 5"},
		{"out of order", func() []byte {
			f := goodTable()
			f.entries = []uint32{0x10000, 0x30000, 0x20000, 0x40000}
			return f.module(4, 4096)
		}(), "function 2's entry 0x20000 is not after the last one's (0x30000)"},
		{"a name mid-name", func() []byte {
			f := goodTable()
			f.nameOffs = []int32{0, 3, 26, 42}
			return f.module(4, 4096)
		}(), "function 1's name is at 3, not at the start of a name"},
		{"a name past the table", func() []byte {
			f := goodTable()
			f.nameOffs = []int32{0, 10, 400, 42}
			return f.module(4, 4096)
		}(), "function 2's name is at 400"},
		{"another function ID", func() []byte {
			f := goodTable()
			f.ids[1] = 11
			return f.module(4, 4096)
		}(), "runtime.gopanic's function ID is 11, not 10"},
		{"no gopanic", func() []byte {
			f := goodTable()
			f.names[1] = "runtime.gopanics"
			return f.module(4, 4096)
		}(), "no function is named runtime.gopanic"},
		{"two headers", goodTable().module(4, 4096, segment{1 << 20, pcHeaderStart}), "2 places start like its header, want 1"},
	} {
		out, _, err := blankNames(c.mod)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %d bytes, error %v; want an error saying %q", c.name, len(out), err, c.want)
		}
	}
}
