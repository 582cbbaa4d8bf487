package site

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
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

func TestGzip(t *testing.T) {
	plain, _ := io.ReadAll(get(t, "/index.html", "").Body)
	res := get(t, "/index.html", "gzip, br")
	if res.Header.Get("Content-Encoding") != "gzip" {
		t.Fatal("gzip not used")
	}
	zr, err := gzip.NewReader(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	unz, _ := io.ReadAll(zr)
	if !bytes.Equal(unz, plain) {
		t.Fatal("gzip body differs from the file")
	}
}
