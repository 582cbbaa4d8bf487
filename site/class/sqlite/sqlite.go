// Package sqlite opens the class server's store in a SQLite file, through
// modernc.org/sqlite (pure Go, no cgo). It is a package of its own so that
// only the native server links SQLite: the Worker stores in D1 and must
// stay within Cloudflare's size limit.
package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"

	"github.com/uldplab/uldp/site/class"

	_ "modernc.org/sqlite" // the "sqlite" driver
)

// Open opens (creating it if need be) the SQLite file at path and brings
// its schema up to date. The file is in WAL mode with synchronous=FULL,
// so a statement that returned is on disk: a submission the server
// answered survives the server's death and the machine's.
func Open(ctx context.Context, path string) (*sql.DB, error) {
	if path == "" {
		return nil, fmt.Errorf("give the class database a file name, e.g. class.db")
	}
	if dir := filepath.Dir(path); dir != "." {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("%s: the directory %s does not exist; create it first", path, dir)
		}
	}
	q := url.Values{}
	for _, p := range []string{"journal_mode(WAL)", "synchronous(FULL)", "busy_timeout(10000)", "foreign_keys(1)"} {
		q.Add("_pragma", p)
	}
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: cannot open it as a SQLite database (%w): is it another kind of file, or not writable?", path, err)
	}
	var mode string
	if err := db.QueryRowContext(ctx, `PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		db.Close()
		return nil, fmt.Errorf("%s: the database is not in WAL mode (%q, %v): is it on a network file system?", path, mode, err)
	}
	if err := class.Migrate(ctx, db); err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return db, nil
}
