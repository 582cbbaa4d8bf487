// Command assets writes ULDP Lab's site into a directory for a static host
// (the Worker's static assets): every file of the site, without the
// precompressed siblings (the host compresses), scripts and style sheets
// minified as `uldp serve` sends them, and a _headers file with
// the headers `uldp serve` sends: the security policy on every file, a
// year's caching for the content-hashed engines.
//
//	go run ./cmd/worker/assets -out cmd/worker/public
package main

import (
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/uldplab/uldp/site"
)

func main() {
	out := flag.String("out", "", "the directory to write the site into (emptied first)")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "assets: write -out DIR")
		os.Exit(2)
	}
	n, err := write(site.Files(), *out)
	if err != nil {
		fmt.Fprintf(os.Stderr, "assets: %v\n", err)
		os.Exit(1)
	}
	fmt.Printf("wrote %d files to %s\n", n, *out)
}

// write copies the site's files into dir, and the headers.
func write(files fs.FS, dir string) (int, error) {
	if err := os.RemoveAll(dir); err != nil {
		return 0, err
	}
	n := 0
	err := fs.WalkDir(files, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(name, ".gz") || strings.HasSuffix(name, ".br") {
			return err
		}
		b, err := fs.ReadFile(files, name)
		if err != nil {
			return err
		}
		b = site.Minified(name, b)
		dst := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		n++
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		return n, err
	}
	if n == 0 || !exists(filepath.Join(dir, "index.html")) {
		return n, fmt.Errorf("the site has no index.html: build the engines first (make wasm)")
	}
	return n, os.WriteFile(filepath.Join(dir, "_headers"), []byte(headers()), 0o644)
}

func exists(name string) bool { _, err := os.Stat(name); return err == nil }

// headers are the static host's rules (Cloudflare's _headers format).
func headers() string {
	return "/*\n" +
		"  Content-Security-Policy: " + site.CSP + "\n" +
		"  X-Frame-Options: DENY\n" +
		"  Referrer-Policy: no-referrer\n" +
		"  X-Content-Type-Options: nosniff\n" +
		"/engine/*\n" +
		"  Cache-Control: public, max-age=31536000, immutable\n"
}
