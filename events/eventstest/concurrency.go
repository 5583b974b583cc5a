package eventstest

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"herd/events"
)

// testOneWinnerPerVersion starts several writers at the same expected
// version, round after round: exactly one of them may win each round.
func testOneWinnerPerVersion(t *testing.T, open OpenLogFunc) {
	s, _ := open(t)
	const rounds, writers = 20, 6
	for round := range int64(rounds) {
		var (
			wg        sync.WaitGroup
			start     = make(chan struct{})
			mu        sync.Mutex
			wins      []int
			conflicts int
			others    []error
		)
		for w := range writers {
			wg.Go(func() {
				<-start
				_, err := tryAppend(t.Context(), s, "ipam/default", round, events.Metadata{Actor: fmt.Sprint(w)}, t0, ev("IPAllocated", w))
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					wins = append(wins, w)
				case errors.Is(err, events.ErrConflict):
					conflicts++
				default:
					others = append(others, err)
				}
			})
		}
		close(start)
		wg.Wait()
		if len(others) > 0 || len(wins) != 1 || conflicts != writers-1 {
			t.Fatalf("round %d: winners %v, %d conflicts, other errors %v; want one winner, %d conflicts", round, wins, conflicts, others, writers-1)
		}
		stored, err := s.ReadStream(t.Context(), "ipam/default", round)
		if err != nil {
			t.Fatal(err)
		}
		if len(stored) != 1 || stored[0].Metadata.Actor != fmt.Sprint(wins[0]) {
			t.Fatalf("round %d: stored %+v, want one event by writer %d", round, stored, wins[0])
		}
	}
}

// testNoLostUpdates has writers read the stream's version outside their
// transaction (as a command handler reads a view), then append, retrying on
// conflict. Every successful append must be in the stream, once.
func testNoLostUpdates(t *testing.T, open OpenLogFunc) {
	s, _ := open(t)
	const writers, perWriter = 6, 15
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Go(func() {
			for i := 0; i < perWriter; {
				current, err := s.ReadStream(t.Context(), "node/a", 0)
				if err != nil {
					errs <- err
					return
				}
				_, err = tryAppend(t.Context(), s, "node/a", int64(len(current)), events.Metadata{}, t0, ev(fmt.Sprintf("W%d", w), i))
				switch {
				case err == nil:
					i++
				case !errors.Is(err, events.ErrConflict):
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	stored, err := s.ReadStream(t.Context(), "node/a", 0)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{}
	got := map[string]int{}
	for w := range writers {
		for i := range perWriter {
			want[fmt.Sprintf("W%d %d", w, i)] = 1
		}
	}
	for i, r := range stored {
		if r.Version != int64(i+1) {
			t.Fatalf("event %d has version %d; the stream has a gap", i, r.Version)
		}
		var n int
		if _, err := fmt.Sscanf(string(r.Payload), `{"n":%d}`, &n); err != nil {
			t.Errorf("event %d: payload %s: %v", i, r.Payload, err)
		}
		got[fmt.Sprintf("%s %d", r.Type, n)]++
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("appends stored (-want +got):\n%s", diff)
	}
}
