package projections

import (
	"database/sql"

	"herd/events"
)

// unitTx is one unit of work's transaction, seen two ways: the log's,
// through the storage port, for appending; and the same transaction as
// the views write it (database/sql on either engine). The views' own
// statements are SQLite's for now, but for those made from a viewSchema.
type unitTx struct {
	log events.LogTx
	sql *sql.Tx
}

func newUnitTx(tx events.LogTx) unitTx { return unitTx{log: tx, sql: events.SQLTx(tx)} }
