package class

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"slices"
)

// Migrate applies the Migrations db has not had, each in a transaction
// with its record: how the native server keeps a SQLite file's schema
// current at start. The record is wrangler's own table (d1_migrations), so
// a database reads the same whichever applied its schema. On D1, which
// runs no transactions from a Worker, wrangler applies them instead.
func Migrate(ctx context.Context, db *sql.DB) error {
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS d1_migrations (
		id INTEGER PRIMARY KEY AUTOINCREMENT,
		name TEXT UNIQUE,
		applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL)`); err != nil {
		return fmt.Errorf("recording the schema's version: %w", err)
	}
	names, err := fs.Glob(Migrations, "migrations/*.sql")
	if err != nil {
		return err
	}
	slices.Sort(names)
	for _, path := range names {
		name := path[len("migrations/"):]
		if err := apply(ctx, db, name, path); err != nil {
			return fmt.Errorf("applying the schema's %s: %w", name, err)
		}
	}
	return nil
}

func apply(ctx context.Context, db *sql.DB, name, path string) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }() // a no-op once committed
	var done int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM d1_migrations WHERE name = ?`, name).Scan(&done); err != nil {
		return err
	}
	if done > 0 {
		return nil
	}
	sqlText, err := fs.ReadFile(Migrations, path)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, string(sqlText)); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO d1_migrations (name) VALUES (?)`, name); err != nil {
		return err
	}
	return tx.Commit()
}
