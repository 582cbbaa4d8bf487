package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// module is a WebAssembly module of the given sections, in order.
func module(sections ...[]byte) []byte {
	out := []byte("\x00asm\x01\x00\x00\x00")
	for _, s := range sections {
		out = append(out, s...)
	}
	return out
}

func section(id byte, body []byte) []byte { return appendSection(nil, id, body) }

// dataSection holds active segments of memory 0, as Go's linker writes them.
func dataSection(segs ...segment) []byte { return section(sectionData, dataBody(segs)) }

// memoryImage is the memory a module's data segments write, applied in
// order, and the number of segments.
func memoryImage(t *testing.T, mod []byte) ([]byte, int) {
	t.Helper()
	var mem []byte
	n := 0
	for r := (reader{b: mod, i: 8}); r.i < len(mod); {
		id := r.byte()
		body := r.bytes(r.uleb())
		if r.err != nil {
			t.Fatalf("malformed module: %v", r.err)
		}
		if id != sectionData {
			continue
		}
		segs, err := readSegments(body)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range segs {
			if end := int(s.off) + len(s.data); end > len(mem) {
				mem = append(mem, make([]byte, end-len(mem))...)
			}
			copy(mem[s.off:], s.data)
		}
		n += len(segs)
	}
	return mem, n
}

func TestFillGapsKeepsTheMemory(t *testing.T) {
	types := section(1, []byte{1, 0x60, 0, 0}) // one type, () → ()
	code := section(10, []byte{0})             // no bodies, but a section after data's place
	far := 70000                               // a three-byte offset, past maxFill from the rest
	mod := module(types, code, dataSection(
		segment{200, []byte("cd")},                             // out of order: sorted by offset
		segment{100, []byte("ab")},                             // 98 zeros before "cd"
		segment{202, []byte("e")},                              // adjacent: no zeros
		segment{uint32(far), []byte("far")},                    // too far: a segment of its own
		segment{uint32(far + 1027), []byte{9}},                 // exactly maxFill zeros after "far"
		segment{uint32(far + 1028 + maxFill + 1), []byte("z")}, // one zero too many: apart
	), section(0, []byte("\x04nameXYZ")))
	got, err := fillGaps(mod, maxFill)
	if err != nil {
		t.Fatal(err)
	}
	before, n := memoryImage(t, mod)
	after, m := memoryImage(t, got)
	if !bytes.Equal(before, after) {
		t.Errorf("the memory changed:\nbefore %q\nafter  %q", before, after)
	}
	if n != 6 || m != 3 {
		t.Errorf("%d segments became %d, want 6 → 3", n, m)
	}
	// Every other section is carried over byte for byte, in place.
	if !bytes.HasPrefix(got, module(types, code)) || !bytes.HasSuffix(got, section(0, []byte("\x04nameXYZ"))) {
		t.Errorf("sections other than data changed: %x", got)
	}
	// Offsets are i32 constants that memory reads as unsigned: 2³¹ is
	// written as a negative number, and comes back as the same offset.
	high := module(dataSection(segment{1 << 31, []byte("hi")}, segment{1<<32 - 4, []byte("top")}))
	if !bytes.Contains(high, []byte{opI32Const, 0x80, 0x80, 0x80, 0x80, 0x78, opEnd}) {
		t.Fatalf("offset 2³¹ not written as the i32 −2³¹: %x", high)
	}
	joinedHigh, err := fillGaps(high, maxFill)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(joinedHigh, high) {
		t.Errorf("segments at 2³¹ and 2³²−4: %x became %x", high, joinedHigh)
	}
	// A module with nothing to join comes back as it was.
	single := module(types, dataSection(segment{8, []byte("x")}))
	if again, err := fillGaps(single, maxFill); err != nil || !bytes.Equal(again, single) {
		t.Errorf("a module with one segment became %x, %v", again, err)
	}
}

