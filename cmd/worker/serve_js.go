//go:build js && wasm

package main

import (
	"database/sql"
	"net/http"

	"github.com/syumai/workers"
	"github.com/syumai/workers/cloudflare/d1"
)

// serve hands h to the Workers runtime.
func serve(h http.Handler) { workers.Serve(h) }

// classDB is the D1 database bound as CLASSES (wrangler.jsonc), or false
// when the Worker has none: then it keeps no classes, as `uldp serve`
// without --class-db. The runtime gives each request a fresh instance of
// the program with its bindings, so this is asked once per request.
func classDB() (*sql.DB, bool) {
	c, err := d1.OpenConnector("CLASSES")
	if err != nil {
		return nil, false
	}
	return sql.OpenDB(c), true
}

// clientAddr is the address Cloudflare's edge saw the request come from:
// the peer of a Worker is the edge itself.
func clientAddr(r *http.Request) string {
	if ip := r.Header.Get("CF-Connecting-IP"); ip != "" {
		return ip
	}
	return r.RemoteAddr
}
