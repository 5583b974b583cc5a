package eventstest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"herd/events"
)

// testFollowSharingReads: with ShareReads on, a follower and a reader that
// follows the head as the watch hub does each get every record once, in
// position order, exactly as the log holds it, while writers through this
// process and another commit at once; and a record both take is read
// from the database once, or, where the commit handed it on, not at all
// unless a poll of the database came between the commit and its hand-on.
func testFollowSharingReads(t *testing.T, open OpenLogFunc, o logOptions) {
	l, reopen := open(t)
	other := reopen(t)
	events.ShareReads(l)
	_, msgs := follow(t.Context(), t, l, events.FollowerConfig{Group: "g", PollInterval: o.othersPoll()})

	const writers, each = 6, 30
	ctx, cancel := context.WithCancel(t.Context()) // each wait has its own bound
	defer cancel()
	read := make(chan []events.Record, 1)
	go func() { read <- followHead(ctx, l, 0, writers*each, o.othersPoll()) }()
	appendConcurrently(t, msgs, writers, each, func(w int) events.Log {
		if w%2 == 1 {
			return other
		}
		return l
	})
	got := <-read
	want, err := other.ReadAfter(t.Context(), 0, 0) // another process's log shares nothing
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("the reader beside the follower (-the log +read):\n%s", diff)
	}

	memory, fromLog := events.ReadsShared(l)
	if memory == 0 {
		t.Errorf("no record given from memory of %d read twice", writers*each)
	}
	last := AppendCommit(t, l, "node/last", 0, events.Metadata{}, t0, ev("HeartbeatRecorded", 1))[0]
	if got := followHead(ctx, l, want[len(want)-1].Position, 1, o.othersPoll()); len(got) != 1 || got[0].ID != last.ID {
		t.Fatalf("the reader got %v, want the last record", got)
	}
	if r := Receive(t, msgs); r.ID != last.ID {
		t.Fatalf("the follower got %d, want the last record %d", r.Position, last.Position)
	}
	memory2, fromLog2 := events.ReadsShared(l)
	readLog, given := fromLog2-fromLog, memory2-memory
	switch {
	case !o.commitsHandedOn && (readLog != 1 || given != 1):
		t.Errorf("the record both took: read %d times from the database and given %d times from memory, want 1 and 1", readLog, given)
	case o.commitsHandedOn && (readLog > 1 || readLog+given != 2):
		// Both take it from memory, unless a follower's poll of the
		// database falls between the commit and its hand-on: the poll
		// then reads it and the other reader takes it from memory.
		// That it was handed on at all is CommitsHandedOn's to say.
		t.Errorf("the record both took: read %d times from the database and given %d times from memory, want 0 and 2 (or 1 and 1 after a poll before its hand-on)", readLog, given)
	}
	if handed, want := events.CommitsHandedOn(l), int64(writers/2*each+1); o.commitsHandedOn && handed != want {
		t.Errorf("%d records handed on by this process's commits, want the %d it committed", handed, want)
	} else if !o.commitsHandedOn && handed != 0 {
		t.Errorf("%d records handed on by commits on an engine that hands none on", handed)
	}
}

