package reconcilers

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"

	"herd/events"
)

// runner runs one reconciler: its queue, its workers and its resync
// timer. The dispatcher, shared by all runners, feeds it the log.
type runner struct {
	r       Reconciler
	watches *Watches // r's, asked once
	scope   Scope    // watches'

	eventLog events.Log // the log the dispatcher follows, or nil
	clock    clock.WithTicker
	log      *zap.Logger
	metrics  *Metrics
	cfg      Config
	queue    workqueue.TypedDelayingInterface[Key]
	// limiter spaces the retries of a failing key; they wait on the wall
	// clock (see retry), unlike RequeueAfter, which is domain time.
	limiter workqueue.TypedRateLimiter[Key]
	// lastPos is the last log position the dispatcher handed it.
	lastPos atomic.Int64
	// depthGauge and lagGauge are its series of the depth and lag metrics,
	// looked up once: the dispatcher sets them on every record.
	depthGauge prometheus.Gauge
	lagGauge   prometheus.Gauge
	// reconciled and took are its series of the reconciles and duration
	// metrics, looked up once: every reconcile sets them.
	reconciled prometheus.Counter
	took       prometheus.Observer
	// resyncs, inFlight and unfinished let Status tell when the runner
	// has settled.
	resyncs    atomic.Int64
	inFlight   atomic.Int64
	unfinished unfinished
	// retrying counts failed keys waiting for their retry.
	retrying atomic.Int64
	// causes holds, for each queued key, the newest record that queued
	// it: the fallback cause of its reconcile's events, for a decision
	// that names no better one (see cause.go).
	causeMu sync.Mutex
	causes  map[Key]events.Record
	// requeueAt holds when each key asked to be reconciled again, so that
	// Status can tell a key whose time has come from one still waiting.
	requeueMu sync.Mutex
	requeueAt map[Key]time.Time
	// activity is the manager's, signalled when the runner may have
	// settled; nil outside a Manager.
	activity *activity
}

func newRunner(r Reconciler, eventLog events.Log, clk clock.WithTicker, log *zap.Logger, m *Metrics, cfg Config) *runner {
	w := r.Watches()
	// Failing keys back off exponentially from 5 ms to 5 minutes; the
	// resync brings back anything set aside, so a long cap is safe.
	limiter := workqueue.NewTypedItemExponentialFailureRateLimiter[Key](5*time.Millisecond, 5*time.Minute)
	// Every series exists from the start at zero, so that a dashboard or
	// an alert sees "no errors" rather than "no data".
	for _, c := range []interface {
		WithLabelValues(...string) prometheus.Counter
	}{m.reconciles, m.errors, m.panics, m.poison} {
		c.WithLabelValues(r.Name())
	}
	rn := &runner{
		r: r, watches: w, scope: w.Scope(), eventLog: eventLog, clock: clk, metrics: m, cfg: cfg,
		depthGauge: m.depth.WithLabelValues(r.Name()),
		lagGauge:   m.lag.WithLabelValues(r.Name()),
		reconciled: m.reconciles.WithLabelValues(r.Name()),
		took:       m.duration.WithLabelValues(r.Name()),
		log:        log.With(zap.String("reconciler", r.Name())),
		limiter:    limiter,
		requeueAt:  map[Key]time.Time{},
	}
	rn.queue = workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[Key]{
		Name: r.Name(), Clock: clk,
		// The queue itself counts its unfinished keys (unfinished.go). Its
		// clock times only its metrics, in wall time: on herd's clock
		// their ticker would be one more timer of a simulated past.
		Queue: workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[Key]{
			Name: r.Name(), MetricsProvider: &rn.unfinished, Clock: clock.RealClock{},
		}),
	})
	w.unreadable = rn.unreadable
	return rn
}

// unreadable counts and logs a record that the reconciler's derived
// mapping could not decode; its keys are left to the resync.
func (rn *runner) unreadable(rec events.Record, err error) {
	rn.metrics.poison.WithLabelValues(rn.r.Name()).Inc()
	rn.log.Error("unreadable event set aside", zap.String("event", rec.ID), zap.String("stream", rec.Stream),
		zap.Int64("position", rec.Position), zap.Error(err))
}

