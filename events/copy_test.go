package events_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"herd/events"
	"herd/events/eventstest"
	"herd/events/pgtest"
)

var copyT0 = time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC)

// storedRow is an event's row as stored, bytes and all.
type storedRow struct {
	Position, Version, RecordedAt int64
	ID, Stream, Type              string
	SchemaVersion                 int
	Payload, Metadata             []byte
}

// storedRows reads every row of the events table through db, on either
// engine.
func storedRows(t *testing.T, db *sql.DB, idColumn string) []storedRow {
	t.Helper()
	rows, err := db.QueryContext(t.Context(), `SELECT position, `+idColumn+`, stream, version, type, schema_version, recorded_at, payload, metadata
FROM events ORDER BY position`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []storedRow
	for rows.Next() {
		var r storedRow
		if err := rows.Scan(&r.Position, &r.ID, &r.Stream, &r.Version, &r.Type, &r.SchemaVersion, &r.RecordedAt, &r.Payload, &r.Metadata); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func pgRows(t *testing.T, l *events.Postgres) []storedRow {
	db, _ := events.SQLDB(l)
	return storedRows(t, db, "event_id::text")
}

// fillSQLite appends a small log of several streams, with and without
// metadata, several events to an append, then deletes two superseded
// heartbeats as the retention policy does, leaving gaps.
func fillSQLite(t *testing.T, s *events.Store) {
	t.Helper()
	ctx := t.Context()
	tx, err := s.DB().BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	md := events.Metadata{Actor: "node/web-01", Source: "kubelet", CorrelationID: "0195c4b2-8f3e-7a10-9d2e-3b7c1f0a9e55"}
	appendTo := func(stream string, version int64, md events.Metadata, at time.Time, evs ...events.NewEvent) {
		t.Helper()
		if _, err := s.Append(ctx, tx, stream, version, md, at, evs...); err != nil {
			t.Fatal(err)
		}
	}
	appendTo("node/web-01", 0, md, copyT0,
		events.NewEvent{Type: "NodeRegistered", Payload: []byte(`{"name":"web-01"}`)},
		events.NewEvent{Type: "NodeConditionChanged", SchemaVersion: 2, Payload: []byte(`{"type": "Ready",  "status":"True"}`)})
	appendTo("pod/default/nginx", 0, events.Metadata{}, copyT0.Add(time.Millisecond), events.NewEvent{Type: "PodCreated", Payload: []byte(`{}`)})
	for i := range int64(4) {
		appendTo("node/web-01", 2+i, md, copyT0.Add(time.Duration(i+1)*10*time.Second+123),
			events.NewEvent{Type: "HeartbeatRecorded", Payload: fmt.Appendf(nil, `{"load":%d}`, i)})
	}
	appendTo("pod/default/nginx", 1, events.Metadata{Actor: "scheduler"}, copyT0.Add(time.Minute),
		events.NewEvent{Type: "PodScheduled", Payload: []byte(`{"node":"web-01"}`)})
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	// Metadata that a decode and encode would change (another key order,
	// a key herd does not know), and an empty payload string.
	if _, err := s.DB().ExecContext(ctx, `INSERT INTO events (event_id, stream, version, type, schema_version, recorded_at, payload, metadata)
VALUES ('0195c4b2-8f3e-7a10-9d2e-3b7c1f0a9e56', 'ipam/default', 1, 'IPPoolCreated', 1, ?, '', '{"source":"ipam","actor":"x","extra":[1, 2]}')`,
		copyT0.Add(2*time.Minute).UnixNano()); err != nil {
		t.Fatal(err)
	}
	del, err := s.DB().BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := events.Deletion{Positions: []int64{4, 5}, Through: 6, Before: copyT0.Add(30 * time.Second), At: copyT0.Add(time.Hour)}
	c, err := s.DeleteEvents(ctx, del, d)
	if err != nil {
		t.Fatal(err)
	}
	if err := del.Commit(); err != nil {
		t.Fatal(err)
	}
	s.Compacted(c)
}

func openTarget(t *testing.T, url string) *events.Postgres {
	t.Helper()
	l, err := events.OpenPostgres(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	return l
}

// TestCopyLogKeepsEveryEventAsStored: every row arrives with its
// position, gaps included, and its bytes; the head moves to the
// source's, and the target's next append continues after it.
func TestCopyLogKeepsEveryEventAsStored(t *testing.T) {
	ctx := t.Context()
	src, _ := openSQLite(t)
	fillSQLite(t, src)
	url := pgtest.URL(t)
	dst := openTarget(t, url)

	var calls [][2]int64
	stats, err := events.CopyLog(ctx, src, dst, func(done, total int64) { calls = append(calls, [2]int64{done, total}) })
	if err != nil {
		t.Fatal(err)
	}

	want := storedRows(t, src.DB(), "event_id")
	if diff := cmp.Diff(want, pgRows(t, dst)); diff != "" {
		t.Errorf("rows on PostgreSQL (-SQLite +PostgreSQL):\n%s", diff)
	}
	srcHead, err := src.Log().Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dstHead, err := dst.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if srcHead != 9 || dstHead != srcHead || stats.Head != srcHead || stats.Events != int64(len(want)) || len(want) != 7 {
		t.Errorf("head %d on SQLite, %d on PostgreSQL, stats %+v; want 9 everywhere and 7 events", srcHead, dstHead, stats)
	}
	if got, _ := dst.CommitSignal(); got != srcHead {
		t.Errorf("commit signal at %d after the copy, want %d", got, srcHead)
	}
	// The compaction record comes along: a watch from before the point is
	// refused on PostgreSQL too, by this replica and by one opened later.
	if want := src.Compaction(); want.Through != 6 || dst.Compaction() != want || openTarget(t, url).Compaction() != want {
		t.Errorf("compaction on SQLite %+v, on PostgreSQL %+v; want the same, through 6", want, dst.Compaction())
	}
	if diff := cmp.Diff([][2]int64{{7, 7}}, calls); diff != "" {
		t.Errorf("progress calls (-want +got):\n%s", diff)
	}
	// The records as readers see them: the same on both engines.
	eventstest.SameRecords(t, src.Log(), dst)

	// Appends continue after the head, and each stream after its version.
	tx, err := dst.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := tx.Append(ctx, "pod/default/nginx", 2, events.Metadata{}, copyT0.Add(time.Hour), events.NewEvent{Type: "PodDeleted", Payload: []byte(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Append(ctx, "node/web-01", 5, events.Metadata{}, copyT0.Add(time.Hour), events.NewEvent{Type: "T", Payload: []byte(`{}`)}); !errors.Is(err, events.ErrConflict) {
		t.Errorf("append at a stale version of a copied stream: %v, want a conflict", err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if recs[0].Position != srcHead+1 || recs[0].Version != 3 {
		t.Errorf("first append after the copy at position %d, version %d; want %d, 3", recs[0].Position, recs[0].Version, srcHead+1)
	}
}

// TestCopyLogRefusesATargetThatHoldsALog: a second copy into the same
// database, or a copy into one herd already wrote, is refused and
// changes nothing.
func TestCopyLogRefusesATargetThatHoldsALog(t *testing.T) {
	ctx := t.Context()
	src, _ := openSQLite(t)
	fillSQLite(t, src)

	t.Run("copied before", func(t *testing.T) {
		dst := openTarget(t, pgtest.URL(t))
		if _, err := events.CopyLog(ctx, src, dst, nil); err != nil {
			t.Fatal(err)
		}
		before := pgRows(t, dst)
		_, err := events.CopyLog(ctx, src, dst, nil)
		if !errors.Is(err, events.ErrLogNotEmpty) {
			t.Fatalf("second copy: %v, want ErrLogNotEmpty", err)
		}
		if diff := cmp.Diff(before, pgRows(t, dst)); diff != "" {
			t.Errorf("a refused copy changed the target (-before +after):\n%s", diff)
		}
		if head, err := dst.Head(ctx); err != nil || head != 9 {
			t.Errorf("head %d (%v) after a refused copy, want 9", head, err)
		}
	})
	t.Run("written by herd", func(t *testing.T) {
		dst := openTarget(t, pgtest.URL(t))
		appendOnePG(t, dst, "node/other", 0, copyT0)
		if _, err := events.CopyLog(ctx, src, dst, nil); !errors.Is(err, events.ErrLogNotEmpty) {
			t.Fatalf("copy into a written log: %v, want ErrLogNotEmpty", err)
		}
		if rows := pgRows(t, dst); len(rows) != 1 || rows[0].Stream != "node/other" {
			t.Errorf("a refused copy left %+v, want the one event herd wrote", rows)
		}
	})
	t.Run("appending while the copy starts", func(t *testing.T) {
		// The check runs under the head row's lock: a copy that starts
		// while an append is in flight waits for it, then refuses.
		url := pgtest.URL(t)
		dst, writer := openTarget(t, url), openTarget(t, url)
		tx, err := writer.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = tx.Rollback() }()
		if _, err := tx.Append(ctx, "node/racer", 0, events.Metadata{}, copyT0, events.NewEvent{Type: "T", Payload: []byte(`{}`)}); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			_, err := events.CopyLog(ctx, src, dst, nil)
			done <- err
		}()
		db, _ := events.SQLDB(dst)
		eventstest.Eventually(t, eventstest.WaitFor, func() bool { return waitingOnLock(t, db) }, "the copy waiting for the head row")
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		if err := <-done; !errors.Is(err, events.ErrLogNotEmpty) {
			t.Fatalf("copy racing an append: %v, want ErrLogNotEmpty", err)
		}
		if rows := pgRows(t, dst); len(rows) != 1 || rows[0].Stream != "node/racer" {
			t.Errorf("a refused copy left %+v, want the one event appended", rows)
		}
	})
}

// waitingOnLock says whether a session of db's database waits for a
// row lock.
func waitingOnLock(t *testing.T, db *sql.DB) bool {
	var n int
	if err := db.QueryRowContext(t.Context(), `SELECT count(*) FROM pg_stat_activity
WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n > 0
}

// TestCopyLogRefusesAnIDItWouldChange: PostgreSQL would give back an
// id spelt otherwise than canonically in its canonical form, so the copy
// stops there and leaves the target empty.
func TestCopyLogRefusesAnIDItWouldChange(t *testing.T) {
	ctx := t.Context()
	src, _ := openSQLite(t)
	appendOne(t, src, "node/a", 0, false)
	if _, err := src.DB().ExecContext(ctx, `INSERT INTO events (event_id, stream, version, type, schema_version, recorded_at, payload)
VALUES ('0195C4B2-8F3E-7A10-9D2E-3B7C1F0A9E57', 'node/a', 2, 'T', 1, 0, '{}')`); err != nil {
		t.Fatal(err)
	}
	dst := openTarget(t, pgtest.URL(t))
	_, err := events.CopyLog(ctx, src, dst, nil)
	if err == nil || !strings.Contains(err.Error(), "event 2") {
		t.Fatalf("copying an upper-case id: %v, want an error naming event 2", err)
	}
	if rows := pgRows(t, dst); len(rows) != 0 {
		t.Errorf("a failed copy left %d events", len(rows))
	}
	if head, err := dst.Head(context.WithoutCancel(ctx)); err != nil || head != 0 {
		t.Errorf("head %d (%v) after a failed copy, want 0", head, err)
	}
}

// TestCopyLogOfAnEmptyLog copies nothing and leaves the head at 0.
func TestCopyLogOfAnEmptyLog(t *testing.T) {
	src, _ := openSQLite(t)
	dst := openTarget(t, pgtest.URL(t))
	stats, err := events.CopyLog(t.Context(), src, dst, nil)
	if err != nil || stats.Events != 0 || stats.Head != 0 {
		t.Fatalf("copy of an empty log: %+v, %v; want nothing copied", stats, err)
	}
	if head, err := dst.Head(t.Context()); err != nil || head != 0 {
		t.Errorf("head %d (%v), want 0", head, err)
	}
}

// TestCopyLogCancelledLeavesNoLog: a copy cancelled half way (Ctrl-C in
// herd migrate) rolls back whole, and the target takes a copy afterwards.
func TestCopyLogCancelledLeavesNoLog(t *testing.T) {
	src, _ := openSQLite(t)
	tx, err := src.DB().BeginTx(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	evs := make([]events.NewEvent, 1000)
	for i := range evs {
		evs[i] = events.NewEvent{Type: "HeartbeatRecorded", Payload: []byte(`{}`)}
	}
	for s := range 25 {
		if _, err := src.Append(t.Context(), tx, fmt.Sprintf("node/n%d", s), 0, events.Metadata{}, copyT0, evs...); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	dst := openTarget(t, pgtest.URL(t))
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	_, err = events.CopyLog(ctx, src, dst, func(done, total int64) {
		if done < total {
			cancel()
		}
	})
	// pgx ends a COPY whose context is cancelled either with the
	// context's error or, having set a deadline on the connection to
	// interrupt it, with that deadline's i/o timeout: either way the copy
	// failed, which is what counts.
	if err == nil {
		t.Fatal("a cancelled copy succeeded")
	}
	if rows := pgRows(t, dst); len(rows) != 0 {
		t.Fatalf("a cancelled copy left %d events", len(rows))
	}
	stats, err := events.CopyLog(t.Context(), src, dst, nil)
	if err != nil || stats.Events != 25_000 || stats.Head != 25_000 {
		t.Fatalf("copy after a cancelled one: %+v, %v; want 25,000 events", stats, err)
	}
}
