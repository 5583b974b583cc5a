package command

import (
	"context"
	"database/sql"

	"herd/events"
)

// Execer is what writes a view row: the unit of work's transaction, a
// prepared write's recorder, or a rebuild's cache of prepared statements.
// It tells the dialect it binds statements in, so that the views' store
// (projections/viewstore) writes a row in its engine's terms.
type Execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	Dialect() events.Dialect
}

// Tx is one unit of work's transaction, seen two ways: the log's,
// through the storage port, for appending; and the same transaction as
// the views write it (database/sql on either engine), in the dialect of
// its engine (events.Dialect). It is all a command's kind is handed
// inside a group commit: nothing inside the group's transaction may take
// a second connection from the pool (see groupCommit.exec).
type Tx struct {
	log events.LogTx
	sql *sql.Tx
	// v is sql with its dialect, made once per transaction: a pointer,
	// so that handing it to the views as an execer allocates nothing.
	v *ViewTx
}

// NewTx is ltx as a unit of work's transaction, its view statements in
// its engine's dialect.
func NewTx(ltx events.LogTx) Tx {
	// The views' rows are written in the transaction that appends their
	// events, so that both commit as one: the views reach it through its
	// database/sql handle (events.SQLTx), as the log's port carries the
	// log's operations alone.
	sqlTx := events.SQLTx(ltx)
	return Tx{log: ltx, sql: sqlTx, v: NewViewTx(sqlTx, ltx.Engine().Dialect())}
}

// Views is the transaction as the views' statements run in it.
func (tx Tx) Views() *ViewTx { return tx.v }

// Log is the transaction as the log appends (and deletes) in it.
func (tx Tx) Log() events.LogTx { return tx.log }

// ViewTx is a transaction that runs the views' statements, written once
// with SQLite's "?" markers, in its engine's dialect, and tells it
// (Dialect), so that a statement with a piece the engines spell apart is
// made in the right one.
type ViewTx struct {
	*sql.Tx
	d events.Dialect
}

// NewViewTx is tx running statements in dialect d.
func NewViewTx(tx *sql.Tx, d events.Dialect) *ViewTx { return &ViewTx{Tx: tx, d: d} }

// Dialect is the dialect the transaction's statements run in.
func (v *ViewTx) Dialect() events.Dialect { return v.d }

// QueryContext runs query in the transaction's dialect.
func (v *ViewTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return v.Tx.QueryContext(ctx, v.d.Bind(query), v.d.Args(args)...)
}

// QueryRowContext runs query in the transaction's dialect.
func (v *ViewTx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return v.Tx.QueryRowContext(ctx, v.d.Bind(query), v.d.Args(args)...)
}

// ExecContext runs query in the transaction's dialect.
func (v *ViewTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return v.Tx.ExecContext(ctx, v.d.Bind(query), v.d.Args(args)...)
}

// PrepareContext prepares query, bound to the transaction's dialect.
func (v *ViewTx) PrepareContext(ctx context.Context, query string) (*sql.Stmt, error) {
	return v.Tx.PrepareContext(ctx, v.d.Bind(query))
}

var (
	_ Execer         = (*ViewTx)(nil)
	_ events.Querier = (*ViewTx)(nil)
)