// testFollowAcrossTheWindow: with ShareReads on, a follower and a reader
// that follows the head as the watch hub does each get every record once,
// in position order, exactly as the log holds it (another process's read
// says), across a command rolled back to its savepoint, prepared appends,
// a commit larger than the window of recent records (they catch up from
// the database) and a restart (they start from the database again). Where
// commits hand their records on, every record this process committed
// was handed on, and the readers took the small commits' from memory.
func testFollowAcrossTheWindow(t *testing.T, open OpenLogFunc, o logOptions) {
	l, reopen := open(t)
	events.ShareReads(l)
	ctx, cancel := context.WithCancel(t.Context()) // each wait has its own bound
	defer cancel()
	cfg := events.FollowerConfig{Group: "g", PollInterval: o.othersPoll()}
	f, msgs := follow(ctx, t, l, cfg)
	var committed int64 // records committed through l
	small := func(l events.Log, stream string, n int) {
		t.Helper()
		for i := range n {
			AppendCommit(t, l, stream, int64(i), events.Metadata{Actor: "a", Source: "test"}, t0, ev("HeartbeatRecorded", i))
		}
		committed += int64(n)
	}
	small(l, "node/a", 5)
	committed += commitWithRollback(t, l)
	fromLog := func() int64 { _, n := events.ReadsShared(l); return n }
	readBefore := fromLog()
	small(l, "node/b", 5)
	var big []events.NewEvent
	for i := range 5000 { // more than the window's 4,096 records
		big = append(big, ev("HeartbeatRecorded", i))
	}
	AppendCommit(t, l, "node/big", 0, events.Metadata{}, t0, big...)
	committed += int64(len(big))
	small(l, "node/c", 5)

	other := reopen(t) // another process: its reads share nothing
	want, err := other.ReadAfter(t.Context(), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, ReceiveN(t, msgs, len(want))); diff != "" {
		t.Fatalf("the follower (-the log +delivered):\n%s", diff)
	}
	if diff := cmp.Diff(want, followHead(ctx, l, 0, len(want), o.othersPoll())); diff != "" {
		t.Fatalf("the reader beside the follower (-the log +read):\n%s", diff)
	}
	if o.commitsHandedOn {
		if handed := events.CommitsHandedOn(l); handed != committed {
			t.Errorf("%d records handed on by this process's commits, want the %d it committed", handed, committed)
		}
		// Both readers caught up on the small commits before the large
		// one; at most the large commit's records beyond the window come
		// from the database, to one of them or the other.
		if n := fromLog() - readBefore; n > 2*int64(len(big)) {
			t.Errorf("%d records read from the database after the first commits, want at most the large commit's twice", n)
		}
	}
	last := want[len(want)-1].Position
	acked(t, f, last)
	if err := other.Close(); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	WaitClosed(t, msgs)

	l = reopen(t)
	events.ShareReads(l)
	AppendCommit(t, l, "node/d", 0, events.Metadata{}, t0, ev("HeartbeatRecorded", 1))
	_, msgs = follow(ctx, t, l, cfg)
	small(l, "node/e", 3)
	after, err := l.ReadAfter(t.Context(), last, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != 4 {
		t.Fatalf("%d records after the restart, want 4", len(after))
	}
	if diff := cmp.Diff(after, ReceiveN(t, msgs, len(after))); diff != "" {
		t.Fatalf("the follower after the restart (-the log +delivered):\n%s", diff)
	}
	if diff := cmp.Diff(after, followHead(ctx, l, last, len(after), o.othersPoll())); diff != "" {
		t.Fatalf("the reader after the restart (-the log +read):\n%s", diff)
	}
	select {
	case msg := <-msgs:
		t.Fatalf("the follower delivered position %s again", msg.Metadata[events.KeyPosition])
	default:
	}
}

// commitWithRollback commits, in one transaction, a command rolled back
// to its savepoint between two that are kept, the second as a prepared
// append where the engine has them, and returns how many records it kept.
func commitWithRollback(t *testing.T, l events.Log) int64 {
	t.Helper()
	ctx := t.Context()
	tx, err := l.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	step := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	step("savepoint", tx.Savepoint(ctx))
	_, err = tx.Append(ctx, "node/kept", 0, events.Metadata{CausationID: "c"}, t0, ev("A", 1), ev("A", 2))
	step("append", err)
	step("release", tx.ReleaseSavepoint(ctx))
	step("savepoint", tx.Savepoint(ctx))
	_, err = tx.Append(ctx, "node/undone", 0, events.Metadata{}, t0, ev("B", 1), ev("B", 2), ev("B", 3))
	step("append", err)
	step("roll back to the savepoint", tx.RollbackToSavepoint(ctx))
	step("release", tx.ReleaseSavepoint(ctx))
	step("savepoint", tx.Savepoint(ctx))
	if pa, ok := tx.(events.PreparedAppender); ok {
		p, err := events.PrepareAppend("node/prepared", 0, events.Metadata{Actor: "p"}, t0, ev("C", 1))
		step("prepare", err)
		_, errs, err := pa.AppendPrepared(ctx, []*events.PreparedAppend{p})
		step("append prepared", errors.Join(append(errs, err)...))
	} else {
		_, err = tx.Append(ctx, "node/prepared", 0, events.Metadata{Actor: "p"}, t0, ev("C", 1))
		step("append", err)
	}
	step("release", tx.ReleaseSavepoint(ctx))
	step("commit", tx.Commit())
	return 3
}

// followHead reads l after pos in small batches until it has n records,
// woken by l's commits or, for another process's, every poll. It gives up
// when ctx ends or when WaitFor passes without a new record: a loaded
// machine that slows the writers slows the reader with them, and only a
// reader that stops while records wait fails.
func followHead(ctx context.Context, l events.Log, pos int64, n int, poll time.Duration) []events.Record {
	var out []events.Record
	idle := time.NewTimer(WaitFor)
	defer idle.Stop()
	for len(out) < n {
		_, committed := l.CommitSignal()
		recs, err := l.ReadAfter(ctx, pos, 7)
		if err != nil {
			return out
		}
		out = append(out, recs...)
		if len(recs) > 0 {
			pos = recs[len(recs)-1].Position
			idle.Reset(WaitFor)
			continue
		}
		select {
		case <-ctx.Done():
			return out
		case <-idle.C:
			return out
		case <-committed:
		case <-time.After(min(poll, 10*time.Millisecond)):
		}
	}
	return out
}
