package viewstore

import (
	"strings"

	"herd/events"
)

// Schema describes one view table once: the columns that key its rows,
// in the order lists page by them; the columns kept beside the data for
// queries; and the data column itself. The statements every view needs —
// get a row by key, upsert it, the rows after a key — are made from it
// once for both engines, with "?" markers (events.Dialect binds them),
// rather than written by hand per table. The engine implementations of
// Store and Leases build theirs from it, and only they see them.
type Schema struct {
	Table string
	// Keys are the primary key's columns, in list order.
	Keys []string
	// Columns are the others, data last by convention of the statements.
	Columns []string
}

// getSQL selects cols of the row with the given keys.
func (v Schema) getSQL(cols ...string) string {
	return "SELECT " + strings.Join(cols, ", ") + " FROM " + v.Table + " WHERE " + v.keyIs()
}

// keyIs is the condition that a row's keys are the arguments.
func (v Schema) keyIs() string {
	where := make([]string, len(v.Keys))
	for i, k := range v.Keys {
		where[i] = k + " = ?"
	}
	return strings.Join(where, " AND ")
}

// upsertSQL writes a row: its keys, then its columns, as arguments in
// that order.
func (v Schema) upsertSQL() string {
	all := append(append([]string{}, v.Keys...), v.Columns...)
	set := make([]string, len(v.Columns))
	for i, c := range v.Columns {
		set[i] = c + " = excluded." + c
	}
	return "INSERT INTO " + v.Table + " (" + strings.Join(all, ", ") + ") VALUES (" +
		markers(len(all)) + ") ON CONFLICT (" + strings.Join(v.Keys, ", ") +
		") DO UPDATE SET " + strings.Join(set, ", ")
}

// deleteSQL removes the row with the given keys.
func (v Schema) deleteSQL() string {
	return "DELETE FROM " + v.Table + " WHERE " + v.keyIs()
}

// rowsAfterSQL selects the keys and cols of up to a limit of rows whose
// keys sort after the given ones, in key order: the keys, then the limit,
// as arguments.
func (v Schema) rowsAfterSQL(cols ...string) string {
	keys := strings.Join(v.Keys, ", ")
	after := markers(len(v.Keys))
	if len(v.Keys) > 1 {
		keys, after = "("+keys+")", "("+after+")"
	}
	return "SELECT " + strings.Join(append(append([]string{}, v.Keys...), cols...), ", ") + " FROM " + v.Table +
		" WHERE " + keys + " > " + after + " ORDER BY " + strings.Join(v.Keys, ", ") +
		" LIMIT ?"
}

// markers are n arguments' markers, separated by commas.
func markers(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

// rowsAtHeadSQL is rowsAfterSQL's rows' data joined to the log's head in
// one statement in engine d's terms, so that the rows are as the log
// left them at that head (events.ScanDataAtHead reads it); the head comes
// back even when no row does. Its arguments are rowsAfterSQL's.
func (v Schema) rowsAtHeadSQL(d events.Dialect) string {
	return d.AtHead("(" + v.rowsAfterSQL("data") + ") r ON true ORDER BY " + v.rowOrder())
}

// rowOrder orders rows joined under the alias r by their keys.
func (v Schema) rowOrder() string {
	order := make([]string, len(v.Keys))
	for i, k := range v.Keys {
		order[i] = "r." + k
	}
	return strings.Join(order, ", ")
}