// run works until ctx ends, then drains its workers and returns. The
// dispatcher feeds it the log's keys; without a log (a node's agent,
// which has no log of its own) it works from its resyncs alone.
func (rn *runner) run(ctx context.Context) {
	var wg sync.WaitGroup
	for range rn.cfg.Workers {
		wg.Go(func() {
			for rn.processNext(ctx) {
			}
		})
	}
	if rs, ok := rn.r.(Resyncer); ok {
		wg.Go(func() { rn.resyncLoop(ctx, rs) })
	}
	<-ctx.Done()
	rn.queue.ShutDown()
	wg.Wait()
}

// enqueueFor queues the keys rec maps to, for the dispatcher, with head
// the newest log position it knows of. A panicking mapping sets the
// record aside for this reconciler alone.
func (rn *runner) enqueueFor(rec events.Record, head int64) {
	defer func() {
		if p := recover(); p != nil {
			rn.metrics.panics.WithLabelValues(rn.r.Name()).Inc()
			rn.metrics.poison.WithLabelValues(rn.r.Name()).Inc()
			rn.moved(rec.Position, head)
			rn.log.Error("mapping an event to keys panicked; event set aside", zap.String("event", rec.ID),
				zap.Int64("position", rec.Position), zap.Any("panic", p))
		}
	}()
	keys := rn.watches.KeysFor(rec)
	if len(keys) > 0 {
		rn.causeMu.Lock()
		if rn.causes == nil {
			rn.causes = map[Key]events.Record{}
		}
		for _, key := range keys {
			rn.causes[key] = events.Record{ID: rec.ID, Metadata: rec.Metadata}
		}
		rn.causeMu.Unlock()
	}
	for _, key := range keys {
		rn.queue.Add(key)
	}
	rn.moved(rec.Position, head)
}

// setAside counts and logs a record nobody could read, and moves past it.
func (rn *runner) setAside(id string, pos, head int64, err error) {
	rn.metrics.poison.WithLabelValues(rn.r.Name()).Inc()
	rn.log.Error("unreadable event set aside", zap.String("event", id), zap.Int64("position", pos), zap.Error(err))
	rn.moved(pos, head)
}

// moved records that the reconciler has queued the log up to pos, and its
// lag behind head.
func (rn *runner) moved(pos, head int64) {
	if pos > rn.lastPos.Load() {
		rn.lastPos.Store(pos)
		rn.activity.signal()
	}
	rn.depthGauge.Set(float64(rn.queue.Len()))
	rn.lagGauge.Set(float64(max(0, head-pos)))
}

func (rn *runner) resyncLoop(ctx context.Context, rs Resyncer) {
	// The ticker exists before the first pass is counted, so that whoever
	// sees one resync done knows the ticks are scheduled.
	t := rn.clock.NewTicker(rs.ResyncPeriod())
	defer t.Stop()
	rn.resync(ctx, rs)
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C():
			rn.resync(ctx, rs)
		}
	}
}

func (rn *runner) resync(ctx context.Context, rs Resyncer) {
	keys, err := rs.Resync(ctx)
	if err != nil {
		if ctx.Err() == nil {
			rn.log.Warn("resync failed", zap.Error(err))
		}
		rn.resyncs.Add(1)
		rn.activity.signal()
		return
	}
	for _, k := range keys {
		rn.queue.Add(k)
	}
	rn.depthGauge.Set(float64(rn.queue.Len()))
	if rn.eventLog != nil {
		// The head the last commit announced, as the dispatcher reads it:
		// an idle herd's resyncs need not query the log for it.
		head, _ := rn.eventLog.CommitSignal()
		rn.lagGauge.Set(float64(max(0, head-rn.lastPos.Load())))
	}
	rn.resyncs.Add(1)
	rn.activity.signal()
}
