package site

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"net/http/httptest"
	"path"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/andybalholm/brotli"

	"github.com/uldplab/uldp/viz/lessons/dpsgd"
)

func get(t *testing.T, path, enc string) *http.Response {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	if enc != "" {
		req.Header.Set("Accept-Encoding", enc)
	}
	rec := httptest.NewRecorder()
	Handler().ServeHTTP(rec, req)
	return rec.Result()
}

func TestIndexAndContentTypes(t *testing.T) {
	res := get(t, "/", "")
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") || !bytes.Contains(body, []byte("ULDP Lab")) {
		t.Fatalf("GET / → %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	if ct := get(t, "/style.css", "").Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/css") {
		t.Errorf("style.css served as %q", ct)
	}
	if res := get(t, "/nope.js", ""); res.StatusCode != 404 {
		t.Errorf("missing file → %d", res.StatusCode)
	}
	if res := get(t, "/../../etc/passwd", ""); res.StatusCode != 404 {
		t.Errorf("path escape → %d", res.StatusCode)
	}
	req := httptest.NewRequest(http.MethodPost, "/", nil)
	rec := httptest.NewRecorder()
	Handler().ServeHTTP(rec, req)
	if rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST → %d", rec.Code)
	}
}

// The lessons' text is served from the one source the desktop app reads:
// the lesson's package.
func TestLessonTextFromTheLesson(t *testing.T) {
	want := []byte(dpsgd.Text())
	res := get(t, "/lessons/dp-sgd.html", "")
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 || !bytes.Equal(body, want) || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
		t.Errorf("GET /lessons/dp-sgd.html → %d %s, %d bytes; the lesson has %d", res.StatusCode, res.Header.Get("Content-Type"), len(body), len(want))
	}
	if res := get(t, "/lessons/nope.html", ""); res.StatusCode != 404 {
		t.Errorf("a lesson with no text → %d", res.StatusCode)
	}
}

// The page's own files, which have no precompressed siblings, are
// compressed on first use: brotli for browsers that take it, gzip for the
// rest, both decoding to the file.
func TestCompressedOnFirstUse(t *testing.T) {
	for _, name := range append([]string{"lessons/dp-sgd.html", "exercises.js"}, firstPage(t, Files())...) {
		name = "/" + name
		plain, _ := io.ReadAll(get(t, name, "").Body)
		for _, c := range []struct {
			accept, coding string
			decode         func(io.Reader) (io.Reader, error)
		}{
			{"gzip, br", "br", func(r io.Reader) (io.Reader, error) { return brotli.NewReader(r), nil }},
			{"gzip", "gzip", func(r io.Reader) (io.Reader, error) { return gzip.NewReader(r) }},
		} {
			res := get(t, name, c.accept)
			if got := res.Header.Get("Content-Encoding"); got != c.coding {
				t.Fatalf("%s, Accept-Encoding %q: coding %q, want %q", name, c.accept, got, c.coding)
			}
			zr, err := c.decode(res.Body)
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(zr)
			if err != nil || !bytes.Equal(body, plain) {
				t.Fatalf("%s: the %s body decodes to %d bytes (%v), the file has %d", name, c.coding, len(body), err, len(plain))
			}
			if n, _ := strconv.Atoi(res.Header.Get("Content-Length")); n <= 0 || n >= len(plain) {
				t.Errorf("%s: %s body of %d bytes for a file of %d", name, c.coding, n, len(plain))
			}
		}
	}
	// A large file without siblings gets gzip alone: brotli's best would
	// take seconds on first use.
	h := NewHandler(fstest.MapFS{"big.json": {Data: bytes.Repeat([]byte("[1, 2, 3],\n"), 30000)}})
	if rec := serve(h, "/big.json", "Accept-Encoding", "br, gzip"); rec.Header().Get("Content-Encoding") != "gzip" {
		t.Errorf("a 330 KB file without siblings: coding %q, want gzip", rec.Header().Get("Content-Encoding"))
	}
}

