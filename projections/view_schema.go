package projections

import (
	"strings"

	"herd/events"
)

// viewSchema describes one view table once: the columns that key its
// rows, in the order lists page by them; the columns kept beside the data
// for queries; and the data column itself. The statements every view
// needs — get a row by key, upsert it, the rows after a key — are made
// from it once for both engines, with "?" markers (events.Dialect binds
// them), rather than written by hand per table.
type viewSchema struct {
	table string
	// keys are the primary key's columns, in list order.
	keys []string
	// columns are the others, data last by convention of the statements.
	columns []string
}

// getSQL selects cols of the row with the given keys.
func (v viewSchema) getSQL(cols ...string) string {
	where := make([]string, len(v.keys))
	for i, k := range v.keys {
		where[i] = k + " = ?"
	}
	return "SELECT " + strings.Join(cols, ", ") + " FROM " + v.table + " WHERE " + strings.Join(where, " AND ")
}

// upsertSQL writes a row: its keys, then its columns, as arguments in
// that order.
func (v viewSchema) upsertSQL() string {
	all := append(append([]string{}, v.keys...), v.columns...)
	set := make([]string, len(v.columns))
	for i, c := range v.columns {
		set[i] = c + " = excluded." + c
	}
	return "INSERT INTO " + v.table + " (" + strings.Join(all, ", ") + ") VALUES (" +
		markers(len(all)) + ") ON CONFLICT (" + strings.Join(v.keys, ", ") +
		") DO UPDATE SET " + strings.Join(set, ", ")
}

// rowsAfterSQL selects the keys and cols of up to a limit of rows whose
// keys sort after the given ones, in key order: the keys, then the limit,
// as arguments.
func (v viewSchema) rowsAfterSQL(cols ...string) string {
	keys := strings.Join(v.keys, ", ")
	after := markers(len(v.keys))
	if len(v.keys) > 1 {
		keys, after = "("+keys+")", "("+after+")"
	}
	return "SELECT " + strings.Join(append(append([]string{}, v.keys...), cols...), ", ") + " FROM " + v.table +
		" WHERE " + keys + " > " + after + " ORDER BY " + strings.Join(v.keys, ", ") +
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
func (v viewSchema) rowsAtHeadSQL(d events.Dialect) string {
	order := make([]string, len(v.keys))
	for i, k := range v.keys {
		order[i] = "r." + k
	}
	return d.AtHead("(" + v.rowsAfterSQL("data") + ") r ON true ORDER BY " + strings.Join(order, ", "))
}
