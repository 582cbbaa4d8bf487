package viz

import (
	"net/url"
	"testing"
)

// The state's escaping and parsing agree with net/url, which the browser's
// engine no longer links.
func TestQueryMatchesNetURL(t *testing.T) {
	for _, s := range []string{"", "abc", "a b", "ε = 0.5", "1,2,3", "x&y=z", "100%", "+", "~._-", "\x00\xff", "𝒦 ball", "a/b?c#d"} {
		if got, want := queryEscape(s), url.QueryEscape(s); got != want {
			t.Errorf("queryEscape(%q) = %q, net/url %q", s, got, want)
		}
		back, err := queryUnescape(queryEscape(s))
		if err != nil || back != s {
			t.Errorf("round trip of %q: %q, %v", s, back, err)
		}
	}
	for _, s := range []string{
		"scene=abovethreshold&eps=1&seed=3", "a=1&a=2&b=", "eps=NaN&queries=1e300%2C2", "k=%zz&x=1",
		"k=%4", "a;b=1&c=2", "&&a=1&", "=v&k", "a+b=c+d", "%CE%B5=1", "q=100%25",
	} {
		want, werr := url.ParseQuery(s)
		got, gerr := parseQuery(s)
		if (werr == nil) != (gerr == nil) {
			t.Errorf("parseQuery(%q) error %v, net/url %v", s, gerr, werr)
		}
		if len(got.vals) != len(want) {
			t.Errorf("parseQuery(%q) = %v, net/url %v", s, got.vals, want)
		}
		for k, vs := range want {
			if got.vals[k] != vs[0] {
				t.Errorf("parseQuery(%q)[%q] = %q, net/url %q", s, k, got.vals[k], vs[0])
			}
		}
	}
}
