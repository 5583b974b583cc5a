package projections

import (
	"herd/events"
	"herd/projections/command"
	"herd/projections/viewstore"
)

// viewDB is the views' tables as one engine reads them outside a
// transaction: the log's pool with the engine's dialect (viewstore.DB,
// which holds the pool's database/sql handle and binds the views'
// statements in the engine's dialect).
type viewDB = viewstore.DB

// newViewDB is the views beside log, on whichever engine keeps it
// (viewstore.NewDB: projections' one reach past the log's port for its
// database, through events.SQLDB).
func newViewDB(log events.Log) *viewDB { return viewstore.NewDB(log) }

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
	_ execer         = (*viewDB)(nil)
	_ events.Querier = (*viewDB)(nil)
)
