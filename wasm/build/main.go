// Command build compiles the browser's lesson engines: one WebAssembly
// module per lesson of lessons.Lessons, so a page downloads only the lesson
// it shows. Each module's main is generated here (through go build's
// -overlay, so nothing generated lands in the source tree) and calls its
// lesson's constructor alone; the linker then drops every other lesson.
//
//	go run ./wasm/build [-out site/static] [-go go] [-keepnames]
//	go run ./wasm/build -join FILE.wasm
//
// It writes into -out:
//
//	engine/NAME.HASH.wasm     the module, its data segments joined (see
//	                          maxFill) and its function names blanked
//	                          (blankNames; -keepnames keeps them, to read a
//	                          stack the browser prints); HASH is of its
//	                          bytes, so the name
//	                          changes whenever the content does and the
//	                          server can let browsers cache it for good
//	engine/NAME.HASH.wasm.gz  gzip -9 of it, and .br, brotli at quality 11
//	                          (9 for modules loaded on request: see rare),
//	                          made once per content (the server picks one)
//	engine/NAME.export.HASH.wasm
//	                          the lesson's trace export: the lesson with
//	                          JSON, loaded only when a trace is downloaded
//	                          (only lessons with a run to export have one)
//	engine/practice.HASH.wasm the practice grader (wasm/practice): every
//	                          lesson with the classroom's grader, which the
//	                          page loads into a Web Worker only when no
//	                          server grades its exercises
//	lessons.json              the menu: every lesson's name, title, summary,
//	                          module and export module, in lesson order, and
//	                          the practice grader
//	wasm_exec.js              Go's loader for the modules
//
// Modules of earlier builds are removed. A summary of sizes goes to stdout.
// With -join it only joins the data segments of one module built
// elsewhere (the Worker's program), in place, as it does the engines'.
package main

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/andybalholm/brotli"

	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/lessons"
)

func main() {
	out := flag.String("out", "site/static", "the site's directory")
	goCmd := flag.String("go", "go", "the go command")
	joinPath := flag.String("join", "", "only join the data segments of this module, in place (the Worker's program)")
	keepNames := flag.Bool("keepnames", false, "keep the engines' function names, so that a stack the browser prints names each frame")
	flag.Parse()
	var err error
	if *joinPath != "" {
		err = joinFile(*joinPath)
	} else {
		err = build(*goCmd, *out, !*keepNames, os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "build:", err)
		os.Exit(1)
	}
}

// joinFile rewrites the module at path with its data segments joined.
func joinFile(path string) error {
	mod, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	joined, err := fillGaps(mod, maxFill)
	if err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	return os.WriteFile(path, joined, 0o644)
}

// Menu is lessons.json: what the page needs to show the menu and load a
// lesson's module.
type Menu struct {
	Version int     `json:"version"`
	Lessons []Entry `json:"lessons"`
	// Practice is the practice grader's module.
	Practice *Entry `json:"practice"`
}

// Entry is one lesson in the menu.
type Entry struct {
	Name    string `json:"name"`
	Title   string `json:"title"`
	Summary string `json:"summary"`
	// Module is the engine's path relative to the site root.
	Module string `json:"module"`
	// Bytes, Gzip and Brotli are the module's sizes: the page's progress
	// bar reads them, and the size test holds them to their budgets.
	Bytes  int `json:"bytes"`
	Gzip   int `json:"gzip"`
	Brotli int `json:"brotli"`
	// Linked is the module's size as Go's linker wrote it, before the
	// build joined its data segments (fillGaps): the measure of what a
	// lesson's code and data weigh, which the size test holds to the raw
	// budget.
	Linked int `json:"linked"`
	// Export is the lesson's trace export (wasm.RunExporter): a module of
	// its own, so a lesson's engine carries no JSON, and one per lesson, so
	// that no module grows with the number of lessons.
	Export *Entry `json:"export,omitempty"`
	// Parts are a lesson's further modules (lessons.Part): the page loads a
	// part's module when the link's Param has one of its Values.
	Parts  []Entry  `json:"parts,omitempty"`
	Param  string   `json:"param,omitempty"`
	Values []string `json:"values,omitempty"`
}

