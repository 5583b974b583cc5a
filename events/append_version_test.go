package events_test

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"herd/events"
	"herd/events/eventstest"
)

// TestAnEventsInsertRunsNoProgramPerRow: the INSERT of a log's events
// runs no trigger program for each row it stores. A BEFORE INSERT trigger
// (the no-gap check, migration 0001) made every event's insert run a
// subprogram and a probe of the stream's index: about a third of the
// insert's instructions. The check is the appends' now, once per stream
// (TestAppendPreparedChecksEachStreamAsTheAppendsBeforeLeaveIt).
func TestAnEventsInsertRunsNoProgramPerRow(t *testing.T) {
	s, _ := openSQLite(t)
	rows, err := s.DB().QueryContext(t.Context(), `EXPLAIN INSERT INTO events (event_id, stream, version, type, schema_version, recorded_at, payload, metadata, actor, causation_id) VALUES (?,?,?,?,?,?,CAST(? AS TEXT),?,?,?)`, make([]any, 10)...)
	if err != nil {
		t.Fatal(err)
	}
	ops := eventstest.Column(t, rows, 1)
	for _, op := range ops {
		if op == "Program" {
			t.Fatalf("an event's insert runs a trigger program per row: %s", strings.Join(ops, " "))
		}
	}
	if len(ops) == 0 {
		t.Fatal("EXPLAIN gave no program")
	}
}

