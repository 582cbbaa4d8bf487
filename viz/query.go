package viz

import (
	"errors"
	"strings"
)

// The shareable state is a URL fragment in application/x-www-form-urlencoded
// form. These two functions do what net/url's QueryEscape and ParseQuery do
// for it, so the browser's engine need not link net/url (its tests compare
// them with net/url).

// queryEscape escapes s so it can sit in a query: unreserved bytes stay,
// space becomes '+', everything else %XX.
func queryEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '_', c == '.', c == '~':
			b.WriteByte(c)
		case c == ' ':
			b.WriteByte('+')
		default:
			const hex = "0123456789ABCDEF"
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
	return b.String()
}

// query is a parsed state: each key's first value, and the keys in order.
type query struct {
	keys []string
	vals map[string]string
}

// parseQuery parses "k=v&k2=v2". Like net/url.ParseQuery it keeps what it
// can and returns the first error: a bad escape or a ';' separator.
func parseQuery(s string) (query, error) {
	q := query{vals: map[string]string{}}
	var first error
	for s != "" {
		var part string
		part, s, _ = strings.Cut(s, "&")
		if strings.Contains(part, ";") {
			if first == nil {
				first = errors.New("invalid semicolon separator in query")
			}
			continue
		}
		if part == "" {
			continue
		}
		k, v, _ := strings.Cut(part, "=")
		k, err1 := queryUnescape(k)
		v, err2 := queryUnescape(v)
		if err := errors.Join(err1, err2); err != nil {
			if first == nil {
				first = err
			}
			continue
		}
		if _, seen := q.vals[k]; !seen {
			q.keys = append(q.keys, k)
			q.vals[k] = v
		}
	}
	return q, first
}

// queryUnescape undoes queryEscape ('+' is a space, %XX a byte).
func queryUnescape(s string) (string, error) {
	if !strings.ContainsAny(s, "%+") {
		return s, nil
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '+':
			b = append(b, ' ')
		case '%':
			if i+2 >= len(s) || unhex(s[i+1]) < 0 || unhex(s[i+2]) < 0 {
				end := min(i+3, len(s))
				return "", errors.New(`invalid URL escape "` + s[i:end] + `"`)
			}
			b = append(b, byte(unhex(s[i+1])<<4|unhex(s[i+2])))
			i += 2
		default:
			b = append(b, c)
		}
	}
	return string(b), nil
}

func unhex(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c - 'a' + 10)
	case 'A' <= c && c <= 'F':
		return int(c - 'A' + 10)
	}
	return -1
}
