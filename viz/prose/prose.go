// Package prose reads the lessons' texts and holds the papers' errata. A
// lesson's text is an HTML fragment (lesson.html in the lesson's package),
// the one source the web page serves and the desktop app shows; the
// fragments keep to a small subset of HTML (see Parse), so a backend
// without a browser can lay them out.
package prose

import (
	_ "embed"
	"strings"
	"unicode"

	"github.com/uldplab/uldp/core/format"
)

//go:embed errata.html
var errata []byte

// Errata returns the errata fragment: the papers' errata, the entries'
// anchors a1, a2, ….
func Errata() []byte { return errata }

// ErrataBlocks returns the errata as blocks.
func ErrataBlocks() ([]Block, error) {
	blocks, err := Parse(string(Errata()))
	if err != nil {
		return nil, format.Errorf("errata: %w", err)
	}
	return blocks, nil
}

// Kind says what a block of text is.
type Kind uint8

// Block kinds, in the order a lesson uses them.
const (
	Title   Kind = iota + 1 // the lesson's headline (h2; the errata page's h1)
	Heading                 // a section ("What to try"; h3, or h2 under an h1)
	Para                    // a paragraph (p)
	Item                    // one bullet of a list (li)
)

// Block is one paragraph of a lesson's text, its inline markup flattened:
// emphasis and keys as plain text, subscripts as _i or _(i−1), superscripts
// as ^i or ^(ε/2), a link as its words.
type Block struct {
	Kind Kind
	Text string
}

// blockTags start and end a block; inline tags only mark up its text.
var (
	blockTags  = map[string]Kind{"h1": Title, "h2": Title, "h3": Heading, "p": Para, "li": Item}
	inlineTags = map[string]bool{"em": true, "strong": true, "kbd": true, "code": true, "sub": true, "sup": true, "a": true}
	entities   = strings.NewReplacer("&lt;", "<", "&gt;", ">", "&quot;", `"`, "&#39;", "'", "&nbsp;", "\u00a0", "&amp;", "&")
)

// Parse reads a fragment of h2, h3 (a page of its own: h1, h2), p and
// ul/li blocks with em, strong,
// kbd, code, sub, sup and a inside them. Any other tag, text outside a
// block, or a block left open is an error that names it, so the fragments
// stay within what every backend can show.
func Parse(src string) ([]Block, error) {
	var (
		out    []Block
		open   Kind // the block being read, 0 between blocks
		text   strings.Builder
		script string // "sub" or "sup" while inside one
		mark   int    // where its text starts in text
		line   = 1
		headed bool // an h1 was seen: the errata page's, whose sections are h2
	)
	for len(src) > 0 {
		lt := strings.IndexByte(src, '<')
		if lt < 0 {
			lt = len(src)
		}
		if chunk := src[:lt]; strings.TrimSpace(chunk) != "" {
			if open == 0 {
				return nil, format.Errorf("line %d: text %q outside a paragraph, heading or list item", line, strings.TrimSpace(chunk))
			}
			text.WriteString(chunk)
		} else if open != 0 {
			text.WriteString(chunk)
		}
		line += strings.Count(src[:lt], "\n")
		src = src[lt:]
		if src == "" {
			break
		}
		gt := strings.IndexByte(src, '>')
		if gt < 0 {
			return nil, format.Errorf("line %d: a tag is not closed with >", line)
		}
		tag := src[1:gt]
		line += strings.Count(tag, "\n")
		src = src[gt+1:]
		closing := strings.HasPrefix(tag, "/")
		name, _, _ := strings.Cut(strings.TrimPrefix(tag, "/"), " ")
		k, isBlock := blockTags[name]
		if name == "h1" {
			headed = true
		} else if name == "h2" && headed {
			k = Heading // under a page's own h1, h2 is a section
		}
		switch {
		case name == "ul":
			if open != 0 {
				return nil, format.Errorf("line %d: a list inside a paragraph", line)
			}
		case isBlock && !closing:
			if open != 0 {
				return nil, format.Errorf("line %d: <%s> inside an open block", line, name)
			}
			open = k
			text.Reset()
		case isBlock:
			if open != k {
				return nil, format.Errorf("line %d: </%s> does not close the open block", line, name)
			}
			out = append(out, Block{Kind: k, Text: squeeze(entities.Replace(text.String()))})
			open = 0
		case inlineTags[name]:
			if open == 0 {
				return nil, format.Errorf("line %d: <%s> outside a block", line, tag)
			}
			if name != "sub" && name != "sup" {
				continue
			}
			if !closing {
				script, mark = name, text.Len()
				continue
			}
			if script != name {
				return nil, format.Errorf("line %d: </%s> without <%s>", line, name, name)
			}
			whole := text.String()
			text.Reset()
			text.WriteString(whole[:mark])
			text.WriteString(map[string]string{"sub": "_", "sup": "^"}[name])
			inner := strings.TrimSpace(whole[mark:])
			if symbols(inner) > 1 {
				inner = "(" + inner + ")"
			}
			text.WriteString(inner)
			script = ""
		default:
			return nil, format.Errorf("line %d: <%s> is not used in lesson text (h1, h2, h3, p, ul, li; em, strong, kbd, code, sub, sup, a)", line, tag)
		}
	}
	if open != 0 {
		return nil, format.Errorf("the last block is not closed")
	}
	return out, nil
}

// symbols counts what a reader sees as characters: runes less combining
// marks (ε̄ is one).
func symbols(s string) int {
	n := 0
	for _, r := range s {
		if !unicode.Is(unicode.Mn, r) {
			n++
		}
	}
	return n
}

// squeeze collapses runs of white space (the fragments' line breaks) to
// one space.
func squeeze(s string) string { return strings.Join(strings.Fields(s), " ") }
