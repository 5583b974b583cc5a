package reconcilers_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestARestartedReconcilerResumesAfterWhatItHandled(t *testing.T) {
	h := newHarness(t)
	first := newFakeReconciler("mine")
	m := h.start(config(), first)
	h.append("node/a", 1)
	h.append("node/b", 1)
	h.caughtUp(m, "mine")
	h.settle(first)
	stop(t, m)

	// Written while no reconciler runs.
	h.append("node/c", 1)
	h.append("node/a", 1)

	second := newFakeReconciler("mine")
	h.start(config(), second)
	h.settle(second)
	// One worker reconciles in log order: a replayed node/a or node/b
	// would come before node/c.
	want := []string{"node/c", "node/a", "node/barrier-2"}
	if diff := cmp.Diff(want, second.Calls()); diff != "" {
		t.Errorf("after restart, reconciled (-want +got):\n%s", diff)
	}
}

func TestManyEventsForOneKeyAreReconciledOnce(t *testing.T) {
	h := newHarness(t)
	release := make(chan struct{})
	f := newFakeReconciler("mine")
	f.behave = blockFirst("node/a", release)
	m := h.start(config(), f)

	h.append("node/a", 1)
	eventually(t, func() bool { return f.Count("node/a") == 1 }, "node/a is being reconciled")
	const more = 50
	for range more {
		h.append("node/a", 1)
	}
	h.caughtUp(m, "mine")
	close(release)

	eventually(t, func() bool { return f.Count("node/a") == 2 }, "node/a is reconciled again after the blocked pass")
	h.settle(f)
	if got := f.Count("node/a"); got != 2 {
		t.Errorf("%d events for node/a: reconciled %d times, want 2 (one blocked pass, one for all that came meanwhile)", more+1, got)
	}
}

// The consumer only queues keys, so a reconciler stuck in Reconcile must
// not hold SQLite's write lock: every other writer carries on.
func TestABlockedReconcilerDoesNotHoldUpWriters(t *testing.T) {
	h := newHarness(t)
	release := make(chan struct{})
	f := newFakeReconciler("mine")
	f.behave = blockFirst("node/blocked", release)
	m := h.start(config(), f)
	h.append("node/blocked", 1)
	eventually(t, func() bool { return f.Count("node/blocked") == 1 }, "node/blocked is being reconciled")

	const writers, each = 4, 50
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	errs := make(chan error, writers*each)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				if err := h.tryAppend(ctx, fmt.Sprintf("node/w%d-%d", w, i), 1); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("append while a reconcile is blocked: %v", err)
	}

	// All their keys wait in the queue behind the blocked one.
	h.caughtUp(m, "mine")
	eventually(t, func() bool { return h.value("herd_reconciler_queue_depth", "mine") == writers*each },
		"queue depth %v, want %d", h.now("herd_reconciler_queue_depth", "mine"), writers*each)

	close(release)
	eventually(t, func() bool { return len(f.Calls()) == 1+writers*each },
		"every key is reconciled once the worker is free; %v so far", later(func() any { return len(f.Calls()) }))
	eventually(t, func() bool { return h.value("herd_reconciler_queue_depth", "mine") == 0 },
		"queue depth %v, want 0", h.now("herd_reconciler_queue_depth", "mine"))
}

func TestWorkersTakeDifferentKeysButNeverOneKeyTwiceAtOnce(t *testing.T) {
	h := newHarness(t)
	release := make(chan struct{})
	f := newFakeReconciler("mine")
	f.behave = blockFirst("node/a", release)
	cfg := config()
	cfg.Workers = 2
	m := h.start(cfg, f)

	h.append("node/a", 1)
	eventually(t, func() bool { return f.Count("node/a") == 1 }, "node/a is being reconciled")
	h.append("node/a", 1)
	h.caughtUp(m, "mine")
	// The second worker is free: it takes node/b, queued after the second
	// node/a, but leaves node/a to the worker that has it.
	h.append("node/b", 1)
	eventually(t, func() bool { return f.Count("node/b") == 1 }, "node/b is reconciled while node/a is blocked")
	if got := f.Count("node/a"); got != 1 {
		t.Fatalf("node/a reconciled %d times while its first pass was blocked, want 1", got)
	}

	close(release)
	eventually(t, func() bool { return f.Count("node/a") == 2 }, "node/a is reconciled again once its first pass is done")
}
