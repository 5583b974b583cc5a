package events_test

import (
	"fmt"
	"testing"

	"herd/events"
)

// TestARecordedStatementRunsWithThePositionsItsAppendTook: a view
// statement recorded before its write's events had positions, with a
// placeholder as an argument of its own and inside a row's JSON, runs in
// the transaction that appended them with their positions in place of
// the placeholders, on each engine: on SQLite through a statement
// prepared on the pool beforehand, on PostgreSQL by its text, bound to
// its markers. A number that is no placeholder of the write is left as
// it is.
func TestARecordedStatementRunsWithThePositionsItsAppendTook(t *testing.T) {
	for _, e := range []struct {
		name string
		open func(t *testing.T) events.Log
		blob string
	}{
		{"sqlite", func(t *testing.T) events.Log { s, _ := openSQLite(t); return s.Log() }, "BLOB"},
		{"postgres", func(t *testing.T) events.Log { l, _ := openPostgres(t); return l }, "BYTEA"},
	} {
		t.Run(e.name, func(t *testing.T) {
			ctx := t.Context()
			log := e.open(t)
			db, engine := events.SQLDB(log)
			if _, err := db.ExecContext(ctx, `CREATE TABLE recorded_rows (k TEXT PRIMARY KEY, pos BIGINT NOT NULL, other BIGINT NOT NULL, data `+e.blob+` NOT NULL)`); err != nil {
				t.Fatal(err)
			}
			stmts := events.NewViewStatements(log)
			if (stmts != nil) != (engine == events.EngineSQLite) {
				t.Fatalf("statements prepared beforehand on %s: %v, want them on SQLite alone", engine, stmts != nil)
			}

			rec := events.NewRecorder(engine.Dialect(), 2)
			notOne := events.PlaceholderBase + 2 // the write has two events
			for i, k := range []string{"first", "second"} {
				p := events.PlaceholderBase + int64(i)
				data := fmt.Appendf(nil, `{"rv":"%d","also":"%d","n":%d}`, p, events.PlaceholderBase+1, i)
				if _, err := rec.ExecContext(ctx, `INSERT INTO recorded_rows (k, pos, other, data) VALUES (?, ?, ?, ?)`, k, p, notOne, data); err != nil {
					t.Fatal(err)
				}
			}
			recorded := rec.Statements()
			if len(recorded) != 2 {
				t.Fatalf("%d statements recorded, want 2", len(recorded))
			}
			if err := stmts.PrepareRecorded(ctx, recorded); err != nil {
				t.Fatal(err)
			}

			ltx, err := log.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = ltx.Rollback() }()
			// Another stream first, so that the write's positions are not
			// its versions.
			if _, err := ltx.Append(ctx, "recorded/before", 0, events.Metadata{}, at, events.NewEvent{Type: "Set", Payload: []byte(`{}`)}); err != nil {
				t.Fatal(err)
			}
			recs, err := ltx.Append(ctx, "recorded/a", 0, events.Metadata{}, at,
				events.NewEvent{Type: "Set", Payload: []byte(`{"n":0}`)}, events.NewEvent{Type: "Set", Payload: []byte(`{"n":1}`)})
			if err != nil {
				t.Fatal(err)
			}
			views, in := events.ViewsIn(ltx), events.TxStatements{}
			for _, s := range recorded {
				if err := views.ExecRecorded(ctx, in, s, recs); err != nil {
					t.Fatal(err)
				}
			}
			if err := ltx.Commit(); err != nil {
				t.Fatal(err)
			}

			rows, err := db.QueryContext(ctx, `SELECT k, pos, other, data FROM recorded_rows ORDER BY k`)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = rows.Close() }()
			var got []string
			for rows.Next() {
				var k string
				var pos, other int64
				var data []byte
				if err := rows.Scan(&k, &pos, &other, &data); err != nil {
					t.Fatal(err)
				}
				got = append(got, fmt.Sprintf("%s %d %d %s", k, pos, other, data))
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			p0, p1 := recs[0].Position, recs[1].Position
			want := []string{
				fmt.Sprintf(`first %d %d {"rv":"%d","also":"%d","n":0}`, p0, notOne, p0, p1),
				fmt.Sprintf(`second %d %d {"rv":"%d","also":"%d","n":1}`, p1, notOne, p1, p1),
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("rows:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

// TestRecordedWritesRunInOrderAndTellWhichFailed: the rows of a group's
// writes run together (on PostgreSQL one pipelined batch) in order, each
// with its own write's positions, so that a later row overwrites an
// earlier one; a row that fails names its write, and the transaction
// commits none of the rows.
func TestRecordedWritesRunInOrderAndTellWhichFailed(t *testing.T) {
	for _, e := range []struct {
		name string
		open func(t *testing.T) events.Log
	}{
		{"sqlite", func(t *testing.T) events.Log { s, _ := openSQLite(t); return s.Log() }},
		{"postgres", func(t *testing.T) events.Log { l, _ := openPostgres(t); return l }},
	} {
		t.Run(e.name, func(t *testing.T) {
			ctx := t.Context()
			log := e.open(t)
			db, engine := events.SQLDB(log)
			if _, err := db.ExecContext(ctx, `CREATE TABLE recorded_writes (k TEXT PRIMARY KEY, pos BIGINT NOT NULL CHECK (pos > 0))`); err != nil {
				t.Fatal(err)
			}
			stmts := events.NewViewStatements(log)
			// Write i sets "last" and its own key to its event's position;
			// the bad write's row breaks the check.
			record := func(k string, p int64) []events.RecordedStatement {
				rec := events.NewRecorder(engine.Dialect(), 1)
				for _, key := range []string{"last", k} {
					if _, err := rec.ExecContext(ctx, `INSERT INTO recorded_writes (k, pos) VALUES (?, ?) ON CONFLICT (k) DO UPDATE SET pos = excluded.pos`, key, p); err != nil {
						t.Fatal(err)
					}
				}
				if err := stmts.PrepareRecorded(ctx, rec.Statements()); err != nil {
					t.Fatal(err)
				}
				return rec.Statements()
			}
			run := func(n, bad int) (map[string]int64, []int64, int, error) {
				ltx, err := log.Begin(ctx)
				if err != nil {
					t.Fatal(err)
				}
				defer func() { _ = ltx.Rollback() }()
				var writes []events.RecordedWrite
				var positions []int64
				for i := range n {
					recs, err := ltx.Append(ctx, fmt.Sprintf("written/%d-%d", n, i), 0, events.Metadata{}, at, events.NewEvent{Type: "Set", Payload: []byte(`{}`)})
					if err != nil {
						t.Fatal(err)
					}
					p := events.PlaceholderBase
					if i == bad {
						p = -1
					}
					writes = append(writes, events.RecordedWrite{Rows: record(fmt.Sprint(i), p), Records: recs})
					positions = append(positions, recs[0].Position)
				}
				failed, err := events.ViewsIn(ltx).ExecRecordedWrites(ctx, events.TxStatements{}, writes)
				if err == nil {
					if err := ltx.Commit(); err != nil {
						t.Fatal(err)
					}
				}
				got := map[string]int64{}
				rows, qerr := db.QueryContext(ctx, `SELECT k, pos FROM recorded_writes`)
				if qerr != nil {
					t.Fatal(qerr)
				}
				defer func() { _ = rows.Close() }()
				for rows.Next() {
					var k string
					var p int64
					if err := rows.Scan(&k, &p); err != nil {
						t.Fatal(err)
					}
					got[k] = p
				}
				if err := rows.Err(); err != nil {
					t.Fatal(err)
				}
				return got, positions, failed, err
			}

			got, positions, _, err := run(5, -1)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]int64{"last": positions[4]}
			for i, p := range positions {
				want[fmt.Sprint(i)] = p
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("rows %v, want %v", got, want)
			}

			after, _, failed, err := run(6, 3)
			if err == nil || failed != 3 {
				t.Errorf("a group whose fourth write's row breaks a check: failed %d, %v; want write 3 and an error", failed, err)
			}
			if fmt.Sprint(after) != fmt.Sprint(got) {
				t.Errorf("rows after the failed group %v, want them as before %v", after, got)
			}
		})
	}
}
