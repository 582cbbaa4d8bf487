package site

import (
	"encoding/json"
	"io/fs"
	"os"
	"testing"
)

// Every lesson's engine module stays within its budget, so a new lesson or
// a heavy import shows up in review instead of in students' downloads. The
// wire budgets leave 20 KiB of the page's 0.9 MiB (gzip) and 0.7 MiB
// (brotli) targets for the page itself: scripts, styles, prose, the menu.
const (
	budgetRaw    = 3.5 * (1 << 20)
	budgetGzip   = 0.88 * (1 << 20)
	budgetBrotli = 0.68 * (1 << 20)
)

func TestEngineBudgets(t *testing.T) {
	files := Files()
	raw, err := fs.ReadFile(files, "lessons.json")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("no lessons.json: CI must build the engines first (make test does)")
		}
		t.Skip("engines not built: run make wasm")
	}
	var menu struct {
		Lessons []struct {
			Name, Module string
		}
	}
	if err := json.Unmarshal(raw, &menu); err != nil {
		t.Fatalf("lessons.json: %v", err)
	}
	if len(menu.Lessons) == 0 {
		t.Fatal("lessons.json lists no lessons")
	}
	size := func(name string) float64 {
		st, err := fs.Stat(files, name)
		if err != nil {
			t.Fatalf("%v (run make wasm)", err)
		}
		return float64(st.Size())
	}
	for _, l := range menu.Lessons {
		for _, b := range []struct {
			suffix, what string
			limit        float64
		}{{"", "raw", budgetRaw}, {".gz", "gzip", budgetGzip}, {".br", "brotli", budgetBrotli}} {
			if got := size(l.Module + b.suffix); got > b.limit {
				t.Errorf("%s's engine is %.3f MiB %s, over its budget of %.2f MiB", l.Name, got/(1<<20), b.what, b.limit/(1<<20))
			} else {
				t.Logf("%-16s %-6s %.3f MiB of %.2f", l.Name, b.what, got/(1<<20), b.limit/(1<<20))
			}
		}
	}
}
