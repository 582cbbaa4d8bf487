package format

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestCallersPassSupportedOperands type-checks every package of the module
// that formats through this package and looks at each call of a printf-like
// function (a string, then ...any): every operand must be of a type the
// package formats as fmt would, so that no message a student reads turns
// into %!v(unsupported …). go vet's printf check cannot say this: for fmt,
// every type is printable.
func TestCallersPassSupportedOperands(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks the module from source")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dirs := map[string][]string{}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || d.Name() == "testdata") && path != root {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if strings.Contains(string(src), `"github.com/uldplab/uldp/core/format"`) {
				dirs[filepath.Dir(path)] = append(dirs[filepath.Dir(path)], path)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) < 10 {
		t.Fatalf("found %d packages formatting through this one; the walk is broken", len(dirs))
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", exports(t, slices.Collect(maps.Keys(dirs))))
	calls := 0
	for dir := range dirs {
		// The whole package, so that every name resolves.
		matches, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		var files []*ast.File
		for _, m := range matches {
			if strings.HasSuffix(m, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, m, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
		info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}}
		conf := types.Config{Importer: imp, GoVersion: "go1.26"}
		if _, err := conf.Check(dir, fset, files, info); err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		for _, f := range files {
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok || call.Ellipsis.IsValid() {
					return true
				}
				first := printfLike(info.TypeOf(call.Fun))
				if first < 0 {
					return true
				}
				calls++
				operands := call.Args[min(first, len(call.Args)):]
				for _, a := range operands {
					if typ := info.TypeOf(a); !supported(typ) {
						t.Errorf("%s: %s formats a %s, which this package does not", fset.Position(a.Pos()), types.ExprString(call.Fun), typ)
					}
				}
				// go vet checks verbs against operands for fmt only (told
				// about this package, it refuses %w), so this test does.
				if first == 0 || first > len(call.Args) {
					return true
				}
				layout := info.Types[call.Args[first-1]].Value
				if layout == nil || layout.Kind() != constant.String {
					return true
				}
				verbs := verbsOf(constant.StringVal(layout))
				if len(verbs) != len(operands) {
					t.Errorf("%s: %d verbs for %d operands", fset.Position(call.Pos()), len(verbs), len(operands))
					return true
				}
				for i, a := range operands {
					if typ := info.TypeOf(a); !verbSuits(verbs[i], typ) {
						t.Errorf("%s: %%%c formats a %s", fset.Position(a.Pos()), verbs[i], typ)
					}
				}
				return true
			})
		}
	}
	if calls < 300 {
		t.Errorf("checked %d calls; the project has hundreds, so the search is broken", calls)
	}
}

// printfLike returns the index of the first operand of a function taking
// (…, string, ...any) or (...any), or -1 for any other function.
func printfLike(t types.Type) int {
	sig, ok := t.(*types.Signature)
	if !ok || !sig.Variadic() {
		return -1
	}
	ps := sig.Params()
	last := ps.At(ps.Len() - 1).Type().(*types.Slice).Elem()
	if iface, ok := last.Underlying().(*types.Interface); !ok || !iface.Empty() {
		return -1
	}
	return ps.Len() - 1
}

var (
	errorType    = types.Universe.Lookup("error").Type().Underlying().(*types.Interface)
	stringerType = types.NewInterfaceType([]*types.Func{
		types.NewFunc(token.NoPos, nil, "String", types.NewSignatureType(nil, nil, nil, nil,
			types.NewTuple(types.NewVar(token.NoPos, nil, "", types.Typ[types.String])), false)),
	}, nil).Complete()
)

// supported mirrors the package's doc comment: errors and Stringers, nil,
// and what basicElem allows.
func supported(t types.Type) bool {
	if t == nil {
		return false
	}
	if b, ok := t.Underlying().(*types.Basic); ok && b.Kind() == types.UntypedNil {
		return true
	}
	return types.Implements(t, errorType) || types.Implements(t, stringerType) || basicElem(t)
}

// verbsOf lists the verbs of a format that take an operand.
func verbsOf(layout string) []rune {
	var verbs []rune
	for i := 0; i < len(layout); i++ {
		if layout[i] != '%' {
			continue
		}
		i++
		for i < len(layout) && strings.IndexByte("-+ 0#.0123456789", layout[i]) >= 0 {
			i++
		}
		if i < len(layout) && layout[i] != '%' {
			r, size := utf8.DecodeRuneInString(layout[i:])
			verbs = append(verbs, r)
			i += size - 1
		}
	}
	return verbs
}

// verbSuits reports whether verb suits an operand of type t, as go vet's
// printf check would for fmt.
func verbSuits(verb rune, t types.Type) bool {
	switch verb {
	case 'v':
		return true
	case 'w':
		return types.Implements(t, errorType)
	}
	if (verb == 's' || verb == 'q') && (types.Implements(t, errorType) || types.Implements(t, stringerType)) {
		return true
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		switch verb {
		case 'd':
			return u.Info()&types.IsInteger != 0
		case 'g', 'e', 'f':
			return u.Info()&types.IsFloat != 0
		case 's', 'q':
			return u.Info()&types.IsString != 0
		case 't':
			return u.Info()&types.IsBoolean != 0
		}
	case *types.Slice:
		return verbSuits(verb, u.Elem())
	case *types.Array:
		return verbSuits(verb, u.Elem())
	}
	return false
}

// basicElem reports whether a slice of t is supported: t is boolean,
// integer, float or string underneath (or a slice of such), and neither an
// error nor a Stringer, whose methods the package does not call inside a
// slice.
func basicElem(t types.Type) bool {
	if types.Implements(t, errorType) || types.Implements(t, stringerType) {
		return false
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		return u.Info()&(types.IsBoolean|types.IsInteger|types.IsFloat|types.IsString) != 0
	case *types.Slice:
		return basicElem(u.Elem())
	case *types.Array:
		return basicElem(u.Elem())
	}
	return false
}

// exports is a lookup of the compiled export data of the packages in dirs
// and all they import, from go list (the build cache's, mostly): the
// type-checker reads the imports' types from it, where importing them from
// source took 30 s of a loaded machine for the standard library alone.
func exports(t *testing.T, dirs []string) func(path string) (io.ReadCloser, error) {
	if runtime.GOOS == "js" {
		t.Skip("starts go list: run natively")
	}
	cmd := exec.Command("go", append([]string{"list", "-export", "-deps", "-f", "{{.ImportPath}}\t{{.Export}}"}, dirs...)...)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -export: %v", err)
	}
	files := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if path, file, ok := strings.Cut(l, "\t"); ok && file != "" {
			files[path] = file
		}
	}
	return func(path string) (io.ReadCloser, error) {
		file, ok := files[path]
		if !ok {
			return nil, fmt.Errorf("go list has no export data for %s", path)
		}
		return os.Open(file)
	}
}

// TestEnginesLinkNoFmt keeps fmt out of every package a browser engine
// links: the core, the scenes, the viz runtime and the bridge. The desktop
// app (viz/ebitenview) and the build tool are native and may use it.
func TestEnginesLinkNoFmt(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, top := range []string{"core", "viz", "wasm"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			if d.IsDir() && (rel == filepath.Join("viz", "ebitenview") || rel == filepath.Join("wasm", "build") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
			if err != nil {
				return err
			}
			checked++
			for _, imp := range f.Imports {
				if imp.Path.Value == `"fmt"` {
					t.Errorf("%s imports fmt; format through github.com/uldplab/uldp/core/format", rel)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if checked < 80 {
		t.Errorf("checked %d files; the walk is broken", checked)
	}
}
