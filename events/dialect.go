package events

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// Dialect is one engine's SQL where it differs from the other's. herd
// writes each statement once, for both engines, with SQLite's "?"
// markers: Bind makes it the engine's, Args its arguments, and the few
// pieces the engines spell apart (the log's head, the larger of two
// values, a byte column's substring, a table's indexes, the log filter's
// expressions) come from the dialect. The views' statements (projections)
// and the log's own (Filter's) both take it from here, where the engines
// are. A Dialect comes from its engine (Engine.Dialect); the zero Dialect
// is none.
type Dialect struct {
	engine Engine
	// numbered is whether the engine's markers are numbered, $1, $2…,
	// rather than "?".
	numbered bool
	// head selects the log's head as one row, one column named head.
	head string
	// greatest is the function that picks the largest of its arguments.
	greatest string
	// containsBytes is the condition that a byte column (%[1]s) holds
	// a substring (%[2]s, a quoted literal): it is the WHERE clause of
	// the views' partial indexes, word for word.
	containsBytes string
	// bytes is a byte string literal's format, of its hex digits.
	bytes string
	// indexes selects a table's secondary indexes (name, statement).
	indexes string

	// The log filter's (Filter.sql):
	//
	// columns are recordColumns as the engine selects them.
	columns string
	// effects is the condition "the event is among the events the
	// argument led to", a recursive query over the causation index in the
	// engine's terms (an event id is text on SQLite and a uuid on
	// PostgreSQL, while a causation id is text on both).
	effects string
	// unindexed is what keeps the engine from taking a column's index
	// when it would read more through it than without: SQLite's unary +
	// (it plans without statistics); nothing for PostgreSQL, whose
	// statistics tell it.
	unindexed string
}

// sqliteDialect is SQLite's: metadata is JSON text (or NULL). The indexes
// of the log are migrations 0006_audit_indexes.sql's,
// 0008_audit_columns.sql's and 0009_causation_covers_the_walk.sql's.
var sqliteDialect = Dialect{
	engine:        EngineSQLite,
	head:          headQuery,
	greatest:      "MAX",
	containsBytes: `instr(CAST(%[1]s AS TEXT), %[2]s) > 0`,
	bytes:         `x'%s'`,
	indexes: `SELECT name, sql FROM sqlite_schema
WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL ORDER BY name`,
	columns: recordColumns,
	// The walk steps only forward in the log (a cause is appended before
	// what it causes), so it ends without a UNION's set of the events
	// seen, which cost SQLite a twentieth of the list. The causation
	// index carries the ids and positions the walk reads (migration
	// 0009), so that a generation is found in the index alone.
	effects: `position IN (WITH RECURSIVE effects(id, position) AS (
	SELECT event_id, position FROM events WHERE causation_id = ? AND causation_id <> ''
	UNION ALL
	SELECT events.event_id, events.position FROM effects JOIN events ON events.causation_id = +effects.id AND events.causation_id <> '' AND events.position > effects.position)
SELECT position FROM effects)`,
	unindexed: "+",
}

// pgDialect is PostgreSQL's: metadata is the JSON's bytes (bytea), or
// NULL; the actor and the causation id are columns of their own
// (migration 0008_audit_columns.sql). The head is log_head's, which agrees with
// the statement's snapshot (migration 0007_position_sequence.sql).
var pgDialect = Dialect{
	engine:        EnginePostgres,
	numbered:      true,
	head:          `SELECT position AS head FROM log_head WHERE id = 1`,
	greatest:      "GREATEST",
	containsBytes: `position(%[2]s::bytea IN %[1]s) > 0`,
	bytes:         `'\x%s'::bytea`,
	// Those behind a constraint (the primary key) are left out, as SQLite
	// gives them no statement.
	indexes: `SELECT i.indexname, i.indexdef FROM pg_indexes i
WHERE i.schemaname = current_schema() AND i.tablename = ?
  AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname) ORDER BY i.indexname`,
	columns: pgRecordColumns,
	// The walk gives the positions as an array, and the events are read
	// by them from the primary key, in position order: as a list IN the
	// walk, PostgreSQL merged the walk's positions with the whole log
	// read in position order, 200,000 events for 10,000 effects at its
	// end (BENCHMARKS.md, "What an event led to, on PostgreSQL"). Read
	// at their row addresses (ctid) instead, the events had to be sorted
	// by position afterwards, a sort that spilled to disk for 10,000 of
	// them and cost more wall time than the searches it saved
	// (BENCHMARKS.md, 2026-11-30). The walk steps only forward in the
	// log, as on SQLite, and carries ids as uuids, compared to causation
	// ids as text.
	effects: `position = ANY (ARRAY(WITH RECURSIVE effects(id, position) AS (
	SELECT event_id, position FROM events WHERE causation_id = ? AND causation_id <> ''
	UNION ALL
	SELECT caused.id, caused.position FROM effects, LATERAL (
		SELECT event_id AS id, position FROM events
		WHERE causation_id = effects.id::text AND causation_id <> '' AND position > effects.position OFFSET 0) AS caused)
SELECT position FROM effects))`,
}