// TestAppendPreparedChecksEachStreamAsTheAppendsBeforeLeaveIt: in one
// group of prepared appends, each append must find its stream at the
// version it expects as the appends before it in the group leave it —
// two appends of one stream follow each other, one whose stream is
// elsewhere stores nothing, and neither does one that expected that
// refused append's events — and a stream the retention policy thinned
// refuses a writer that read it before, at a version whose successor is
// gone. The others are stored, at consecutive positions.
func TestAppendPreparedChecksEachStreamAsTheAppendsBeforeLeaveIt(t *testing.T) {
	s, _ := openSQLite(t)
	ctx := t.Context()
	l := s.Log()
	none := events.Metadata{}
	e := event
	appendCommit := func(stream string, expected int64, evs ...events.NewEvent) {
		t.Helper()
		tx, err := l.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Append(ctx, stream, expected, none, at, evs...); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	appendCommit("b", 0, e(1))
	appendCommit("d", 0, e(1))
	appendCommit("thinned", 0, e(1), e(2), e(3), e(4))
	// As the retention policy deletes superseded heartbeats.
	if _, err := s.DB().ExecContext(ctx, `DELETE FROM events WHERE stream = 'thinned' AND version < 4`); err != nil {
		t.Fatal(err)
	}
	head, err := l.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}

	group := []struct {
		stream   string
		expected int64
		events   int
		actual   int64 // the version a refused append finds; -1: stored
	}{
		{"a", 0, 2, -1},
		{"a", 2, 1, -1},       // after the append before it
		{"b", 5, 1, 1},        // ahead of its stream
		{"b", 1, 2, -1},       // where it stands
		{"d", 3, 1, 1},        // ahead of its stream
		{"d", 4, 1, 1},        // after a refused append
		{"thinned", 1, 1, 4},  // version 2 is gone, not free
		{"thinned", 0, 1, 4},  // version 1 likewise
		{"thinned", 4, 1, -1}, // its head
		{"a", 3, 1, -1},
		// Names JSON writes escaped, or cannot hold.
		{"q\"u\\o\tte", 0, 1, -1},
		{"q\"u\\o\tte", 0, 1, 1},
		{"bad\xff", 0, 2, -1},
		{"bad\xff", 1, 1, 2},
		{"node/ünï", 0, 1, -1},
	}
	var ps []*events.PreparedAppend
	for _, g := range group {
		evs := make([]events.NewEvent, g.events)
		for i := range evs {
			evs[i] = e(i)
		}
		p, err := events.PrepareAppend(g.stream, g.expected, none, at, evs...)
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	// As the unit of work has it: the statements prepared on the pool.
	if err := l.(events.AppendsPreparer).PrepareAppends(ctx); err != nil {
		t.Fatal(err)
	}
	tx, err := l.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	recs, errs, err := tx.(events.PreparedAppender).AppendPrepared(ctx, ps)
	if err != nil {
		_ = tx.Rollback()
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	next := head + 1
	for i, g := range group {
		if g.actual >= 0 {
			want := &events.ConflictError{Stream: g.stream, Expected: g.expected, Actual: g.actual}
			var ce *events.ConflictError
			if !errors.As(errs[i], &ce) || *ce != *want || recs[i] != nil {
				t.Errorf("append %d (%s@%d) = %d records, %v; want none and %v", i, g.stream, g.expected, len(recs[i]), errs[i], want)
			}
			continue
		}
		if errs[i] != nil {
			t.Fatalf("append %d (%s@%d): %v", i, g.stream, g.expected, errs[i])
		}
		for j, r := range recs[i] {
			if r.Position != next || r.Version != g.expected+int64(j)+1 {
				t.Errorf("append %d (%s@%d) event %d at position %d version %d, want %d version %d", i, g.stream, g.expected, j, r.Position, r.Version, next, g.expected+int64(j)+1)
			}
			next++
		}
	}
	want := map[string][]int64{"a": {1, 2, 3, 4}, "b": {1, 2, 3}, "d": {1}, "thinned": {4, 5}, "q\"u\\o\tte": {1}, "bad\xff": {1, 2}, "node/ünï": {1}}
	for stream, versions := range want {
		stored, err := l.ReadStream(ctx, stream, 0)
		if err != nil {
			t.Fatal(err)
		}
		var got []int64
		for _, r := range stored {
			got = append(got, r.Version)
		}
		if diff := cmp.Diff(versions, got); diff != "" {
			t.Errorf("versions of %q (-want +got):\n%s", stream, diff)
		}
	}
}

// TestALogWrittenWithTheNoGapTriggerLosesItOnly: a log an older herd
// wrote (its schema up to migration 0006, with the no-gap trigger) opens
// with its events as they were; the trigger is gone, and its appends
// still refuse a stream that is elsewhere.
func TestALogWrittenWithTheNoGapTriggerLosesItOnly(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "herd.db")
	old := fstest.MapFS{}
	err := fs.WalkDir(events.Migrations(), ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || name > "0006~" {
			return err
		}
		b, err := fs.ReadFile(events.Migrations(), name)
		old[name] = &fstest.MapFile{Data: b}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	db, err := events.OpenDB(ctx, path, events.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if err := events.Migrate(ctx, db, "events", old); err != nil {
		t.Fatal(err)
	}
	triggers := `SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name`
	if diff := cmp.Diff([]string{"events_no_gap", "events_no_update"}, column(t, db, triggers)); diff != "" {
		t.Fatalf("the older schema's triggers (-want +got):\n%s", diff)
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO events (event_id, stream, version, type, schema_version, recorded_at, payload, metadata)
VALUES ('0195c4b2-8f3e-7a10-9d2e-3b7c1f0a9e01', 'node/a', 1, 'NodeRegistered', 1, 1, '{"n":1}', '{"actor":"alice"}'),
       ('0195c4b2-8f3e-7a10-9d2e-3b7c1f0a9e02', 'node/a', 2, 'HeartbeatRecorded', 1, 2, '{"n":2}', NULL)`); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	s, err := events.Open(ctx, events.Config{Path: path}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if diff := cmp.Diff([]string{"events_no_update"}, column(t, s.DB(), triggers)); diff != "" {
		t.Errorf("triggers after the upgrade (-want +got):\n%s", diff)
	}
	l := s.Log()
	stored, err := l.ReadStream(ctx, "node/a", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(stored) != 2 || stored[0].Type != "NodeRegistered" || stored[0].Metadata.Actor != "alice" || string(stored[1].Payload) != `{"n":2}` {
		t.Errorf("the older log's events read back as %+v", stored)
	}
	for _, expected := range []int64{1, 3} {
		tx, err := l.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		_, err = tx.Append(ctx, "node/a", expected, events.Metadata{}, at, event(3))
		_ = tx.Rollback()
		if !errors.Is(err, events.ErrConflict) {
			t.Errorf("append expecting %d on a stream at 2: %v, want a conflict", expected, err)
		}
	}
	tx, err := l.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := tx.Append(ctx, "node/a", 2, events.Metadata{}, at, event(3))
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if recs[0].Version != 3 || recs[0].Position != 3 {
		t.Errorf("the next append at version %d position %d, want 3 and 3", recs[0].Version, recs[0].Position)
	}
}

// event is an event of type T whose payload is {"n":n}.
func event(n int) events.NewEvent {
	return events.NewEvent{Type: "T", Payload: fmt.Appendf(nil, `{"n":%d}`, n)}
}
