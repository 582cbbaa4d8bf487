// Package sqlitetest gives tests a class database of their own: a fresh
// SQLite file in the test's temporary directory, closed when it ends.
package sqlitetest

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/uldplab/uldp/site/class/sqlite"
)

// Open opens a fresh class database for tb, its schema applied.
func Open(tb testing.TB) *sql.DB {
	tb.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(tb.TempDir(), "class.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}