// engine is one lesson's module being built.
type engine struct {
	Entry
	pkg  string // import path of the generated main
	main string // its source ("" for a main in the source tree)
	part bool   // a part of the lesson before it
	// rare marks a module loaded on request only (a trace export, the
	// practice grader): its brotli form is made at quality 9, which takes
	// a tenth of quality 11's time (1 s against 11 for a 3 MB module, so a
	// fresh build takes a minute less) for 12 % more bytes, paid only by
	// the few who ask for it.
	rare bool
}

// practice is the practice grader's engine, a main of the source tree.
var practice = engine{Entry: Entry{Name: "practice"}, pkg: "./wasm/practice", rare: true}

// build writes the engines into out; blank zeroes their function names
// (blankNames).
func build(goCmd, out string, blank bool, log io.Writer) error {
	root, err := moduleRoot(goCmd)
	if err != nil {
		return err
	}
	engines, err := plan(lessons.Lessons())
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "uldp-engines-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := compile(goCmd, root, tmp, engines); err != nil {
		return err
	}
	dir := filepath.Join(out, "engine")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	// Every module is read and joined before any is compressed, so that an
	// error returns with no compression left running.
	keep := map[string]bool{}
	raws := make([][]byte, len(engines))
	for i := range engines {
		e := &engines[i]
		linked, err := os.ReadFile(filepath.Join(tmp, "bin", e.Name))
		if err != nil {
			return err
		}
		raw, err := fillGaps(linked, maxFill)
		if err == nil && blank {
			raw, _, err = blankNames(raw)
		}
		if err != nil {
			return fmt.Errorf("%s: %v", e.Name, err)
		}
		e.Linked, raws[i] = len(linked), raw
		sum := sha256.Sum256(raw)
		file := e.Name + "." + hex.EncodeToString(sum[:6]) + ".wasm"
		e.Module, e.Bytes = "engine/"+file, len(raw)
		keep[file], keep[file+".gz"], keep[file+".br"] = true, true, true
	}
	errs := make([]error, len(engines))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i := range engines {
		e, raw := &engines[i], raws[i]
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			quality := brotli.BestCompression
			if e.rare {
				quality = 9
			}
			e.Gzip, e.Brotli, errs[i] = store(filepath.Join(out, filepath.FromSlash(e.Module)), raw, quality)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	old, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, f := range old {
		if !keep[f.Name()] {
			if err := os.Remove(filepath.Join(dir, f.Name())); err != nil {
				return err
			}
		}
	}
	menu := Menu{Version: 3}
	fmt.Fprintf(log, "%-22s %10s %10s %10s %10s\n", "engine", "linked", "raw", "gzip", "brotli")
	var last *Entry // the module an export module belongs to
	for _, e := range engines {
		switch {
		case e.Name == practice.Name:
			x := e.Entry
			menu.Practice = &x
		case strings.HasSuffix(e.Name, exportSuffix): // plan puts it right after its module
			x := e.Entry
			last.Export = &x
		case e.part: // after its lesson
			l := &menu.Lessons[len(menu.Lessons)-1]
			l.Parts = append(l.Parts, e.Entry)
			last = &l.Parts[len(l.Parts)-1]
		default:
			menu.Lessons = append(menu.Lessons, e.Entry)
			last = &menu.Lessons[len(menu.Lessons)-1]
		}
		fmt.Fprintf(log, "%-22s %10d %10d %10d %10d\n", e.Name, e.Linked, e.Bytes, e.Gzip, e.Brotli)
	}
	js, err := json.MarshalIndent(menu, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "lessons.json"), append(js, '\n'), 0o644); err != nil {
		return err
	}
	return copyLoader(goCmd, filepath.Join(out, "wasm_exec.js"))
}

