package events_test

import (
	"database/sql"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"

	"herd/events"
	"herd/events/eventstest"
	"herd/events/pgtest"
)

// auditRows is each event's stream, actor and causation id as the
// columns hold them, in position order, as "stream actor cause".
func auditRows(t *testing.T, db *sql.DB) []string {
	t.Helper()
	return column(t, db, `SELECT stream || ' ' || actor || ' ' || causation_id FROM events ORDER BY position`)
}

// TestEveryAppendWritesItsActorAndCause: every way herd appends on
// either engine, and the copy of a SQLite log to PostgreSQL, stores the
// actor and the causation id in their own columns, empty where an event
// has none, for the audit indexes to find.
func TestEveryAppendWritesItsActorAndCause(t *testing.T) {
	ctx := t.Context()
	cause := events.Record{ID: "0195c4b2-8f3e-7a10-9d2e-3b7c1f0a9e01"}
	caused := events.CausedBy(cause, "drain", "drain")
	want := []string{
		"node/a alice ",
		"node/a alice ",
		"pod/p drain " + cause.ID,
		"node/b  ",
		"node/c bob ",
		"pod/q drain " + cause.ID,
		"node/d carol ",
	}

	s, _ := openSQLite(t)
	l := s.Log()
	tx, err := l.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []struct {
		stream string
		md     events.Metadata
		n      int
	}{{"node/a", events.Metadata{Actor: "alice", Source: "httpapi"}, 2}, {"pod/p", caused, 1}, {"node/b", events.Metadata{}, 1}} {
		if _, err := tx.Append(ctx, a.stream, 0, a.md, at, slices.Repeat([]events.NewEvent{event(1)}, a.n)...); err != nil {
			t.Fatal(err)
		}
	}
	var ps []*events.PreparedAppend
	for _, a := range []struct {
		stream string
		md     events.Metadata
	}{{"node/c", events.Metadata{Actor: "bob"}}, {"pod/q", caused}} {
		p, err := events.PrepareAppend(a.stream, 0, a.md, at, event(1))
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	_, errs, err := tx.(events.PreparedAppender).AppendPrepared(ctx, ps)
	if err != nil || errs[0] != nil || errs[1] != nil {
		t.Fatalf("prepared appends: %v %v", errs, err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	// Store.Append, through watermill's publisher on the caller's
	// transaction.
	stx, err := s.DB().BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(ctx, stx, "node/d", 0, events.Metadata{Actor: "carol"}, at, event(1)); err != nil {
		t.Fatal(err)
	}
	if err := stx.Commit(); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, auditRows(t, s.DB())); diff != "" {
		t.Errorf("SQLite's columns (-want +got):\n%s", diff)
	}

	url := pgtest.URL(t)
	target := eventstest.OpenPostgres(t, url)
	if _, err := events.CopyLog(ctx, s, target, nil); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if diff := cmp.Diff(want, auditRows(t, db)); diff != "" {
		t.Errorf("PostgreSQL's columns after the copy (-want +got):\n%s", diff)
	}
	ptx, err := target.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ptx.Append(ctx, "pod/r", 0, caused, at, event(1), event(2)); err != nil {
		t.Fatal(err)
	}
	if _, err := ptx.Append(ctx, "node/e", 0, events.Metadata{}, at, event(1)); err != nil {
		t.Fatal(err)
	}
	if err := ptx.Commit(); err != nil {
		t.Fatal(err)
	}
	want = append(want, "pod/r drain "+cause.ID, "pod/r drain "+cause.ID, "node/e  ")
	if diff := cmp.Diff(want, auditRows(t, db)); diff != "" {
		t.Errorf("PostgreSQL's columns after its appends (-want +got):\n%s", diff)
	}
}

// TestAnEventsInsertReadsNoJSON: storing an event on SQLite calls no
// function per row. The audit indexes of migration 0006 were built on
// json_extract over the metadata, which every insert ran for each of
// them.
func TestAnEventsInsertReadsNoJSON(t *testing.T) {
	s, _ := openSQLite(t)
	rows, err := s.DB().QueryContext(t.Context(), `EXPLAIN INSERT INTO events (event_id, stream, version, type, schema_version, recorded_at, payload, metadata, actor, causation_id)
VALUES (?,?,?,?,?,?,CAST(? AS TEXT),?,?,?)`, make([]any, 10)...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var ops []string
	for rows.Next() {
		var (
			addr          int
			op            string
			p1, p2, p3    sql.NullInt64
			p4, p5, notes sql.NullString
		)
		if err := rows.Scan(&addr, &op, &p1, &p2, &p3, &p4, &p5, &notes); err != nil {
			t.Fatal(err)
		}
		ops = append(ops, op+" "+p4.String)
		if strings.Contains(op, "Func") {
			t.Errorf("an event's insert calls %s (step %d)", p4.String, addr)
		}
	}
	if err := rows.Err(); err != nil || len(ops) == 0 {
		t.Fatalf("EXPLAIN gave %d steps, %v", len(ops), err)
	}
}

// oldLogEvents are the events of a log an earlier herd wrote, as it
// stored them: the metadata JSON alone said who and why.
var oldLogEvents = []struct {
	id, stream string
	version    int64
	typ        string
	metadata   string // "" for none
}{
	{"0195c4b2-8f3e-7a10-9d2e-3b7c1f0a9e01", "node/a", 1, "NodeCordoned", `{"actor":"alice","correlationId":"req-1","source":"httpapi"}`},
	{"0195c4b2-8f3e-7a10-9d2e-3b7c1f0a9e02", "node/a", 2, "HeartbeatRecorded", ``},
	{"0195c4b2-8f3e-7a10-9d2e-3b7c1f0a9e03", "pod/p", 1, "PodDeletionRequested",
		`{"actor":"drain","causationId":"0195c4b2-8f3e-7a10-9d2e-3b7c1f0a9e01","correlationId":"req-1","source":"drain"}`},
	{"0195c4b2-8f3e-7a10-9d2e-3b7c1f0a9e04", "pod/p", 2, "PodDeleted",
		`{"actor":"drain","causationId":"0195c4b2-8f3e-7a10-9d2e-3b7c1f0a9e01","correlationId":"req-1","source":"drain","continues":true}`},
	{"0195c4b2-8f3e-7a10-9d2e-3b7c1f0a9e05", "pod/q", 1, "PodCreated",
		`{"actor":"replicaset","causationId":"0195c4b2-8f3e-7a10-9d2e-3b7c1f0a9e03","correlationId":"req-1","source":"replicaset"}`},
	{"0195c4b2-8f3e-7a10-9d2e-3b7c1f0a9e06", "node/b", 1, "NodeRegistered", `{"actor":"bob","causationId":"req-7"}`},
	{"0195c4b2-8f3e-7a10-9d2e-3b7c1f0a9e07", "node/b", 2, "NodeLabelled", `{"continues":true}`},
}

// checkOldLogAnswers checks that l, holding oldLogEvents and migrated
// since, reads them back as they were written and answers the audit
// queries from them as the metadata says.
func checkOldLogAnswers(t *testing.T, l events.Log) {
	t.Helper()
	ctx := t.Context()
	all, err := l.ReadAfter(ctx, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != len(oldLogEvents) {
		t.Fatalf("%d events read back, want %d", len(all), len(oldLogEvents))
	}
	for i, r := range all {
		o := oldLogEvents[i]
		if r.ID != o.id || r.Stream != o.stream || r.Version != o.version || r.Type != o.typ || string(r.Payload) != fmt.Sprintf(`{"n":%d}`, i) {
			t.Errorf("event %d read back as %+v, written as %+v", i, r, o)
		}
	}
	ids := func(f events.Filter) []string {
		t.Helper()
		recs, err := l.Query(ctx, f)
		if err != nil {
			t.Fatalf("%+v: %v", f, err)
		}
		var out []string
		for _, r := range recs {
			out = append(out, r.ID[len(r.ID)-2:])
		}
		return out
	}
	for _, c := range []struct {
		f    events.Filter
		want []string
	}{
		{events.Filter{Actor: "alice"}, []string{"01"}},
		{events.Filter{Actor: "drain"}, []string{"03", "04"}},
		{events.Filter{Actor: "bob"}, []string{"06"}},
		{events.Filter{Actor: "nobody"}, nil},
		{events.Filter{CausationID: oldLogEvents[0].id}, []string{"03", "04"}},
		{events.Filter{CausationID: "req-7"}, []string{"06"}},
		{events.Filter{CausedBy: oldLogEvents[0].id}, []string{"03", "04", "05"}},
		{events.Filter{CausedBy: oldLogEvents[2].id}, []string{"05"}},
		{events.Filter{CausedBy: "req-7"}, []string{"06"}},
		{events.Filter{CausedBy: oldLogEvents[1].id}, nil},
	} {
		if diff := cmp.Diff(c.want, ids(c.f)); diff != "" {
			t.Errorf("%+v (-want +got):\n%s", c.f, diff)
		}
	}
	// The log carries on: a new event caused by an old one is among its
	// effects, and its actor's.
	cause := all[4]
	tx, err := l.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := tx.Append(ctx, "pod/r", 0, events.CausedBy(cause, "scheduler", "scheduler"), at, event(9))
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"03", "04", "05", recs[0].ID[len(recs[0].ID)-2:]}, ids(events.Filter{CausedBy: oldLogEvents[0].id})); diff != "" {
		t.Errorf("effects after a new append (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{recs[0].ID[len(recs[0].ID)-2:]}, ids(events.Filter{Actor: "scheduler"})); diff != "" {
		t.Errorf("the new actor's events (-want +got):\n%s", diff)
	}
}

// migrationsBefore is fsys's migrations numbered below version.
func migrationsBefore(t *testing.T, fsys fs.FS, version string) fstest.MapFS {
	t.Helper()
	old := fstest.MapFS{}
	err := fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || name >= version {
			return err
		}
		b, err := fs.ReadFile(fsys, name)
		old[name] = &fstest.MapFile{Data: b}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return old
}

// TestALogWrittenBeforeTheAuditColumnsAnswersTheSame: a SQLite log an
// earlier herd wrote, whose actor and causes only its metadata held,
// opens, is migrated, reads back as it was and answers the queries by
// actor, by cause and by effects as before, and as its new events do.
func TestALogWrittenBeforeTheAuditColumnsAnswersTheSame(t *testing.T) {
	ctx := t.Context()
	// A file at the schema of migration 0007.
	db := openTestDB(t)
	if err := events.Migrate(ctx, db, "events", migrationsBefore(t, events.Migrations(), "0008")); err != nil {
		t.Fatal(err)
	}
	for i, e := range oldLogEvents {
		var md any
		if e.metadata != "" {
			md = e.metadata
		}
		if _, err := db.ExecContext(ctx, `INSERT INTO events (event_id, stream, version, type, schema_version, recorded_at, payload, metadata)
VALUES (?, ?, ?, ?, 1, ?, ?, ?)`, e.id, e.stream, e.version, e.typ, at.UnixNano(), fmt.Sprintf(`{"n":%d}`, i), md); err != nil {
			t.Fatal(err)
		}
	}
	var file string
	if err := db.QueryRowContext(ctx, `SELECT file FROM pragma_database_list WHERE name = 'main'`).Scan(&file); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	migrated, err := events.Open(ctx, events.Config{Path: file}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = migrated.Close() })
	if diff := cmp.Diff([]string{
		"node/a alice ", "node/a  ", "pod/p drain " + oldLogEvents[0].id, "pod/p drain " + oldLogEvents[0].id,
		"pod/q replicaset " + oldLogEvents[2].id, "node/b bob req-7", "node/b  ",
	}, auditRows(t, migrated.DB())); diff != "" {
		t.Errorf("the columns the migration filled (-want +got):\n%s", diff)
	}
	if _, err := migrated.DB().ExecContext(ctx, `UPDATE events SET actor = 'mallory'`); err == nil || !strings.Contains(err.Error(), "never updated") {
		t.Errorf("an update after the migration: %v, want it refused", err)
	}
	checkOldLogAnswers(t, migrated.Log())
}

// TestPostgresLogWrittenBeforeTheAuditColumnsAnswersTheSame is
// TestALogWrittenBeforeTheAuditColumnsAnswersTheSame on PostgreSQL,
// whose migration also leaves a replica of the earlier herd unable to
// append events without their actor and cause.
func TestPostgresLogWrittenBeforeTheAuditColumnsAnswersTheSame(t *testing.T) {
	ctx := t.Context()
	url := pgtest.URL(t)
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if err := events.MigratePostgres(ctx, db, "events", migrationsBefore(t, events.PostgresMigrations(), "0008")); err != nil {
		t.Fatal(err)
	}
	// As the earlier herd's appends stored them.
	oldInsert := `INSERT INTO events (position, event_id, stream, version, type, schema_version, recorded_at, payload, metadata, txid)
VALUES (nextval('events_position'), $1, $2, $3, $4, 1, $5, $6, $7, pg_current_xact_id())`
	for i, e := range oldLogEvents {
		var md any
		if e.metadata != "" {
			md = []byte(e.metadata)
		}
		if _, err := db.ExecContext(ctx, oldInsert, e.id, e.stream, e.version, e.typ, at.UnixNano(), fmt.Appendf(nil, `{"n":%d}`, i), md); err != nil {
			t.Fatal(err)
		}
	}
	l := eventstest.OpenPostgres(t, url)
	if diff := cmp.Diff([]string{
		"node/a alice ", "node/a  ", "pod/p drain " + oldLogEvents[0].id, "pod/p drain " + oldLogEvents[0].id,
		"pod/q replicaset " + oldLogEvents[2].id, "node/b bob req-7", "node/b  ",
	}, auditRows(t, db)); diff != "" {
		t.Errorf("the columns the migration filled (-want +got):\n%s", diff)
	}
	if _, err := db.ExecContext(ctx, `UPDATE events SET actor = 'mallory'`); err == nil || !strings.Contains(err.Error(), "never updated") {
		t.Errorf("an update after the migration: %v, want it refused", err)
	}
	_, err = db.ExecContext(ctx, oldInsert, "0195c4b2-8f3e-7a10-9d2e-3b7c1f0a9e99", "node/z", 1, "T", time.Now().UnixNano(), []byte(`{}`), []byte(`{"actor":"old"}`))
	if err == nil || !strings.Contains(err.Error(), "actor") {
		t.Errorf("an earlier herd's append after the migration: %v, want it refused for its actor", err)
	}
	checkOldLogAnswers(t, l)
}

// TestReadsOfManyRecordsKeepTheirOrder: a read of more events than one
// slice of scanned records holds gives every one, in position order,
// on both engines.
func TestReadsOfManyRecordsKeepTheirOrder(t *testing.T) {
	s, _ := openSQLite(t)
	pg, _ := openPostgres(t)
	for name, l := range map[string]events.Log{"SQLite": s.Log(), "PostgreSQL": pg} {
		t.Run(name, func(t *testing.T) {
			ctx := t.Context()
			tx, err := l.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			evs := make([]events.NewEvent, 2500)
			for i := range evs {
				evs[i] = event(i)
			}
			recs, err := tx.Append(ctx, "node/many", 0, events.Metadata{Actor: "alice"}, at, evs...)
			if err != nil {
				t.Fatal(err)
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			for _, read := range []func() ([]events.Record, error){
				func() ([]events.Record, error) { return l.ReadAfter(ctx, 0, 0) },
				func() ([]events.Record, error) { return l.Query(ctx, events.Filter{Actor: "alice"}) },
			} {
				got, err := read()
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != len(recs) {
					t.Fatalf("%d events read, want %d", len(got), len(recs))
				}
				for i, r := range got {
					if r.Position != recs[i].Position || r.ID != recs[i].ID || string(r.Payload) != fmt.Sprintf(`{"n":%d}`, i) {
						t.Fatalf("event %d read as %d %s %s, appended as %d %s", i, r.Position, r.ID, r.Payload, recs[i].Position, recs[i].ID)
					}
				}
			}
		})
	}
}
