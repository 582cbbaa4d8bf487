//go:build !(js && wasm)

package main

import (
	"context"
	"database/sql"

	"github.com/uldplab/uldp/site/class/sqlite"
)

// openClassDB opens the class database at path: SQLite, natively.
func openClassDB(ctx context.Context, path string) (*sql.DB, error) { return sqlite.Open(ctx, path) }
