package eventstest

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"herd/events"
)

// testCompaction: what the retention policy asks of a log
// (events.Compactable). The window's start and the heartbeats before it
// are found; a deletion naming a position that holds no event is refused
// whole; a deletion moves the compaction record in its transaction, and
// the reads skip the deleted positions as gaps while the streams stay
// appendable; the record survives a reopen and, where the engine
// announces commits to the processes sharing the log, reaches them.
func testCompaction(t *testing.T, open OpenLogFunc, o logOptions) {
	l, reopen := open(t)
	// As herd serve has it: the window of recent records holds what the
	// deletion removes (handed on by the commits, or read below), and
	// must not give it after.
	events.ShareReads(l)
	c := compactable(t, l)
	ctx := t.Context()
	at := func(seconds int) time.Time { return t0.Add(time.Duration(seconds) * time.Second) }
	none := events.Metadata{}
	beat := func(version int64, seconds int) events.Record {
		return AppendCommit(t, l, "node/a", version, none, at(seconds), ev("HeartbeatRecorded", int(version)+1))[0]
	}
	a1, a2 := beat(0, 0), beat(1, 60)
	b1 := AppendCommit(t, l, "node/b", 0, none, at(90), ev("NodeRegistered", 1))[0]
	a3, a4, a5 := beat(2, 120), beat(3, 180), beat(4, 240)
	var other events.Compactable // another process, there before the deletion
	if !o.othersCommitsPolled {
		other = compactable(t, reopen(t))
	}

	firsts := []struct {
		at   time.Time
		want int64
	}{{at(-3600), a1.Position}, {at(0), a1.Position}, {at(61), b1.Position}, {at(120), a3.Position}, {at(241), a5.Position + 1}}
	for _, f := range firsts {
		if got, err := c.FirstRecordedAt(ctx, f.at); err != nil || got != f.want {
			t.Errorf("FirstRecordedAt(%s) = %d, %v; want %d", f.at.Format(time.TimeOnly), got, err, f.want)
		}
	}
	bare := func(r events.Record) events.Record { r.ID, r.Metadata = "", events.Metadata{}; return r }
	reads := []struct {
		name          string
		after, before int64
		limit         int
		want          []events.Record
	}{
		{"all", 0, a5.Position + 1, 10, []events.Record{a1, a2, a3, a4, a5}},
		{"limited", 0, a5.Position + 1, 2, []events.Record{a1, a2}},
		{"an open range", a1.Position, a4.Position, 10, []events.Record{a2, a3}},
	}
	for _, r := range reads {
		got, err := c.ReadTypeRange(ctx, "HeartbeatRecorded", r.after, r.before, r.limit)
		if err != nil {
			t.Fatal(err)
		}
		var want []events.Record
		for _, w := range r.want {
			want = append(want, bare(w))
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("ReadTypeRange %s (-want +got):\n%s", r.name, diff)
		}
	}

	if got := all(t, l); len(got) != 6 {
		t.Fatalf("ReadAfter(0) before the deletion: %d records, want 6", len(got))
	}
	del := func(d events.Deletion) (events.Compaction, error) {
		tx, err := l.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.DeleteEvents(ctx, tx, d)
		if err != nil {
			return got, joinRollback(err, tx.Rollback())
		}
		if err := tx.Commit(); err != nil {
			return got, err
		}
		c.Compacted(got)
		return got, nil
	}
	if _, err := del(events.Deletion{Positions: []int64{a1.Position, a5.Position + 100}, Through: a3.Position, Before: at(100), At: at(3600)}); !errors.Is(err, events.ErrConflict) {
		t.Fatalf("deleting a position that holds no event: %v, want a conflict", err)
	}
	if got := all(t, l); len(got) != 6 {
		t.Fatalf("a refused deletion left %d events, want 6", len(got))
	}
	if got := c.Compaction(); got != (events.Compaction{}) {
		t.Errorf("a refused deletion left the compaction at %+v, want none", got)
	}
	c.RaiseCompactionPoint(a3.Position)
	if got := c.Compaction().Through; got != a3.Position {
		t.Errorf("compaction point raised to %d, want %d", got, a3.Position)
	}

	d := events.Deletion{Positions: []int64{a1.Position, a2.Position, a3.Position}, Through: a4.Position, Before: at(150), At: at(3600)}
	want := events.Compaction{Through: a4.Position, Before: d.Before, Deleted: 3, At: d.At}
	got, err := del(d)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("DeleteEvents returned (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, c.Compaction()); diff != "" {
		t.Errorf("Compaction after the deletion (-want +got):\n%s", diff)
	}

	// The reads skip the deleted positions.
	if diff := cmp.Diff([]events.Record{b1, a4, a5}, all(t, l)); diff != "" {
		t.Errorf("ReadAfter(0) after the deletion (-want +got):\n%s", diff)
	}
	if got, err := l.ReadAfter(ctx, 0, 1); err != nil || len(got) != 1 || got[0].Position != b1.Position {
		t.Errorf("ReadAfter(0, limit 1) = %v, %v; want the first event kept", positions(got), err)
	}
	if got, err := l.ReadStreamRange(ctx, "node/a", 0, a4.Position); err != nil || cmp.Diff([]events.Record{a4}, got) != "" {
		t.Errorf("ReadStreamRange(node/a, 0, %d) = %v, %v; want only %d", a4.Position, positions(got), err, a4.Position)
	}
	if got, err := l.ReadStream(ctx, "node/a", 0); err != nil || cmp.Diff([]events.Record{a4, a5}, got) != "" {
		t.Errorf("ReadStream(node/a) = %v, %v; want the versions kept", positions(got), err)
	}
	if got, err := l.Query(ctx, events.Filter{Types: []string{"HeartbeatRecorded"}, Limit: 1}); err != nil || cmp.Diff([]events.Record{a4}, got) != "" {
		t.Errorf("Query of the first heartbeat = %v, %v; want %d", positions(got), err, a4.Position)
	}
	if head, err := l.Head(ctx); err != nil || head != a5.Position {
		t.Errorf("head after the deletion %d, %v; want %d", head, err, a5.Position)
	}
	if got, err := c.FirstRecordedAt(ctx, at(0)); err != nil || got != b1.Position {
		t.Errorf("FirstRecordedAt(the first event's time) after the deletion = %d, %v; want %d", got, err, b1.Position)
	}
	// A deletion that raced another finds its events gone.
	if _, err := del(events.Deletion{Positions: []int64{a2.Position}, Through: a4.Position, Before: at(150), At: at(3600)}); !errors.Is(err, events.ErrConflict) {
		t.Errorf("deleting an event already deleted: %v, want a conflict", err)
	}
	// A writer that read the stream before the deletion, at a version
	// whose successor is gone, is refused and stores nothing: the
	// stream's highest version decides, not the next one's absence.
	for _, stale := range []int64{0, 1} {
		if got, err := tryAppend(ctx, l, "node/a", stale, none, at(300), ev("HeartbeatRecorded", 6)); !errors.Is(err, events.ErrConflict) {
			t.Errorf("append expecting version %d, deleted since: %v, %v; want a conflict", stale, positions(got), err)
		}
	}
	// The stream goes on after the versions it lost.
	if a6 := AppendCommit(t, l, "node/a", 5, none, at(300), ev("HeartbeatRecorded", 6)); a6[0].Version != 6 {
		t.Errorf("append after the deletion at version %d, want 6", a6[0].Version)
	}

	// The record is the log's: a process opening it reads it, and one
	// that shares it hears of it.
	if diff := cmp.Diff(want, compactable(t, reopen(t)).Compaction()); diff != "" {
		t.Errorf("Compaction of the log opened again (-want +got):\n%s", diff)
	}
	if other != nil {
		Eventually(t, WaitFor, func() bool { return other.Compaction() == want }, "another process sharing the log learns the compaction %+v", want)
	}
}

func compactable(t *testing.T, l events.Log) events.Compactable {
	t.Helper()
	c, ok := l.(events.Compactable)
	if !ok {
		t.Fatalf("%T cannot be compacted", l)
	}
	return c
}

// all reads every event of l.
func all(t *testing.T, l events.Log) []events.Record {
	t.Helper()
	recs, err := l.ReadAfter(t.Context(), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}