// exportSuffix ends the name of a lesson's export module (lesson names
// have no dots, so none can take it).
const exportSuffix = ".export"

// plan names each lesson's module and its export module and writes their
// mains.
func plan(ls []lessons.Lesson) ([]engine, error) {
	var out []engine
	seen := map[string]bool{practice.Name: true}
	for _, l := range ls {
		info := l.New().Info()
		if info.Name == "" || strings.ContainsAny(info.Name, "./\\ ") || seen[info.Name] {
			return nil, fmt.Errorf("lesson %q: a lesson needs a unique name without dots, slashes or spaces", info.Name)
		}
		seen[info.Name] = true
		main, err := mainFor(l.Constructor, info.Title, runner(l.New()))
		if err != nil {
			return nil, fmt.Errorf("lesson %s: %v", info.Name, err)
		}
		out = append(out, engine{
			Entry: Entry{Name: info.Name, Title: info.Title, Summary: info.Summary},
			pkg:   "./wasm/engine/" + info.Name,
			main:  main,
		})
		out = appendExport(out, l, info.Name, info.Title+" (trace export)")
		for _, p := range l.Parts {
			name := info.Name + "-" + p.Name
			if p.Name == "" || strings.ContainsAny(p.Name, "./\\ ") || seen[name] || p.Param == "" || len(p.Values) == 0 {
				return nil, fmt.Errorf("lesson %s: part %q needs a unique name without dots, slashes or spaces, and the setting it shows", info.Name, p.Name)
			}
			seen[name] = true
			main, err := mainFor(p.Constructor, info.Title+" ("+p.Name+")", runner(p.New()))
			if err != nil {
				return nil, fmt.Errorf("lesson %s, part %s: %v", info.Name, p.Name, err)
			}
			out = append(out, engine{
				Entry: Entry{Name: name, Param: p.Param, Values: p.Values},
				pkg:   "./wasm/engine/" + name,
				main:  main,
				part:  true,
			})
			out = appendExport(out, p.Lesson, name, info.Title+" ("+p.Name+", trace export)")
		}
	}
	return append(out, practice), nil
}

// appendExport adds module name's export module, the same constructor run
// by RunExporter, if its scene has a run to export: the page loads one only
// for a trace download, which a scene that is no viz.Exporter never offers,
// and each costs a build as long as its lesson's.
func appendExport(out []engine, l lessons.Lesson, name, title string) []engine {
	if _, ok := l.New().(viz.Exporter); !ok {
		return out
	}
	export, _ := mainFor(l.Constructor, title, "RunExporter") // checked as the lesson's own
	return append(out, engine{
		Entry: Entry{Name: name + exportSuffix},
		pkg:   "./wasm/engine/" + name + exportSuffix,
		main:  export,
		rare:  true,
	})
}

// runner is the bridge's entry for a lesson module: RunRemote for a scene
// whose computation a worker may do (viz.Remote), Run for the rest.
func runner(s viz.Scene) string {
	if _, ok := s.(viz.Remote); ok {
		return "RunRemote"
	}
	return "Run"
}

// mainFor writes the main of a module passing what constructor makes to
// wasm's run function (Run, RunRemote or RunExporter); constructor is a
// function's full Go name ("github.com/uldplab/uldp/viz/lessons/userlevel.New").
func mainFor(constructor, title, run string) (string, error) {
	slash := strings.LastIndex(constructor, "/")
	dot := strings.Index(constructor[slash+1:], ".")
	if dot < 0 {
		return "", fmt.Errorf("constructor %q is not a package function", constructor)
	}
	pkg, fn := constructor[:slash+1+dot], constructor[slash+2+dot:]
	if fn == "" || strings.ContainsAny(fn, ".[]") {
		return "", fmt.Errorf("constructor %q must be a top-level function (not a closure or method)", constructor)
	}
	name := pkg[strings.LastIndex(pkg, "/")+1:]
	return fmt.Sprintf(`//go:build js && wasm

// The browser engine of the lesson %q, generated by wasm/build.
package main

import (
	%q

	"github.com/uldplab/uldp/wasm"
)

func main() { wasm.%s(%s.%s()) }
`, title, pkg, run, name, fn), nil
}