// Every script and style sheet the site ships minifies cleanly, to less:
// the handler would otherwise serve it as it is, silently heavier.
func TestScriptsAndStylesMinify(t *testing.T) {
	files := Files()
	checked := 0
	err := fs.WalkDir(files, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		mt, ok := minifiable(mime.TypeByExtension(path.Ext(name)))
		if !ok {
			return nil
		}
		body, err := fs.ReadFile(files, name)
		if err != nil {
			return err
		}
		checked++
		out, err := minifier.Bytes(mt, body)
		if err != nil {
			t.Errorf("%s does not minify: %v", name, err)
		} else if len(out) >= len(body)*9/10 {
			t.Errorf("%s minifies only from %d to %d bytes", name, len(body), len(out))
		}
		if served, _ := io.ReadAll(get(t, "/"+name, "").Body); !bytes.Equal(served, out) {
			t.Errorf("%s: the handler serves %d bytes, not the %d minified", name, len(served), len(out))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// app.js, exercises.js, textengine.js, rehearse.js, compute.js, class.js,
	// style.css at least.
	if checked < 7 {
		t.Errorf("%d scripts and style sheets checked", checked)
	}
}

// A script the minifier cannot read, or a file with a build's compressed
// siblings, is served exactly as it is.
func TestMinifyLeavesWhatItCannot(t *testing.T) {
	broken := []byte("function ( { /* not JavaScript */")
	h := NewHandler(fstest.MapFS{
		"broken.js":   {Data: broken},
		"built.js":    {Data: []byte("let  a = 1 ;  // a comment\n")},
		"built.js.gz": {Data: []byte("gz body")},
		"plain.js":    {Data: []byte("let  a = 1 ;  // a comment\n")},
		"note.txt":    {Data: []byte("two  spaces  stay\n")},
	})
	for _, c := range []struct{ name, want string }{
		{"/broken.js", string(broken)},
		{"/built.js", "let  a = 1 ;  // a comment\n"},
		{"/note.txt", "two  spaces  stay\n"},
	} {
		if got := serve(h, c.name).Body.String(); got != c.want {
			t.Errorf("%s served as %q, want %q", c.name, got, c.want)
		}
	}
	if got := serve(h, "/plain.js").Body.String(); strings.Contains(got, "comment") || strings.Contains(got, "  ") {
		t.Errorf("plain.js served as %q, not minified", got)
	}
}

// engineFS is a site with one content-hashed engine and its precompressed
// siblings, whose bodies say which one was served.
func engineFS() fstest.MapFS {
	return fstest.MapFS{
		"index.html":                             {Data: []byte("<!doctype html><title>ULDP Lab</title>")},
		"engine/user-level.0123456789ab.wasm":    {Data: []byte("\x00asm raw")},
		"engine/user-level.0123456789ab.wasm.gz": {Data: []byte("gz body")},
		"engine/user-level.0123456789ab.wasm.br": {Data: []byte("br body")},
	}
}

func serve(h http.Handler, path string, header ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodGet, path, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func TestPrecompressedNegotiation(t *testing.T) {
	h := NewHandler(engineFS())
	const mod = "/engine/user-level.0123456789ab.wasm"
	for _, c := range []struct{ accept, coding, body string }{
		{"", "", "\x00asm raw"},
		{"gzip, deflate, br", "br", "br body"},
		{"gzip, deflate", "gzip", "gz body"},
		{"x-gzip", "gzip", "gz body"},
		{"br;q=0.5, gzip", "gzip", "gz body"},
		{"gzip;q=0", "", "\x00asm raw"},
		{"gzip;q=0, br;q=0", "", "\x00asm raw"},
		{"*", "br", "br body"},
		{"*;q=0, gzip", "gzip", "gz body"},
		{"identity;q=0, gzip;q=0.1", "gzip", "gz body"},
		{"gzip;q=bogus", "", "\x00asm raw"},
		{"BR", "br", "br body"},
		// A preference for compression, however low, beats identity's
		// implicit acceptance; identity named with a higher q wins.
		{"gzip;q=0.5, br;q=0.1", "gzip", "gz body"},
		{"br;q=0.001", "br", "br body"},
		{"gzip;q=0.5, identity;q=0.9", "", "\x00asm raw"},
	} {
		rec := serve(h, mod, "Accept-Encoding", c.accept)
		if rec.Code != 200 || rec.Header().Get("Content-Encoding") != c.coding || rec.Body.String() != c.body {
			t.Errorf("Accept-Encoding %q: %d, coding %q, body %q; want coding %q, body %q",
				c.accept, rec.Code, rec.Header().Get("Content-Encoding"), rec.Body.String(), c.coding, c.body)
		}
		if rec.Header().Get("Content-Type") != "application/wasm" || rec.Header().Get("Vary") != "Accept-Encoding" {
			t.Errorf("%q: Content-Type %q, Vary %q", c.accept, rec.Header().Get("Content-Type"), rec.Header().Get("Vary"))
		}
		if got := rec.Header().Get("X-Decoded-Length"); got != "8" {
			t.Errorf("%q: X-Decoded-Length %q, want the raw size 8", c.accept, got)
		}
	}
	if rec := serve(h, mod, "Accept-Encoding", "*;q=0"); rec.Code != http.StatusNotAcceptable {
		t.Errorf("*;q=0 (nothing acceptable): %d, want 406", rec.Code)
	}
}

func TestETagAndCaching(t *testing.T) {
	h := NewHandler(engineFS())
	const mod = "/engine/user-level.0123456789ab.wasm"
	first := serve(h, mod, "Accept-Encoding", "gzip")
	tag := first.Header().Get("ETag")
	if tag == "" || !strings.HasPrefix(tag, `"`) {
		t.Fatalf("ETag %q", tag)
	}
	if cc := first.Header().Get("Cache-Control"); !strings.Contains(cc, "immutable") || !strings.Contains(cc, "max-age=31536000") {
		t.Errorf("hashed module: Cache-Control %q", cc)
	}
	again := serve(h, mod, "Accept-Encoding", "gzip", "If-None-Match", tag)
	if again.Code != http.StatusNotModified || again.Body.Len() != 0 {
		t.Errorf("If-None-Match with the ETag: %d and %d bytes, want 304 and none", again.Code, again.Body.Len())
	}
	if weak := serve(h, mod, "Accept-Encoding", "gzip", "If-None-Match", `"x", W/`+tag); weak.Code != http.StatusNotModified {
		t.Errorf("weak tag in a list: %d, want 304", weak.Code)
	}
	// Another representation has another tag: a cached gzip body must not
	// be taken for the brotli one.
	br := serve(h, mod, "Accept-Encoding", "br", "If-None-Match", tag)
	if br.Code != 200 || br.Header().Get("ETag") == tag {
		t.Errorf("brotli with the gzip tag: %d, ETag %q", br.Code, br.Header().Get("ETag"))
	}
	page := serve(h, "/")
	if cc := page.Header().Get("Cache-Control"); cc != "no-cache" {
		t.Errorf("index.html: Cache-Control %q, want no-cache (revalidated on every use)", cc)
	}
	if rec := serve(h, "/", "If-None-Match", page.Header().Get("ETag")); rec.Code != http.StatusNotModified {
		t.Errorf("index.html revalidation: %d", rec.Code)
	}
}

// The handler hands out the bytes it prepared once: a request allocates
// nothing in proportion to the file.
func TestNoCopyPerRequest(t *testing.T) {
	big := make([]byte, 4<<20)
	h := NewHandler(fstest.MapFS{"engine/x.0123456789ab.wasm": {Data: big}})
	serve(h, "/engine/x.0123456789ab.wasm", "Accept-Encoding", "gzip")
	req := httptest.NewRequest(http.MethodGet, "/engine/x.0123456789ab.wasm", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	allocs := testing.AllocsPerRun(5, func() {
		h.ServeHTTP(discard{http.Header{}}, req)
	})
	var m1, m2 runtime.MemStats
	runtime.ReadMemStats(&m1)
	for range 5 {
		h.ServeHTTP(discard{http.Header{}}, req)
	}
	runtime.ReadMemStats(&m2)
	if perReq := (m2.TotalAlloc - m1.TotalAlloc) / 5; perReq > 64<<10 {
		t.Errorf("a request allocates %d bytes (%.0f allocations) for a 4 MiB file", perReq, allocs)
	}
}

// Requests for files that do not exist leave nothing behind: a client
// making up URLs cannot grow the server's memory.
func TestMissingFilesAreNotKept(t *testing.T) {
	h := NewHandler(engineFS())
	for i := range 1000 {
		if rec := serve(h, "/no-such-file-"+strconv.Itoa(i)+".js"); rec.Code != http.StatusNotFound {
			t.Fatalf("a missing file → %d", rec.Code)
		}
	}
	serve(h, "/")
	kept := 0
	h.(*handler).cache.Range(func(any, any) bool { kept++; return true })
	if kept != 1 {
		t.Errorf("the handler keeps %d entries after 1,000 missing files and the index, want 1", kept)
	}
}

// discard is a ResponseWriter that drops the body.
type discard struct{ h http.Header }

func (d discard) Header() http.Header         { return d.h }
func (d discard) Write(b []byte) (int, error) { return len(b), nil }
func (d discard) WriteHeader(int)             {}

// Every response, errors included, carries the security headers; the
// policy allows compiling WebAssembly and nothing inline.
func TestSecurityHeaders(t *testing.T) {
	for _, p := range []string{"/", "/app.js", "/no-such-file"} {
		res := get(t, p, "")
		h := res.Header
		if h.Get("Content-Security-Policy") != CSP || h.Get("X-Frame-Options") != "DENY" ||
			h.Get("Referrer-Policy") != "no-referrer" || h.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s (%d): headers %v", p, res.StatusCode, h)
		}
	}
	for _, want := range []string{"'wasm-unsafe-eval'", "frame-ancestors 'none'", "object-src 'none'"} {
		if !strings.Contains(CSP, want) {
			t.Errorf("the policy lacks %s", want)
		}
	}
	if strings.Contains(CSP, "unsafe-inline") || strings.Contains(CSP, "'unsafe-eval'") {
		t.Errorf("the policy allows inline code or eval: %s", CSP)
	}
	// The page has no inline handlers or scripts the policy would block.
	body, _ := io.ReadAll(get(t, "/", "").Body)
	for _, bad := range []string{" onsubmit=", " onclick=", " onload=", "<script>", "style=\""} {
		if bytes.Contains(body, []byte(bad)) {
			t.Errorf("index.html has %q, which the policy blocks", bad)
		}
	}
}

// With every large-body slot taken, a large download waits, then gets 503
// with Retry-After and no caching headers; small files are not held up.
func TestLargeWritesAreCapped(t *testing.T) {
	defer func(w time.Duration) { largeWait = w }(largeWait)
	largeWait = 300 * time.Millisecond
	big := make([]byte, 2*largeBody)
	h := NewHandler(fstest.MapFS{"engine/x.0123456789ab.wasm": {Data: big}, "small.txt": {Data: []byte("hi")}}).(*handler)
	for range MaxLargeWrites {
		h.slots <- struct{}{}
	}
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, "/engine/x.0123456789ab.wasm", nil)
	ctx, cancel := context.WithTimeout(req.Context(), time.Minute)
	defer cancel()
	start := time.Now()
	h.ServeHTTP(rec, req.WithContext(ctx))
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" || rec.Header().Get("Cache-Control") != "" || time.Since(start) < largeWait {
		t.Errorf("all slots taken: %d, headers %v after %v", rec.Code, rec.Header(), time.Since(start))
	}
	small := httptest.NewRecorder()
	h.ServeHTTP(small, httptest.NewRequest(http.MethodGet, "/small.txt", nil))
	if small.Code != http.StatusOK {
		t.Errorf("a small file while the large ones wait: %d", small.Code)
	}
	<-h.slots // one slot frees: the next large download goes through
	ok := httptest.NewRecorder()
	h.ServeHTTP(ok, httptest.NewRequest(http.MethodGet, "/engine/x.0123456789ab.wasm", nil))
	if ok.Code != http.StatusOK || ok.Body.Len() != len(big) || len(h.slots) != MaxLargeWrites-1 {
		t.Errorf("with a slot free: %d, %d bytes, %d slots held", ok.Code, ok.Body.Len(), len(h.slots))
	}
}

// The server has every deadline and a header size limit.
func TestServerDeadlines(t *testing.T) {
	s := Server(Handler())
	if s.ReadHeaderTimeout <= 0 || s.ReadTimeout <= 0 || s.WriteTimeout < time.Minute || s.IdleTimeout <= 0 || s.MaxHeaderBytes <= 0 || s.MaxHeaderBytes > 1<<20 {
		t.Errorf("server %+v", s)
	}
}

// The site can be copied whole by walking it: the engines, the pages, the
// lessons' text and the full errata page (not prose's fragment).
func TestFilesWalkWhole(t *testing.T) {
	seen := map[string]bool{}
	err := fs.WalkDir(Files(), ".", func(name string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			seen[name] = true
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"index.html", "app.js", "exercises.js", "errata.html", "lessons/dp-sgd.html", "lessons/rates.html"} {
		if !seen[want] {
			t.Errorf("walking the site misses %s", want)
		}
	}
	page, _ := fs.ReadFile(Files(), "errata.html")
	if !strings.Contains(string(page), "<html") {
		t.Error("errata.html is not the full page")
	}
}

// The errata page opens with a table of contents: a link to every entry,
// in the page's order, before the first entry.
func TestErrataContents(t *testing.T) {
	res := get(t, "/errata.html", "")
	b, _ := io.ReadAll(res.Body)
	page := string(b)
	entries := regexp.MustCompile(`<h2 id="(a\d+)">`).FindAllStringSubmatch(page, -1)
	links := regexp.MustCompile(`<li><a href="#(a\d+)">`).FindAllStringSubmatch(page, -1)
	if len(entries) < 40 || len(links) != len(entries) {
		t.Fatalf("%d entries, %d links in the contents", len(entries), len(links))
	}
	for i := range entries {
		if links[i][1] != entries[i][1] {
			t.Errorf("link %d goes to %s, entry %d is %s", i+1, links[i][1], i+1, entries[i][1])
		}
	}
	if strings.Index(page, `<nav class="contents"`) > strings.Index(page, `<h2 id="a1">`) {
		t.Error("the contents come after the first entry")
	}
}

// The scripts a page loads share one global scope: two top-level
// declarations of one name would have the later script's silently replace
// the earlier's (app.js once had an adopt beside exercises.js's, and the
// lesson's sweep stalled), or, for let and const, keep the later script
// from running at all. That includes the scripts a script adds to the page
// (app.js adds exercises.js when asked).
func TestPageScriptsDeclareDistinctNames(t *testing.T) {
	files := Files()
	script := regexp.MustCompile(`<script src="([^"]+)"`)
	added := regexp.MustCompile(`\.src = "([^"]+\.js)"`)
	decl := regexp.MustCompile(`(?m)^(?:async\s+)?(?:function\*?|const|let|var|class)\s+([A-Za-z_$][\w$]*)`)
	for _, pg := range []string{"index.html", "class.html"} {
		html, err := fs.ReadFile(files, pg)
		if err != nil {
			t.Fatal(err)
		}
		var scripts []string
		for _, m := range script.FindAllStringSubmatch(string(html), -1) {
			scripts = append(scripts, m[1])
		}
		if len(scripts) == 0 {
			t.Fatalf("%s loads no scripts", pg)
		}
		where := map[string]string{}
		for i := 0; i < len(scripts); i++ {
			name := scripts[i]
			src, err := fs.ReadFile(files, name)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range added.FindAllStringSubmatch(string(src), -1) {
				if !slices.Contains(scripts, m[1]) {
					scripts = append(scripts, m[1])
				}
			}
			for _, d := range decl.FindAllStringSubmatch(string(src), -1) {
				if other, ok := where[d[1]]; ok && other != name {
					t.Errorf("%s: %s and %s both declare %q at the top level", pg, other, name, d[1])
				}
				where[d[1]] = name
			}
		}
		if pg == "index.html" && !slices.Contains(scripts, "exercises.js") {
			t.Errorf("index.html's scripts %v do not reach exercises.js", scripts)
		}
	}
}
