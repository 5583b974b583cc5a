package eventstest

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"herd/events"
)

// testFollowSharingReads: with ShareReads on, a follower and a reader that
// follows the head as the watch hub does each get every record once, in
// position order, exactly as the log holds it, while writers through this
// process and another commit at once; and a record both take is read
// from the database once.
func testFollowSharingReads(t *testing.T, open OpenLogFunc, o logOptions) {
	l, reopen := open(t)
	other := reopen(t)
	events.ShareReads(l)
	_, msgs := follow(t.Context(), t, l, events.FollowerConfig{Group: "g", PollInterval: o.othersPoll()})

	const writers, each = 6, 30
	ctx, cancel := context.WithTimeout(t.Context(), WaitFor)
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
	last := appendCommit(t, l, "node/last", 0, events.Metadata{}, t0, ev("HeartbeatRecorded", 1))[0]
	if got := followHead(ctx, l, want[len(want)-1].Position, 1, o.othersPoll()); len(got) != 1 || got[0].ID != last.ID {
		t.Fatalf("the reader got %v, want the last record", got)
	}
	if r := Receive(t, msgs); r.ID != last.ID {
		t.Fatalf("the follower got %d, want the last record %d", r.Position, last.Position)
	}
	memory2, fromLog2 := events.ReadsShared(l)
	if fromLog2-fromLog != 1 || memory2-memory != 1 {
		t.Errorf("the record both took: read %d times from the database and given %d times from memory, want once each",
			fromLog2-fromLog, memory2-memory)
	}
}

// followHead reads l after pos in small batches until it has n records,
// woken by l's commits or, for another process's, every poll.
func followHead(ctx context.Context, l events.Log, pos int64, n int, poll time.Duration) []events.Record {
	var out []events.Record
	for len(out) < n {
		_, committed := l.CommitSignal()
		recs, err := l.ReadAfter(ctx, pos, 7)
		if err != nil {
			return out
		}
		out = append(out, recs...)
		if len(recs) > 0 {
			pos = recs[len(recs)-1].Position
			continue
		}
		select {
		case <-ctx.Done():
			return out
		case <-committed:
		case <-time.After(min(poll, 10*time.Millisecond)):
		}
	}
	return out
}
