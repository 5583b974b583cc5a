package reconcilers_test

import (
	"context"
	"testing"
	"time"

	"herd/reconcilers"
)

func TestAResyncerIsResyncedAtStartAndEveryPeriod(t *testing.T) {
	h := newHarness(t)
	// Longer than any wait, so that only the fake clock can bring the
	// second pass.
	f := &fakeResyncer{fakeReconciler: newFakeReconciler("mine"), period: 10 * time.Minute, keys: []string{"zone/1", "zone/2"}}
	m := h.start(config(), f)

	eventually(t, func() bool { return f.Count("zone/1") == 1 && f.Count("zone/2") == 1 },
		"the keys of the first resync are reconciled; reconciled %v", f.seen())
	// The keys are queued before the pass is counted.
	eventually(t, func() bool { return status(t, m, "mine").Resyncs == 1 }, "Status counts the first resync")

	h.clock.Step(f.period - time.Second)
	h.settle(f.fakeReconciler)
	if got := f.Count("zone/1"); got != 1 {
		t.Errorf("zone/1 reconciled %d times before the period passed, want 1", got)
	}
	if got := status(t, m, "mine").Resyncs; got != 1 {
		t.Errorf("Status.Resyncs = %d before the period passed, want 1", got)
	}

	h.clock.Step(time.Second)
	eventually(t, func() bool { return f.Count("zone/1") == 2 && f.Count("zone/2") == 2 },
		"the keys of the second resync are reconciled; reconciled %v", f.seen())
	eventually(t, func() bool { return status(t, m, "mine").Resyncs == 2 }, "Status counts the second resync")
	if got := f.passes.Load(); got != 2 {
		t.Errorf("Resync called %d times, want 2", got)
	}
}

func TestRequeueAfterWaitsThatLongOnTheClock(t *testing.T) {
	const wait = 5 * time.Second
	h := newHarness(t)
	f := newFakeReconciler("mine")
	f.behave = func(_ context.Context, key string, n int) (reconcilers.Result, error) {
		if key == "node/a" && n == 1 {
			return reconcilers.Result{RequeueAfter: wait}, nil
		}
		return reconcilers.Result{}, nil
	}
	m := h.start(config(), f)

	h.append("node/a", 1)
	// Once the worker is idle again, the requeue is scheduled from the
	// clock's present.
	eventually(t, func() bool { return f.Count("node/a") == 1 && status(t, m, "mine").InFlight == 0 },
		"node/a is reconciled once")

	h.clock.Step(wait - time.Millisecond)
	h.settle(f)
	if got := f.Count("node/a"); got != 1 {
		t.Fatalf("node/a reconciled %d times before %s passed, want 1", got, wait)
	}

	h.clock.Step(time.Millisecond)
	eventually(t, func() bool { return f.Count("node/a") == 2 }, "node/a is reconciled again once %s has passed", wait)
	h.clock.Step(time.Hour)
	h.settle(f)
	if got := f.Count("node/a"); got != 2 {
		t.Errorf("node/a reconciled %d times, want 2: the second pass asked for no requeue", got)
	}
	if got := h.value("herd_reconciler_errors_total", "mine"); got != 0 {
		t.Errorf("herd_reconciler_errors_total = %v, want 0", got)
	}
}

func TestQueueDepthAndLagAreReportedPerReconciler(t *testing.T) {
	h := newHarness(t)
	f := &fakeResyncer{fakeReconciler: newFakeReconciler("mine"), period: time.Minute}
	m := h.start(config(), f)
	h.append("node/a", 3)
	h.caughtUp(m, "mine")
	h.settle(f.fakeReconciler)

	if _, ok := h.metric("herd_reconciler_queue_depth", "mine"); !ok {
		t.Error(`herd_reconciler_queue_depth{reconciler="mine"} is missing`)
	}
	// Lag is measured at each resync.
	h.clock.Step(f.period)
	eventually(t, func() bool { return status(t, m, "mine").Resyncs == 2 }, "a second resync runs")
	eventually(t, func() bool {
		v, ok := h.metric("herd_reconciler_lag_events", "mine")
		return ok && v == 0
	}, `herd_reconciler_lag_events{reconciler="mine"} is 0 once the consumer has caught up`)
	// Counted once Reconcile has returned.
	eventually(t, func() bool { return h.value("herd_reconciler_reconciles_total", "mine") == float64(len(f.Calls())) },
		"herd_reconciler_reconciles_total = %v, want %v", h.now("herd_reconciler_reconciles_total", "mine"),
		later(func() any { return len(f.Calls()) }))
}