// Dialect is the engine's SQL. An engine that is neither (a test's fake
// log, whose SQLDB names none) gets SQLite's, in which herd's statements
// are written.
func (e Engine) Dialect() Dialect {
	if e == EnginePostgres {
		return pgDialect
	}
	return sqliteDialect
}

// Engine is the engine whose SQL d is.
func (d Dialect) Engine() Engine { return d.engine }

// Bind is query, written with SQLite's "?" markers, in the engine's: on
// PostgreSQL "$1", "$2"… in order, leaving those inside quoted literals
// and identifiers alone. Each statement is rebound once: herd's are a
// fixed set.
func (d Dialect) Bind(query string) string {
	if !d.numbered {
		return query
	}
	if b, ok := bound.Load(query); ok {
		return b.(string)
	}
	b := rebind(query)
	bound.Store(query, b)
	return b
}

// bound are statements already rebound for PostgreSQL, by their SQLite
// text.
var bound sync.Map // string → string

// rebind turns SQLite's "?" markers into PostgreSQL's "$1", "$2"… in
// order, leaving those inside quoted literals and identifiers alone. A
// statement made for one request (a Filter's, whose IN list is as long
// as the request's) is rebound by it directly, not kept in bound.
func rebind(query string) string {
	if !strings.Contains(query, "?") {
		return query
	}
	var (
		out   strings.Builder
		n     int
		quote byte
	)
	out.Grow(len(query) + 16)
	for i := 0; i < len(query); i++ {
		c := query[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '?':
			n++
			out.WriteByte('$')
			out.WriteString(strconv.Itoa(n))
			continue
		}
		out.WriteByte(c)
	}
	return out.String()
}

// Limit is a LIMIT's argument in a statement written for both engines;
// LimitOf makes one.
type Limit int

// LimitOf is n as a LIMIT's argument: 0 or less means none, which SQLite
// spells -1 and PostgreSQL NULL (Args).
func LimitOf(n int) Limit {
	if n <= 0 {
		return -1
	}
	return Limit(n)
}

// Args are args as the engine's columns take them. SQLite takes them as
// they are. PostgreSQL takes a flag (a Go bool) as the 0 or 1 SQLite
// stores, which it keeps in a smallint so that one statement ("deleted =
// 0") serves both engines, and no Limit as NULL. args is copied only when
// something changes.
func (d Dialect) Args(args []any) []any {
	if !d.numbered {
		return args
	}
	var out []any
	for i, a := range args {
		var v any
		switch a := a.(type) {
		case bool:
			v = 0
			if a {
				v = 1
			}
		case Limit:
			if a > 0 {
				v = int(a)
			}
		default:
			if out != nil {
				out[i] = a
			}
			continue
		}
		if out == nil {
			out = append(make([]any, 0, len(args)), args...)
		}
		out[i] = v
	}
	if out == nil {
		return args
	}
	return out
}

// Head selects the log's head as one row of one column, head. Joined to
// view rows in one statement, the head agrees with the rows: on
// PostgreSQL it is log_head's, which stops short of any append the
// statement's snapshot does not see (see the architecture note).
func (d Dialect) Head() string { return d.head }

// AtHead selects the data column of the view rows rowsFrom selects
// together with the log head (ScanDataAtHead reads it): rowsFrom is what
// follows LEFT JOIN, a view table or subquery under the alias r, with
// its join condition if any, and its ORDER BY, such as "nodes r ON
// r.deleted = 0 ORDER BY r.name". The head comes back even when no row
// does.
func (d Dialect) AtHead(rowsFrom string) string {
	return `SELECT r.data, h.head FROM (` + d.head + `) h LEFT JOIN ` + rowsFrom
}

// Greatest is the largest of exprs: SQLite's MAX of several arguments,
// PostgreSQL's GREATEST. They differ on a NULL (SQLite's is NULL,
// PostgreSQL's passes it over), so herd's statements give them none.
func (d Dialect) Greatest(exprs ...string) string {
	return d.greatest + "(" + strings.Join(exprs, ", ") + ")"
}

// ContainsBytes is the condition that column, of bytes (a view row's
// JSON), holds substring: SQLite reads the bytes as text, PostgreSQL
// looks for the substring's bytes. It is written as the views' partial
// indexes are, word for word, so that a query repeating an index's
// condition is answered from it.
func (d Dialect) ContainsBytes(column, substring string) string {
	lit := substring
	if d.numbered {
		// bytea's escape input reads a backslash as the start of one.
		lit = strings.ReplaceAll(lit, `\`, `\\`)
	}
	return fmt.Sprintf(d.containsBytes, column, "'"+strings.ReplaceAll(lit, "'", "''")+"'")
}

// Bytes is b as a literal of the engine's byte strings.
func (d Dialect) Bytes(b []byte) string {
	return fmt.Sprintf(d.bytes, hex.EncodeToString(b))
}

// TableIndexes selects the secondary indexes of the table named by its
// one argument, with the statement that created each, in name order: the
// indexes a rebuild drops and creates again. Those behind the primary
// key (or another constraint) have no statement on SQLite and are not
// selected on either engine.
func (d Dialect) TableIndexes() string { return d.indexes }
