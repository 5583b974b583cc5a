package events_test

import (
	"bytes"
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"herd/events"
	"herd/events/eventstest"
	"herd/events/pgtest"
)

func TestDialectBindNumbersPostgresMarkersOutsideQuotes(t *testing.T) {
	for _, c := range []struct{ in, sqlite, postgres string }{
		{`SELECT 1`, `SELECT 1`, `SELECT 1`},
		{`SELECT a FROM t WHERE a = ? AND b > ? LIMIT ?`, `SELECT a FROM t WHERE a = ? AND b > ? LIMIT ?`,
			`SELECT a FROM t WHERE a = $1 AND b > $2 LIMIT $3`},
		// A "?" in a literal or a quoted identifier is not a marker.
		{`SELECT '?', "a?b" FROM t WHERE c = ? AND d = 'it''s ?'`, `SELECT '?', "a?b" FROM t WHERE c = ? AND d = 'it''s ?'`,
			`SELECT '?', "a?b" FROM t WHERE c = $1 AND d = 'it''s ?'`},
		{`VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, `VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			`VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`},
	} {
		if got := events.EngineSQLite.Dialect().Bind(c.in); got != c.sqlite {
			t.Errorf("SQLite's Bind(%q) = %q, want %q", c.in, got, c.sqlite)
		}
		for range 2 { // the second from what the first kept
			if got := events.EnginePostgres.Dialect().Bind(c.in); got != c.postgres {
				t.Errorf("PostgreSQL's Bind(%q) = %q, want %q", c.in, got, c.postgres)
			}
		}
	}
}

func TestDialectArgsAreAsEachEngineTakesThem(t *testing.T) {
	data := []byte("x")
	args := []any{"a", true, false, events.LimitOf(0), events.LimitOf(-3), events.LimitOf(5), int64(7), data}
	sqlite := events.EngineSQLite.Dialect().Args(args)
	if diff := cmp.Diff([]any{"a", true, false, events.Limit(-1), events.Limit(-1), events.Limit(5), int64(7), data}, sqlite); diff != "" {
		t.Errorf("SQLite's Args (-want +got):\n%s", diff)
	}
	pg := events.EnginePostgres.Dialect().Args(args)
	if diff := cmp.Diff([]any{"a", 1, 0, nil, nil, 5, int64(7), data}, pg); diff != "" {
		t.Errorf("PostgreSQL's Args (-want +got):\n%s", diff)
	}
	if args[1] != true || args[3] != events.LimitOf(0) {
		t.Errorf("Args changed its argument: %v", args)
	}
	plain := []any{"a", int64(1)}
	if got := events.EnginePostgres.Dialect().Args(plain); &got[0] != &plain[0] {
		t.Error("PostgreSQL's Args copied arguments it had nothing to change in")
	}
}

func TestDialectOfAnEngine(t *testing.T) {
	for _, c := range []struct{ engine, want events.Engine }{
		{events.EngineSQLite, events.EngineSQLite},
		{events.EnginePostgres, events.EnginePostgres},
		{"", events.EngineSQLite}, // a fake log's: herd's statements are written in SQLite's
	} {
		if got := c.engine.Dialect().Engine(); got != c.want {
			t.Errorf("Engine(%q).Dialect().Engine() = %q, want %q", c.engine, got, c.want)
		}
	}
}

// dialectEngine is one engine's log and the pool beside it, with a
// scratch table of view-like rows whose column types are the engine's.
type dialectEngine struct {
	name  string
	log   events.Log
	db    *sql.DB
	table string
}

