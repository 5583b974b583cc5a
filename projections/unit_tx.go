package projections

import (
	"database/sql"

	"herd/events"
)

// unitTx is one unit of work's transaction, seen two ways: the log's,
// through the storage port, for appending; and the same transaction as
// the SQLite views write it. The views are SQLite's alone for now: on
// another engine sql is nil, and a view that needs it fails its command.
type unitTx struct {
	log events.LogTx
	sql *sql.Tx
}

func newUnitTx(tx events.LogTx) unitTx { return unitTx{log: tx, sql: events.SQLiteTx(tx)} }
