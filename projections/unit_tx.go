package projections

import (
	"database/sql"

	"herd/events"
)

// unitTx is one unit of work's transaction, seen two ways: the log's,
// through the storage port, for appending; and the same transaction as
// the views write it (database/sql on either engine), with the dialect
// of its engine.
type unitTx struct {
	log events.LogTx
	sql *sql.Tx
	// v is sql with its dialect, made once per transaction: a pointer,
	// so that handing it to the views as an execer allocates nothing.
	v *viewTx
}

func newUnitTx(tx events.LogTx) unitTx {
	d := sqliteDialect
	if tx.Engine() == events.EnginePostgres {
		d = postgresDialect
	}
	sqlTx := events.SQLTx(tx)
	return unitTx{log: tx, sql: sqlTx, v: &viewTx{Tx: sqlTx, d: d}}
}

// views is the transaction as the views' statements run in it.
func (tx unitTx) views() *viewTx { return tx.v }

// viewTx is a transaction that knows its engine's dialect, so that a
// view whose statements are made from a viewSchema picks the right ones
// (dialectOf).
type viewTx struct {
	*sql.Tx
	d dialect
}

func (v viewTx) sqlDialect() dialect { return v.d }

// dialectOf is the dialect of the statements q runs: its own when it
// knows it (a viewTx), else SQLite's, which every other reader and writer
// of the views is.
func dialectOf(q any) dialect {
	if d, ok := q.(interface{ sqlDialect() dialect }); ok {
		return d.sqlDialect()
	}
	return sqliteDialect
}

var (
	_ execer         = (*viewTx)(nil)
	_ events.Querier = (*viewTx)(nil)
)
