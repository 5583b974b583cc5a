package eventstest

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/google/go-cmp/cmp"

	"herd/events"
)

// othersPoll is how long a follower of the contract waits between reads
// when no commit is announced, in the tests of other processes' commits:
// an hour, so that only an announcement can deliver one in time, unless
// the engine finds such commits only by polling (OthersCommitsPolled).
func (o logOptions) othersPoll() time.Duration {
	if o.othersCommitsPolled {
		return 10 * time.Millisecond
	}
	return time.Hour
}

// testFollowWokenByAnotherProcess: a commit through another log open on
// the same database (another herd process) reaches a follower that has
// read everything before it and waits.
func testFollowWokenByAnotherProcess(t *testing.T, open OpenLogFunc, o logOptions) {
	l, reopen := open(t)
	other := reopen(t)
	f, msgs := follow(t.Context(), t, l, events.FollowerConfig{Group: "g", PollInterval: o.othersPoll()})
	// Once its first read has returned, with nothing, only another read
	// can find the commit below.
	Eventually(t, WaitFor, func() bool { return f.Reads() >= 1 }, "the follower reads the empty log")
	recs := AppendCommit(t, other, "node/a", 0, events.Metadata{Actor: "other"}, t0, ev("A", 1))
	if diff := cmp.Diff(recs[0], Receive(t, msgs)); diff != "" {
		t.Errorf("another process's commit, delivered (-want +got):\n%s", diff)
	}
}

// testFollowUnderConcurrentAppenders: writers in two processes append at
// once while a group follows in one of them; every event arrives once, in
// position order, none skipped.
func testFollowUnderConcurrentAppenders(t *testing.T, open OpenLogFunc, o logOptions) {
	l, reopen := open(t)
	other := reopen(t)
	_, msgs := follow(t.Context(), t, l, events.FollowerConfig{Group: "g", PollInterval: o.othersPoll()})
	const writers, each = 6, 40
	appendConcurrently(t, msgs, writers, each, func(w int) events.Log {
		if w%2 == 1 {
			return other
		}
		return l
	})
}

// testFollowInherit: a group not seen before starts where the slowest of
// the groups it replaces stood, and is registered there at once; a group
// with a position of its own keeps it.
func testFollowInherit(t *testing.T, open OpenLogFunc, _ logOptions) {
	tests := []struct {
		name   string
		groups map[string]int64
		want   int64 // the first position delivered
	}{
		{name: "no groups before it", want: 1},
		{name: "no group with the prefix", groups: map[string]int64{"other": 5, "Reconciler-a": 2}, want: 1},
		{name: "old groups", groups: map[string]int64{"reconciler-a": 5, "reconciler-b": 3, "other": 1, "Reconciler-c": 2}, want: 4},
		{name: "its own position wins", groups: map[string]int64{"reconcilers": 6, "reconciler-b": 3}, want: 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			l, _ := open(t)
			for i := range 8 {
				AppendCommit(t, l, "node/a", int64(i), events.Metadata{}, t0, ev("A", i))
			}
			for g, pos := range tt.groups {
				if err := l.SaveGroupPosition(t.Context(), g, pos); err != nil {
					t.Fatal(err)
				}
			}
			f, msgs := follow(t.Context(), t, l, events.FollowerConfig{Group: "reconcilers", Inherit: "reconciler-"})
			if got := f.Position(); got != tt.want-1 {
				t.Errorf("Position before any ack = %d, want %d", got, tt.want-1)
			}
			if got := groupPosition(t, l, "reconcilers"); got != tt.want-1 {
				t.Errorf("registered at %d before any ack, want %d", got, tt.want-1)
			}
			if got := Receive(t, msgs).Position; got != tt.want {
				t.Errorf("first position delivered = %d, want %d", got, tt.want)
			}
		})
	}
}

// appendConcurrently has writers append each events to a stream of their
// own, at once, through the log via(writer) names, while msgs delivers
// them: every event must arrive once, in position order, none skipped.
// A delivery is awaited for WaitFor after the last progress of either
// side, an append or a delivery: a subscriber that takes SQLite's write
// lock to read (watermill's) may get none while the writers keep it busy
// on a loaded machine (SQLite's busy wait is no queue), and catches up
// once they are done; one that stops while nothing else moves fails.
func appendConcurrently(t *testing.T, msgs <-chan *message.Message, writers, each int, via func(writer int) events.Log) {
	t.Helper()
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		appended = map[int64]string{}
		errs     = make(chan error, writers)
		progress = time.Now() // of either side, under mu
	)
	for w := range writers {
		log := via(w)
		wg.Go(func() {
			stream := fmt.Sprintf("node/%d", w)
			for i := range each {
				recs, err := tryAppend(t.Context(), log, stream, int64(i), events.Metadata{}, t0, ev("HeartbeatRecorded", i))
				for events.LockedOut(err) {
					// SQLite's busy wait is no queue: on a loaded machine
					// a writer among eight, beside a subscriber that
					// holds the write lock while its batch is acked, can
					// wait out the busy timeout. It wrote nothing: again.
					recs, err = tryAppend(t.Context(), log, stream, int64(i), events.Metadata{}, t0, ev("HeartbeatRecorded", i))
				}
				if err != nil {
					errs <- fmt.Errorf("%s@%d: %w", stream, i, err)
					return
				}
				mu.Lock()
				appended[recs[0].Position] = recs[0].ID
				progress = time.Now()
				mu.Unlock()
			}
		})
	}
	received := map[int64]string{}
	var last int64
	for range writers * each {
		r := receiveWhile(t, msgs, errs, func() time.Time {
			mu.Lock()
			defer mu.Unlock()
			return progress
		})
		mu.Lock()
		progress = time.Now()
		mu.Unlock()
		if r.Position <= last {
			t.Fatalf("position %d delivered after %d", r.Position, last)
		}
		last = r.Position
		received[r.Position] = r.ID
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if diff := cmp.Diff(appended, received); diff != "" {
		t.Errorf("delivered (-appended +received):\n%s", diff)
	}
}

// receiveWhile is Receive with a deadline of WaitFor after the moment
// lastProgress says, which may move on while it waits; a writer's
// failure on failed ends the wait at once, naming it (the message it
// would have appended will never come).
func receiveWhile(t testing.TB, msgs <-chan *message.Message, failed <-chan error, lastProgress func() time.Time) events.Record {
	t.Helper()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-failed:
			t.Fatalf("a writer stopped: %v", err)
		case msg, ok := <-msgs:
			return ackedRecord(t, msg, ok)
		case <-tick.C:
			if since := time.Since(lastProgress()); since > WaitFor {
				t.Fatalf("no message within %s, and no append either", since.Round(time.Second))
			}
		}
	}
}
