package reconcilers

import (
	"context"
	"fmt"
	"time"

	"go.uber.org/zap"
)

// processNext reconciles one key from the queue; false once the queue is
// shut down.
func (rn *runner) processNext(ctx context.Context) bool {
	key, shutdown := rn.queue.Get()
	if shutdown {
		return false
	}
	rn.inFlight.Add(1)
	defer rn.inFlight.Add(-1)
	defer rn.queue.Done(key)
	if ctx.Err() != nil {
		// The queue hands out its backlog even after ShutDown; stopping
		// herd must not reconcile all of it with a cancelled context.
		return true
	}
	name := rn.r.Name()
	// Durations for metrics are wall time on purpose: they measure what the
	// work cost, which herd's (possibly fake) clock cannot.
	start := time.Now()
	res, err := rn.safeReconcile(ctx, key)
	rn.metrics.reconciles.WithLabelValues(name).Inc()
	rn.metrics.duration.WithLabelValues(name).Observe(time.Since(start).Seconds())
	log := rn.log.With(zap.String("key", key))
	switch {
	case err == nil:
		rn.queue.Forget(key)
		if res.RequeueAfter > 0 {
			rn.queue.AddAfter(key, res.RequeueAfter)
		}
	case ctx.Err() != nil:
		// Shutting down: the next start's resync picks the key up again.
	case IsTerminal(err):
		rn.queue.Forget(key)
		rn.metrics.errors.WithLabelValues(name).Inc()
		log.Error("reconcile failed for good", zap.Error(err))
	case rn.queue.NumRequeues(key) >= rn.cfg.MaxRetries:
		rn.queue.Forget(key)
		rn.metrics.errors.WithLabelValues(name).Inc()
		rn.metrics.poison.WithLabelValues(name).Inc()
		log.Error("key set aside after repeated failures; the next resync retries it",
			zap.Int("attempts", rn.cfg.MaxRetries+1), zap.Error(err))
	default:
		rn.metrics.errors.WithLabelValues(name).Inc()
		log.Debug("reconcile failed, retrying with backoff", zap.Error(err))
		rn.queue.AddRateLimited(key)
	}
	rn.metrics.depth.WithLabelValues(name).Set(float64(rn.queue.Len()))
	return true
}

// safeReconcile turns a panic into an error, so that one bad key cannot
// take the process down.
func (rn *runner) safeReconcile(ctx context.Context, key string) (res Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			rn.metrics.panics.WithLabelValues(rn.r.Name()).Inc()
			err = fmt.Errorf("reconcile %s panicked: %v", key, p)
		}
	}()
	return rn.r.Reconcile(ctx, key)
}
