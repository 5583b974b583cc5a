package reconcilers

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

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
	Store   *events.Store `optional:"true"`
	Clock   clock.WithTicker
	Logger  *zap.Logger
	Metrics *Metrics
}

// Manager runs the enabled reconcilers, and the one dispatcher that feeds
// them the log, for the life of the app.
type Manager struct {
	runners  []*runner
	eventLog events.Log
	metrics  *Metrics
	cancel   context.CancelFunc
	wg       sync.WaitGroup
	log      *zap.Logger
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
	m := &Manager{log: p.Logger.Named("reconcilers"), eventLog: eventLog, metrics: p.Metrics}
	for _, r := range p.Reconcilers {
		if p.Config.enabled(r.Name()) {
			m.runners = append(m.runners, newRunner(r, eventLog, p.Clock, m.log, p.Metrics, p.Config))
		}
	}
	return m, nil
}

// Running lists the names of the reconcilers that run.
func (m *Manager) Running() []string {
	var out []string
	for _, rn := range m.runners {
		out = append(out, rn.r.Name())
	}
	return out
}

// Enqueue queues key for every running reconciler now, for a source of
// changes other than the log: an agent's watch of its pods on herd's API.
// A key queued after Stop is dropped.
func (m *Manager) Enqueue(key string) {
	for _, rn := range m.runners {
		rn.queue.Add(key)
	}
}

// Start launches every runner, and the dispatcher when there is a log and
// a reconciler to feed, in the background. It does not keep ctx: an fx
// start context ends when start-up does.
func (m *Manager) Start(context.Context) error {
	ctx, cancel := context.WithCancel(context.Background())
	if m.eventLog != nil && len(m.runners) > 0 {
		d := &dispatcher{eventLog: m.eventLog, runners: m.runners, log: m.log, metrics: m.metrics}
		msgs, err := d.subscribe(ctx)
		if err != nil {
			cancel()
			return err
		}
		m.wg.Go(func() { d.run(msgs) })
	}
	m.cancel = cancel
	for _, rn := range m.runners {
		m.wg.Go(func() { rn.run(ctx) })
	}
	m.log.Info("reconcilers running", zap.Strings("reconcilers", m.Running()))
	return nil
}

// Stop ends every runner and waits for their workers to finish, and for
// the dispatcher to save its position.
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
