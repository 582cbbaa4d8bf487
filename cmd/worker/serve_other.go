//go:build !(js && wasm)

package main

import (
	"database/sql"
	"fmt"
	"net/http"
	"os"
)

// serve refuses: natively, `uldp serve` serves the same site and API.
func serve(http.Handler) {
	fmt.Fprintln(os.Stderr, "worker: this program runs on Cloudflare Workers (GOOS=js GOARCH=wasm): make worker-dev serves it under workerd; natively, uldp serve has the same site and API")
	os.Exit(2)
}

// classDB has no D1 to open natively.
func classDB() (*sql.DB, bool) { return nil, false }

// clientAddr is the request's peer.
func clientAddr(r *http.Request) string { return r.RemoteAddr }
