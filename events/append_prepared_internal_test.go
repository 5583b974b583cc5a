package events

import (
	"errors"
	"path/filepath"
	"testing"
	"time"
)

// TestAnAppendAfterOneAnInsertRefusedIsRefusedToo: when the insert of a
// group's append fails all the same (here a duplicate event id, which
// the check of the streams' versions cannot foresee), a later append of
// the same stream in the group, which expected the refused one's events,
// stores nothing either: the stream gets no gap. The group's other
// appends are stored.
func TestAnAppendAfterOneAnInsertRefusedIsRefusedToo(t *testing.T) {
	ctx := t.Context()
	s, err := Open(ctx, Config{Path: filepath.Join(t.TempDir(), "herd.db")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	at := time.Date(2026, 11, 29, 16, 0, 0, 0, time.UTC)
	ev := NewEvent{Type: "T", Payload: []byte(`{}`)}
	prepare := func(stream string, expected int64) *PreparedAppend {
		p, err := PrepareAppend(stream, expected, Metadata{}, at, ev)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	taken := prepare("other", 0)
	ps := []*PreparedAppend{prepare("a", 0), prepare("b", 0), prepare("a", 1), prepare("b", 1)}
	// a@0 carries an id the log already holds.
	ps[0].records[0].ID, ps[0].args[0] = taken.records[0].ID, taken.records[0].ID
	l := s.Log()
	for _, group := range [][]*PreparedAppend{{taken}, ps} {
		tx, err := l.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		recs, errs, err := tx.(PreparedAppender).AppendPrepared(ctx, group)
		if err != nil {
			_ = tx.Rollback()
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		if len(group) == 1 {
			continue
		}
		if errs[0] == nil || recs[0] != nil {
			t.Errorf("a@0 with a duplicate id: %d records, %v; want none and an error", len(recs[0]), errs[0])
		}
		var ce *ConflictError
		if !errors.As(errs[2], &ce) || *ce != (ConflictError{Stream: "a", Expected: 1, Actual: 0}) || recs[2] != nil {
			t.Errorf("a@1 after a@0 was refused: %d records, %v; want none and a conflict at 0", len(recs[2]), errs[2])
		}
		for _, i := range []int{1, 3} {
			if errs[i] != nil || len(recs[i]) != 1 {
				t.Errorf("append %d of b: %d records, %v; want it stored", i, len(recs[i]), errs[i])
			}
		}
	}
	for stream, want := range map[string]int{"a": 0, "b": 2, "other": 1} {
		got, err := l.ReadStream(ctx, stream, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != want {
			t.Errorf("%s holds %d events, want %d", stream, len(got), want)
		}
	}
}
