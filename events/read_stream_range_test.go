package events_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"herd/events"
)

func TestReadStreamRangeKeepsToTheRange(t *testing.T) {
	s, _ := openSQLite(t)
	ctx := t.Context()
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	appendOne := func(stream string, expected int64) int64 {
		t.Helper()
		tx, err := s.DB().BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		recs, err := s.Append(ctx, tx, stream, expected, events.Metadata{}, at, events.NewEvent{Type: "Tick", Payload: []byte(`{}`)})
		if err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		return recs[0].Position
	}
	// node/a at 1, 3, 4; node/b at 2.
	a1 := appendOne("node/a", 0)
	b1 := appendOne("node/b", 0)
	a2 := appendOne("node/a", 1)
	a3 := appendOne("node/a", 2)

	tests := []struct {
		name      string
		stream    string
		after, to int64
		want      []int64
	}{
		{"before the stream began", "node/a", 0, 0, nil},
		{"up to its first event", "node/a", 0, a1, []int64{a1}},
		{"up to between its events", "node/a", 0, b1, []int64{a1}},
		{"up to a later event", "node/a", 0, a2, []int64{a1, a2}},
		{"past its end", "node/a", 0, a3 + 10, []int64{a1, a2, a3}},
		{"from between its events", "node/a", b1, a3, []int64{a2, a3}},
		{"from its last event", "node/a", a3, a3 + 10, nil},
		{"another stream", "node/b", 0, a3, []int64{b1}},
		{"unknown stream", "node/c", 0, a3, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs, err := s.ReadStreamRange(ctx, s.DB(), tt.stream, tt.after, tt.to)
			if err != nil {
				t.Fatal(err)
			}
			var got []int64
			for _, r := range recs {
				got = append(got, r.Position)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("positions (-want +got):\n%s", diff)
			}
		})
	}
}
