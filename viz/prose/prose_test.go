package prose

import (
	"regexp"
	"strings"
	"testing"
)

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

// The errata parse for the desktop, every entry has an anchor, and they
// cite no spec (students do not have it); the lessons' texts are checked
// with the lesson list.
func TestErrataAndTheirLinks(t *testing.T) {
	if blocks, err := ErrataBlocks(); err != nil || len(blocks) < 20 {
		t.Fatalf("errata: %d blocks, %v", len(blocks), err)
	}
	errata := string(Errata())
	anchors := map[string]bool{}
	for _, m := range regexp.MustCompile(`<h2 id="a(\d+)">A(\d+) · `).FindAllStringSubmatch(errata, -1) {
		if m[1] != m[2] {
			t.Errorf("entry A%s has anchor a%s", m[2], m[1])
		}
		anchors[m[1]] = true
	}
	if len(anchors) < 15 {
		t.Fatalf("only %d errata entries with anchors", len(anchors))
	}
	citesSpec := regexp.MustCompile(`\bspec\b|§`)
	if citesSpec.MatchString(errata) {
		t.Errorf("the errata cite the spec: %q", citesSpec.FindString(errata))
	}
}

// The errata page heads itself with h1 and its entries with h2 (headings
// one level apart, as a screen reader's outline wants): one title, then
// every entry a section.
func TestErrataHeadings(t *testing.T) {
	blocks, err := ErrataBlocks()
	if err != nil {
		t.Fatal(err)
	}
	titles, sections := 0, 0
	for _, b := range blocks {
		switch b.Kind {
		case Title:
			titles++
		case Heading:
			sections++
		}
	}
	if titles != 1 || sections != strings.Count(string(Errata()), "<h2 ") {
		t.Errorf("%d titles and %d sections, want 1 and one per entry", titles, sections)
	}
}
