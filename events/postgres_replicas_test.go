package events_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"herd/events"
	"herd/events/eventstest"
	"herd/events/pgtest"
)

// TestPostgresReplicasShareOneLog: two herd processes on one database
// append concurrently; a follower on either reads the log forward and
// never skips a position, every acknowledged append is in it once, in
// position order, and a commit through one wakes the other's followers.
func TestPostgresReplicasShareOneLog(t *testing.T) {
	url := pgtest.URL(t)
	open := func() *events.Postgres { return eventstest.OpenPostgres(t, url) }
	a, b := open(), open()
	at := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)

	// A commit through a wakes b's followers: PostgreSQL notifies b.
	_, woken := b.CommitSignal()
	first := appendOnePG(t, a, "node/first", 0, at)
	select {
	case <-woken:
	case <-time.After(10 * time.Second):
		t.Fatal("a commit through one replica did not wake the other's followers within 10s")
	}

	const writers, each = 8, 25
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		acked = map[int64]string{first: "node/first"}
		errs  []error
	)
	for w := range writers {
		l := a
		if w%2 == 1 {
			l = b
		}
		wg.Go(func() {
			stream := fmt.Sprintf("node/w%d", w)
			for v := range int64(each) {
				tx, err := l.Begin(t.Context())
				if err == nil {
					var recs []events.Record
					if recs, err = tx.Append(t.Context(), stream, v, events.Metadata{}, at, events.NewEvent{Type: "T", Payload: []byte(`{}`)}); err == nil {
						if err = tx.Commit(); err == nil {
							mu.Lock()
							acked[recs[0].Position] = stream
							mu.Unlock()
						}
					} else {
						err = errors.Join(err, tx.Rollback())
					}
				}
				if err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
					return
				}
			}
		})
	}
	// b follows the log while the writers write, as a watch would.
	var (
		seen []events.Record
		pos  int64
	)
	deadline := time.Now().Add(30 * time.Second)
	for len(seen) < writers*each+1 && time.Now().Before(deadline) {
		recs, err := b.ReadAfter(t.Context(), pos, 7)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			if r.Position != pos+1 {
				t.Fatalf("the follower read position %d after %d: it skipped one", r.Position, pos)
			}
			pos = r.Position
			seen = append(seen, r)
		}
	}
	wg.Wait()
	if len(errs) > 0 {
		t.Fatal(errors.Join(errs...))
	}
	if len(seen) != len(acked) {
		t.Fatalf("the follower read %d events, %d were acknowledged", len(seen), len(acked))
	}
	for _, r := range seen {
		if acked[r.Position] != r.Stream {
			t.Errorf("position %d: read %s, acknowledged %q", r.Position, r.Stream, acked[r.Position])
		}
	}
	if head, err := a.Head(t.Context()); err != nil || head != pos {
		t.Errorf("head %d, %v; the follower reached %d", head, err, pos)
	}
}

func appendOnePG(t *testing.T, l events.Log, stream string, expected int64, at time.Time) int64 {
	t.Helper()
	tx, err := l.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	recs, err := tx.Append(t.Context(), stream, expected, events.Metadata{}, at, events.NewEvent{Type: "T", Payload: []byte(`{}`)})
	if err != nil {
		t.Fatal(errors.Join(err, tx.Rollback()))
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return recs[0].Position
}
