//go:build js && wasm

package main

import (
	"net/http"

	"github.com/syumai/workers"
)

// serve hands h to the Workers runtime.
func serve(h http.Handler) { workers.Serve(h) }
