package lessons

import (
	"regexp"
	"strings"
	"testing"

	"github.com/uldplab/uldp/viz/prose"
)

// markup is a tag or an entity left in a block's text.
var markup = regexp.MustCompile(`</?[a-z]|&[a-z#0-9]+;`)

// Every lesson has text, in the subset every backend shows, opening on its
// headline; parts have none of their own.
func TestEveryLessonHasText(t *testing.T) {
	for _, l := range Lessons() {
		name := l.New().Info().Name
		blocks, err := prose.Parse(l.Text())
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if len(blocks) < 3 || blocks[0].Kind != prose.Title {
			t.Errorf("%s: %d blocks, first %+v: want a headline and then the text", name, len(blocks), blocks[0])
		}
		for _, b := range blocks {
			if b.Text == "" || markup.MatchString(b.Text) {
				t.Errorf("%s: block %q keeps markup", name, b.Text)
			}
		}
		for _, p := range l.Parts {
			if p.Text != nil {
				t.Errorf("%s: part %s has a text of its own", name, p.Name)
			}
		}
	}
}

// mention is a reference to an erratum in text: "erratum A13", "errata
// A1, A2", "errata A13–A16"; citesSpec a reference to the team's spec,
// which students do not have.
var (
	mention   = regexp.MustCompile(`errat(?:um|a) A(\d+)`)
	citesSpec = regexp.MustCompile(`\bspec\b|§`)
)

// Every lesson that mentions an erratum links it to an entry that exists;
// no text cites the team's spec (students do not have it).
func TestProseLinksTheErrata(t *testing.T) {
	anchors := map[string]bool{}
	for _, m := range regexp.MustCompile(`<h2 id="a(\d+)">A(\d+) · `).FindAllStringSubmatch(string(prose.Errata()), -1) {
		anchors[m[1]] = m[1] == m[2]
	}
	if len(anchors) < 15 {
		t.Fatalf("only %d errata entries with anchors", len(anchors))
	}
	for _, l := range Lessons() {
		name := l.New().Info().Name
		src := l.Text()
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
}
