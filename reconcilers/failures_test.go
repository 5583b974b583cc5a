package reconcilers_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"herd/domain"
	"herd/events"
	"herd/reconcilers"
)

var errZoneBusy = errors.New("zone busy")

func TestAFailingKeyIsRetriedWithBackoffWithoutHerdsClockMoving(t *testing.T) {
	h := newHarness(t)
	f := newFakeReconciler("mine")
	f.behave = func(_ context.Context, key string, n int) (reconcilers.Result, error) {
		if key == "node/flaky" && n <= 2 {
			return reconcilers.Result{}, errZoneBusy
		}
		return reconcilers.Result{}, nil
	}
	h.start(config(), f)

	h.append("node/flaky", 1)
	// Retries back off on the wall clock: a failure against a busy
	// database is not a domain wait, and herd's (here fake) clock stays.
	eventually(t, func() bool { return f.Count("node/flaky") == 3 },
		"node/flaky is retried until it succeeds; reconciled %v", f.seen())
	h.clock.Step(time.Hour)
	h.settle(f)
	if got := f.Count("node/flaky"); got != 3 {
		t.Errorf("node/flaky reconciled %d times, want 3 (two failures, one success)", got)
	}
	if got := h.value("herd_reconciler_errors_total", "mine"); got != 2 {
		t.Errorf("herd_reconciler_errors_total = %v, want 2", got)
	}
	if got := h.value("herd_reconciler_poison_total", "mine"); got != 0 {
		t.Errorf("herd_reconciler_poison_total = %v, want 0", got)
	}
}

// TestACreateRefusedInANamespaceBeingDeletedIsNoFailure: a reconcile
// whose create the namespace's deletion refuses is done, not failed: it
// is not retried and counts no error, as Kubernetes' controllers stop
// on that cause.
func TestACreateRefusedInANamespaceBeingDeletedIsNoFailure(t *testing.T) {
	h := newHarness(t)
	f := newFakeReconciler("mine")
	f.behave = func(_ context.Context, key string, _ int) (reconcilers.Result, error) {
		if key == "node/shop" {
			return reconcilers.Result{}, fmt.Errorf("create default/web-1: %w", &domain.NamespaceTerminatingError{Namespace: "shop"})
		}
		return reconcilers.Result{}, nil
	}
	h.start(config(), f)

	h.append("node/shop", 1)
	eventually(t, func() bool { return f.Count("node/shop") == 1 }, "node/shop is reconciled")
	h.settle(f)
	if got := f.Count("node/shop"); got != 1 {
		t.Errorf("node/shop reconciled %d times, want once: nothing to retry", got)
	}
	if got := h.value("herd_reconciler_errors_total", "mine"); got != 0 {
		t.Errorf("herd_reconciler_errors_total = %v, want 0", got)
	}
}

func TestAPanicInReconcileIsRecoveredAndRetried(t *testing.T) {
	h := newHarness(t)
	f := newFakeReconciler("mine")
	f.behave = func(_ context.Context, key string, n int) (reconcilers.Result, error) {
		if key == "node/boom" && n == 1 {
			panic("nil map in zone table")
		}
		return reconcilers.Result{}, nil
	}
	h.start(config(), f)

	h.append("node/boom", 1)
	h.append("node/fine", 1)
	eventually(t, func() bool { return f.Count("node/boom") == 2 }, "node/boom is retried after its panic")
	h.settle(f)
	if f.Count("node/fine") != 1 || f.Count("node/boom") != 2 {
		t.Fatalf("after a panic, reconciled %v; want node/boom twice (the panic, then its retry) and node/fine once", f.Calls())
	}
	if got := h.value("herd_reconciler_panics_total", "mine"); got != 1 {
		t.Errorf("herd_reconciler_panics_total = %v, want 1", got)
	}
	if got := h.value("herd_reconciler_errors_total", "mine"); got != 1 {
		t.Errorf("herd_reconciler_errors_total = %v, want 1 (a panic is a failure)", got)
	}
}

func TestAPanicInKeysForSetsTheEventAside(t *testing.T) {
	h := newHarness(t)
	f := newFakeReconciler("mine")
	f.keysFor = func(rec events.Record) []string {
		if rec.Type == garbled {
			panic("cannot decode payload")
		}
		return []string{rec.Stream}
	}
	m := h.start(config(), f)

	h.append("node/x", 1, garbled)
	h.append("node/y", 1)
	h.caughtUp(m, "mine")
	h.settle(f)
	if got := f.Count("node/x"); got != 0 {
		t.Errorf("node/x reconciled %d times, want 0", got)
	}
	if got := f.Count("node/y"); got != 1 {
		t.Errorf("node/y, after the panicking event, reconciled %d times, want 1", got)
	}
	if got := h.value("herd_reconciler_panics_total", "mine"); got != 1 {
		t.Errorf("herd_reconciler_panics_total = %v, want 1", got)
	}
	if got := h.value("herd_reconciler_poison_total", "mine"); got != 1 {
		t.Errorf("herd_reconciler_poison_total = %v, want 1", got)
	}
}

