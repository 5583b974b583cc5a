package reconcilers

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.uber.org/zap"

	"herd/domain"
	"herd/events"
)

// processNext reconciles one key from the queue; false once the queue is
// shut down.
func (rn *runner) processNext(ctx context.Context) bool {
	key, shutdown := rn.queue.Get()
	if shutdown {
		return false
	}
	rn.inFlight.Add(1)
	defer rn.activity.signal()
	defer rn.inFlight.Add(-1)
	defer rn.queue.Done(key)
	rn.requeueMu.Lock()
	if at, ok := rn.requeueAt[key]; ok && !at.After(rn.clock.Now()) {
		delete(rn.requeueAt, key)
	}
	rn.requeueMu.Unlock()
	if ctx.Err() != nil {
		// The queue hands out its backlog even after ShutDown; stopping
		// herd must not reconcile all of it with a cancelled context.
		return true
	}
	name := rn.r.Name()
	// Durations for metrics are wall time on purpose: they measure what the
	// work cost, which herd's (possibly fake) clock cannot.
	start := time.Now()
	rn.causeMu.Lock()
	cause, caused := rn.causes[key]
	delete(rn.causes, key)
	rn.causeMu.Unlock()
	// The reconcile names its decision's cause from the log (see
	// Because, BecauseOf); the newest record that queued its key is the
	// fallback, for a decision that reads no particular change (a
	// resync's or a requeue's reconcile has none).
	rctx := withCauseLog(ctx, rn.eventLog)
	if caused {
		rctx = events.WithMetadata(rctx, events.CausedBy(cause, "", ""))
	}
	res, err := rn.safeReconcile(rctx, key)
	rn.reconciled.Inc()
	rn.took.Observe(time.Since(start).Seconds())
	// The key joins the logger only for a reconcile that logs: most,
	// such as every node's registration, succeed and log nothing.
	log := func() *zap.Logger { return rn.log.With(zap.Stringer("key", key)) }
	switch {
	case err == nil:
		rn.limiter.Forget(key)
		if res.RequeueAfter > 0 {
			rn.requeueAfter(key, res.RequeueAfter)
		}
	case ctx.Err() != nil:
		// Shutting down: the next start's resync picks the key up again.
	case errors.As(err, new(*domain.NamespaceTerminatingError)):
		// A create refused in a namespace being deleted: nothing is to be
		// made there, and the namespace's deletion takes the owner too.
		// As Kubernetes' controllers stop on that cause, quietly.
		rn.limiter.Forget(key)
		log().Debug("nothing made: the namespace is being deleted", zap.Error(err))
	case IsTerminal(err):
		rn.limiter.Forget(key)
		rn.metrics.errors.WithLabelValues(name).Inc()
		log().Error("reconcile failed for good", zap.Error(err))
	case rn.limiter.NumRequeues(key) >= rn.cfg.MaxRetries:
		rn.limiter.Forget(key)
		rn.metrics.errors.WithLabelValues(name).Inc()
		rn.metrics.poison.WithLabelValues(name).Inc()
		log().Error("key set aside after repeated failures; the next resync retries it",
			zap.Int("attempts", rn.cfg.MaxRetries+1), zap.Error(err))
	default:
		rn.metrics.errors.WithLabelValues(name).Inc()
		log().Debug("reconcile failed, retrying with backoff", zap.Error(err))
		rn.retry(key)
	}
	rn.depthGauge.Set(float64(rn.queue.Len()))
	return true
}

// safeReconcile refuses a key out of the reconciler's scope, and turns a
// panic into an error, so that one bad key cannot take the process down.
func (rn *runner) safeReconcile(ctx context.Context, key Key) (res Result, err error) {
	if err := rn.scope.check(rn.r.Name(), key); err != nil {
		return Result{}, err
	}
	defer func() {
		if p := recover(); p != nil {
			rn.metrics.panics.WithLabelValues(rn.r.Name()).Inc()
			err = fmt.Errorf("reconcile %s panicked: %v", key, p)
		}
	}()
	return rn.r.Reconcile(ctx, key)
}

// requeueAfter puts key back on the queue after d of herd's clock: an
// expected wait (a grace period, a toleration), which tests move past by
// advancing the fake clock.
func (rn *runner) requeueAfter(key Key, d time.Duration) {
	at := rn.clock.Now().Add(d)
	rn.requeueMu.Lock()
	if prev, ok := rn.requeueAt[key]; !ok || at.Before(prev) {
		rn.requeueAt[key] = at
	}
	rn.requeueMu.Unlock()
	rn.queue.AddAfter(key, d)
}

// retry puts a failed key back after its backoff. The backoff waits on the
// wall clock: it paces retries against a real failure (a locked database,
// a conflict with another writer) and is not a domain time, so a test on a
// fake clock must not have to move time for a retry to happen.
func (rn *runner) retry(key Key) {
	rn.retrying.Add(1)
	time.AfterFunc(rn.limiter.When(key), func() {
		rn.queue.Add(key)
		rn.retrying.Add(-1)
		rn.activity.signal()
	})
}

// addDue puts on the queue again every key whose requeue time has come
// on herd's clock but which no worker has taken. The delaying queue
// times a requeue with a timer it sets from the time it read just
// before: when herd's clock is a simulated one that moves in between
// (the what-if, the behaviour specs), the timer is set past the
// requeue's time and the key waits for the clock's next move, which a
// caller waiting for the reconcilers to settle never makes. A key added
// twice is reconciled once more, which changes nothing that was not due.
func (rn *runner) addDue() {
	now := rn.clock.Now()
	rn.requeueMu.Lock()
	var due []Key
	for key, at := range rn.requeueAt {
		if !at.After(now) {
			due = append(due, key)
		}
	}
	rn.requeueMu.Unlock()
	for _, key := range due {
		rn.queue.Add(key)
	}
}

// due counts the requeues whose time has come but which no worker has
// taken yet.
func (rn *runner) due() int {
	now := rn.clock.Now()
	rn.requeueMu.Lock()
	defer rn.requeueMu.Unlock()
	n := 0
	for _, at := range rn.requeueAt {
		if !at.After(now) {
			n++
		}
	}
	return n
}
