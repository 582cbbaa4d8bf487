package site

import (
	"encoding/json"
	"io/fs"
	"os"
	"testing"
)

// Every engine module stays within its budget, so a new lesson or a heavy
// import shows up in review instead of in students' downloads.
//
//   - Every lesson: 3.5 MiB raw.
//   - The first lesson, which every visitor loads: the page's targets of
//     0.9 MiB on the wire with gzip and 0.7 MiB with brotli, less 20 KiB for
//     the page itself (scripts, styles, prose, the menu).
//   - Other lessons: 1.0 MiB gzip and 0.76 MiB brotli, a few percent above
//     the largest (the audit lab) when these were set.
//   - A lesson's trace export, loaded only when a trace is downloaded (a
//     lesson with no run to export has none): 4.5 MiB raw, 1.25 MiB gzip,
//     0.95 MiB brotli (brotli at quality 9, as wasm/build makes the
//     modules loaded on request: the largest was 0.79 MiB at quality 11).
//   - The practice grader, every lesson at once, loaded only when no
//     server grades the exercises and the student chooses to practise:
//     7.25 MiB raw, 2.0 MiB gzip, 1.65 MiB brotli at quality 9 (6.8, 1.88
//     and 1.55 when set). Only `uldp serve` sends the brotli form, and it
//     grades itself: a static host compresses its own way.
type budget struct{ raw, gzip, brotli float64 }

const mib = 1 << 20

var (
	firstLesson = budget{3.5 * mib, 0.88 * mib, 0.68 * mib}
	otherLesson = budget{3.5 * mib, 1.0 * mib, 0.76 * mib}
	exporter    = budget{4.5 * mib, 1.25 * mib, 0.95 * mib}
	practice    = budget{7.25 * mib, 2.0 * mib, 1.65 * mib}
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
	type entry struct {
		Name, Module string
		Export       *entry
		Parts        []entry
	}
	var menu struct {
		Lessons  []entry
		Practice *entry
	}
	if err := json.Unmarshal(raw, &menu); err != nil {
		t.Fatalf("lessons.json: %v", err)
	}
	if len(menu.Lessons) == 0 || menu.Practice == nil {
		t.Fatal("lessons.json lists no lessons or no practice grader")
	}
	size := func(name string) float64 {
		st, err := fs.Stat(files, name)
		if err != nil {
			t.Fatalf("%v (run make wasm)", err)
		}
		return float64(st.Size())
	}
	check := func(e entry, b budget) {
		for _, c := range []struct {
			suffix, what string
			limit        float64
		}{{"", "raw", b.raw}, {".gz", "gzip", b.gzip}, {".br", "brotli", b.brotli}} {
			got := size(e.Module + c.suffix)
			if got > c.limit {
				t.Errorf("%s's engine is %.3f MiB %s, over its budget of %.2f MiB", e.Name, got/mib, c.what, c.limit/mib)
			}
			t.Logf("%-16s %-6s %.3f MiB of %.2f", e.Name, c.what, got/mib, c.limit/mib)
		}
	}
	check(*menu.Practice, practice)
	for i, l := range menu.Lessons {
		if i == 0 {
			check(l, firstLesson)
		} else {
			check(l, otherLesson)
		}
		// A lesson with no run to export has no export module (the build
		// decides, and its own test checks which).
		if l.Export != nil {
			check(*l.Export, exporter)
		}
		for _, p := range l.Parts {
			check(p, otherLesson)
			if p.Export != nil {
				check(*p.Export, exporter)
			}
		}
	}
}
