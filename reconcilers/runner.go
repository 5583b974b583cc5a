package reconcilers

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"

	"herd/events"

	"github.com/ThreeDotsLabs/watermill/message"
)

// runner runs one reconciler: its consumer group, its queue, its workers
// and its resync timer.
type runner struct {
	r       Reconciler
	store   *events.Store
	clock   clock.WithTicker
	log     *zap.Logger
	metrics *Metrics
	cfg     Config
	queue   workqueue.TypedDelayingInterface[string]
	// limiter spaces the retries of a failing key; they wait on the wall
	// clock (see retry), unlike RequeueAfter, which is domain time.
	limiter workqueue.TypedRateLimiter[string]
	lastPos atomic.Int64
	// resyncs and inFlight let Status tell when the runner has settled.
	resyncs  atomic.Int64
	inFlight atomic.Int64
	// retrying counts failed keys waiting for their retry.
	retrying atomic.Int64
	// requeueAt holds when each key asked to be reconciled again, so that
	// Status can tell a key whose time has come from one still waiting.
	requeueMu sync.Mutex
	requeueAt map[string]time.Time
}

func newRunner(r Reconciler, store *events.Store, clk clock.WithTicker, log *zap.Logger, m *Metrics, cfg Config) *runner {
	// Failing keys back off exponentially from 5 ms to 5 minutes; the
	// resync brings back anything set aside, so a long cap is safe.
	limiter := workqueue.NewTypedItemExponentialFailureRateLimiter[string](5*time.Millisecond, 5*time.Minute)
	// Every series exists from the start at zero, so that a dashboard or
	// an alert sees "no errors" rather than "no data".
	for _, c := range []interface {
		WithLabelValues(...string) prometheus.Counter
	}{m.reconciles, m.errors, m.panics, m.poison} {
		c.WithLabelValues(r.Name())
	}
	m.depth.WithLabelValues(r.Name())
	m.lag.WithLabelValues(r.Name())
	return &runner{
		r: r, store: store, clock: clk, metrics: m, cfg: cfg,
		log:     log.With(zap.String("reconciler", r.Name())),
		limiter: limiter,
		queue: workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[string]{
			Name: r.Name(), Clock: clk,
		}),
		requeueAt: map[string]time.Time{},
	}
}

// ConsumerGroup is the watermill consumer group of the named reconciler.
func ConsumerGroup(name string) string { return "reconciler-" + name }

// run works until ctx ends, then drains its workers and returns. Without
// a store (a node's agent, which has no log of its own) it works from its
// resyncs alone.
func (rn *runner) run(ctx context.Context) error {
	var wg sync.WaitGroup
	if rn.store != nil {
		// Until its first message, the consumer stands where it stopped last.
		off, err := rn.store.ConsumerOffset(ctx, ConsumerGroup(rn.r.Name()))
		if err != nil {
			return fmt.Errorf("reconciler %s: %w", rn.r.Name(), err)
		}
		rn.lastPos.Store(off)
		msgs, err := rn.store.Subscribe(ctx, ConsumerGroup(rn.r.Name()))
		if err != nil {
			return fmt.Errorf("reconciler %s: subscribe: %w", rn.r.Name(), err)
		}
		wg.Go(func() { rn.consume(msgs) })
	}
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
	return nil
}

// consume maps every record to keys and acks at once: the subscriber holds
// the database's write lock until the ack.
func (rn *runner) consume(msgs <-chan *message.Message) {
	for msg := range msgs {
		rn.handle(msg)
		msg.Ack()
	}
}

func (rn *runner) handle(msg *message.Message) {
	defer func() {
		if p := recover(); p != nil {
			rn.metrics.panics.WithLabelValues(rn.r.Name()).Inc()
			rn.metrics.poison.WithLabelValues(rn.r.Name()).Inc()
			rn.log.Error("handler panicked; message set aside", zap.String("message", msg.UUID), zap.Any("panic", p))
		}
	}()
	rec, err := events.RecordFromMessage(msg)
	if err != nil {
		rn.metrics.poison.WithLabelValues(rn.r.Name()).Inc()
		rn.log.Error("unreadable message set aside", zap.String("message", msg.UUID), zap.Error(err))
		return
	}
	for _, key := range rn.r.KeysFor(rec) {
		rn.queue.Add(key)
	}
	rn.lastPos.Store(rec.Position)
	rn.metrics.depth.WithLabelValues(rn.r.Name()).Set(float64(rn.queue.Len()))
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
		return
	}
	for _, k := range keys {
		rn.queue.Add(k)
	}
	name := rn.r.Name()
	rn.metrics.depth.WithLabelValues(name).Set(float64(rn.queue.Len()))
	if rn.store != nil {
		if head, err := rn.store.Head(ctx, rn.store.DB()); err == nil {
			rn.metrics.lag.WithLabelValues(name).Set(float64(max(0, head-rn.lastPos.Load())))
		}
	}
	rn.resyncs.Add(1)
}
