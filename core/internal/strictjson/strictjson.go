// Package strictjson decodes the JSON files people write by hand —
// scenarios, exercise packs — strictly: unknown fields, wrong types and
// syntax errors are errors that say where (a path such as params.eps, or a
// line and column) and, for a misspelt field, which one was meant.
package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/format"
)

// Object decodes b as a JSON object and rejects keys outside known,
// suggesting the known one a misspelt key was meant to be; where names b in
// the messages.
func Object(b []byte, where string, known []string) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil || m == nil {
		if err == nil {
			err = errors.New("null")
		}
		return nil, format.Errorf("%s must be a JSON object {…}: %v", where, SyntaxError(b, err))
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if !slices.Contains(known, k) {
			msg := format.Sprintf("%s: unknown field %s", where, dataset.Excerpt(k))
			if s := Closest(k, known); s != "" {
				msg += format.Sprintf(" (did you mean %q?)", s)
			}
			return nil, format.Errorf("%s; known fields are %s", msg, strings.Join(known, ", "))
		}
	}
	return m, nil
}

// Field decodes m[name] into dst, reporting the path on a type error;
// a required field that is missing is an error too.
func Field(m map[string]json.RawMessage, name, path string, dst any, required bool) error {
	raw, ok := m[name]
	if !ok {
		if required {
			return format.Errorf("%s is missing", path)
		}
		return nil
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return TypeError(path, err)
	}
	return nil
}

// Decode decodes b into dst, refusing fields dst does not have.
func Decode(b []byte, dst any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	return dec.Decode(dst)
}

// TypeError rewrites encoding/json errors into "path.field: expected …".
func TypeError(path string, err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		p := path
		if te.Field != "" {
			p += "." + te.Field
		}
		return format.Errorf("%s: expected %s, got %s", p, kindName(te.Type.String()), te.Value)
	}
	if strings.HasPrefix(err.Error(), path+":") { // already says where
		return err
	}
	return format.Errorf("%s: %v", path, err)
}

func kindName(goType string) string {
	switch goType {
	case "float64", "*float64":
		return "a number"
	case "[]float64":
		return "a list of numbers"
	case "int", "uint64":
		return "a whole number ≥ 0"
	case "string", "privacy.Rule":
		return "a string"
	}
	return goType
}

// SyntaxError locates a JSON syntax error by line and column.
func SyntaxError(b []byte, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		// Offset counts the bytes read, the offending one included (at the
		// end of the input there is none). bytes.Count and LastIndexByte
		// locate it in a few vectorised passes, even at the end of a large
		// file.
		n := min(int(se.Offset), len(b))
		if n > 0 && se.Error() != "unexpected end of JSON input" {
			n--
		}
		before := b[:n]
		line := 1 + bytes.Count(before, []byte{'\n'})
		col := len(before) - bytes.LastIndexByte(before, '\n')
		return format.Errorf("invalid JSON at line %d, column %d: %v", line, col, se)
	}
	return err
}

// Closest returns the known name within edit distance 2 of s, if any.
func Closest(s string, known []string) string {
	best, bestD := "", 3
	for _, k := range known {
		// The distance is at least the difference in length, and a long
		// key would cost len(s)·len(k) steps to measure.
		if max(len(s)-len(k), len(k)-len(s)) >= bestD {
			continue
		}
		if d := editDistance(s, k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Document checks what encoding/json lets through in a document people
// write: text that is not UTF-8 (json replaces it with U+FFFD, so a title
// would show broken characters) and an object that repeats a key (json
// keeps the last, so an answer written twice would silently lose one).
// where names the document in the messages; a syntax error is left to the
// decoding that follows.
func Document(b []byte, where string) error {
	if !utf8.Valid(b) {
		i := 0
		for i < len(b) {
			r, n := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			i += n
		}
		line := 1 + bytes.Count(b[:i], []byte{'\n'})
		return format.Errorf("%s is not UTF-8 text: an invalid byte at line %d; save it as UTF-8", where, line)
	}
	// One pass over the bytes, not json.Decoder.Token, which allocates a
	// value per token: this check runs on every document decoded (and every
	// fuzzed input), and made decoding ten times slower.
	var stack []*level
	path := func() string {
		var p strings.Builder
		p.WriteString(where)
		for _, l := range stack[:len(stack)-1] {
			if l.object {
				p.WriteString("." + l.key)
			} else {
				p.WriteString(format.Sprintf("[%d]", l.index))
			}
		}
		return p.String()
	}
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			j, escaped := i+1, false
			for j < len(b) && b[j] != '"' {
				if b[j] == '\\' {
					escaped = true
					j++
				}
				j++
			}
			if j >= len(b) {
				return nil // unterminated: the decoding reports it
			}
			if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].expectKey {
				top := stack[n-1]
				key := string(b[i+1 : j])
				if escaped && json.Unmarshal(b[i:j+1], &key) != nil {
					return nil
				}
				if top.has(key) {
					return format.Errorf("%s: %s is given twice; keep one", path(), dataset.Excerpt(key))
				}
				top.key, top.expectKey = key, false
			}
			i = j
		case '{':
			stack = append(stack, &level{object: true, expectKey: true})
		case '[':
			stack = append(stack, &level{})
		case '}', ']':
			if len(stack) == 0 {
				return nil
			}
			stack = stack[:len(stack)-1]
		case ',':
			if n := len(stack); n > 0 {
				if top := stack[n-1]; top.object {
					top.expectKey = true
				} else {
					top.index++
				}
			}
		}
	}
	return nil
}

// level is an open object or array of a document being checked.
type level struct {
	object    bool
	keys      []string            // an object's keys so far, while few
	set       map[string]struct{} // and all of them once many
	key       string              // the key whose value comes next
	index     int                 // an array's next index
	expectKey bool
}

// has records key among the level's keys, reporting whether it was there:
// a list while an object has few keys (no map per small object), a set
// once it has many (no quadratic scan of an object of 10⁵ keys).
func (l *level) has(key string) bool {
	if l.set != nil {
		if _, ok := l.set[key]; ok {
			return true
		}
		l.set[key] = struct{}{}
		return false
	}
	if slices.Contains(l.keys, key) {
		return true
	}
	l.keys = append(l.keys, key)
	if len(l.keys) > 16 {
		l.set = map[string]struct{}{}
		for _, k := range l.keys {
			l.set[k] = struct{}{}
		}
		l.keys = nil
	}
	return false
}
