//go:build js && wasm

package main

import (
	"context"
	"database/sql"
	"errors"
)

// openClassDB refuses: classes are kept in SQLite, which does not build
// for js/wasm (the command line runs there for its tests and for node).
func openClassDB(context.Context, string) (*sql.DB, error) {
	return nil, errors.New("this build of uldp (js/wasm) keeps no classes: use the native uldp, or the Worker with D1")
}
