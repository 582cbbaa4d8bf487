package strictjson

import (
	"strconv"
	"strings"
	"testing"
)

// Document refuses a repeated key wherever it is, naming the object it is
// in, and text that is not UTF-8, naming the line; the same key in two
// objects, and a key that equals a value, are fine.
func TestDocument(t *testing.T) {
	for _, c := range []struct{ doc, want string }{
		{`{"a": 1, "b": 2}`, ""},
		{`{"a": {"x": 1}, "b": {"x": 2}, "c": [{"x": 1}, {"x": 2}]}`, ""},
		{`{"a": "a", "b": ["a", "a"]}`, ""},
		{`{"a": 1, "a": 2}`, `doc: "a" is given twice`},
		{`{"answers": {"q1": 1, "q2": 2, "q1": 3}}`, `doc.answers: "q1" is given twice`},
		{`{"exercises": [{"id": "a"}, {"id": "b", "answer": {"value": 1, "value": 2}}]}`, `doc.exercises[1].answer: "value" is given twice`},
		{`{"a": [[1, {"k": 1, "k": 1}]]}`, `doc.a[0][1]: "k" is given twice`},
		{"{\"title\": \"ok\",\n \"t2\": \"\xff\xfe\"}", "not UTF-8 text: an invalid byte at line 2"},
		{`{"a": `, ""}, // a syntax error is the decoder's to report
	} {
		err := Document([]byte(c.doc), "doc")
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%q: %v, want %q", c.doc, err, c.want)
		}
	}
}

// A document nested 10⁵ deep is walked in linear time (a path built per
// level once made this quadratic: minutes of work for a 200 kB request).
func TestDocumentDeepNesting(t *testing.T) {
	doc := `{"pack": ` + strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000) + `, "answers": {"x": 1, "x": 2}}`
	if err := Document([]byte(doc), "doc"); err == nil || !strings.Contains(err.Error(), `doc.answers: "x" is given twice`) {
		t.Errorf("deep document: %v", err)
	}
}

// A key written with escapes is the key json decodes: "a" and "\u0061"
// are the same key given twice; quotes and backslashes inside strings do
// not end them; an object of 10⁵ keys is checked in linear time.
func TestDocumentEscapesAndSize(t *testing.T) {
	for _, c := range []struct{ doc, want string }{
		{`{"a": 1, "\u0061": 2}`, `doc: "a" is given twice`},
		{`{"a\"b": 1, "a\\b": 2, "c": "x\",\"c\": 1"}`, ""},
		{`{"k": "}", "k2": "{", "k3": ","}`, ""},
	} {
		err := Document([]byte(c.doc), "doc")
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: %v, want %q", c.doc, err, c.want)
		}
	}
	var b strings.Builder
	b.WriteString("{")
	for i := range 100_000 {
		b.WriteString(`"k` + strconv.Itoa(i) + `": 1, `)
	}
	b.WriteString(`"k5": 2}`)
	if err := Document([]byte(b.String()), "doc"); err == nil || !strings.Contains(err.Error(), `"k5" is given twice`) {
		t.Errorf("10⁵ keys: %v", err)
	}
}