func TestFillGapsRefusesWhatItCannotKeep(t *testing.T) {
	passive := section(sectionData, []byte{1, 1, 2, 'h', 'i'})
	global := section(sectionData, []byte{1, 0, 0x23, 0, opEnd, 1, 'x'}) // offset from global.get 0
	for _, c := range []struct {
		name, want string
		mod        []byte
	}{
		{"not wasm", "not a WebAssembly module", []byte("\x7fELF\x02\x01\x01\x00")},
		{"passive segment", "not an active segment", module(passive)},
		{"offset from a global", "not a constant", module(global)},
		{"overlap", "overlap at offset 101", module(dataSection(segment{100, []byte("ab")}, segment{101, []byte("c")}))},
		{"data count", "data count section", module(section(sectionDataCount, []byte{1}), dataSection(segment{0, []byte("a")}))},
		{"truncated section", "ends early", module(dataSection(segment{0, []byte("abc")}))[:14]},
		{"truncated segment", "ends early", module(section(sectionData, []byte{1, 0, opI32Const, 0, opEnd, 5, 'a'}))},
		{"trailing bytes", "after the last segment", module(section(sectionData, []byte{0, 7}))},
		{"oversized number", "over 32 bits", module(section(sectionData, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0x01}))},
		{"33-bit count", "over 32 bits", module(section(sectionData, []byte{0x80, 0x80, 0x80, 0x80, 0x10}))},
		{"33-bit offset", "over 32 bits", module(section(sectionData, []byte{1, 0, opI32Const, 0x80, 0x80, 0x80, 0x80, 0x08, opEnd, 0}))},
	} {
		got, err := fillGaps(c.mod, maxFill)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %x, error %v; want an error saying %q", c.name, got, err, c.want)
		}
	}
}

// A real Go program, its data joined, runs under Node and prints what it
// printed before: what the build does to every engine, checked end to end
// on a module small enough to build in a second.
func TestFillGapsOnAGoProgram(t *testing.T) {
	run := nodeRunner(t)
	linked := goProgram(t, `package main

import "fmt"

// sparse is data with zero gaps of every size the linker splits at.
var sparse = func() (a [4096]int32) {
	for i := 0; i < len(a); i += 1 + i%37 {
		a[i] = int32(i*i + 1)
	}
	return a
}()

var table = [...]string{"alpha", "", "", "", "beta", "", "", "", "", "gamma"}

func main() {
	s := 0
	for i, v := range sparse {
		s += i * int(v%1000)
	}
	fmt.Println(s, table, len(table))
}
`)
	mod, err := os.ReadFile(linked)
	if err != nil {
		t.Fatal(err)
	}
	filled, err := fillGaps(mod, maxFill)
	if err != nil {
		t.Fatal(err)
	}
	before, n := memoryImage(t, mod)
	after, m := memoryImage(t, filled)
	if !bytes.Equal(before, after) {
		t.Fatal("the memory the module starts with changed")
	}
	if m*10 > n {
		t.Errorf("%d segments became %d: expected at least tenfold fewer", n, m)
	}
	want, got := run(linked), run(writeModule(t, filled))
	if got != want || !strings.Contains(want, "[alpha    beta     gamma] 10") {
		t.Errorf("the joined module printed %q, the linked one %q", got, want)
	}
	t.Logf("%d segments → %d; %d → %d bytes", n, m, len(mod), len(filled))
}

// nodeRunner returns a function that runs a js/wasm module under Node and
// returns what it printed, failing the test if it fails; without Node the
// test is skipped (outside CI).
func nodeRunner(t *testing.T) func(path string) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("node is missing: make test installs it")
		}
		t.Skip("node not installed")
	}
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	execJS := filepath.Join(strings.TrimSpace(string(goroot)), "lib", "wasm", "wasm_exec_node.js")
	return func(path string) string {
		out, err := exec.Command(node, execJS, path).CombinedOutput()
		if err != nil {
			t.Fatalf("node %s: %v\n%s", filepath.Base(path), err, out)
		}
		return string(out)
	}
}

// goProgram builds the main package src for js/wasm as the engines are
// built, and returns the module's path.
func goProgram(t *testing.T, src string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module program\n\ngo 1.22\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	linked := filepath.Join(dir, "linked.wasm")
	build := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", linked, ".")
	build.Dir = dir
	build.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm", "GOFLAGS=", "GOWORK=off")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return linked
}

// writeModule writes mod to a file of its own and returns its path.
func writeModule(t *testing.T, mod []byte) string {
	t.Helper()
	f, err := os.CreateTemp(t.TempDir(), "*.wasm")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(mod); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return f.Name()
}
