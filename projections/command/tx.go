package command

import (
	"herd/events"
)

// Tx is one unit of work's transaction, seen two ways: the log's,
// through the storage port, for appending; and the same transaction as
// the views write it (events.ViewTx), in the dialect of its engine. It
// is all a command's kind is handed inside a group commit: nothing
// inside the group's transaction may take a second connection from the
// pool (see groupCommit.runReady).
type Tx struct {
	log events.LogTx
	// v is the transaction as the views write it, made once per
	// transaction: a pointer, so that handing it to the views as an
	// execer allocates nothing.
	v *events.ViewTx
}

// NewTx is ltx as a unit of work's transaction, its view statements in
// its engine's dialect. The views' rows are written in the transaction
// that appends their events, so that both commit as one.
func NewTx(ltx events.LogTx) Tx {
	return Tx{log: ltx, v: events.ViewsIn(ltx)}
}

// Views is the transaction as the views' statements run in it.
func (tx Tx) Views() *events.ViewTx { return tx.v }

// Log is the transaction as the log appends (and deletes) in it.
func (tx Tx) Log() events.LogTx { return tx.log }
