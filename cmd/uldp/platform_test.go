package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// crossPlatform are commands whose results must not depend on where they
// run: the lessons compute in the browser what the CLI prints natively. Each
// exercises a different numeric path (special functions, seeded samplers,
// generated data, optimisers, the Monte Carlo audit), with traces where the
// command has one, and text output.
var crossPlatform = [][]string{
	{"tdlap", "--eps", "1", "--delta", "1e-5"},
	{"tdlap", "--eps", "0.05", "--delta", "1e-9"},
	{"calibrate", "--mech", "deloutputpert", "--eps", "1", "--delta", "1e-5", "--sens", "1"},
	{"calibrate", "--mech", "analytic-gaussian", "--eps", "3", "--delta", "1e-5", "--sens", "1"},
	{"calibrate", "--mech", "gaussian", "--eps", "0.5", "--delta", "1e-6", "--sens", "2"},
	{"compose", "--eps", "0.1", "--delta", "1e-8", "--k", "100", "--delta-slack", "1e-6"},
	{"compose", "--eps", "0.5", "--sigma", "7", "--k", "50", "--delta-slack", "1e-6"},
	{"sample", "--dist", "tdlap", "--eps", "0.5", "--kappa", "5", "--n", "200", "--seed", "7"},
	{"sample", "--dist", "gaussian", "--sigma", "3", "--mu", "1", "--n", "200", "--seed", "7"},
	{"sample", "--dist", "laplace", "--scale", "2", "--n", "200", "--seed", "7"},
	{"sample", "--dist", "dlaplace", "--scale", "2.5", "--n", "200", "--seed", "7"},
	{"run", "--mech", "deloutputpert", "--data", "testdata/three-outliers.csv", "--f", "mean", "--eps", "8", "--delta", "0.1", "--target-sens", "0.1", "--seed", "1", "--trace"},
	{"run", "--mech", "orme", "--data", "testdata/outlier.csv", "--tau", "0.2", "--eps", "8", "--delta", "0.1", "--mode", "sound", "--queries", "3", "--seed", "2", "--trace"},
	{"run", "--scenario", "testdata/phased.json", "--trace"},
	{"run", "--scenario", "testdata/dpsgd.json"},
	{"run", "--mech", "dp-sgd-sc", "--data", "testdata/tight-2d.csv", "--eps", "8", "--delta", "1e-5", "--rk", "1", "--rx", "2", "--steps", "200", "--mode", "non-private"},
	{"run", "--mech", "strongly-convex-erm", "--data", "testdata/tight-2d.csv", "--eps", "8", "--delta", "0.1", "--rk", "1", "--rx", "2", "--phases", "2", "--seed", "3"},
	{"step", "--mech", "orme", "--data", "testdata/outlier.csv", "--tau", "0.2", "--eps", "8", "--delta", "0.1", "--to", "2"},
	{"run", "--scenario", "testdata/outliers.json", "--format", "text"},
	{"audit", "--mech", "deloutputpert", "--data", "testdata/outlier.csv", "--neighbour", "testdata/inlier.csv", "--f", "mean", "--eps", "8", "--delta", "0.1", "--target-sens", "0.1", "--at-eps", "1,8,12"},
	{"audit", "--scenario", "testdata/far-outlier.json", "--neighbour", "replace:14=0", "--mutant", "no-stability", "--monte-carlo", "--runs", "2000"},
	{"audit", "--mech", "orme", "--data", "testdata/crowd300.csv", "--neighbour", "replace:1=10000", "--tau", "1", "--eps", "8", "--delta", "0.1", "--mode", "sound"},
}

// relTol is how far a number may move between platforms: math.Exp, Log and
// Pow are assembly on amd64 and pure Go under js/wasm, and differ in the
// last bit or two (a relative 2.2·10⁻¹⁶ each); sums of a few thousand terms
// carry that to 10⁻¹³ at most.
const relTol = 1e-12

// TestSameResultsUnderWasm runs each command natively and compiled to
// js/wasm under Node, and compares the outputs: byte for byte where they
// agree, and number by number within relTol where they do not. Structure
// and text must match exactly.
func TestSameResultsUnderWasm(t *testing.T) {
	run := wasmRunner(t)
	identical := 0
	var mu sync.Mutex
	t.Run("commands", func(t *testing.T) {
		for _, args := range crossPlatform {
			t.Run(strings.Join(args[:2], " "), func(t *testing.T) {
				t.Parallel()
				native := uldp(t, args...)
				wasm := run(t, args...)
				if native.code != 0 || wasm.code != 0 {
					t.Fatalf("uldp %s: exit %d natively (%s), %d under wasm (%s)", strings.Join(args, " "), native.code, native.stderr, wasm.code, wasm.stderr)
				}
				if native.stdout == wasm.stdout {
					mu.Lock()
					identical++
					mu.Unlock()
					return
				}
				t.Logf("not byte-identical: uldp %s", strings.Join(args, " "))
				var a, b any
				var diffs []string
				if json.Unmarshal([]byte(native.stdout), &a) == nil && json.Unmarshal([]byte(wasm.stdout), &b) == nil {
					diffs = compareJSON(a, b, "")
				} else {
					diffs = compareLines(native.stdout, wasm.stdout)
				}
				for i, d := range diffs {
					if i == 10 {
						t.Errorf("… %d more", len(diffs)-10)
						break
					}
					t.Errorf("uldp %s: %s", strings.Join(args, " "), d)
				}
			})
		}
	})
	t.Logf("%d of %d commands byte-identical under js/wasm; the rest within %g relative", identical, len(crossPlatform), relTol)
}

