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
