package reconcilers_test

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"herd/domain"
	"herd/events"
	"herd/reconcilers"
)

// key is the Key a test writes as s: an object's stream ("node/a"), or
// the name of a pass ("zone/1").
func key(s string) reconcilers.Key {
	if k, ok := reconcilers.KeyOf(events.Record{Stream: s}); ok {
		return k
	}
	return reconcilers.Pass(s)
}

// keys is key of each of ss.
func keys(ss []string) []reconcilers.Key {
	out := make([]reconcilers.Key, 0, len(ss))
	for _, s := range ss {
		out = append(out, key(s))
	}
	return out
}

// fakeReconciler is a Reconciler whose outcome the test scripts per key,
// each written as its String. It records every key it is asked to
// reconcile, in order. Set its fields before the manager starts; they are
// read concurrently afterwards.
type fakeReconciler struct {
	name string
	// scope is what it takes; nil means the objects of every aggregate.
	scope *reconcilers.Scope
	// keysFor maps a record to keys; nil means the record's stream is
	// the key.
	keysFor func(events.Record) []string
	// behave decides the outcome of the nth call (from 1) for key; nil
	// means every call succeeds.
	behave func(ctx context.Context, key string, n int) (reconcilers.Result, error)

	mu    sync.Mutex
	calls []string
	count map[string]int
}

var _ reconcilers.Reconciler = (*fakeReconciler)(nil)

func newFakeReconciler(name string) *fakeReconciler {
	return &fakeReconciler{name: name, count: map[string]int{}}
}

func (f *fakeReconciler) Name() string { return f.name }

// Watches takes its scope and maps every event of every aggregate
// through keysFor.
func (f *fakeReconciler) Watches() *reconcilers.Watches {
	return fakeWatches(f.scope, nil, f.mapRecord)
}

func (f *fakeReconciler) mapRecord(rec events.Record) []reconcilers.Key {
	if f.keysFor != nil {
		return keys(f.keysFor(rec))
	}
	return []reconcilers.Key{key(rec.Stream)}
}

// fakeWatches is a declaration taking scope (nil: the objects of every
// aggregate) and passes, and mapping every event of every aggregate
// through fn.
func fakeWatches(scope *reconcilers.Scope, passes []reconcilers.Key, fn reconcilers.MapFunc) *reconcilers.Watches {
	w := reconcilers.Watch()
	if scope != nil {
		w.Takes(scope.Aggregates...).Passes(scope.Passes...)
	} else {
		w.Takes(domain.Aggregates()...)
	}
	w.Passes(passes...)
	for _, a := range domain.Aggregates() {
		w.Watches(reconcilers.EventsOf(a), fn)
	}
	return w
}

func (f *fakeReconciler) Reconcile(ctx context.Context, k reconcilers.Key) (reconcilers.Result, error) {
	key := k.String()
	f.mu.Lock()
	f.calls = append(f.calls, key)
	f.count[key]++
	n := f.count[key]
	f.mu.Unlock()
	if f.behave == nil {
		return reconcilers.Result{}, nil
	}
	return f.behave(ctx, key, n)
}

// Calls returns the keys reconciled so far, in order.
func (f *fakeReconciler) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls)
}

// Count returns how many times key has been reconciled.
func (f *fakeReconciler) Count(key string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.count[key]
}

// fakeResyncer is a fakeReconciler that also resyncs a fixed set of keys.
type fakeResyncer struct {
	*fakeReconciler
	period time.Duration
	keys   []string
	passes atomic.Int64
}

var _ reconcilers.Resyncer = (*fakeResyncer)(nil)

func (f *fakeResyncer) ResyncPeriod() time.Duration { return f.period }

// Watches takes the objects of every aggregate and the resync's passes.
func (f *fakeResyncer) Watches() *reconcilers.Watches {
	var passes []reconcilers.Key
	for _, k := range keys(f.keys) {
		if k.IsPass() {
			passes = append(passes, k)
		}
	}
	return fakeWatches(f.scope, passes, f.mapRecord)
}

func (f *fakeResyncer) Resync(context.Context) ([]reconcilers.Key, error) {
	f.passes.Add(1)
	return keys(f.keys), nil
}

// blockFirst returns a behaviour that holds the first reconcile of key
// until release is closed (or the manager stops), and lets every other
// call succeed at once.
func blockFirst(key string, release <-chan struct{}) func(context.Context, string, int) (reconcilers.Result, error) {
	return func(ctx context.Context, k string, n int) (reconcilers.Result, error) {
		if k == key && n == 1 {
			select {
			case <-release:
			case <-ctx.Done():
				return reconcilers.Result{}, ctx.Err()
			}
		}
		return reconcilers.Result{}, nil
	}
}
