package events_test

import (
	"errors"
	"testing"

	"herd/events"
	"herd/events/eventstest"
)

// TestAppendPreparedOnPostgresLosesARaceWholly: another transaction
// stores the version a group's append expects while the group's one
// statement runs (it waits on the stream's index, then skips the row).
// That append is refused with a conflict, and with it the next append
// of the same stream, whose row did go in and is taken out again, and
// an append that read the stream as those two would have left it; the
// group's other appends are stored, and the log holds exactly the
// other transaction's event and theirs.
func TestAppendPreparedOnPostgresLosesARaceWholly(t *testing.T) {
	ctx := t.Context()
	log, db := openPostgresWithSQL(t)
	ev := events.NewEvent{Type: "Renewed", Payload: []byte(`{}`)}

	other, err := log.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = other.Rollback() }()
	if _, err := other.Append(ctx, "lease/raced", 0, events.Metadata{}, at, ev); err != nil {
		t.Fatal(err)
	}

	prepare := func(stream string, expected int64, reads ...events.StreamVersion) *events.PreparedAppend {
		p, err := events.PrepareAppend(stream, expected, events.Metadata{Actor: "kubelet"}, at, ev)
		if err != nil {
			t.Fatal(err)
		}
		p.ReadAt(reads...)
		return p
	}
	ps := []*events.PreparedAppend{
		prepare("lease/free", 0),
		prepare("lease/raced", 0),
		prepare("lease/raced", 1),
		prepare("node/x", 0, events.StreamVersion{Stream: "lease/raced", Version: 2}),
		prepare("lease/other", 0),
	}
	type result struct {
		recs [][]events.Record
		errs []error
		err  error
	}
	done := make(chan result, 1)
	go func() {
		tx, err := log.Begin(ctx)
		if err != nil {
			done <- result{err: err}
			return
		}
		recs, errs, err := tx.(events.PreparedAppender).AppendPrepared(ctx, ps)
		if err == nil {
			err = tx.Commit()
		} else {
			_ = tx.Rollback()
		}
		done <- result{recs, errs, err}
	}()
	eventstest.Eventually(t, eventstest.WaitFor, func() bool {
		var waiting int
		err := db.QueryRowContext(ctx, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&waiting)
		return err == nil && waiting > 0
	}, "the group's statement waits on the other transaction's version")
	if err := other.Commit(); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	for i, want := range []string{"", "lease/raced", "lease/raced", "lease/raced", ""} {
		var conflict *events.ConflictError
		switch {
		case want == "" && (r.errs[i] != nil || len(r.recs[i]) != 1):
			t.Errorf("append %d (%s): %v, %d records; want it stored", i, ps[i].Stream(), r.errs[i], len(r.recs[i]))
		case want != "" && (!errors.As(r.errs[i], &conflict) || conflict.Stream != want || r.recs[i] != nil):
			t.Errorf("append %d (%s): %v, %d records; want a conflict on %s and none", i, ps[i].Stream(), r.errs[i], len(r.recs[i]), want)
		}
	}
	stored, err := log.ReadAfter(ctx, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, rec := range stored {
		got[rec.Stream]++
	}
	if len(stored) != 3 || got["lease/raced"] != 1 || got["lease/free"] != 1 || got["lease/other"] != 1 {
		t.Errorf("the log holds %v, want one event each of lease/raced (the other transaction's), lease/free and lease/other", got)
	}
	if raced, _ := log.ReadStream(ctx, "lease/raced", 0); len(raced) != 1 || raced[0].Metadata.Actor == "kubelet" {
		t.Errorf("lease/raced holds %+v, want the other transaction's one event", raced)
	}
}
