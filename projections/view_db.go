package projections

import (
	"context"
	"database/sql"

	"herd/events"
	"herd/projections/command"
)

// viewDB is the views' tables as one engine reads them outside a
// transaction: the log's pool with the engine's dialect. Its statements
// are written once, with SQLite's "?" markers; on PostgreSQL they are
// rebound to "$n" and their arguments made as PostgreSQL takes them
// (events.Dialect's Bind and Args).
type viewDB struct {
	db *sql.DB
	d  events.Dialect
}

// newViewDB is the views beside log, on whichever engine keeps it.
//
// It is projections' one reach past the log's port for its database
// (events.SQLDB), and it stays: the views are tables in the log's own
// database, read outside a transaction through the log's pool so that a
// list and the log's head come from one statement, and the log's port
// (events.Log) carries the log's operations, not a handle for other
// tables. What reads through it runs the views' statements behind the
// views' store port (viewstore), and the migrations (Migrate). The unit
// of work's transaction reaches the log's the same way (command.NewTx,
// events.SQLTx), so that a command's appends and its views' rows commit
// together.
func newViewDB(log events.Log) *viewDB {
	db, engine := events.SQLDB(log)
	return &viewDB{db: db, d: engine.Dialect()}
}

// Dialect is the dialect the views' statements run in.
func (v *viewDB) Dialect() events.Dialect { return v.d }

func (v *viewDB) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return v.db.QueryContext(ctx, v.d.Bind(query), v.d.Args(args)...)
}

func (v *viewDB) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return v.db.QueryRowContext(ctx, v.d.Bind(query), v.d.Args(args)...)
}

func (v *viewDB) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return v.db.ExecContext(ctx, v.d.Bind(query), v.d.Args(args)...)
}

// viewTx is a transaction that knows its engine's dialect
// (command.ViewTx).
type viewTx = command.ViewTx

// unitTx is one unit of work's transaction: the log's and the views'.
type unitTx = command.Tx

// newUnitTx is ltx as a unit of work's transaction, in its engine's
// dialect.
func newUnitTx(ltx events.LogTx) unitTx { return command.NewTx(ltx) }

// newViewTx is ltx as the views' statements run in it.
func newViewTx(ltx events.LogTx) *viewTx { return newUnitTx(ltx).Views() }

var (
	_ execer         = (*viewTx)(nil)
	_ events.Querier = (*viewTx)(nil)
)
