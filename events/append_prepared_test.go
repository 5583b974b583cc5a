package events_test

import (
	"errors"
	"fmt"
	"testing"

	"herd/events"
)

// onPreparedEngines runs test on each engine's log whose transactions
// append prepared writes: SQLite's and PostgreSQL's (when a server is
// there; pgtest skips it otherwise).
func onPreparedEngines(t *testing.T, test func(t *testing.T, log events.Log)) {
	t.Run("sqlite", func(t *testing.T) {
		s, _ := openSQLite(t)
		test(t, s.Log())
	})
	t.Run("postgres", func(t *testing.T) {
		l, _ := openPostgres(t)
		test(t, l)
	})
}

// TestAppendPreparedRefusesOnlyTheStreamsThatMoved: prepared appends of
// many streams in one transaction, more rows than one statement holds,
// one of them at a version its stream left: that one is refused with a
// conflict and stores nothing, every other is stored at consecutive
// positions in the order given, with its metadata, and reads back as
// Append would have stored it.
func TestAppendPreparedRefusesOnlyTheStreamsThatMoved(t *testing.T) {
	onPreparedEngines(t, testAppendPreparedRefusesOnlyTheStreamsThatMoved)
}

func testAppendPreparedRefusesOnlyTheStreamsThatMoved(t *testing.T, log events.Log) {
	ctx := t.Context()
	ev := func(i int) events.NewEvent {
		return events.NewEvent{Type: "Renewed", Payload: fmt.Appendf(nil, `{"n":%d}`, i)}
	}
	seed, err := log.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := seed.Append(ctx, "lease/taken", 0, events.Metadata{}, at, ev(0), ev(1)); err != nil {
		t.Fatal(err)
	}
	if err := seed.Commit(); err != nil {
		t.Fatal(err)
	}

	md := events.Metadata{Actor: "kubelet"}
	var ps []*events.PreparedAppend
	for i := range 40 {
		stream, expected := fmt.Sprintf("lease/n-%02d", i), int64(0)
		if i == 17 {
			stream, expected = "lease/taken", 1 // the stream is at 2
		}
		p, err := events.PrepareAppend(stream, expected, md, at, ev(i), ev(i+100))
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	tx, err := log.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	recs, errs, err := tx.(events.PreparedAppender).AppendPrepared(ctx, ps)
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	var last int64 = 2
	for i := range ps {
		if i == 17 {
			if !errors.Is(errs[i], events.ErrConflict) || recs[i] != nil {
				t.Errorf("append on a moved stream: %v, %d records; want a conflict and none", errs[i], len(recs[i]))
			}
			continue
		}
		if errs[i] != nil {
			t.Fatalf("append %d: %v", i, errs[i])
		}
		for j, r := range recs[i] {
			if r.Position != last+1 || r.Version != int64(j+1) {
				t.Errorf("append %d event %d at position %d version %d, want position %d version %d", i, j, r.Position, r.Version, last+1, j+1)
			}
			last = r.Position
		}
	}
	stored, err := log.ReadAfter(ctx, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(stored) != 39*2 {
		t.Fatalf("%d events stored, want %d", len(stored), 39*2)
	}
	if got := stored[0]; got.Stream != "lease/n-00" || string(got.Payload) != `{"n":0}` || got.Metadata.Actor != "kubelet" || !got.RecordedAt.Equal(at) {
		t.Errorf("first stored event %+v", got)
	}
	taken, err := log.ReadStream(ctx, "lease/taken", 0)
	if err != nil || len(taken) != 2 {
		t.Errorf("the moved stream holds %d events (%v), want its 2", len(taken), err)
	}
	if head, _ := log.Head(ctx); head != last {
		t.Errorf("head %d, want %d", head, last)
	}
}

// TestAppendPreparedChecksTheStreamsItRead: a prepared append that
// depends on streams it does not write (ReadAt) is stored when they
// stand where it read them, and refused with a conflict, storing
// nothing, when one stands elsewhere: moved before the transaction, or
// by an append before it in the same call.
func TestAppendPreparedChecksTheStreamsItRead(t *testing.T) {
	onPreparedEngines(t, testAppendPreparedChecksTheStreamsItRead)
}

func testAppendPreparedChecksTheStreamsItRead(t *testing.T, log events.Log) {
	ctx := t.Context()
	ev := events.NewEvent{Type: "Marked", Payload: []byte(`{}`)}
	seed, err := log.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := seed.Append(ctx, "lease/renewed", 0, events.Metadata{}, at, ev, ev); err != nil {
		t.Fatal(err)
	}
	if err := seed.Commit(); err != nil {
		t.Fatal(err)
	}
	prepare := func(stream string, expected int64, reads ...events.StreamVersion) *events.PreparedAppend {
		p, err := events.PrepareAppend(stream, expected, events.Metadata{}, at, ev)
		if err != nil {
			t.Fatal(err)
		}
		p.ReadAt(reads...)
		return p
	}
	ps := []*events.PreparedAppend{
		// Read as they stand: the renewed stream at 2, a stream never written at 0.
		prepare("node/a", 0, events.StreamVersion{Stream: "lease/renewed", Version: 2}, events.StreamVersion{Stream: "lease/none", Version: 0}),
		// Read before its last renewal.
		prepare("node/b", 0, events.StreamVersion{Stream: "lease/renewed", Version: 1}),
		// A renewal in the same call, then an append that read the lease before it.
		prepare("lease/later", 0),
		prepare("node/c", 0, events.StreamVersion{Stream: "lease/later", Version: 0}),
	}
	tx, err := log.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	recs, errs, err := tx.(events.PreparedAppender).AppendPrepared(ctx, ps)
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	for i, want := range []bool{true, false, true, false} {
		if want && (errs[i] != nil || len(recs[i]) != 1) {
			t.Errorf("append %d (%s): %v, %d records; want it stored", i, ps[i].Stream(), errs[i], len(recs[i]))
		}
		var conflict *events.ConflictError
		if !want && (!errors.As(errs[i], &conflict) || recs[i] != nil) {
			t.Errorf("append %d (%s): %v, %d records; want a conflict and none", i, ps[i].Stream(), errs[i], len(recs[i]))
		}
	}
	for stream, want := range map[string]int{"node/a": 1, "node/b": 0, "lease/later": 1, "node/c": 0} {
		got, err := log.ReadStream(ctx, stream, 0)
		if err != nil || len(got) != want {
			t.Errorf("%s holds %d events (%v), want %d", stream, len(got), err, want)
		}
	}
}
