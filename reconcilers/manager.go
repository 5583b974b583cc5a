package reconcilers

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"go.uber.org/fx"
	"go.uber.org/zap"
	"k8s.io/utils/clock"

	"herd/events"
)

// Config says which reconcilers run and how.
type Config struct {
	// Enabled lists the reconcilers to run, by name; "*" means all of
	// them, and "-name" switches one off ("*,-health"). From --reconcilers.
	Enabled []string
	// Workers is how many keys each reconciler works on at once.
	Workers int
	// MaxRetries is how many times a failing key is retried with backoff
	// before it is set aside until the next resync.
	MaxRetries int
}

// DefaultConfig runs every reconciler with sixteen workers and fifteen
// retries (5 ms doubling to five minutes spans about three minutes of
// retrying). Sixteen, because a reconcile mostly waits: for the group
// commit that holds its write, or for a node it probes. With two, a health
// reconciler handed 100,000 registrations worked them at two commits at a
// time, some 200 keys a second, and its monitor pass waited behind them;
// sixteen workers put sixteen writes in each commit for the cost of one.
func DefaultConfig() Config {
	return Config{Enabled: []string{"*"}, Workers: 16, MaxRetries: 15}
}

// enabled reports whether the named reconciler is switched on.
func (c Config) enabled(name string) bool {
	on := false
	for _, e := range c.Enabled {
		switch e {
		case "*", name:
			on = true
		case "-" + name:
			on = false
		}
	}
	return on
}

// Provide registers a reconciler constructor with the "reconcilers" value
// group. Adding a reconciler to herd is one more option:
//
//	reconcilers.Provide(mypkg.New)
func Provide(constructor any) fx.Option {
	return fx.Provide(fx.Annotate(constructor, fx.As(new(Reconciler)), fx.ResultTags(`group:"reconcilers"`)))
}

// Params are what the Manager is built from.
type Params struct {
	fx.In

	Config      Config
	Reconcilers []Reconciler `group:"reconcilers"`
	// Log is the log the dispatcher follows for the reconcilers, on
	// either engine; without one (a node's agent) they run on their
	// resyncs alone.
	Log events.Log `optional:"true"`
	// Store is the SQLite log, followed through Store.Log when Log is
	// nil: what callers gave before the storage port.
	Store *events.Store `optional:"true"`
	// Leadership elects the one replica, of those sharing the log, that
	// runs the reconcilers (the job Job); without one this process leads
	// at once, as one that shares its log with no one does.
	Leadership events.Leadership `optional:"true"`
	Clock      clock.WithTicker
	Logger     *zap.Logger
	Metrics    *Metrics
}

