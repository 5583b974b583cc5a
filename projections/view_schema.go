package projections

import (
	"strconv"
	"strings"
)

// viewSchema describes one view table once: the columns that key its
// rows, in the order lists page by them; the columns kept beside the data
// for queries; and the data column itself. The statements every view
// needs — get a row by key, upsert it, the rows after a key — are made
// from it in each engine's dialect, rather than written by hand per table
// and per engine.
type viewSchema struct {
	table string
	// keys are the primary key's columns, in list order.
	keys []string
	// columns are the others, data last by convention of the statements.
	columns []string
}

// dialect is what differs between the engines' SQL here.
type dialect struct {
	// name is the engine's.
	name string
	// placeholder is the n-th argument's marker, from 1.
	placeholder func(n int) string
	// head selects the log's head as one row, one column named head.
	head string
	// bind turns a statement written with SQLite's "?" markers into the
	// engine's; args turns its arguments into the engine's (view_db.go).
	bind func(query string) string
	args func(args []any) []any
	// greatest is the function that picks the largest of its arguments.
	greatest string
}

var (
	sqliteDialect = dialect{
		name:        "sqlite",
		placeholder: func(int) string { return "?" },
		head:        `SELECT COALESCE(MAX(position), 0) AS head FROM events`,
		bind:        func(q string) string { return q },
		args:        func(a []any) []any { return a },
		greatest:    "MAX",
	}
	postgresDialect = dialect{
		name:        "postgres",
		placeholder: func(n int) string { return "$" + strconv.Itoa(n) },
		head:        `SELECT position AS head FROM log_head WHERE id = 1`,
		bind:        rebindPostgres,
		args:        postgresArgs,
		greatest:    "GREATEST",
	}
)

// placeholders are the markers of arguments from..from+n-1.
func (d dialect) placeholders(from, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = d.placeholder(from + i)
	}
	return out
}

// getSQL selects cols of the row with the given keys.
func (v viewSchema) getSQL(d dialect, cols ...string) string {
	where := make([]string, len(v.keys))
	for i, k := range v.keys {
		where[i] = k + " = " + d.placeholder(i+1)
	}
	return "SELECT " + strings.Join(cols, ", ") + " FROM " + v.table + " WHERE " + strings.Join(where, " AND ")
}

// upsertSQL writes a row: its keys, then its columns, as arguments in
// that order.
func (v viewSchema) upsertSQL(d dialect) string {
	all := append(append([]string{}, v.keys...), v.columns...)
	set := make([]string, len(v.columns))
	for i, c := range v.columns {
		set[i] = c + " = excluded." + c
	}
	return "INSERT INTO " + v.table + " (" + strings.Join(all, ", ") + ") VALUES (" +
		strings.Join(d.placeholders(1, len(all)), ", ") + ") ON CONFLICT (" + strings.Join(v.keys, ", ") +
		") DO UPDATE SET " + strings.Join(set, ", ")
}

// rowsAfterSQL selects the keys and cols of up to a limit of rows whose
// keys sort after the given ones, in key order: the keys, then the limit,
// as arguments.
func (v viewSchema) rowsAfterSQL(d dialect, cols ...string) string {
	keys := strings.Join(v.keys, ", ")
	after := strings.Join(d.placeholders(1, len(v.keys)), ", ")
	if len(v.keys) > 1 {
		keys, after = "("+keys+")", "("+after+")"
	}
	return "SELECT " + strings.Join(append(append([]string{}, v.keys...), cols...), ", ") + " FROM " + v.table +
		" WHERE " + keys + " > " + after + " ORDER BY " + strings.Join(v.keys, ", ") +
		" LIMIT " + d.placeholder(len(v.keys)+1)
}

// rowsAtHeadSQL is rowsAfterSQL's rows' data joined to the log's head in
// one statement, so that the rows are as the log left them at that head
// (events.ScanDataAtHead reads it); the head comes back even when no row
// does. Its arguments are rowsAfterSQL's.
func (v viewSchema) rowsAtHeadSQL(d dialect) string {
	order := make([]string, len(v.keys))
	for i, k := range v.keys {
		order[i] = "r." + k
	}
	return "SELECT r.data, h.head FROM (" + d.head + ") h LEFT JOIN (" + v.rowsAfterSQL(d, "data") +
		") r ON true ORDER BY " + strings.Join(order, ", ")
}
