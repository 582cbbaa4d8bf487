package lessons

import (
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// module is the module's path, and root its directory from this package's.
const (
	module = "github.com/uldplab/uldp"
	root   = "../.."
	// list is this package, the lesson list.
	list = module + "/viz/lessons"
)

// imports maps every package directory of the module (relative to root,
// "viz/lessons/dpsgd") to what its files import, tests included.
func imports(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		dir, _ := filepath.Rel(root, filepath.Dir(p))
		dir = filepath.ToSlash(dir)
		for _, imp := range f.Imports {
			q, _ := strconv.Unquote(imp.Path.Value)
			out[dir] = append(out[dir], q)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// lessonOf is the lesson folder a package of the module belongs to
// ("viz/lessons/auditlab" for viz/lessons/auditlab/internal/lab), or ""
// for a package that is no lesson's (the list itself included).
func lessonOf(pkg string) string {
	rest, ok := strings.CutPrefix(pkg, "viz/lessons/")
	if !ok {
		return ""
	}
	first, _, _ := strings.Cut(rest, "/")
	return "viz/lessons/" + first
}

// A lesson imports the kit, viz and core, never another lesson nor the
// list; nothing but the list and the front ends (cmd, wasm, site) imports
// a lesson.
func TestLessonsImportNoLesson(t *testing.T) {
	pkgs := imports(t)
	if len(pkgs) < 30 {
		t.Fatalf("found %d packages under %s: the walk is broken", len(pkgs), root)
	}
	for dir, imps := range pkgs {
		own := lessonOf(dir)
		for _, imp := range imps {
			rel, ok := strings.CutPrefix(imp, module+"/")
			if !ok {
				continue
			}
			other := lessonOf(rel)
			switch {
			case own != "" && imp == list:
				t.Errorf("%s imports the lesson list", dir)
			case own != "" && other != "" && other != own:
				t.Errorf("lesson %s imports lesson %s (in %s): shared pieces belong in the kit (viz/figure), viz or core", own, other, dir)
			case own == "" && other != "" && dir != "viz/lessons" &&
				!strings.HasPrefix(dir, "cmd/") && !strings.HasPrefix(dir, "wasm") && !strings.HasPrefix(dir, "site"):
				t.Errorf("%s imports the lesson %s: only the list (viz/lessons) and the front ends may", dir, rel)
			}
		}
	}
}

// The list names every lesson folder, and each lesson is laid out as
// README's "Adding a lesson" says: its constructor New in scene.go, its
// prose in lesson.html embedded by text.go, its tests beside them.
func TestEveryLessonFolderIsListed(t *testing.T) {
	listed := map[string]bool{}
	for _, l := range Lessons() {
		pkg, fn := splitConstructor(l.Constructor)
		dir := strings.TrimPrefix(pkg, module+"/")
		listed[dir] = true
		if fn != "New" {
			t.Errorf("%s: the constructor is %s, want New", dir, fn)
		}
		if l.Text == nil {
			t.Errorf("%s: no Text", dir)
		} else if got := runtime.FuncForPC(reflect.ValueOf(l.Text).Pointer()).Name(); got != pkg+".Text" {
			t.Errorf("%s: its text is %s, want its own Text", dir, got)
		}
		for _, f := range []string{"scene.go", "scene_test.go", "text.go", "lesson.html"} {
			if _, err := os.Stat(filepath.Join(root, dir, f)); err != nil {
				t.Errorf("%s: %v", dir, err)
			}
		}
		if html, err := os.ReadFile(filepath.Join(root, dir, "lesson.html")); err == nil && l.Text != nil && l.Text() != string(html) {
			t.Errorf("%s: Text is not its lesson.html", dir)
		}
		for _, p := range l.Parts {
			ppkg, _ := splitConstructor(p.Constructor)
			if lessonOf(strings.TrimPrefix(ppkg, module+"/")) != dir {
				t.Errorf("%s: part %s lives in %s, outside the lesson's folder", dir, p.Name, ppkg)
			}
		}
	}
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() && !listed[path.Join("viz/lessons", e.Name())] {
			t.Errorf("viz/lessons/%s is not in the lesson list (Lessons)", e.Name())
		}
	}
}

// splitConstructor splits a function's full name into its package's path
// and its name.
func splitConstructor(name string) (pkg, fn string) {
	i := strings.LastIndex(name, ".")
	return name[:i], name[i+1:]
}

// README's "Adding a lesson" names the smallest lesson as the template:
// it must be a lesson, and the smallest.
func TestAddingALessonPointsAtTheSmallest(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "## Adding a lesson")
	if !ok {
		t.Fatal(`README.md has no "Adding a lesson" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	size := map[string]int{}
	for _, l := range Lessons() {
		pkg, _ := splitConstructor(l.Constructor)
		dir := strings.TrimPrefix(pkg, module+"/")
		files, _ := filepath.Glob(filepath.Join(root, dir, "*.go"))
		for _, f := range files {
			if b, err := os.ReadFile(f); err == nil && !strings.HasSuffix(f, "_test.go") {
				size[dir] += strings.Count(string(b), "\n")
			}
		}
	}
	dirs := slices.Collect(maps.Keys(size))
	slices.SortFunc(dirs, func(a, b string) int { return size[a] - size[b] })
	if want := "`" + dirs[0] + "`"; !strings.Contains(section, want) {
		t.Errorf("the section should point at the smallest lesson, %s (%d lines)", want, size[dirs[0]])
	}
}
