package eventstest

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"herd/events"
)

func testConflict(t *testing.T, open OpenLogFunc) {
	s, _ := open(t)
	before := AppendCommit(t, s, "node/a", 0, events.Metadata{}, t0, ev("A", 1), ev("A", 2))
	head, err := s.Head(t.Context())
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name     string
		expected int64
		events   int
	}{
		{name: "stale: new stream that exists", expected: 0, events: 1},
		{name: "stale: one behind", expected: 1, events: 1},
		{name: "stale batch stores none of it", expected: 1, events: 3},
		{name: "too new: one ahead", expected: 3, events: 1},
		{name: "too new: far ahead", expected: 10, events: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			tx, err := s.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			evs := make([]events.NewEvent, tt.events)
			for i := range evs {
				evs[i] = ev("B", i)
			}
			got, err := tx.Append(ctx, "node/a", tt.expected, events.Metadata{}, t0, evs...)
			if !errors.Is(err, events.ErrConflict) {
				_ = tx.Rollback()
				t.Fatalf("Append expecting %d = %v, %v; want ErrConflict", tt.expected, got, err)
			}
			var ce *events.ConflictError
			if !errors.As(err, &ce) {
				t.Fatalf("error %T is not a *ConflictError", err)
			}
			want := events.ConflictError{Stream: "node/a", Expected: tt.expected, Actual: 2}
			if diff := cmp.Diff(want, *ce); diff != "" {
				t.Errorf("ConflictError (-want +got):\n%s", diff)
			}
			// The transaction is still usable: it reads, then rolls back.
			inTx, err := tx.ReadStream(ctx, "node/a", 0)
			if err != nil {
				t.Fatalf("read in the transaction after a conflict: %v", err)
			}
			if diff := cmp.Diff(before, inTx); diff != "" {
				t.Errorf("stream inside the transaction (-want +got):\n%s", diff)
			}
			if err := tx.Rollback(); err != nil {
				t.Fatalf("rollback after a conflict: %v", err)
			}
			after, err := s.ReadStream(ctx, "node/a", 0)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(before, after); diff != "" {
				t.Errorf("stream after the conflict (-want +got):\n%s", diff)
			}
			if h, err := s.Head(ctx); err != nil || h != head {
				t.Errorf("Head = %d, %v; want %d", h, err, head)
			}
		})
	}
	// The stream is still appendable at its true version.
	AppendCommit(t, s, "node/a", 2, events.Metadata{}, t0, ev("A", 3))
}

func testRollback(t *testing.T, open OpenLogFunc) {
	s, _ := open(t)
	ctx := t.Context()
	tx, err := s.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	appended, err := tx.Append(ctx, "node/a", 0, events.Metadata{}, t0, ev("A", 1), ev("A", 2))
	if err != nil {
		_ = tx.Rollback()
		t.Fatal(err)
	}
	inTx, err := tx.ReadStream(ctx, "node/a", 0)
	if err != nil {
		_ = tx.Rollback()
		t.Fatal(err)
	}
	if diff := cmp.Diff(appended, inTx); diff != "" {
		t.Errorf("the transaction reads its own appends (-want +got):\n%s", diff)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if got, err := s.ReadAfter(ctx, 0, 0); err != nil || len(got) != 0 {
		t.Errorf("log after rollback = %v, %v; want empty", got, err)
	}
	if h, err := s.Head(ctx); err != nil || h != 0 {
		t.Errorf("Head after rollback = %d, %v; want 0", h, err)
	}
	again := AppendCommit(t, s, "node/a", 0, events.Metadata{}, t0, ev("A", 1))
	if again[0].Version != 1 {
		t.Errorf("first version after rollback = %d, want 1", again[0].Version)
	}
}
