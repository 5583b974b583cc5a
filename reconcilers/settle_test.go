package reconcilers_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"herd/domain"
	"herd/reconcilers"
)

// TestSettlerWaitsForOwedResyncsAndBusyKeys: a caller that moves herd's
// clock learns that the reconcilers have settled only once every resync
// pass the move owes is made and every key the log gave them is done; a
// wait that runs out names the reconciler still busy.
func TestSettlerWaitsForOwedResyncsAndBusyKeys(t *testing.T) {
	h := newHarness(t)
	ticking := &fakeResyncer{fakeReconciler: newFakeReconciler("ticking"), period: time.Minute, keys: []string{"zone/1"}}
	release := make(chan struct{})
	blocked := newFakeReconciler("blocked")
	blocked.behave = blockFirst("node/a", release)
	m := h.start(config(), ticking, blocked)

	s := reconcilers.NewSettler(m, h.clock.Now(), func(ctx context.Context) (int64, error) {
		return h.store.Head(ctx, h.store.DB())
	})
	s.Timeout = 10 * waitFor
	if err := s.Settle(t.Context()); err != nil {
		t.Fatalf("after start: %v", err)
	}

	// The settler is told the clock reached the next tick before herd's
	// clock gets there: the pass it owes has not been made.
	s.ClockMoved(t0.Add(time.Minute))
	if busy := s.Busy(h.head()); !strings.HasPrefix(busy, "ticking:") || !strings.Contains(busy, "want 2 resyncs") {
		t.Fatalf("a tick owed and not made reads as %q", busy)
	}
	short := *s
	short.Timeout = 20 * time.Millisecond
	if err := short.Settle(t.Context()); err == nil || !strings.Contains(err.Error(), "ticking:") {
		t.Fatalf("a wait for a pass never made: %v", err)
	}
	h.clock.SetTime(t0.Add(time.Minute))
	if err := s.Settle(t.Context()); err != nil {
		t.Fatalf("after the tick: %v", err)
	}

	// A key held in a reconcile keeps the settler waiting.
	h.append("node/a", 1)
	if err := short.Settle(t.Context()); err == nil || !strings.Contains(err.Error(), "blocked:") {
		t.Fatalf("a wait while a reconcile is held: %v", err)
	}
	close(release)
	if err := s.Settle(t.Context()); err != nil {
		t.Fatalf("after the reconcile is let go: %v", err)
	}
	if blocked.Count("node/a") == 0 {
		t.Fatal("settled before node/a was reconciled")
	}

	// A cancelled wait says so.
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := s.Settle(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled wait: %v", err)
	}
}

// TestSettlerWakesWhenAReconcilerMakesProgress: a caller waiting for a
// busy reconciler learns it has settled as soon as its reconcile ends,
// not when its longest pause runs out. The what-if settles at every
// input and every timer of the simulated clock, tens of thousands of
// times an hour of a large fleet, and the pauses were most of its time.
func TestSettlerWakesWhenAReconcilerMakesProgress(t *testing.T) {
	h := newHarness(t)
	release := make(chan struct{})
	blocked := newFakeReconciler("blocked")
	blocked.behave = blockFirst("node/a", release)
	m := h.start(config(), blocked)

	s := reconcilers.NewSettler(m, h.clock.Now(), func(ctx context.Context) (int64, error) {
		return h.store.Head(ctx, h.store.DB())
	})
	// Pauses while busy far longer than the test may take: only a
	// wake-up on progress lets Settle return in time.
	s.FirstWait, s.LongestWait, s.QuietWait, s.Timeout = time.Hour, time.Hour, time.Millisecond, 2*time.Hour
	s.LookAtOnce = true
	if err := s.Settle(t.Context()); err != nil {
		t.Fatalf("after start: %v", err)
	}

	h.append("node/a", 1)
	ctx, cancel := context.WithTimeout(t.Context(), 2*waitFor)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- s.Settle(ctx) }()
	eventually(t, func() bool { return blocked.Count("node/a") > 0 },
		"node/a's reconcile begins")
	select {
	case err := <-done:
		t.Fatalf("settled while node/a's reconcile was held: %v", err)
	default:
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("a settle that should have woken when the reconcile ended: %v", err)
	}
	if blocked.Count("node/a") == 0 {
		t.Fatal("settled before node/a was reconciled")
	}
}

// TestStatusCountsAKeyBeingReconciledAsUnfinished: the queue itself
// counts a key from the moment it is queued until its reconcile is done,
// so a key that a worker has just taken off the queue (and not yet
// counted in flight) never reads as settled; a key queued again while it
// is reconciled counts until that second reconcile is done too.
func TestStatusCountsAKeyBeingReconciledAsUnfinished(t *testing.T) {
	h := newHarness(t)
	release := make(chan struct{})
	blocked := newFakeReconciler("blocked")
	blocked.behave = blockFirst("node/a", release)
	m := h.start(config(), blocked)

	h.append("node/a", 1)
	eventually(t, func() bool { return blocked.Count("node/a") == 1 }, "node/a's reconcile begins")
	if st := status(t, m, "blocked"); st.Unfinished != 1 || st.Settled(h.head()) {
		t.Fatalf("a key held in its reconcile: %+v", st)
	}
	h.append("node/a", 2)
	eventually(t, func() bool { return status(t, m, "blocked").Unfinished == 2 }, "node/a queued again while held: %+v", status(t, m, "blocked"))
	close(release)
	eventually(t, func() bool { return blocked.Count("node/a") == 2 && status(t, m, "blocked").Settled(h.head()) },
		"node/a reconciled again and settled: %+v", status(t, m, "blocked"))
	if st := status(t, m, "blocked"); st.Unfinished != 0 {
		t.Fatalf("settled with keys unfinished: %+v", st)
	}
}

// TestSettlerPutsBackARequeueTheQueueLost: a requeue whose time has come
// on herd's clock but that the delaying queue never delivers (its timer
// set from a time a simulated clock had already left) is put back on
// the queue by a caller waiting for the reconcilers, and reconciled,
// rather than holding the wait until it runs out.
func TestSettlerPutsBackARequeueTheQueueLost(t *testing.T) {
	h := newHarness(t)
	r := newFakeReconciler("requeuing")
	m := h.start(config(), r)
	s := reconcilers.NewSettler(m, h.clock.Now(), func(ctx context.Context) (int64, error) {
		return h.store.Head(ctx, h.store.DB())
	})
	s.Timeout = waitFor
	if err := s.Settle(t.Context()); err != nil {
		t.Fatalf("after start: %v", err)
	}

	key := reconcilers.Key{Aggregate: domain.NodeAggregate, Name: "a"}
	reconcilers.LoseRequeue(m, "requeuing", key, h.clock.Now())
	if busy := s.Busy(h.head()); !strings.Contains(busy, "Due:1") {
		t.Fatalf("a requeue due and not delivered reads as %q", busy)
	}
	if err := s.Settle(t.Context()); err != nil {
		t.Fatalf("a requeue the queue lost: %v", err)
	}
	if r.Count("node/a") != 1 {
		t.Fatalf("node/a reconciled %d times, want once", r.Count("node/a"))
	}
}
