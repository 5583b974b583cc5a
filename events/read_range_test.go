package events_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"herd/events"
)

func TestReadRangeReturnsExactlyTheRange(t *testing.T) {
	s, _ := openSQLite(t)
	ctx := t.Context()
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	tx, err := s.DB().BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var evs []events.NewEvent
	for range 10 {
		evs = append(evs, events.NewEvent{Type: "Tick", Payload: []byte(`{"n":1}`)})
	}
	all, err := s.Append(ctx, tx, "clock/a", 0, events.Metadata{Actor: "someone"}, at, evs...)
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		after, to int64
		want      []int64
	}{
		{"the middle", 3, 6, []int64{4, 5, 6}},
		{"from the start", 0, 2, []int64{1, 2}},
		{"past the head", 8, 50, []int64{9, 10}},
		{"empty", 5, 5, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.ReadRange(ctx, s.DB(), tt.after, tt.to)
			if err != nil {
				t.Fatal(err)
			}
			var pos []int64
			for _, r := range got {
				pos = append(pos, r.Position)
				want := all[r.Position-1]
				want.ID, want.Metadata, want.Continues = "", events.Metadata{}, false // a replay reads none of them
				if diff := cmp.Diff(want, r); diff != "" {
					t.Errorf("record %d (-want +got):\n%s", r.Position, diff)
				}
			}
			if diff := cmp.Diff(tt.want, pos); diff != "" {
				t.Errorf("positions (-want +got):\n%s", diff)
			}
		})
	}
}