func TestAKeyThatAlwaysFailsIsSetAsideWithoutBlockingOthers(t *testing.T) {
	h := newHarness(t)
	f := newFakeReconciler("mine")
	f.behave = func(_ context.Context, key string, _ int) (reconcilers.Result, error) {
		if key == "node/bad" {
			return reconcilers.Result{}, fmt.Errorf("reconcile %s: %w", key, errZoneBusy)
		}
		return reconcilers.Result{}, nil
	}
	cfg := config()
	cfg.MaxRetries = 2
	h.start(cfg, f)

	h.append("node/bad", 1)
	eventually(t, func() bool { return f.Count("node/bad") >= 1 }, "node/bad is reconciled")
	// node/bad is backing off; other keys go ahead without the clock.
	h.append("node/good", 1)
	eventually(t, func() bool { return f.Count("node/good") == 1 }, "node/good is reconciled while node/bad backs off")

	eventually(t, func() bool { return h.value("herd_reconciler_poison_total", "mine") == 1 },
		"node/bad is set aside; reconciled %v", f.seen())
	h.clock.Step(time.Hour)
	h.settle(f)
	if got, want := f.Count("node/bad"), cfg.MaxRetries+1; got != want {
		t.Errorf("node/bad reconciled %d times, want %d (MaxRetries %d)", got, want, cfg.MaxRetries)
	}
	if got, want := h.value("herd_reconciler_errors_total", "mine"), float64(cfg.MaxRetries+1); got != want {
		t.Errorf("herd_reconciler_errors_total = %v, want %v", got, want)
	}

	// A new event for the key tries it afresh.
	h.append("node/bad", 1)
	eventually(t, func() bool { return f.Count("node/bad") >= cfg.MaxRetries+2 }, "a new event brings node/bad back")
}

func TestATerminalErrorIsNotRetried(t *testing.T) {
	h := newHarness(t)
	f := newFakeReconciler("mine")
	f.behave = func(_ context.Context, key string, _ int) (reconcilers.Result, error) {
		if key == "node/fatal" {
			return reconcilers.Result{}, reconcilers.Terminal(errors.New("no such zone brand"))
		}
		return reconcilers.Result{}, nil
	}
	h.start(config(), f)

	h.append("node/fatal", 1)
	eventually(t, func() bool { return f.Count("node/fatal") == 1 }, "node/fatal is reconciled")
	for range 10 {
		h.clock.Step(time.Minute)
	}
	h.settle(f)
	if got := f.Count("node/fatal"); got != 1 {
		t.Errorf("node/fatal reconciled %d times, want 1", got)
	}
	if got := h.value("herd_reconciler_errors_total", "mine"); got != 1 {
		t.Errorf("herd_reconciler_errors_total = %v, want 1", got)
	}
	if got := h.value("herd_reconciler_poison_total", "mine"); got != 0 {
		t.Errorf("herd_reconciler_poison_total = %v, want 0: a terminal error is not a poison key", got)
	}
}

func TestTerminal(t *testing.T) {
	cause := errors.New("no such zone brand")
	tests := []struct {
		name         string
		err          error
		wantTerminal bool
	}{
		{name: "plain", err: cause, wantTerminal: false},
		{name: "terminal", err: reconcilers.Terminal(cause), wantTerminal: true},
		{name: "wrapped terminal", err: fmt.Errorf("node web-01: %w", reconcilers.Terminal(cause)), wantTerminal: true},
		{name: "nil", err: nil, wantTerminal: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := reconcilers.IsTerminal(tt.err); got != tt.wantTerminal {
				t.Errorf("IsTerminal(%v) = %t, want %t", tt.err, got, tt.wantTerminal)
			}
			if tt.err != nil && !errors.Is(tt.err, cause) {
				t.Errorf("errors.Is(%v, cause) = false: the cause is lost", tt.err)
			}
		})
	}
	if err := reconcilers.Terminal(nil); err != nil {
		t.Errorf("Terminal(nil) = %v, want nil", err)
	}
}

// A key out of a reconciler's scope never reaches its Reconcile: the
// runner refuses it once, as a failure retrying cannot fix.
func TestAKeyOutOfScopeIsRefusedForGood(t *testing.T) {
	h := newHarness(t)
	f := newFakeReconciler("mine")
	f.scope = &reconcilers.Scope{Aggregates: []*domain.Aggregate{domain.NodeAggregate}}
	h.start(config(), f)

	h.append("pod/default/web", 1)
	h.append("node/a", 1)
	eventually(t, func() bool { return f.Count("node/a") == 1 }, "node/a is reconciled")
	for range 10 {
		h.clock.Step(time.Minute)
	}
	h.settle(f)
	if diff := cmp.Diff([]string{"node/a", "node/barrier-1"}, f.Calls()); diff != "" {
		t.Errorf("reconciled (-want +got):\n%s", diff)
	}
	if got := h.value("herd_reconciler_errors_total", "mine"); got != 1 {
		t.Errorf("herd_reconciler_errors_total = %v, want 1: the pod's key, refused once", got)
	}
	if got := h.value("herd_reconciler_poison_total", "mine"); got != 0 {
		t.Errorf("herd_reconciler_poison_total = %v, want 0: a key out of scope is not retried", got)
	}
}
