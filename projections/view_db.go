package projections

import (
	"herd/events"
	"herd/projections/command"
	"herd/projections/viewstore"
)

// viewTx is a transaction that knows its engine's dialect
// (events.ViewTx).
type viewTx = events.ViewTx

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
	_ execer         = (*viewstore.DB)(nil)
	_ events.Querier = (*viewstore.DB)(nil)
)
