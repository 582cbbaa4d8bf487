// Package site embeds ULDP Lab's web site (lesson pages, scripts, styles and,
// once built, the lesson engines) and serves it.
package site

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/tdewolff/minify/v2"
	"github.com/tdewolff/minify/v2/css"
	"github.com/tdewolff/minify/v2/js"

	"github.com/uldplab/uldp/viz/lessons"
	"github.com/uldplab/uldp/viz/prose"
)

//go:embed static
var static embed.FS

// errataPage is the errata page's frame; the entries come from package
// prose, which the desktop app shows too.
//
//go:embed errata.html
var errataPage string

// Files returns the site's files, rooted at the site's top directory: the
// embedded static directory, the errata page, and each lesson's text as
// lessons/NAME.html, from the lesson's package (which the desktop app
// reads too).
func Files() fs.FS {
	sub, err := fs.Sub(static, "static")
	if err != nil {
		panic(err) // the embed directive guarantees the directory exists
	}
	page := strings.Replace(errataPage, "<!-- errata -->", errataWithContents(string(prose.Errata())), 1)
	mem := memFS{"errata.html": []byte(page)}
	ls, names := lessons.Named()
	for _, n := range names {
		mem["lessons/"+n+".html"] = []byte(ls[n].Text())
	}
	return union{sub, mem}
}

// entryRE finds the errata's entries: their anchors and headings.
var entryRE = regexp.MustCompile(`<h2 id="(a\d+)">(.*?)</h2>`)

// errataWithContents is the errata with a table of contents before the
// first entry: a link to each, by its heading.
func errataWithContents(errata string) string {
	var toc strings.Builder
	toc.WriteString(`<nav class="contents" aria-labelledby="contents"><h2 id="contents">Contents</h2><ol>` + "\n")
	for _, m := range entryRE.FindAllStringSubmatch(errata, -1) {
		toc.WriteString(`<li><a href="#` + m[1] + `">` + m[2] + "</a></li>\n")
	}
	toc.WriteString("</ol></nav>\n")
	first := entryRE.FindStringIndex(errata)
	if first == nil {
		return errata
	}
	return errata[:first[0]] + toc.String() + errata[first[0]:]
}

// memFS is a read-only file system of files held in memory, at the root
// or in directories below it ("errata.html", "lessons/dp-sgd.html").
type memFS map[string][]byte

func (m memFS) Open(name string) (fs.File, error) {
	data, ok := m[name]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return &openFile{info: info{name: path.Base(name), size: len(data)}, r: bytes.NewReader(data)}, nil
}

