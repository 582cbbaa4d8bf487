package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/uldplab/uldp/site"
)

// The static host gets the files as `uldp serve` sends them: scripts and
// style sheets minified, the rest as they are, no precompressed siblings.
func TestWriteMinifiesAsTheServerDoes(t *testing.T) {
	script := []byte("// a comment\nfunction long(name) {\n  return name + 1;\n}\nlong(1);\n")
	files := fstest.MapFS{
		"index.html":                    {Data: []byte("<!doctype html>  <title>x</title>\n")},
		"app.js":                        {Data: script},
		"style.css":                     {Data: []byte("body {\n  color: black;\n}\n")},
		"engine/a.0123456789ab.wasm":    {Data: []byte("\x00asm")},
		"engine/a.0123456789ab.wasm.br": {Data: []byte("br")},
	}
	dir := t.TempDir()
	if _, err := write(files, dir); err != nil {
		t.Fatal(err)
	}
	for name, f := range files {
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if filepath.Ext(name) == ".br" {
			if err == nil {
				t.Errorf("%s was copied", name)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		want := site.Minified(name, f.Data)
		if !bytes.Equal(got, want) {
			t.Errorf("%s written as %q, want %q", name, got, want)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "app.js")); len(got) >= len(script) || bytes.Contains(got, []byte("comment")) {
		t.Errorf("app.js was not minified: %q", got)
	}
}
