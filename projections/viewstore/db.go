package viewstore

import (
	"context"
	"database/sql"

	"herd/events"
)

// DB is the views' tables as one engine reads them outside a
// transaction: the log's pool with the engine's dialect. The views'
// statements are written once, with SQLite's "?" markers; on PostgreSQL
// DB rebinds them to "$n" and makes their arguments as PostgreSQL takes
// them (events.Dialect's Bind and Args).
type DB struct {
	db *sql.DB
	d  events.Dialect
}

// NewDB is the views beside log, on whichever engine keeps it.
//
// It is the views' one reach past the log's port for its database
// (events.SQLDB), and it stays: the views are tables in the log's own
// database, read outside a transaction through the log's pool so that a
// list and the log's head come from one statement, and the log's port
// (events.Log) carries the log's operations, not a handle for other
// tables. The unit of work's transaction reaches the log's the same way
// (events.ViewsIn, through events.SQLTx), so that a command's appends and its
// views' rows commit together.
func NewDB(log events.Log) *DB {
	db, engine := events.SQLDB(log)
	return NewDBOn(db, engine.Dialect())
}

// NewDBOn is the views on the pool db, whose engine's dialect is d.
func NewDBOn(db *sql.DB, d events.Dialect) *DB { return &DB{db: db, d: d} }

// Dialect is the dialect the views' statements run in.
func (v *DB) Dialect() events.Dialect { return v.d }

// QueryContext runs query in the pool's dialect.
func (v *DB) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return v.db.QueryContext(ctx, v.d.Bind(query), v.d.Args(args)...)
}

// QueryRowContext runs query in the pool's dialect.
func (v *DB) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return v.db.QueryRowContext(ctx, v.d.Bind(query), v.d.Args(args)...)
}

// ExecContext runs query in the pool's dialect.
func (v *DB) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return v.db.ExecContext(ctx, v.d.Bind(query), v.d.Args(args)...)
}

// InTx runs fn in a transaction of its own on the pool, in the pool's
// dialect, and commits it when fn returns no error (rolls it back
// otherwise).
func (v *DB) InTx(ctx context.Context, fn func(*events.ViewTx) error) error {
	tx, err := v.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	if err := fn(events.NewViewTx(tx, v.d)); err != nil {
		return err
	}
	return tx.Commit()
}

var (
	_ Execer  = (*DB)(nil)
	_ Querier = (*DB)(nil)
)