func sqliteDialectEngine(t *testing.T) dialectEngine {
	s, err := events.Open(t.Context(), events.Config{Path: filepath.Join(t.TempDir(), "herd.db")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return dialectEngine{name: "sqlite", log: s.Log(), db: s.DB(),
		table: `CREATE TABLE dialect_rows (k TEXT NOT NULL PRIMARY KEY, flag INTEGER NOT NULL, n INTEGER NOT NULL, data BLOB NOT NULL)`}
}

func postgresDialectEngine(t *testing.T) dialectEngine {
	l := eventstest.OpenPostgres(t, pgtest.URL(t))
	db, _ := events.SQLDB(l)
	return dialectEngine{name: "postgres", log: l, db: db,
		table: `CREATE TABLE dialect_rows (k TEXT COLLATE "C" NOT NULL PRIMARY KEY, flag SMALLINT NOT NULL, n BIGINT NOT NULL, data BYTEA NOT NULL)`}
}

// TestDialectStatementsRunOnEveryEngine holds each statement shape the
// dialect builds to what it says, on a real SQLite file and a real
// PostgreSQL: a statement written once with "?" markers and Go
// arguments (flags, limits) bound and run; "?" in a literal left alone;
// the larger of two values; a substring of a byte column, quotes and
// backslashes included; a byte literal; view rows joined to the log's
// head; a table's secondary indexes; and the log filter's expressions
// (actor, causation, effects, several types, all types but some).
func TestDialectStatementsRunOnEveryEngine(t *testing.T) {
	for _, open := range []func(*testing.T) dialectEngine{sqliteDialectEngine, postgresDialectEngine} {
		e := open(t)
		t.Run(e.name, func(t *testing.T) {
			ctx := t.Context()
			_, engine := events.SQLDB(e.log)
			d := engine.Dialect()
			if d.Engine() != events.Engine(e.name) {
				t.Fatalf("the log's dialect is %q", d.Engine())
			}
			exec := func(q string, args ...any) {
				t.Helper()
				if _, err := e.db.ExecContext(ctx, d.Bind(q), d.Args(args)...); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			strs := func(q string, args ...any) []string {
				t.Helper()
				rows, err := e.db.QueryContext(ctx, d.Bind(q), d.Args(args)...)
				if err != nil {
					t.Fatalf("%s: %v", q, err)
				}
				defer rows.Close()
				var out []string
				for rows.Next() {
					var s string
					if err := rows.Scan(&s); err != nil {
						t.Fatalf("%s: %v", q, err)
					}
					out = append(out, s)
				}
				if err := rows.Err(); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
				return out
			}
			exec(e.table)
			exec(`CREATE INDEX dialect_rows_by_n ON dialect_rows (n)`)
			upsert := `INSERT INTO dialect_rows (k, flag, n, data) VALUES (?, ?, ?, ?)
ON CONFLICT (k) DO UPDATE SET flag = excluded.flag, n = excluded.n, data = excluded.data`
			exec(upsert, "a", true, int64(5), []byte(`{"x":1}`))
			exec(upsert, "b", false, int64(9), []byte(`{"note":"it's a \ here"}`))
			exec(upsert, "c", true, int64(1), []byte{0, 1, 2})
			exec(upsert, "a", true, int64(3), []byte(`{"x":2}`))

			// Flags and limits.
			if got := strs(`SELECT k FROM dialect_rows WHERE flag = ? ORDER BY k LIMIT ?`, true, events.LimitOf(0)); !cmp.Equal(got, []string{"a", "c"}) {
				t.Errorf("flagged rows, no limit: %v, want [a c]", got)
			}
			if got := strs(`SELECT k FROM dialect_rows WHERE flag = ? ORDER BY k LIMIT ?`, false, events.LimitOf(5)); !cmp.Equal(got, []string{"b"}) {
				t.Errorf("unflagged rows: %v, want [b]", got)
			}
			if got := strs(`SELECT k FROM dialect_rows WHERE k > ? ORDER BY k LIMIT ?`, "a", events.LimitOf(1)); !cmp.Equal(got, []string{"b"}) {
				t.Errorf("one row after a: %v, want [b]", got)
			}
			// A "?" in a literal is the literal's.
			if got := strs(`SELECT '?' || k FROM dialect_rows WHERE k = ?`, "c"); !cmp.Equal(got, []string{"?c"}) {
				t.Errorf("a ? in a literal: %v, want [?c]", got)
			}
			// The larger of two values.
			var n int64
			if err := e.db.QueryRowContext(ctx, d.Bind(`SELECT `+d.Greatest("n", "COALESCE(?, 0)")+` FROM dialect_rows WHERE k = ?`),
				int64(4), "a").Scan(&n); err != nil || n != 4 {
				t.Errorf("Greatest(3, 4) = %d, %v; want 4", n, err)
			}
			if err := e.db.QueryRowContext(ctx, d.Bind(`SELECT `+d.Greatest("n", "COALESCE(?, 0)")+` FROM dialect_rows WHERE k = ?`),
				int64(4), "b").Scan(&n); err != nil || n != 9 {
				t.Errorf("Greatest(9, 4) = %d, %v; want 9", n, err)
			}
			// A substring of the bytes.
			for _, c := range []struct {
				sub  string
				want []string
			}{
				{`"x":`, []string{"a"}},
				{`it's a \ here`, []string{"b"}},
				{`"`, []string{"a", "b"}},
				{`nowhere`, nil},
			} {
				if got := strs(`SELECT k FROM dialect_rows WHERE ` + d.ContainsBytes("data", c.sub) + ` ORDER BY k`); !cmp.Equal(got, c.want) {
					t.Errorf("rows whose data holds %q: %v, want %v", c.sub, got, c.want)
				}
			}
			// Byte literals.
			var b []byte
			if err := e.db.QueryRowContext(ctx, `SELECT data || `+d.Bytes([]byte{0, 0xff})+` || `+d.Bytes(nil)+` FROM dialect_rows WHERE k = 'c'`).Scan(&b); err != nil ||
				!bytes.Equal(b, []byte{0, 1, 2, 0, 0xff}) {
				t.Errorf("data || 00ff || empty = %x, %v; want 00010200ff", b, err)
			}
			// A table's secondary indexes, the primary key's left out.
			var names []string
			rows, err := e.db.QueryContext(ctx, d.Bind(d.TableIndexes()), "dialect_rows")
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var name, stmt string
				if err := rows.Scan(&name, &stmt); err != nil {
					t.Fatal(err)
				}
				if !bytes.Contains([]byte(stmt), []byte("dialect_rows")) {
					t.Errorf("index %s's statement %q", name, stmt)
				}
				names = append(names, name)
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			if !cmp.Equal(names, []string{"dialect_rows_by_n"}) {
				t.Errorf("the table's secondary indexes: %v, want [dialect_rows_by_n]", names)
			}

			// The log's events, for its head and its filter.
			at := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
			appendOne := func(stream, typ string, md events.Metadata) events.Record {
				t.Helper()
				tx, err := e.log.Begin(ctx)
				if err != nil {
					t.Fatal(err)
				}
				defer func() { _ = tx.Rollback() }()
				recs, err := tx.Append(ctx, stream, 0, md, at, events.NewEvent{Type: typ, Payload: []byte(`{}`)})
				if err != nil {
					t.Fatal(err)
				}
				if err := tx.Commit(); err != nil {
					t.Fatal(err)
				}
				return recs[0]
			}
			root := appendOne("thing/root", "Started", events.Metadata{Actor: "alice"})
			child := appendOne("thing/child", "Moved", events.Metadata{Actor: "bob", CausationID: root.ID})
			grandchild := appendOne("thing/grandchild", "Stopped", events.Metadata{Actor: "bob", CausationID: child.ID})
			appendOne("thing/other", "Moved", events.Metadata{Actor: "carol"})
			head, err := e.log.Head(ctx)
			if err != nil {
				t.Fatal(err)
			}

			// View rows at the log's head, and the head with no row.
			data, gotHead, err := events.ScanDataAtHead(mustQuery(ctx, t, e.db, d.Bind(d.AtHead(`dialect_rows r ON r.flag = ? ORDER BY r.k`)), d.Args([]any{true})...))
			if err != nil || gotHead != head || len(data) != 2 || string(data[0]) != `{"x":2}` {
				t.Errorf("flagged rows at head: %q, head %d, %v; want a's and c's data at head %d", data, gotHead, err, head)
			}
			data, gotHead, err = events.ScanDataAtHead(mustQuery(ctx, t, e.db, d.Bind(d.AtHead(`dialect_rows r ON r.k = ? ORDER BY r.k`)), "none"))
			if err != nil || gotHead != head || len(data) != 0 {
				t.Errorf("no row at head: %q, head %d, %v; want none at head %d", data, gotHead, err, head)
			}

			// The log filter's expressions.
			for _, c := range []struct {
				name   string
				filter events.Filter
				want   []int64
			}{
				{"actor", events.Filter{Actor: "bob"}, []int64{child.Position, grandchild.Position}},
				{"causation", events.Filter{CausationID: root.ID}, []int64{child.Position}},
				{"effects", events.Filter{CausedBy: root.ID}, []int64{child.Position, grandchild.Position}},
				{"types", events.Filter{StreamPrefix: "thing/", Types: []string{"Started", "Stopped"}}, []int64{root.Position, grandchild.Position}},
				{"all types but some", events.Filter{StreamPrefix: "thing/", ExceptTypes: []string{"Moved", "Stopped"}, After: 0, Limit: 5}, []int64{root.Position}},
				{"all types but one, from a position", events.Filter{StreamPrefix: "thing/", ExceptTypes: []string{"Started"}, After: root.Position, Before: grandchild.Position}, []int64{child.Position}},
			} {
				recs, err := e.log.Query(ctx, c.filter)
				if err != nil {
					t.Fatalf("%s: %v", c.name, err)
				}
				var got []int64
				for _, r := range recs {
					got = append(got, r.Position)
				}
				if !cmp.Equal(got, c.want) {
					t.Errorf("%s: positions %v, want %v", c.name, got, c.want)
				}
			}
		})
	}
}

func mustQuery(ctx context.Context, t *testing.T, db *sql.DB, q string, args ...any) *sql.Rows {
	t.Helper()
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return rows
}