// compile builds every engine in one go build (it links them in parallel),
// each main supplied through an overlay.
func compile(goCmd, root, tmp string, engines []engine) error {
	overlay := map[string]map[string]string{"Replace": {}}
	args := []string{"build", "-ldflags=-s -w", "-trimpath", "-o", filepath.Join(tmp, "bin") + string(filepath.Separator)}
	for _, e := range engines {
		args = append(args, e.pkg)
		if e.main == "" {
			continue
		}
		src := filepath.Join(tmp, "src", e.Name+".go")
		if err := os.MkdirAll(filepath.Dir(src), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(src, []byte(e.main), 0o644); err != nil {
			return err
		}
		overlay["Replace"][filepath.Join(root, e.pkg, "main.go")] = src
	}
	ov, err := json.Marshal(overlay)
	if err != nil {
		return err
	}
	ovPath := filepath.Join(tmp, "overlay.json")
	if err := os.WriteFile(ovPath, ov, 0o644); err != nil {
		return err
	}
	args = append(args[:1], append([]string{"-overlay", ovPath}, args[1:]...)...)
	cmd := exec.Command(goCmd, args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build of the lesson engines: %v", err)
	}
	return nil
}

// store writes the module and its gzip and brotli forms (brotli at quality,
// with a 16 MiB window), unless a build of the same content already did
// (the name holds the content's hash), and returns the compressed sizes.
func store(path string, raw []byte, quality int) (gz, br int, err error) {
	if a, b, ok := stored(path, len(raw)); ok {
		return a, b, nil
	}
	var g bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&g, gzip.BestCompression)
	zw.Write(raw)
	if err := zw.Close(); err != nil {
		return 0, 0, err
	}
	var b bytes.Buffer
	bw := brotli.NewWriterOptions(&b, brotli.WriterOptions{Quality: quality, LGWin: 24})
	bw.Write(raw)
	if err := bw.Close(); err != nil {
		return 0, 0, err
	}
	// The raw module goes last: its presence marks a complete set.
	for _, f := range []struct {
		name string
		data []byte
	}{{path + ".gz", g.Bytes()}, {path + ".br", b.Bytes()}, {path, raw}} {
		if err := os.WriteFile(f.name, f.data, 0o644); err != nil {
			return 0, 0, err
		}
	}
	return g.Len(), b.Len(), nil
}

// stored reports the compressed sizes of an earlier build of the same module.
func stored(path string, size int) (gz, br int, ok bool) {
	st, err := os.Stat(path)
	if err != nil || st.Size() != int64(size) {
		return 0, 0, false
	}
	g, err1 := os.Stat(path + ".gz")
	b, err2 := os.Stat(path + ".br")
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	return int(g.Size()), int(b.Size()), true
}

func moduleRoot(goCmd string) (string, error) {
	out, err := exec.Command(goCmd, "env", "GOMOD").Output()
	mod := strings.TrimSpace(string(out))
	if err != nil || mod == "" || mod == os.DevNull {
		return "", fmt.Errorf("run this inside the uldp module (go env GOMOD found none)")
	}
	return filepath.Dir(mod), nil
}

// copyLoader copies Go's wasm_exec.js, which must match the compiler.
func copyLoader(goCmd, dst string) error {
	out, err := exec.Command(goCmd, "env", "GOROOT").Output()
	if err != nil {
		return fmt.Errorf("go env GOROOT: %v", err)
	}
	root := strings.TrimSpace(string(out))
	for _, p := range []string{"lib/wasm/wasm_exec.js", "misc/wasm/wasm_exec.js"} {
		if b, err := os.ReadFile(filepath.Join(root, p)); err == nil {
			return os.WriteFile(dst, b, 0o644)
		}
	}
	return fmt.Errorf("wasm_exec.js not found under %s", root)
}
