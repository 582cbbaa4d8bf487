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
// the runtime's message; a stack still gives file and line; and the names
// are gone.
func TestBlankNamesOnAGoProgram(t *testing.T) {
	run := nodeRunner(t)
	linked := goProgram(t, `package main

import (
	"fmt"
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

func main() {
	v := opaque()
	func() {
		defer func() { fmt.Println("recovered:", recover()) }()
		v.Value()
	}()
	pc, _, _, _ := runtime.Caller(0)
	fmt.Printf("this function: %q\n", runtime.FuncForPC(pc).Name())
	fmt.Println("a stack gives the line:", strings.Contains(string(debug.Stack()), "main.go:30"))
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
	const recovered = "recovered: value method main.T.Value called using nil *T pointer\n"
	want := recovered + "this function: \"main.main\"\na stack gives the line: true\n"
	if got := run(writeModule(t, joined)); got != want {
		t.Fatalf("the joined program printed %q, want %q", got, want)
	}
	want = recovered + "this function: \"\"\na stack gives the line: true\n"
	if got := run(writeModule(t, blanked)); got != want {
		t.Errorf("the blanked program printed %q, want %q", got, want)
	}
	if n < 20_000 {
		t.Errorf("%d bytes of names blanked; a Go program has more than 20,000", n)
	}
	// Blanking twice finds nothing more: only wrappers' names are left.
	if again, m, err := blankNames(blanked); err != nil || m != 0 || !bytes.Equal(again, blanked) {
		t.Errorf("blanking again: %d bytes blanked, error %v; want none", m, err)
	}
	t.Logf("%d bytes of names blanked", n)
}

// fakeTable is a PC-line table laid out as Go's linker writes it, with
// names for the functions, the last a wrapper.
type fakeTable struct {
	nfunc    uint64   // what the header says
	names    []string // one per function
	entries  []uint32 // each function's entry
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
		if i == len(f.entries)-1 {
			info[funcIDAt] = funcIDWrapper
		}
		binary.LittleEndian.PutUint32(pcln[i*funcEntrySize:], e)
		binary.LittleEndian.PutUint32(pcln[i*funcEntrySize+4:], uint32(len(pcln)))
		pcln = append(pcln, info...)
	}
	data := append(append(append(hdr, names...), make([]byte, 8)...), pcln...)
	funcSection := section(sectionFunc, append(appendULEB(nil, uint64(funcs)), make([]byte, funcs)...))
	return module(funcSection, dataSection(append([]segment{{base, data}}, extra...)...))
}

func goodTable() fakeTable {
	return fakeTable{nfunc: 3, names: []string{"main.main", "main.helper", "main.(*T).Value"}, entries: []uint32{0x10000, 0x20000, 0x30000}}
}

func TestBlankNamesKeepsWrappersOnly(t *testing.T) {
	mod := goodTable().module(3, 4096)
	out, n, err := blankNames(mod)
	if err != nil {
		t.Fatal(err)
	}
	if n != len("main.main")+len("main.helper") {
		t.Errorf("%d bytes blanked, want %d", n, len("main.main")+len("main.helper"))
	}
	if bytes.Contains(out, []byte("main.main")) || bytes.Contains(out, []byte("main.helper")) || !bytes.Contains(out, []byte("\x00main.(*T).Value\x00")) {
		t.Errorf("the names left: %q", out)
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
		{"another layout", bytes.Replace(goodTable().module(3, 4096), pcHeaderStart, []byte{0xf0, 0xff, 0xff, 0xff, 0, 0, 1, 8}, 1),
			"0 places start like its header, want 1"},
		{"a function more", goodTable().module(4, 4096), "it lists 3 functions, the module defines 4"},
		{"out of order", func() []byte {
			f := goodTable()
			f.entries = []uint32{0x10000, 0x30000, 0x20000}
			return f.module(3, 4096)
		}(), "function 2's entry 0x20000 is not after the last one's (0x30000)"},
		{"a name mid-name", func() []byte {
			f := goodTable()
			f.nameOffs = []int32{0, 3, 22}
			return f.module(3, 4096)
		}(), "function 1's name is at 3, not at the start of a name"},
		{"a name past the table", func() []byte {
			f := goodTable()
			f.nameOffs = []int32{0, 10, 400}
			return f.module(3, 4096)
		}(), "function 2's name is at 400"},
		{"two headers", goodTable().module(3, 4096, segment{1 << 20, pcHeaderStart}), "2 places start like its header, want 1"},
	} {
		out, _, err := blankNames(c.mod)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %d bytes, error %v; want an error saying %q", c.name, len(out), err, c.want)
		}
	}
}