// Manager runs the enabled reconcilers, and the one dispatcher that feeds
// them the log, for the life of the app, while this replica leads them
// (Params.Leadership): one replica at a time runs them.
type Manager struct {
	enabled    []Reconciler
	eventLog   events.Log
	leadership events.Leadership
	clock      clock.WithTicker
	cfg        Config
	metrics    *Metrics
	log        *zap.Logger
	leading    atomic.Bool

	// mu guards runners: the current term's while this replica leads,
	// else the last term's (their queues shut down: what Enqueue adds is
	// dropped), or before the first term those made for it. ran says
	// they have run, so the next term makes its own: a work queue does
	// not start again once shut down.
	mu      sync.Mutex
	runners []*runner
	ran     bool
	// activity is signalled by every runner's progress, for a Settler.
	activity activity

	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// NewManager checks the configuration against the reconcilers there are
// and prepares a runner for each enabled one.
func NewManager(p Params) (*Manager, error) {
	var (
		names []string
		errs  []error
	)
	for _, r := range p.Reconcilers {
		n := r.Name()
		switch {
		case n == "" || strings.HasPrefix(n, "-") || strings.Contains(n, "*") || strings.Contains(n, ","):
			errs = append(errs, fmt.Errorf("reconciler name %q: want a plain name (it is the --reconcilers entry and the metrics' label)", n))
		case slices.Contains(names, n):
			errs = append(errs, fmt.Errorf("two reconcilers are named %q: --reconcilers, metrics and Status could not tell them apart", n))
		}
		if rs, ok := r.(Resyncer); ok && rs.ResyncPeriod() <= 0 {
			errs = append(errs, fmt.Errorf("reconciler %s: resync period %s: want a positive duration", n, rs.ResyncPeriod()))
		}
		names = append(names, n)
	}
	errs = append(errs, p.Config.Validate(names))
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	eventLog := p.Log
	if eventLog == nil && p.Store != nil {
		eventLog = p.Store.Log()
	}
	leadership := p.Leadership
	if leadership == nil {
		leadership = events.SoleLeadership(events.LeadershipConfig{})
	}
	m := &Manager{log: p.Logger.Named("reconcilers"), eventLog: eventLog, leadership: leadership,
		clock: p.Clock, cfg: p.Config, metrics: p.Metrics}
	for _, r := range p.Reconcilers {
		if p.Config.enabled(r.Name()) {
			m.enabled = append(m.enabled, r)
		}
	}
	m.runners = m.newRunners()
	p.Metrics.leader.WithLabelValues(Job).Set(0)
	return m, nil
}

// newRunners makes a runner for each enabled reconciler.
func (m *Manager) newRunners() []*runner {
	runners := make([]*runner, 0, len(m.enabled))
	for _, r := range m.enabled {
		rn := newRunner(r, m.eventLog, m.clock, m.log, m.metrics, m.cfg)
		rn.activity = &m.activity
		runners = append(runners, rn)
	}
	return runners
}

// current is the runner set Status looks at.
func (m *Manager) current() []*runner {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.runners
}

// addDue puts back on their queues the requeues whose time has come and
// that no worker took (runner.addDue).
func (m *Manager) addDue() {
	for _, rn := range m.current() {
		rn.addDue()
	}
}

// Running lists the names of the reconcilers that run while this replica
// leads them.
func (m *Manager) Running() []string {
	var out []string
	for _, r := range m.enabled {
		out = append(out, r.Name())
	}
	return out
}

// Enqueue queues key for every running reconciler now, for a source of
// changes other than the log: an agent's watch of its pods on herd's API.
// A key queued after Stop, or while another replica leads, is dropped.
func (m *Manager) Enqueue(key Key) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, rn := range m.runners {
		rn.queue.Add(key)
	}
}

// Start asks to lead the reconcilers. When this replica leads at once
// (on SQLite always), it launches every runner, and the dispatcher when
// there is a log and a reconciler to feed, before it returns; otherwise
// it returns at once and they start in the background once this replica
// leads. It does not keep ctx: an fx start context ends when start-up
// does.
func (m *Manager) Start(context.Context) error {
	ctx, cancel := context.WithCancel(context.Background())
	term, err := m.leadership.TryLead(ctx, Job)
	if err == nil {
		run, err := m.begin(ctx)
		if err != nil {
			_ = term.Release()
			cancel()
			return err
		}
		m.cancel = cancel
		m.wg.Go(func() { m.lead(ctx, term, run) })
		return nil
	}
	m.cancel = cancel
	m.wg.Go(func() { m.lead(ctx, nil, nil) })
	return nil
}

// Stop ends every runner and waits for their workers to finish, and for
// the dispatcher to save its position, then lets another replica lead.
func (m *Manager) Stop(ctx context.Context) error {
	if m.cancel == nil {
		return nil
	}
	m.cancel()
	done := make(chan struct{})
	go func() { m.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("reconcilers did not stop in time: %w", ctx.Err())
	}
}

// Module wires the manager into an fx app: reconcilers come from the
// "reconcilers" group, the manager starts with the app and stops with it.
var Module = fx.Module("reconcilers",
	fx.Provide(NewManager),
	fx.Invoke(func(lc fx.Lifecycle, m *Manager) { lc.Append(fx.StartStopHook(m.Start, m.Stop)) }),
)
