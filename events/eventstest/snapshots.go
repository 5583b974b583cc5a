package eventstest

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"herd/events"
)

// testSnapshots: what the log keeps of snapshots (events.Snapshots). A
// read of the past finds the newest snapshot at or before its position
// and the stream's events after it; a snapshot saved twice keeps the
// first; a deletion of events drops, in its transaction, the snapshots it
// makes untrue and no other, and a refused deletion drops none; they
// survive a reopen, page in order, and drop all at once.
func testSnapshots(t *testing.T, open OpenLogFunc) {
	l, reopen := open(t)
	c := compactable(t, l)
	ctx := t.Context()
	at := func(seconds int) time.Time { return t0.Add(time.Duration(seconds) * time.Second) }
	none := events.Metadata{}
	var a []events.Record
	for v := range 5 {
		a = append(a, AppendCommit(t, l, "node/a", int64(v), none, at(10*v), ev("HeartbeatRecorded", v+1))[0])
	}
	b1 := AppendCommit(t, l, "node/b", 0, none, at(60), ev("NodeRegistered", 1))[0]

	snap := func(r events.Record, state string) events.Snapshot {
		return events.Snapshot{Stream: r.Stream, Position: r.Position, Version: r.Version, TakenAt: at(100), State: []byte(state)}
	}
	sa2, sa4, sb1 := snap(a[1], `{"a":2}`), snap(a[3], `{"a":4}`), snap(b1, `{"b":1}`)

	bare := func(rs []events.Record) []events.Record {
		var out []events.Record
		for _, r := range rs {
			r.ID, r.Metadata = "", events.Metadata{}
			out = append(out, r)
		}
		return out
	}
	// Without a snapshot the stream folds from its first event.
	if s, recs, err := l.ReadFromSnapshot(ctx, "node/a", a[2].Position); err != nil || s != nil || cmp.Diff(bare(a[:3]), recs) != "" {
		t.Fatalf("ReadFromSnapshot with none = %v, %v, %v; want no snapshot and the first three events", s, positions(recs), err)
	}
	if err := l.SaveSnapshots(ctx, []events.Snapshot{sa2, sa4, sb1}); err != nil {
		t.Fatal(err)
	}
	again := sa2
	again.State = []byte(`{"a":"other"}`)
	if err := l.SaveSnapshots(ctx, []events.Snapshot{again}); err != nil {
		t.Fatalf("saving a snapshot already there: %v, want it kept as it is", err)
	}
	reads := []struct {
		upTo     int64
		wantSnap *events.Snapshot
		wantRecs []events.Record
	}{
		{a[0].Position, nil, a[:1]},
		{a[1].Position, &sa2, nil},
		{a[2].Position, &sa2, a[2:3]},
		{a[3].Position, &sa4, nil},
		{b1.Position, &sa4, a[4:5]},
	}
	check := func(l events.Log, what string) {
		t.Helper()
		for _, r := range reads {
			s, recs, err := l.ReadFromSnapshot(ctx, "node/a", r.upTo)
			if err != nil {
				t.Fatalf("%s: ReadFromSnapshot(node/a, %d): %v", what, r.upTo, err)
			}
			if diff := cmp.Diff(r.wantSnap, s); diff != "" {
				t.Errorf("%s: ReadFromSnapshot(node/a, %d)'s snapshot (-want +got):\n%s", what, r.upTo, diff)
			}
			if diff := cmp.Diff(bare(r.wantRecs), recs); diff != "" {
				t.Errorf("%s: ReadFromSnapshot(node/a, %d)'s events (-want +got):\n%s", what, r.upTo, diff)
			}
		}
	}
	check(l, "saved")
	check(reopen(t), "the log opened again")

	page1, err := l.ReadSnapshots(ctx, "", 0, 2)
	if err != nil {
		t.Fatal(err)
	}
	page2, err := l.ReadSnapshots(ctx, page1[len(page1)-1].Stream, page1[len(page1)-1].Position, 2)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]events.Snapshot{sa2, sa4, sb1}, append(page1, page2...)); diff != "" {
		t.Errorf("ReadSnapshots in pages of two (-want +got):\n%s", diff)
	}

	del := func(d events.Deletion) error {
		tx, err := l.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.DeleteEvents(ctx, tx, d)
		if err != nil {
			return joinRollback(err, tx.Rollback())
		}
		if err := tx.Commit(); err != nil {
			return err
		}
		c.Compacted(got)
		return nil
	}
	// A refused deletion keeps every snapshot.
	if err := del(events.Deletion{Positions: []int64{a[1].Position, b1.Position + 100}, Through: a[3].Position, Before: at(20), At: at(3600)}); !errors.Is(err, events.ErrConflict) {
		t.Fatalf("deleting a position that holds no event: %v, want a conflict", err)
	}
	check(l, "after a refused deletion")
	// Deleting the second and third heartbeats, which the fourth
	// supersedes, makes the snapshot at the second untrue: it goes, in
	// the same transaction; the one at the fourth, and the other
	// stream's, stay.
	if err := del(events.Deletion{Positions: []int64{a[1].Position, a[2].Position}, Through: a[3].Position, Before: at(25), At: at(3600)}); err != nil {
		t.Fatal(err)
	}
	rest, err := l.ReadSnapshots(ctx, "", 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]events.Snapshot{sa4, sb1}, rest); diff != "" {
		t.Errorf("snapshots after deleting the events before the fourth heartbeat (-want +got):\n%s", diff)
	}
	if s, recs, err := l.ReadFromSnapshot(ctx, "node/a", a[2].Position); err != nil || s != nil || cmp.Diff(bare(a[:1]), recs) != "" {
		t.Errorf("ReadFromSnapshot(node/a, %d) after the deletion = %v, %v, %v; want no snapshot and the first event", a[2].Position, s, positions(recs), err)
	}
	// A snapshot taken before the deletion and saved after it, from
	// before the compaction point, is not saved; one from after it is.
	late, after := snap(a[0], `{"a":1}`), snap(a[4], `{"a":5}`)
	if err := l.SaveSnapshots(ctx, []events.Snapshot{late, after}); err != nil {
		t.Fatal(err)
	}
	if got, err := l.ReadSnapshots(ctx, "", 0, 10); err != nil || cmp.Diff([]events.Snapshot{sa4, after, sb1}, got) != "" {
		t.Errorf("snapshots after saving one from before the compaction point and one after: %v\n%s", err, cmp.Diff([]events.Snapshot{sa4, after, sb1}, got))
	}

	// A stream read in several pages stops at the position asked for.
	var long []events.Record
	for v := range 30 {
		long = append(long, AppendCommit(t, l, "node/c", int64(v), none, at(200+v), ev("HeartbeatRecorded", v+1))[0])
	}
	if s, recs, err := l.ReadFromSnapshot(ctx, "node/c", long[19].Position); err != nil || s != nil || cmp.Diff(bare(long[:20]), recs) != "" {
		t.Errorf("ReadFromSnapshot(node/c, its 20th event) = %v, %v, %v; want its first 20 events", s, positions(recs), err)
	}

	if n, err := l.DropSnapshots(ctx); err != nil || n != 3 {
		t.Errorf("DropSnapshots = %d, %v; want 3", n, err)
	}
	if got, err := l.ReadSnapshots(ctx, "", 0, 10); err != nil || len(got) != 0 {
		t.Errorf("snapshots after dropping them all: %d, %v", len(got), err)
	}
}
