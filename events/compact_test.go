package events_test

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"herd/events"
)

// TestDeleteEventsIsAllOrNothing deletes events with the compaction's
// bookkeeping in one transaction: a batch naming an event that is already
// gone deletes nothing and records nothing; a good batch moves the
// compaction point and the count, in memory and across a reopen.
func TestDeleteEventsIsAllOrNothing(t *testing.T) {
	s, reopen := openSQLite(t)
	ctx := t.Context()
	t0 := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
	tx, err := s.DB().BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if _, err := s.Append(ctx, tx, "node/a", int64(i), events.Metadata{}, t0.Add(time.Duration(i)*time.Minute),
			events.NewEvent{Type: "HeartbeatRecorded", SchemaVersion: 1, Payload: json.RawMessage(`{}`)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	del := func(d events.Deletion) error {
		tx, err := s.DB().BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		c, err := s.DeleteEvents(ctx, tx, d)
		if err != nil {
			_ = tx.Rollback()
			return err
		}
		if err := tx.Commit(); err != nil {
			return err
		}
		s.Compacted(c)
		return nil
	}
	count := func() (n int) {
		if err := s.DB().QueryRowContext(ctx, `SELECT COUNT(*) FROM events`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	if err := del(events.Deletion{Positions: []int64{1, 9}, Through: 2, Before: t0, At: t0}); !errors.Is(err, events.ErrConflict) {
		t.Fatalf("deleting a position that holds no event: %v, want a conflict", err)
	}
	if n := count(); n != 5 {
		t.Fatalf("a refused deletion left %d events, want 5", n)
	}
	d := events.Deletion{Positions: []int64{1, 2}, Through: 3, Before: t0.Add(3 * time.Minute), At: t0.Add(time.Hour)}
	if err := del(d); err != nil {
		t.Fatal(err)
	}
	want := events.Compaction{Through: 3, Before: d.Before, Deleted: 2, At: d.At}
	if got := s.Compaction(); got != want {
		t.Errorf("compaction in memory %+v, want %+v", got, want)
	}
	if got := reopen(t).Compaction(); got != want {
		t.Errorf("compaction after reopening %+v, want %+v", got, want)
	}
	if n := count(); n != 3 {
		t.Errorf("%d events left, want 3", n)
	}
	// The stream stays appendable after its oldest events went.
	tx, err = s.DB().BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := s.Append(ctx, tx, "node/a", 5, events.Metadata{}, t0.Add(time.Hour), events.NewEvent{Type: "HeartbeatRecorded", SchemaVersion: 1, Payload: json.RawMessage(`{}`)}); err != nil {
		t.Errorf("append after deletion: %v", err)
	}
}
