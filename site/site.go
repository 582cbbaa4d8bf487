// Package site embeds ULDP Lab's web site (lesson pages, scripts, styles and,
// once built, the WebAssembly module) and serves it.
package site

import (
	"bytes"
	"compress/gzip"
	"embed"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"
)

//go:embed static
var static embed.FS

// Files returns the site's files, rooted at the site's top directory.
func Files() fs.FS {
	sub, err := fs.Sub(static, "static")
	if err != nil {
		panic(err) // the embed directive guarantees the directory exists
	}
	return sub
}

// Handler serves the site: correct content types (application/wasm for the
// module, which instantiateStreaming requires), gzip for clients that accept
// it, and no directory listings. Compressible files are gzipped in the
// background right away, so the first visitor does not wait for the 4 MB
// engine to be compressed.
func Handler() http.Handler {
	h := &handler{files: Files()}
	go h.warm()
	return h
}

// warm compresses every compressible file into the cache.
func (h *handler) warm() {
	_ = fs.WalkDir(h.files, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !compressible(mime.TypeByExtension(path.Ext(name))) {
			return nil
		}
		if body, err := fs.ReadFile(h.files, name); err == nil {
			h.gzipped(name, body)
		}
		return nil
	})
}

type handler struct {
	files fs.FS
	gz    sync.Map // path → *gzEntry
}

// gzEntry is one file's compressed body; concurrent first requests and the
// warm-up share a single compression.
type gzEntry struct {
	once sync.Once
	body []byte
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed: the site is read-only", http.StatusMethodNotAllowed)
		return
	}
	name := strings.TrimPrefix(path.Clean("/"+r.URL.Path), "/")
	if name == "" || strings.HasSuffix(r.URL.Path, "/") {
		name = path.Join(name, "index.html")
	}
	body, err := fs.ReadFile(h.files, name)
	if err != nil {
		http.Error(w, "not found: "+r.URL.Path, http.StatusNotFound)
		return
	}
	ctype := mime.TypeByExtension(path.Ext(name))
	if ctype == "" {
		ctype = http.DetectContentType(body)
	}
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Vary", "Accept-Encoding")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	// The page's progress bar reads the decoded size: fetch streams
	// decompressed bytes, so the compressed Content-Length would mislead it.
	w.Header().Set("X-Decoded-Length", strconv.Itoa(len(body)))
	if compressible(ctype) && strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
		body = h.gzipped(name, body)
		w.Header().Set("Content-Encoding", "gzip")
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	if r.Method == http.MethodHead {
		return
	}
	_, _ = w.Write(body)
}

// gzipped returns the file's gzip body, compressing it on first use. The
// default level: level 9 saves 1 % on the engine at four times the time.
func (h *handler) gzipped(name string, body []byte) []byte {
	v, _ := h.gz.LoadOrStore(name, &gzEntry{})
	e := v.(*gzEntry)
	e.once.Do(func() {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		_, _ = zw.Write(body)
		_ = zw.Close()
		e.body = buf.Bytes()
	})
	return e.body
}

func compressible(ctype string) bool {
	for _, p := range []string{"text/", "application/javascript", "application/json", "application/wasm", "image/svg+xml"} {
		if strings.HasPrefix(ctype, p) {
			return true
		}
	}
	return false
}
