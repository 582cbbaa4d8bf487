package prose

import (
	"io/fs"
	"regexp"
	"strings"
	"testing"

	"github.com/uldplab/uldp/viz/scenes"
)

// markup is a tag or an entity left in a block's text.
var markup = regexp.MustCompile(`</?[a-z]|&[a-z#0-9]+;`)

// Every lesson has text, in the subset every backend shows, opening on its
// headline.
func TestEveryLessonHasText(t *testing.T) {
	names := map[string]bool{}
	for _, l := range scenes.Lessons() {
		name := l.New().Info().Name
		names[name] = true
		blocks, err := Blocks(name)
		if err != nil {
			t.Error(err)
			continue
		}
		if len(blocks) < 3 || blocks[0].Kind != Title {
			t.Errorf("%s: %d blocks, first %+v: want a headline and then the text", name, len(blocks), blocks[0])
		}
		for _, b := range blocks {
			if b.Text == "" || markup.MatchString(b.Text) {
				t.Errorf("%s: block %q keeps markup", name, b.Text)
			}
		}
	}
	// No fragment without a lesson.
	entries, err := fs.ReadDir(Files(), "lessons")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !names[strings.TrimSuffix(e.Name(), ".html")] {
			t.Errorf("lessons/%s belongs to no lesson", e.Name())
		}
	}
}

func TestParse(t *testing.T) {
	got, err := Parse(`<h2>Title &amp; more</h2>
<p>A <em>small</em> Δ, e<sup>ε̄</sup> and e<sup>ε/2</sup>,
  λ<sub>i</sub>, θ̂<sub>i−1</sub>; press <kbd>→</kbd>, see <a href="errata.html#a1">erratum</a>, x &lt; 1.</p>
<h3>What to try</h3>
<ul>
  <li>one</li>
  <li>two <strong>bold</strong></li>
</ul>`)
	if err != nil {
		t.Fatal(err)
	}
	want := []Block{
		{Title, "Title & more"},
		{Para, "A small Δ, e^ε̄ and e^(ε/2), λ_i, θ̂_(i−1); press →, see erratum, x < 1."},
		{Heading, "What to try"},
		{Item, "one"},
		{Item, "two bold"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("block %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestParseRefuses(t *testing.T) {
	for src, want := range map[string]string{
		"<p>a <table>":         "<table> is not used",
		"loose text<p>x</p>":   "outside a paragraph",
		"<p>open":              "not closed",
		"<p>x</h3>":            "does not close",
		"<p>a <b":              "not closed with >",
		"<em>x</em>":           "outside a block",
		"<p>x<sub>i</sup></p>": "without <sup>",
	} {
		_, err := Parse(src)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) = %v, want an error with %q", src, err, want)
		}
	}
}

// mention is a reference to an erratum in text: "erratum A13", "errata
// A1, A2", "errata A13–A16".
var mention = regexp.MustCompile(`errat(?:um|a) A(\d+)`)

// The errata parse for the desktop, every entry has an anchor, and every
// lesson that mentions an erratum links it to an entry that exists; no text
// cites the team's spec (students do not have it).
func TestErrataAndTheirLinks(t *testing.T) {
	if blocks, err := ErrataBlocks(); err != nil || len(blocks) < 20 {
		t.Fatalf("errata: %d blocks, %v", len(blocks), err)
	}
	errata := string(Errata())
	anchors := map[string]bool{}
	for _, m := range regexp.MustCompile(`<h3 id="a(\d+)">A(\d+) · `).FindAllStringSubmatch(errata, -1) {
		if m[1] != m[2] {
			t.Errorf("entry A%s has anchor a%s", m[2], m[1])
		}
		anchors[m[1]] = true
	}
	if len(anchors) < 15 {
		t.Fatalf("only %d errata entries with anchors", len(anchors))
	}
	citesSpec := regexp.MustCompile(`\bspec\b|§`)
	for _, l := range scenes.Lessons() {
		name := l.New().Info().Name
		b, _ := HTML(name)
		src := string(b)
		if citesSpec.MatchString(src) {
			t.Errorf("%s cites the spec: %q", name, citesSpec.FindString(src))
		}
		for _, idx := range mention.FindAllStringSubmatchIndex(src, -1) {
			n := src[idx[2]:idx[3]]
			link := `<a href="errata.html#a` + n + `">`
			if !strings.HasSuffix(src[:idx[0]], link) {
				t.Errorf("%s: %q is not a link to its entry", name, src[idx[0]:idx[1]])
			}
			if !anchors[n] {
				t.Errorf("%s mentions A%s, which has no entry", name, n)
			}
		}
	}
	if citesSpec.MatchString(errata) {
		t.Errorf("the errata cite the spec: %q", citesSpec.FindString(errata))
	}
}