// ReadDir lists a directory: its files, and the directories below it.
func (m memFS) ReadDir(dir string) ([]fs.DirEntry, error) {
	seen := map[string]bool{}
	var out []fs.DirEntry
	for name, data := range m {
		rest, ok := strings.CutPrefix(name, dir+"/")
		if dir == "." {
			rest, ok = name, true
		}
		if !ok {
			continue
		}
		if sub, _, below := strings.Cut(rest, "/"); !below {
			out = append(out, fs.FileInfoToDirEntry(info{name: rest, size: len(data)}))
		} else if !seen[sub] {
			seen[sub] = true
			out = append(out, fs.FileInfoToDirEntry(info{name: sub, dir: true}))
		}
	}
	if len(out) == 0 {
		return nil, &fs.PathError{Op: "readdir", Path: dir, Err: fs.ErrNotExist}
	}
	slices.SortFunc(out, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return out, nil
}

type openFile struct {
	info
	r *bytes.Reader
}

func (o *openFile) Read(p []byte) (int, error) { return o.r.Read(p) }
func (o *openFile) Close() error               { return nil }
func (o *openFile) Stat() (fs.FileInfo, error) { return o.info, nil }

// info describes a file or a directory of a memFS.
type info struct {
	name string
	size int
	dir  bool
}

func (i info) Name() string       { return i.name }
func (i info) Size() int64        { return int64(i.size) }
func (i info) ModTime() time.Time { return time.Time{} }
func (i info) IsDir() bool        { return i.dir }
func (i info) Sys() any           { return nil }
func (i info) Mode() fs.FileMode {
	if i.dir {
		return fs.ModeDir | 0o555
	}
	return 0o444
}

// union opens a name in the first file system that has it.
type union []fs.FS

func (u union) Open(name string) (fs.File, error) {
	for _, fsys := range u {
		f, err := fsys.Open(name)
		if !errors.Is(err, fs.ErrNotExist) {
			return f, err
		}
	}
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

// ReadDir lists a directory across the file systems, a name once (the
// first file system's, as Open): how the site is copied whole to a static
// host.
func (u union) ReadDir(name string) ([]fs.DirEntry, error) {
	var out []fs.DirEntry
	seen := map[string]bool{}
	found := false
	for _, fsys := range u {
		es, err := fs.ReadDir(fsys, name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		found = true
		for _, e := range es {
			if !seen[e.Name()] {
				seen[e.Name()] = true
				out = append(out, e)
			}
		}
	}
	if !found {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	slices.SortFunc(out, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return out, nil
}

// Handler serves the embedded site; see NewHandler.
func Handler() http.Handler { return NewHandler(Files()) }

// Server returns an HTTP server for h fit for a classroom: bounded header
// size, deadlines for reading a request and writing a response (generous
// enough for a 3.5 MB engine over a slow link), and idle keep-alive
// connections closed after a minute.
func Server(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      2 * time.Minute,
		IdleTimeout:       time.Minute,
		MaxHeaderBytes:    32 << 10,
	}
}

// MaxLargeWrites bounds the responses of over 64 KiB (the engines) being
// written at once; a request beyond it waits up to largeWait for a slot,
// then gets 503 with Retry-After.
const MaxLargeWrites = 64

const largeBody = 64 << 10

// largeWait is how long a large download waits for a slot (a variable
// for the test, which would otherwise wait this long).
var largeWait = 10 * time.Second

// NewHandler serves the files of fsys:
//   - content types the browser needs (application/wasm for the engines,
//     which instantiateStreaming requires), and no directory listings;
//   - a file's precompressed siblings NAME.br and NAME.gz when the client
//     accepts them (Accept-Encoding with its q-values: "gzip;q=0" means no
//     gzip), else gzip, and brotli up to 256 KiB, made once on first
//     use for text;
//   - scripts and style sheets without siblings minified, in every
//     representation;
//   - an ETag per representation, answering If-None-Match with 304;
//   - a year's immutable caching for content-hashed names
//     (NAME.0123456789ab.wasm, renamed whenever the content changes) and
//     revalidation on every use for the rest, so a new build shows at once.
//
// Each file is read, minified and compressed once; requests share those
// bytes.
func NewHandler(fsys fs.FS) http.Handler {
	return &handler{files: fsys, slots: make(chan struct{}, MaxLargeWrites)}
}

type handler struct {
	files fs.FS
	cache sync.Map      // name → *entry
	slots chan struct{} // one per large body being written
}

// entry is one file's representations, prepared once.
type entry struct {
	once  sync.Once
	err   error
	ctype string
	// reps by content coding: "" (identity), "br", "gzip".
	reps map[string]rep
}

// rep is one representation of a file.
type rep struct {
	body []byte
	etag string
}

// hashed matches content-hashed file names, which never change content.
var hashed = regexp.MustCompile(`\.[0-9a-f]{12}\.[a-z]+$`)

// CSP is the site's Content-Security-Policy: its own scripts, styles and
// engines only ('wasm-unsafe-eval' lets it compile WebAssembly, nothing
// lets it evaluate strings), fetches to itself, exports as blob: links,
// and no framing by other sites.
const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data: blob:; " +
	"connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// secure sets the headers every response carries, errors included.
func secure(hd http.Header) {
	hd.Set("Content-Security-Policy", CSP)
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("X-Content-Type-Options", "nosniff")
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	secure(w.Header())
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed: the site is read-only", http.StatusMethodNotAllowed)
		return
	}
	name := strings.TrimPrefix(path.Clean("/"+r.URL.Path), "/")
	if name == "" || strings.HasSuffix(r.URL.Path, "/") {
		name = path.Join(name, "index.html")
	}
	e := h.entry(name)
	if e.err != nil {
		http.Error(w, "not found: "+r.URL.Path, http.StatusNotFound)
		return
	}
	coding := negotiate(r.Header.Get("Accept-Encoding"), e.reps)
	if coding == "none" {
		http.Error(w, "not acceptable: the request refuses every encoding this file has (identity, gzip, br)", http.StatusNotAcceptable)
		return
	}
	rp := e.reps[coding]
	hd := w.Header()
	hd.Set("Content-Type", e.ctype)
	hd.Set("ETag", rp.etag)
	if len(e.reps) > 1 {
		hd.Set("Vary", "Accept-Encoding")
	}
	if hashed.MatchString(name) {
		hd.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		hd.Set("Cache-Control", "no-cache")
	}
	if matches(r.Header.Get("If-None-Match"), rp.etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	if coding != "" {
		hd.Set("Content-Encoding", coding)
	}
	// The page's progress bar reads the decoded size: fetch streams
	// decompressed bytes, so the compressed Content-Length would mislead it.
	hd.Set("X-Decoded-Length", strconv.Itoa(len(e.reps[""].body)))
	hd.Set("Content-Length", strconv.Itoa(len(rp.body)))
	if r.Method == http.MethodHead {
		return
	}
	if len(rp.body) > largeBody {
		t := time.NewTimer(largeWait)
		defer t.Stop()
		select {
		case h.slots <- struct{}{}:
			defer func() { <-h.slots }()
		case <-t.C:
			for _, k := range []string{"Content-Length", "Content-Encoding", "ETag", "Cache-Control", "Vary", "X-Decoded-Length"} {
				hd.Del(k)
			}
			hd.Set("Retry-After", "5")
			http.Error(w, "busy: too many large downloads at once; try again in a few seconds", http.StatusServiceUnavailable)
			return
		case <-r.Context().Done():
			return
		}
	}
	_, _ = w.Write(rp.body)
}

// entry returns the prepared file, reading it on first use.
// A name that is no file is forgotten once answered: kept, every made-up
// URL a client asks for would hold memory until the server stops.
func (h *handler) entry(name string) *entry {
	v, _ := h.cache.LoadOrStore(name, &entry{})
	e := v.(*entry)
	e.once.Do(func() {
		if e.err = e.load(h.files, name); e.err != nil {
			h.cache.CompareAndDelete(name, e)
		}
	})
	return e
}

func (e *entry) load(files fs.FS, name string) error {
	body, err := fs.ReadFile(files, name)
	if err != nil {
		return err
	}
	e.ctype = mime.TypeByExtension(path.Ext(name))
	if e.ctype == "" {
		e.ctype = http.DetectContentType(body)
	}
	siblings := map[string][]byte{}
	if compressible(e.ctype) {
		for coding, ext := range map[string]string{"br": ".br", "gzip": ".gz"} {
			if z, err := fs.ReadFile(files, name+ext); err == nil {
				siblings[coding] = z
			}
		}
	}
	if len(siblings) == 0 {
		// A build's siblings are compressions of the file as it is, so
		// only a file without them may be served minified.
		body = Minified(name, body)
	}
	sum := sha256.Sum256(body)
	tag := hex.EncodeToString(sum[:8])
	e.reps = map[string]rep{"": {body, `"` + tag + `"`}}
	if !compressible(e.ctype) {
		return nil
	}
	for coding, z := range siblings {
		e.reps[coding] = rep{z, `"` + tag + "-" + coding + `"`}
	}
	if _, ok := e.reps["gzip"]; !ok {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		_, _ = zw.Write(body)
		_ = zw.Close()
		e.reps["gzip"] = rep{buf.Bytes(), `"` + tag + `-gzip"`}
	}
	if _, ok := e.reps["br"]; !ok && len(body) <= maxBrotliOnTheFly {
		e.reps["br"] = rep{brotliOf(body), `"` + tag + `-br"`}
	}
	return nil
}

// minifier shortens the page's scripts and styles: comments, spaces and
// long local names cost a first visit about 12 KB after brotli (app.js
// alone 18 → 10 KB), and the files in the repository stay readable.
var minifier = func() *minify.M {
	m := minify.New()
	m.Add("text/css", &css.Minifier{})
	m.Add("text/javascript", &js.Minifier{})
	return m
}()

// Minified is body as the handler serves the file name when it has no
// precompressed siblings: minified if it is a script or a style sheet, as
// it is otherwise or when the minifier cannot read it (a test holds every
// shipped script and style sheet to minifying cleanly). A static host's
// copy of the site (cmd/worker/assets) sends the same.
func Minified(name string, body []byte) []byte {
	mt, ok := minifiable(mime.TypeByExtension(path.Ext(name)))
	if !ok {
		return body
	}
	out, err := minifier.Bytes(mt, body)
	if err != nil {
		return body
	}
	return out
}

// minifiable is the minifier's name for content type ctype, if it minifies
// it: scripts and style sheets.
func minifiable(ctype string) (string, bool) {
	mt, _, _ := strings.Cut(ctype, ";")
	switch mt = strings.TrimSpace(mt); mt {
	case "text/javascript", "application/javascript":
		return "text/javascript", true
	case "text/css":
		return mt, true
	}
	return "", false
}

// maxBrotliOnTheFly is the largest file compressed with brotli on first
// use: the page's own files are under 64 KiB, with room to grow; the
// engines, megabytes each, come with the build's siblings, as brotli's
// best takes seconds a megabyte.
const maxBrotliOnTheFly = 256 << 10

// brotliOf compresses one of the page's own files (scripts, styles, the
// menu) at brotli's best, once per file and server start: 15–20 % fewer
// bytes than gzip on every first visit, for about a tenth of a second of
// the first request for app.js (quality 10 would halve that and add 3 %).
func brotliOf(body []byte) []byte {
	var buf bytes.Buffer
	// A window just over the file: brotli's default of 4 MiB would have
	// each compression allocate tens of megabytes for nothing.
	lgwin := 16
	for lgwin < 24 && 1<<lgwin < len(body) {
		lgwin++
	}
	bw := brotli.NewWriterOptions(&buf, brotli.WriterOptions{Quality: brotli.BestCompression, LGWin: lgwin})
	_, _ = bw.Write(body)
	_ = bw.Close()
	return buf.Bytes()
}

// negotiate picks the content coding for an Accept-Encoding header among
// the ones available: the highest q-value wins, brotli before gzip before
// identity on ties (smallest first), and identity, unless named, after any
// coding the client accepts. It returns "" for identity and "none" when the
// client refuses everything there is.
func negotiate(header string, have map[string]rep) string {
	q := map[string]float64{}
	star := -1.0
	for _, part := range strings.Split(header, ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		coding = strings.ToLower(strings.TrimSpace(coding))
		if coding == "" {
			continue
		}
		if coding == "x-gzip" {
			coding = "gzip" // RFC 9110 §8.4.1.3
		}
		v := 1.0
		for _, p := range strings.Split(params, ";") {
			k, val, ok := strings.Cut(strings.TrimSpace(p), "=")
			if ok && strings.EqualFold(strings.TrimSpace(k), "q") {
				f, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
				if err != nil || f < 0 || f > 1 {
					f = 0 // a malformed weight accepts nothing rather than guessing
				}
				v = f
			}
		}
		if coding == "*" {
			star = v
		} else {
			q[coding] = v
		}
	}
	weight := func(coding string) float64 {
		if v, ok := q[coding]; ok {
			return v
		}
		if star >= 0 {
			return star
		}
		if coding == "identity" {
			// Acceptable unless refused (RFC 9110 §12.5.3), but below any
			// coding the client names: "gzip;q=0.5, br;q=0.1" asks for
			// compression, and q-values go down to 0.001.
			return 0.0005
		}
		return 0
	}
	best, bestQ := "none", 0.0
	for _, c := range []struct{ coding, token string }{{"br", "br"}, {"gzip", "gzip"}, {"", "identity"}} {
		if _, ok := have[c.coding]; !ok {
			continue
		}
		if w := weight(c.token); w > bestQ {
			best, bestQ = c.coding, w
		}
	}
	return best
}

// matches reports whether an If-None-Match header names etag (weak
// comparison, as RFC 9110 asks for GET and HEAD).
func matches(header, etag string) bool {
	if header == "" {
		return false
	}
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == etag {
			return true
		}
	}
	return false
}

func compressible(ctype string) bool {
	for _, p := range []string{"text/", "application/javascript", "application/json", "application/wasm", "image/svg+xml"} {
		if strings.HasPrefix(ctype, p) {
			return true
		}
	}
	return false
}
