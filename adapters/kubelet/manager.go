package kubelet

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"go.uber.org/zap"
	"k8s.io/utils/clock"

	"herd/domain"
	"herd/events"
	"herd/reconcilers"
)

// keyTargets is the one key the Manager reconciles: the set of targets.
var keyTargets = reconcilers.Pass("targets")

// resyncPeriod is how often the Manager compares its pollers with the
// target view even without an event, as every reconciler resyncs.
const resyncPeriod = 30 * time.Second

// TargetView reads the set of kubelet targets.
type TargetView interface {
	Targets(ctx context.Context) (domain.KubeletTargets, int64, error)
}

// Manager runs one poller per kubelet target. It is a reconciler on the
// kubelet/targets stream: when the set changes, it starts, restarts and
// stops pollers to match. At start-up it syncs herd's configured targets
// into the log and starts their pollers without waiting for the event.
type Manager struct {
	cfg     Config
	sink    Sink
	targets domain.Executor[domain.KubeletTargets, domain.KubeletTargetsCommand]
	view    TargetView
	clock   clock.Clock
	log     *zap.Logger
	metrics *Metrics
	// jitter spreads backoffs; tests make it constant.
	jitter func() float64

	mu      sync.Mutex
	ctx     context.Context // the pollers' lifetime: from Start to Stop
	cancel  context.CancelFunc
	pollers map[string]*running
}

// running is one poller and how to stop it.
type running struct {
	p      *poller
	cancel context.CancelFunc
	done   chan struct{}
}

var (
	_ reconcilers.Reconciler = (*Manager)(nil)
	_ reconcilers.Resyncer   = (*Manager)(nil)
)

// NewManager checks cfg and returns a Manager that has not started.
func NewManager(cfg Config, sink Sink, targets domain.Executor[domain.KubeletTargets, domain.KubeletTargetsCommand], view TargetView, clk clock.Clock, log *zap.Logger, m *Metrics) (*Manager, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Manager{
		cfg: cfg, sink: sink, targets: targets, view: view, clock: clk, log: log.Named("kubelet"), metrics: m,
		jitter:  rand.Float64,
		pollers: map[string]*running{},
	}, nil
}

// Start syncs the configured targets into the log and starts a poller for
// every target.
func (m *Manager) Start(ctx context.Context) error {
	targets, err := m.cfg.Targets()
	if err != nil {
		return err
	}
	ctx = events.WithMetadata(ctx, events.Metadata{Actor: "system:herd:config", Source: "kubelet"})
	if _, err := m.targets.Execute(ctx, domain.Key{}, domain.SyncConfiguredKubeletTargets{Targets: targets}); err != nil {
		return fmt.Errorf("kubelet targets from the configuration: %w", err)
	}
	m.mu.Lock()
	m.ctx, m.cancel = context.WithCancel(events.WithMetadata(context.Background(),
		events.Metadata{Actor: "system:herd:kubelet", Source: "kubelet"}))
	m.mu.Unlock()
	return m.sync(ctx)
}

// Stop stops every poller and waits for them. Their nodes are left as
// they are: herd stopping is not a kubelet going away.
func (m *Manager) Stop(ctx context.Context) error {
	m.mu.Lock()
	if m.cancel != nil {
		m.cancel()
	}
	all := make([]*running, 0, len(m.pollers))
	for _, r := range m.pollers {
		all = append(all, r)
	}
	m.pollers = map[string]*running{}
	m.mu.Unlock()
	for _, r := range all {
		select {
		case <-r.done:
		case <-ctx.Done():
			return fmt.Errorf("kubelet pollers did not stop: %w", ctx.Err())
		}
	}
	return nil
}

// Name implements reconcilers.Reconciler.
func (m *Manager) Name() string { return "kubelet" }

// Watches implements reconcilers.Reconciler: any change to the set of
// targets calls for the one pass.
func (m *Manager) Watches() *reconcilers.Watches {
	return reconcilers.Watch().
		Passes(keyTargets).
		Watches(reconcilers.EventsOf(domain.KubeletTargetsAggregate), reconcilers.ToPass(keyTargets))
}

// Reconcile implements reconcilers.Reconciler.
func (m *Manager) Reconcile(ctx context.Context, _ reconcilers.Key) (reconcilers.Result, error) {
	return reconcilers.Result{}, m.sync(ctx)
}

// ResyncPeriod implements reconcilers.Resyncer.
func (m *Manager) ResyncPeriod() time.Duration { return resyncPeriod }

// Resync implements reconcilers.Resyncer.
func (m *Manager) Resync(context.Context) ([]reconcilers.Key, error) {
	return []reconcilers.Key{keyTargets}, nil
}

// sync makes the running pollers those of the target view: new targets
// get a poller, changed ones a new poller, removed ones lose theirs and
// their node is deregistered.
func (m *Manager) sync(ctx context.Context) error {
	ts, _, err := m.view.Targets(ctx)
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.ctx == nil || m.ctx.Err() != nil {
		return nil // not started, or stopping: Start syncs
	}
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(m.pollers)) {
		r := m.pollers[name]
		t, ok := ts.Targets[name]
		if ok && sameTarget(t, r.p.target) {
			continue
		}
		r.cancel()
		<-r.done
		delete(m.pollers, name)
		if ok {
			continue // changed: started again below
		}
		m.metrics.forget(name)
		m.log.Info("stopped polling a kubelet", zap.String("node", name))
		if err := m.sink.StopObserving(m.ctx, name); err != nil {
			errs = append(errs, fmt.Errorf("stop observing %s: %w", name, err))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(ts.Targets)) {
		if _, ok := m.pollers[name]; ok {
			continue
		}
		t := ts.Targets[name]
		ctx, cancel := context.WithCancel(m.ctx)
		r := &running{p: newPoller(t, m.cfg, m.sink, m.clock, m.log, m.metrics, m.jitter), cancel: cancel, done: make(chan struct{})}
		m.pollers[name] = r
		go func() {
			defer close(r.done)
			r.p.run(ctx)
		}()
		m.log.Info("polling a kubelet", zap.String("node", name), zap.String("url", t.URL), zap.String("source", string(t.Source)))
	}
	m.metrics.setTargets(len(m.pollers))
	return errors.Join(errs...)
}

// sameTarget reports whether a running poller still polls t as it should.
func sameTarget(a, b domain.KubeletTarget) bool {
	a.ResourceVersion, b.ResourceVersion = 0, 0
	return a == b
}

// Status returns every poller's status, by name.
func (m *Manager) Status() []TargetStatus {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]TargetStatus, 0, len(m.pollers))
	for _, name := range slices.Sorted(maps.Keys(m.pollers)) {
		out = append(out, m.pollers[name].p.Status())
	}
	return out
}

// Idle reports whether every poller waits for a time still ahead on
// herd's clock: nothing polls now, and nothing will until the clock moves.
// Tests step a fake clock only when herd is idle.
func (m *Manager) Idle() bool {
	now := m.clock.Now()
	for _, s := range m.Status() {
		if !s.Waiting || !s.Next.After(now) {
			return false
		}
	}
	return true
}
