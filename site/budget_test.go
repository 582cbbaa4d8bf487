package site

import (
	"encoding/json"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"testing"
)

// Every engine module stays within its budget, so a new lesson or a heavy
// import shows up in review instead of in students' downloads.
//
//   - Every lesson: 3.5 MiB raw, as Go's linker wrote it. The build then
//     writes out the zeros between the data's segments (wasm/build's
//     fillGaps), 0.35–0.67 MiB that cost gzip and brotli almost nothing and
//     that the page's memory holds anyway; the raw budgets measure code and
//     data, not those zeros.
//   - A lesson's first visit from its own link: its module and the page's
//     files as this server sends them, and the lesson's text, within 0.9 MiB with
//     gzip and 0.7 MiB with brotli, the page's targets (each of a lesson's
//     parts too, which its link opens directly).
//   - A lesson's trace export, loaded only when a trace is downloaded (a
//     lesson with no run to export has none): 4.5 MiB raw, 1.1 MiB gzip,
//     0.9 MiB brotli (brotli at quality 9, as wasm/build makes the
//     modules loaded on request; the largest was 0.99 and 0.85 when set).
//   - The practice grader, every lesson at once, loaded only when no
//     server grades the exercises and the student chooses to practise:
//     7.25 MiB raw, 1.9 MiB gzip, 1.6 MiB brotli at quality 9 (6.98, 1.81
//     and 1.52 when set). Only `uldp serve` sends the brotli form, and it
//     grades itself: a static host compresses its own way.
type budget struct{ raw, gzip, brotli float64 }

// maxJoinedZeros bounds what joining a module's data segments adds to the
// file a browser decodes (0.67 MiB at most, the practice grader's, when
// set), so that the raw budgets on the linked size also bound the file.
const maxJoinedZeros = 0.75 * mib

const mib = 1 << 20

var (
	lesson   = budget{3.5 * mib, 0.9 * mib, 0.7 * mib}
	exporter = budget{4.5 * mib, 1.1 * mib, 0.9 * mib}
	practice = budget{7.25 * mib, 1.9 * mib, 1.6 * mib}
)

// firstPage is what a first visit fetches besides the lesson's module and
// text: the page, the scripts and style sheets it names, and the menu
// (lessons.json, which app.js fetches). Read from the page, so a script
// added to it is counted.
func firstPage(t *testing.T, files fs.FS) []string {
	t.Helper()
	page, err := fs.ReadFile(files, "index.html")
	if err != nil {
		t.Fatal(err)
	}
	out := []string{"index.html", "lessons.json"}
	for _, m := range regexp.MustCompile(`<script src="([^"]+)"|<link rel="stylesheet" href="([^"]+)"`).FindAllStringSubmatch(string(page), -1) {
		out = append(out, m[1]+m[2])
	}
	if len(out) < 5 {
		t.Fatalf("index.html names %v: expected Go's loader, app.js and a style sheet", out[2:])
	}
	return out
}

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
		Linked       int
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
	// sent is what the server sends of a file to a browser taking only
	// gzip, or brotli too.
	h := NewHandler(files)
	sent := func(name, accept string) float64 {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodGet, "/"+name, nil)
		req.Header.Set("Accept-Encoding", accept)
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			t.Fatalf("GET /%s → %d (run make wasm)", name, rec.Code)
		}
		return float64(rec.Body.Len())
	}
	var pageGzip, pageBrotli float64
	for _, f := range firstPage(t, files) {
		pageGzip += sent(f, "gzip")
		pageBrotli += sent(f, "br, gzip")
	}
	// check holds module e to b; a lesson's module (prose names its text)
	// counts the page's files and the text with it, as a first visit
	// fetches them (their bodies: the headers add about 3 KB).
	check := func(e entry, b budget, prose string) {
		if mod := size(e.Module); e.Linked <= 0 || float64(e.Linked) > mod {
			t.Errorf("%s: lessons.json says the linker wrote %d bytes of the %.0f the module has (run make wasm)", e.Name, e.Linked, mod)
		} else if zeros := mod - float64(e.Linked); zeros > maxJoinedZeros {
			t.Errorf("%s: joining its data segments added %.2f MiB, over %.2f MiB", e.Name, zeros/mib, maxJoinedZeros/mib)
		}
		var withGzip, withBrotli float64
		if prose != "" {
			withGzip = pageGzip + sent(prose, "gzip")
			withBrotli = pageBrotli + sent(prose, "br, gzip")
		}
		for _, c := range []struct {
			what       string
			got, limit float64
		}{
			{"linked", float64(e.Linked), b.raw},
			{"gzip", size(e.Module+".gz") + withGzip, b.gzip},
			{"brotli", size(e.Module+".br") + withBrotli, b.brotli},
		} {
			what := c.what
			if prose != "" && what != "linked" {
				what += ", with the page"
			}
			if c.got > c.limit {
				t.Errorf("%s's engine is %.3f MiB %s, over its budget of %.2f MiB", e.Name, c.got/mib, what, c.limit/mib)
			}
			t.Logf("%-22s %-20s %.3f MiB of %.2f", e.Name, what, c.got/mib, c.limit/mib)
		}
	}
	check(*menu.Practice, practice, "")
	for _, l := range menu.Lessons {
		prose := "lessons/" + l.Name + ".html"
		for _, m := range append([]entry{l}, l.Parts...) {
			check(m, lesson, prose)
			// A lesson with no run to export has no export module (the
			// build decides, and its own test checks which).
			if m.Export != nil {
				check(*m.Export, exporter, "")
			}
		}
	}
}
