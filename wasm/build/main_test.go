package main

import (
	"go/parser"
	"go/token"
	"slices"
	"strings"
	"testing"

	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/lessons"
	"github.com/uldplab/uldp/viz/lessons/auditlab/phasedlab"
	"github.com/uldplab/uldp/viz/lessons/auditlab/sgdlab"
	"github.com/uldplab/uldp/viz/lessons/userlevel"
)

// Every lesson gets a module whose main calls its constructor alone and,
// if it has a run to export, an export module right after it that does the
// same with JSON; the mains are valid Go.
func TestPlan(t *testing.T) {
	engines, err := plan(lessons.Lessons())
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	add := func(mod string, l lessons.Lesson) {
		want = append(want, mod)
		if _, ok := l.New().(viz.Exporter); ok {
			want = append(want, mod+exportSuffix)
		}
	}
	for _, l := range lessons.Lessons() {
		name := l.New().Info().Name
		add(name, l)
		for _, p := range l.Parts {
			add(name+"-"+p.Name, p.Lesson)
		}
	}
	want = append(want, practice.Name) // last, from the source tree
	var got []string
	for _, e := range engines {
		got = append(got, e.Name)
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("engines %v, want %v", got, want)
	}
	if !slices.Contains(got, "rates") || slices.Contains(got, "rates"+exportSuffix) || !slices.Contains(got, "semi-sensitive"+exportSuffix) {
		t.Errorf("engines %v: the rates explorer has no run to export, lesson 12 has", got)
	}
	// The audit lab's parts: each its own module, after the lesson's and
	// its earlier parts', for the mechanisms it shows.
	for _, part := range []struct {
		name, main string
		mechs      []string
	}{{"audit-sgd", "wasm.Run(sgdlab.New())", sgdlab.Mechs()}, {"audit-phased", "wasm.Run(phasedlab.New())", phasedlab.Mechs()}} {
		found := false
		for i, e := range engines {
			if e.Name == part.name {
				before := engines[i-1]
				found = e.part && e.Param == "mech" && len(e.Values) > 0 && slices.Equal(e.Values, part.mechs) && strings.Contains(e.main, part.main) &&
					(before.Name == "audit" || before.part && strings.HasPrefix(before.Name, "audit-"))
			}
		}
		if !found {
			t.Errorf("no module for the audit lab's part %s after the lab's own", part.name)
		}
	}
	for _, e := range engines {
		// Only modules loaded on request are compressed the faster way.
		if rare := strings.HasSuffix(e.Name, exportSuffix) || e.Name == practice.Name; e.rare != rare {
			t.Errorf("%s: rare = %v, want %v", e.Name, e.rare, rare)
		}
		if e.main == "" {
			continue // the practice grader's main is a source file
		}
		f, err := parser.ParseFile(token.NewFileSet(), e.Name+".go", e.main, parser.ParseComments)
		if err != nil {
			t.Fatalf("%s: generated main does not parse: %v\n%s", e.Name, err, e.main)
		}
		if f.Name.Name != "main" || !strings.Contains(e.main, "//go:build js && wasm") {
			t.Errorf("%s: not a js/wasm main:\n%s", e.Name, e.main)
		}
	}
	// Only a lesson whose computation a worker may do links the functions
	// for it.
	for _, e := range engines {
		want := e.Name == "rates" || e.Name == "dp-sgd" || e.Name == "semi-sensitive"
		if remote := strings.Contains(e.main, "wasm.RunRemote("); remote != want {
			t.Errorf("%s: main uses RunRemote: %v, want %v (the rates explorer's, DP-SGD's and the semi-sensitive lesson's scenes are a viz.Remote)", e.Name, remote, want)
		}
	}
	if !strings.Contains(engines[0].main, "wasm.Run(userlevel.New())") {
		t.Errorf("lesson 1's main:\n%s", engines[0].main)
	}
	if !strings.Contains(engines[1].main, "wasm.RunExporter(userlevel.New())") {
		t.Errorf("lesson 1's export main:\n%s", engines[1].main)
	}
}

func TestMainForRefusesWhatCannotBeNamed(t *testing.T) {
	for _, c := range []string{
		"github.com/uldplab/uldp/viz/lessons/userlevel.glob..func1",
		"github.com/uldplab/uldp/viz/lessons/outlierremoval.(*Scene).Reset",
		"main",
	} {
		if _, err := mainFor(c, "x", "Run"); err == nil {
			t.Errorf("%q accepted as a constructor", c)
		}
	}
	// A closure in the registry is caught by name.
	l := []lessons.Lesson{{New: func() viz.Scene { return userlevel.New() }, Constructor: "github.com/uldplab/uldp/viz/lessons.Lessons.func1"}}
	if _, err := plan(l); err == nil {
		t.Error("a closure constructor was accepted")
	}
	// A lesson may not repeat another's name.
	twice := append(lessons.Lessons()[:1:1], lessons.Lessons()[0])
	if _, err := plan(twice); err == nil {
		t.Error("two lessons with one name were accepted")
	}
}
