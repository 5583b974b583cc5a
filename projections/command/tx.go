package command

import (
	"context"
	"database/sql"

	"herd/events"
)

// Dialect is how one engine takes the views' statements, which are
// written once with SQLite's "?" markers: Bind turns a statement into the
// engine's, Args its arguments. The read models (projections) know the
// engines' SQL; the unit of work only applies the dialect it was given to
// every statement a kind runs in its transaction or records for a
// prepared write.
type Dialect interface {
	Bind(query string) string
	Args(args []any) []any
}

// Execer is what writes a view row: the unit of work's transaction, a
// prepared write's recorder, or a rebuild's cache of prepared statements.
type Execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// Tx is one unit of work's transaction, seen two ways: the log's,
// through the storage port, for appending; and the same transaction as
// the views write it (database/sql on either engine), with the dialect of
// its engine. It is all a command's kind is handed inside a group commit:
// nothing inside the group's transaction may take a second connection
// from the pool (see groupCommit.exec).
type Tx struct {
	log events.LogTx
	sql *sql.Tx
	// v is sql with its dialect, made once per transaction: a pointer,
	// so that handing it to the views as an execer allocates nothing.
	v *ViewTx
}

// NewTx is ltx as a unit of work's transaction, its view statements in
// dialect d.
func NewTx(ltx events.LogTx, d Dialect) Tx {
	sqlTx := events.SQLTx(ltx)
	return Tx{log: ltx, sql: sqlTx, v: NewViewTx(sqlTx, d)}
}

// Views is the transaction as the views' statements run in it.
func (tx Tx) Views() *ViewTx { return tx.v }

// Log is the transaction as the log appends (and deletes) in it.
func (tx Tx) Log() events.LogTx { return tx.log }

// ViewTx is a transaction that runs the views' statements in its
// engine's dialect, and tells it (Dialect), so that a view whose
// statements are made per engine picks the right ones.
type ViewTx struct {
	*sql.Tx
	d Dialect
}

// NewViewTx is tx running statements in dialect d.
func NewViewTx(tx *sql.Tx, d Dialect) *ViewTx { return &ViewTx{Tx: tx, d: d} }

// Dialect is the dialect the transaction's statements run in.
func (v *ViewTx) Dialect() Dialect { return v.d }

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
