package projections

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"sync"

	"herd/events"
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

// QueryContext, QueryRowContext, ExecContext and PrepareContext of a
// transaction run its statements in its engine's dialect.
func (v *viewTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return v.Tx.QueryContext(ctx, v.d.bind(query), v.d.args(args)...)
}

func (v *viewTx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return v.Tx.QueryRowContext(ctx, v.d.bind(query), v.d.args(args)...)
}

func (v *viewTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return v.Tx.ExecContext(ctx, v.d.bind(query), v.d.args(args)...)
}

func (v *viewTx) PrepareContext(ctx context.Context, query string) (*sql.Stmt, error) {
	return v.Tx.PrepareContext(ctx, v.d.bind(query))
}

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