// wasmRunner builds the CLI for js/wasm and returns a runner for it under
// Node. Without Node it skips, except in CI, where make test installs it.
func wasmRunner(t *testing.T) func(t *testing.T, args ...string) result {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("node is missing: make test-deps installs it")
		}
		t.Skip("node is not installed: make test-deps installs it")
	}
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatal(err)
	}
	support := filepath.Join(strings.TrimSpace(string(goroot)), "lib", "wasm", "wasm_exec_node.js")
	module := filepath.Join(t.TempDir(), "uldp.wasm")
	build := exec.Command("go", "build", "-o", module, ".")
	build.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building uldp for js/wasm: %v\n%s", err, out)
	}
	return func(t *testing.T, args ...string) result {
		t.Helper()
		return runCmd(t, exec.Command(node, append([]string{support, module}, args...)...))
	}
}

// compareJSON lists where b differs from a: numbers beyond relTol, any
// other difference in values, keys or lengths. Numbers inside strings (a
// derivation's text) are compared as numbers.
func compareJSON(a, b any, path string) []string {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return []string{fmt.Sprintf("%s: %s vs %s", orRoot(path), brief(a), brief(b))}
		}
		var out []string
		for k, v := range x {
			w, ok := y[k]
			if !ok {
				return append(out, fmt.Sprintf("%s: key %q missing under wasm", orRoot(path), k))
			}
			out = append(out, compareJSON(v, w, path+"."+k)...)
		}
		return out
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return []string{fmt.Sprintf("%s: %s vs %s", orRoot(path), brief(a), brief(b))}
		}
		var out []string
		for i := range x {
			out = append(out, compareJSON(x[i], y[i], fmt.Sprintf("%s[%d]", path, i))...)
		}
		return out
	case float64:
		y, ok := b.(float64)
		if !ok || !closeRel(x, y) {
			return []string{fmt.Sprintf("%s: %v vs %v", orRoot(path), a, b)}
		}
	case string:
		y, ok := b.(string)
		if !ok || !sameText(x, y) {
			return []string{fmt.Sprintf("%s: %q vs %q", orRoot(path), a, b)}
		}
	default:
		if a != b {
			return []string{fmt.Sprintf("%s: %v vs %v", orRoot(path), a, b)}
		}
	}
	return nil
}

// compareLines compares text output line by line, as sameText does.
func compareLines(a, b string) []string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	if len(la) != len(lb) {
		return []string{fmt.Sprintf("%d lines natively, %d under wasm", len(la), len(lb))}
	}
	var out []string
	for i := range la {
		if !sameText(la[i], lb[i]) {
			out = append(out, fmt.Sprintf("line %d: %q vs %q", i+1, la[i], lb[i]))
		}
	}
	return out
}

func closeRel(x, y float64) bool {
	return x == y || math.Abs(x-y) <= relTol*math.Max(math.Abs(x), math.Abs(y))
}

var number = regexp.MustCompile(`[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?`)

// sameText: equal words, and numbers within relTol.
func sameText(a, b string) bool {
	if a == b {
		return true
	}
	if number.ReplaceAllString(a, "#") != number.ReplaceAllString(b, "#") {
		return false
	}
	na, nb := number.FindAllString(a, -1), number.FindAllString(b, -1)
	for i := range na {
		x, err1 := strconv.ParseFloat(na[i], 64)
		y, err2 := strconv.ParseFloat(nb[i], 64)
		if err1 != nil || err2 != nil || !closeRel(x, y) {
			return false
		}
	}
	return true
}

func orRoot(path string) string {
	if path == "" {
		return "(top)"
	}
	return path
}

func brief(v any) string {
	s := fmt.Sprint(v)
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return s
}

// The comparison must see a difference beyond relTol, in a number, inside
// text and in structure, or the test above could not fail.
func TestCompareJSON(t *testing.T) {
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{`{"x": 0.05552427389335773}`, `{"x": 0.05552427389335772}`, true},
		{`{"x": 1}`, `{"x": 1.0000000000005}`, true},
		{`{"x": 1}`, `{"x": 1.00000000001}`, false},
		{`{"x": 0}`, `{"x": 1e-300}`, false},
		{`{"s": "σ = 3174.5928 at ε = 1"}`, `{"s": "σ = 3174.5928000000001 at ε = 1"}`, true},
		{`{"s": "σ = 3174.59"}`, `{"s": "σ = 3174.60"}`, false},
		{`{"s": "kept users 1, 2"}`, `{"s": "kept users 1, 3"}`, false},
		{`{"v": [1, 2]}`, `{"v": [1, 2, 3]}`, false},
		{`{"v": [1, 2]}`, `{"w": [1, 2]}`, false},
		{`{"b": true}`, `{"b": false}`, false},
	} {
		if got := len(compareLines(c.a, c.b)) == 0; got != c.same {
			t.Errorf("as text, %s vs %s: same = %v, want %v", c.a, c.b, got, c.same)
		}
		var a, b any
		if err := json.Unmarshal([]byte(c.a), &a); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(c.b), &b); err != nil {
			t.Fatal(err)
		}
		if got := len(compareJSON(a, b, "")) == 0; got != c.same {
			t.Errorf("%s vs %s: same = %v, want %v", c.a, c.b, got, c.same)
		}
	}
}
