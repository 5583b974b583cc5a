package projections

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"sync"

	"herd/events"
	"herd/projections/command"
)

// viewDB is the views' tables as one engine reads them outside a
// transaction: the log's pool with the engine's dialect. Its statements
// are written once, with SQLite's "?" markers; on PostgreSQL they are
// rebound to "$n" and their arguments made as PostgreSQL takes them
// (dialect.bind, dialect.args).
type viewDB struct {
	db *sql.DB
	d  dialect
}

// newViewDB is the views beside log, on whichever engine keeps it.
func newViewDB(log events.Log) *viewDB {
	db, engine := events.SQLDB(log)
	return &viewDB{db: db, d: dialectFor(engine)}
}

// dialectFor is an engine's dialect.
func dialectFor(e events.Engine) dialect {
	if e == events.EnginePostgres {
		return postgresDialect
	}
	return sqliteDialect
}

func (v *viewDB) sqlDialect() dialect { return v.d }

func (v *viewDB) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return v.db.QueryContext(ctx, v.d.bind(query), v.d.args(args)...)
}

func (v *viewDB) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return v.db.QueryRowContext(ctx, v.d.bind(query), v.d.args(args)...)
}

func (v *viewDB) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return v.db.ExecContext(ctx, v.d.bind(query), v.d.args(args)...)
}

// viewTx is a transaction that knows its engine's dialect, so that a
// view whose statements are made from a viewSchema picks the right ones
// (dialectOf).
type viewTx = command.ViewTx

// unitTx is one unit of work's transaction: the log's and the views'.
type unitTx = command.Tx

// newUnitTx is ltx as a unit of work's transaction, in its engine's
// dialect.
func newUnitTx(ltx events.LogTx) unitTx { return command.NewTx(ltx, dialectFor(ltx.Engine())) }

// newViewTx is ltx as the views' statements run in it.
func newViewTx(ltx events.LogTx) *viewTx { return newUnitTx(ltx).Views() }

// Bind and Args make a dialect the unit of work's (command.Dialect).
func (d dialect) Bind(query string) string { return d.bind(query) }

// Args turns a statement's arguments into the engine's.
func (d dialect) Args(args []any) []any { return d.args(args) }

// dialectOf is the dialect of the statements q runs: its own when it
// knows it (the views, a unit of work's transaction or recorder), else
// SQLite's, which every other reader and writer of the views is.
func dialectOf(q any) dialect {
	switch x := q.(type) {
	case interface{ sqlDialect() dialect }:
		return x.sqlDialect()
	case interface{ Dialect() command.Dialect }:
		if d, ok := x.Dialect().(dialect); ok {
			return d
		}
	}
	return sqliteDialect
}

var (
	_ execer         = (*viewTx)(nil)
	_ events.Querier = (*viewTx)(nil)
)

// limitArg is a LIMIT's argument: 0 or less is no limit, which SQLite
// spells -1 and PostgreSQL NULL.
type limitArg int

// bound are statements already rebound for PostgreSQL, by their SQLite
// text: the views' statements are a fixed set, made once each.
var bound sync.Map // string → string

// rebindPostgres turns SQLite's "?" markers into PostgreSQL's "$1", "$2"…
// in order, leaving those inside quoted literals and identifiers alone.
func rebindPostgres(query string) string {
	if b, ok := bound.Load(query); ok {
		return b.(string)
	}
	if !strings.Contains(query, "?") {
		bound.Store(query, query)
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
	b := out.String()
	bound.Store(query, b)
	return b
}

// postgresArgs are args as PostgreSQL's columns take them: a flag (a Go
// bool) as the 0 or 1 SQLite stores, which PostgreSQL keeps in a smallint
// so that one statement ("deleted = 0") serves both engines; no limit as
// NULL. args is copied only when something changes.
func postgresArgs(args []any) []any {
	var out []any
	for i, a := range args {
		var v any
		switch a := a.(type) {
		case bool:
			v = 0
			if a {
				v = 1
			}
		case limitArg:
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
