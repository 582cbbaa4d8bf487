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
// it, and no directory listings.
func Handler() http.Handler {
	return &handler{files: Files()}
}

type handler struct {
	files fs.FS
	gz    sync.Map // path → []byte, compressed once
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

func (h *handler) gzipped(name string, body []byte) []byte {
	if v, ok := h.gz.Load(name); ok {
		return v.([]byte)
	}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	_, _ = zw.Write(body)
	_ = zw.Close()
	h.gz.Store(name, buf.Bytes())
	return buf.Bytes()
}

func compressible(ctype string) bool {
	for _, p := range []string{"text/", "application/javascript", "application/json", "application/wasm", "image/svg+xml"} {
		if strings.HasPrefix(ctype, p) {
			return true
		}
	}
	return false
}
