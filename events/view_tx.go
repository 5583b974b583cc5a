package events

import (
	"context"
	"database/sql"
)

// The views' tables live in the log's own database and are written in
// the transaction that appends their events, so that both commit as one.
// The handles their statements run on are the engines', here: the unit
// of work's transaction as the views write it (ViewTx), a prepared
// write's recorder (Recorder), and SQLite's statements prepared outside
// the write lock (ViewStatements). The command layer (projections/command)
// holds them and runs no statement of its own (ARCHITECTURE.md, "Where
// the serial section is").

// Execer is what writes a view row: the unit of work's transaction, a
// prepared write's recorder, or a rebuild's cache of prepared statements.
// It tells the dialect it binds statements in, so that the views' store
// (projections/viewstore) writes a row in its engine's terms.
type Execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	Dialect() Dialect
}

// ViewTx is a transaction that runs the views' statements, written once
// with SQLite's "?" markers, in its engine's dialect, and tells it
// (Dialect), so that a statement with a piece the engines spell apart is
// made in the right one.
//
// The database/sql transaction is not reachable through it: a holder of
// a ViewTx (the command layer) runs the views' statements through the
// methods below, the same ones the views' store calls, and nothing else.
type ViewTx struct {
	tx *sql.Tx
	d  Dialect
	// conn is the connection tx runs on where the recorded rows of a
	// group of writes go as one pipelined batch (PostgreSQL's), else nil.
	conn *sql.Conn
}

// NewViewTx is tx running statements in dialect d.
func NewViewTx(tx *sql.Tx, d Dialect) *ViewTx { return &ViewTx{tx: tx, d: d} }

// ViewsIn is the log's transaction ltx as the views' statements run in
// it, in its engine's dialect: the views reach it through its
// database/sql handle (SQLTx), as the log's port carries the log's
// operations alone.
func ViewsIn(ltx LogTx) *ViewTx {
	v := NewViewTx(SQLTx(ltx), ltx.Engine().Dialect())
	v.conn = pgConnOf(ltx)
	return v
}

// Dialect is the dialect the transaction's statements run in.
func (v *ViewTx) Dialect() Dialect { return v.d }

// QueryContext runs query in the transaction's dialect.
func (v *ViewTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return v.tx.QueryContext(ctx, v.d.Bind(query), v.d.Args(args)...)
}

// QueryRowContext runs query in the transaction's dialect.
func (v *ViewTx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return v.tx.QueryRowContext(ctx, v.d.Bind(query), v.d.Args(args)...)
}

// ExecContext runs query in the transaction's dialect.
func (v *ViewTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return v.tx.ExecContext(ctx, v.d.Bind(query), v.d.Args(args)...)
}

// PrepareContext prepares query, bound to the transaction's dialect.
func (v *ViewTx) PrepareContext(ctx context.Context, query string) (*sql.Stmt, error) {
	return v.tx.PrepareContext(ctx, v.d.Bind(query))
}

// EngineOf is the engine that keeps log, "" for a Log of neither engine
// (a test's fake): what the unit of work may remember and prepare
// depends on it.
func EngineOf(log Log) Engine {
	_, engine := SQLDB(log)
	return engine
}

var (
	_ Execer  = (*ViewTx)(nil)
	_ Querier = (*ViewTx)(nil)
)
