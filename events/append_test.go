package events_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"herd/events"
)

var at = time.Date(2025, 3, 1, 3, 12, 0, 0, time.UTC)

func TestAppendRefusesBadInput(t *testing.T) {
	ok := events.NewEvent{Type: "A", Payload: []byte(`{}`)}
	tests := []struct {
		name     string
		stream   string
		expected int64
		at       time.Time
		evs      []events.NewEvent
		want     string
	}{
		{name: "empty stream", stream: "", at: at, evs: []events.NewEvent{ok}, want: "stream is empty"},
		{name: "negative version", stream: "s", expected: -1, at: at, evs: []events.NewEvent{ok}, want: "negative"},
		{name: "zero time", stream: "s", evs: []events.NewEvent{ok}, want: "time is zero"},
		{name: "time out of range", stream: "s", at: time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC), evs: []events.NewEvent{ok}, want: "outside the storable range"},
		{name: "no type", stream: "s", at: at, evs: []events.NewEvent{{Payload: []byte(`{}`)}}, want: "type is empty"},
		{name: "payload not JSON", stream: "s", at: at, evs: []events.NewEvent{ok, {Type: "B", Payload: []byte(`{`)}}, want: "event 1 (B): payload is not JSON"},
		{name: "no payload", stream: "s", at: at, evs: []events.NewEvent{{Type: "B"}}, want: "payload is not JSON"},
	}
	s, _ := openSQLite(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tx, err := s.DB().BeginTx(t.Context(), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback()
			_, err = s.Append(t.Context(), tx, tt.stream, tt.expected, events.Metadata{}, tt.at, tt.evs...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Append = %v, want an error containing %q", err, tt.want)
			}
		})
	}
	if head, err := s.Head(t.Context(), s.DB()); err != nil || head != 0 {
		t.Errorf("Head = %d, %v after refused appends; want 0", head, err)
	}
}

func TestAppendNothingIsANoOp(t *testing.T) {
	s, _ := openSQLite(t)
	tx, err := s.DB().BeginTx(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	got, err := s.Append(t.Context(), tx, "", -5, events.Metadata{}, time.Time{})
	if got != nil || err != nil {
		t.Fatalf("Append() = %v, %v; want nil, nil", got, err)
	}
}

// TestAppendBeyondOneStatement appends more events than SQLite binds in one
// statement: they are split, and still get consecutive positions.
func TestAppendBeyondOneStatement(t *testing.T) {
	s, _ := openSQLite(t)
	const n = 5000
	evs := make([]events.NewEvent, n)
	for i := range evs {
		evs[i] = events.NewEvent{Type: "HeartbeatRecorded", Payload: []byte(`{}`)}
	}
	ctx := t.Context()
	tx, err := s.DB().BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	appended, err := s.Append(ctx, tx, "node/a", 0, events.Metadata{}, at, evs...)
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	stored, err := s.ReadAfter(ctx, s.DB(), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(appended, stored); diff != "" {
		t.Errorf("stored (-appended +stored):\n%s", diff)
	}
	for i, r := range stored {
		if r.Position != int64(i+1) || r.Version != int64(i+1) {
			t.Fatalf("event %d at position %d, version %d", i, r.Position, r.Version)
		}
	}
}
