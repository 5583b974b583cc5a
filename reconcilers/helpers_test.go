package reconcilers_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"
	clocktesting "k8s.io/utils/clock/testing"

	"herd/domain"
	"herd/events"
	"herd/events/eventstest"
	"herd/reconcilers"
)

// t0 is where every test's fake clock starts.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// waitFor bounds every wait: generous, because the race detector slows
// SQLite's callers down a lot; a passing run never waits for it.
const waitFor = eventstest.WaitFor

// harness is one test's store, fake clock and metrics registry.
type harness struct {
	t       *testing.T
	store   *events.Store
	clock   *clocktesting.FakeClock
	reg     *prometheus.Registry
	metrics *reconcilers.Metrics

	mu       sync.Mutex
	versions map[string]int64
	barriers int
}

// newHarness opens a store whose followers poll only once an hour: every
// append announces its commit, and only that can wake the dispatcher in
// time. tune changes the store's configuration.
func newHarness(t *testing.T, tune ...func(*events.Config)) *harness {
	t.Helper()
	cfg := events.Config{
		Path:           filepath.Join(t.TempDir(), "herd.db"),
		PollInterval:   5 * time.Millisecond,
		FollowInterval: time.Hour,
	}
	for _, f := range tune {
		f(&cfg)
	}
	store, err := events.Open(t.Context(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Registered first, so it runs after every manager's Stop.
	t.Cleanup(func() {
		if err := store.Close(); err != nil {
			t.Error(err)
		}
	})
	reg := prometheus.NewRegistry()
	return &harness{
		t: t, store: store, reg: reg,
		clock:    clocktesting.NewFakeClock(t0),
		metrics:  reconcilers.NewMetrics(reg),
		versions: map[string]int64{},
	}
}

// config is a manager configuration with one worker, so that keys are
// reconciled in the order they were queued (see settle).
func config() reconcilers.Config {
	return reconcilers.Config{Enabled: []string{"*"}, Workers: 1, MaxRetries: 5}
}

// newManager builds a manager for rs on the harness's store and clock.
func (h *harness) newManager(cfg reconcilers.Config, rs ...reconcilers.Reconciler) (*reconcilers.Manager, error) {
	return reconcilers.NewManager(reconcilers.Params{
		Config:      cfg,
		Reconcilers: rs,
		Store:       h.store,
		Clock:       h.clock,
		Logger:      zap.NewNop(),
		Metrics:     h.metrics,
	})
}

// start builds and starts a manager, and stops it when the test ends.
func (h *harness) start(cfg reconcilers.Config, rs ...reconcilers.Reconciler) *reconcilers.Manager {
	h.t.Helper()
	m, err := h.newManager(cfg, rs...)
	if err != nil {
		h.t.Fatal(err)
	}
	if err := m.Start(h.t.Context()); err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { stop(h.t, m) })
	return m
}

// stop stops m within waitFor. Stopping twice is fine.
func stop(t *testing.T, m *reconcilers.Manager) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	if err := m.Stop(ctx); err != nil {
		t.Error(err)
	}
}

// happened and garbled are the event types the tests append: any of the
// domain's, which every fake watches, with a payload nobody decodes;
// garbled is the one a fake's mapping refuses to read.
var (
	happened = domain.NodeLabelsChanged{}.EventType()
	garbled  = domain.NodeCordoned{}.EventType()
)

// append appends n events to stream in one transaction, each of type
// typ[0] (or happened) with the payload typ[1] (or {}).
func (h *harness) append(stream string, n int, typ ...string) {
	h.t.Helper()
	if err := h.tryAppend(h.t.Context(), stream, n, typ...); err != nil {
		h.t.Fatal(err)
	}
}

// tryAppend is append for goroutines other than the test's.
func (h *harness) tryAppend(ctx context.Context, stream string, n int, typ ...string) error {
	name, payload := happened, "{}"
	if len(typ) > 0 {
		name = typ[0]
	}
	if len(typ) > 1 {
		payload = typ[1]
	}
	evs := make([]events.NewEvent, n)
	for i := range evs {
		evs[i] = events.NewEvent{Type: name, Payload: []byte(payload)}
	}
	h.mu.Lock()
	defer h.mu.Unlock() // one append per stream at a time keeps versions right
	tx, err := h.store.DB().BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	recs, err := h.store.Append(ctx, tx, stream, h.versions[stream], events.Metadata{}, t0, evs...)
	if err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	// As herd's unit of work does, announcing the commit: the dispatcher
	// reads at once.
	h.store.Committed(recs[len(recs)-1].Position)
	h.versions[stream] += int64(n)
	return nil
}

// head is the position of the log's last event.
func (h *harness) head() int64 {
	h.t.Helper()
	head, err := h.store.Head(h.t.Context(), h.store.DB())
	if err != nil {
		h.t.Fatal(err)
	}
	return head
}

// caughtUp waits until the named reconciler's consumer has handled every
// event in the log, so that their keys are queued.
func (h *harness) caughtUp(m *reconcilers.Manager, name string) {
	h.t.Helper()
	head := h.head()
	eventually(h.t, func() bool { return status(h.t, m, name).Position >= head },
		"%s handles the log up to %d; it is at %v", name, head,
		later(func() any { s, _ := m.Status(name); return s.Position }))
}

// settle appends an event on a stream of its own and waits until f has
// reconciled it. With one worker the queue is first in, first out, so
// every key queued before the barrier has been reconciled by then: a
// test can then assert that something did not happen.
func (h *harness) settle(f *fakeReconciler) {
	h.t.Helper()
	h.mu.Lock()
	h.barriers++
	key := fmt.Sprintf("node/barrier-%d", h.barriers)
	h.mu.Unlock()
	h.append(key, 1)
	eventually(h.t, func() bool { return f.Count(key) > 0 }, "%s reconciles %s", f.name, key)
}

// later is a value worked out when a failure message is printed, not
// when the wait begins: for messages that show the state given up on.
type later func() any

func (l later) String() string { return fmt.Sprint(l()) }

// seen is f's calls, as a failure message prints them.
func (f *fakeReconciler) seen() later { return func() any { return f.Calls() } }

// now is the metric's value, as a failure message prints it.
func (h *harness) now(name, reconciler string) later {
	return func() any { return h.value(name, reconciler) }
}

func eventually(t *testing.T, cond func() bool, format string, args ...any) {
	t.Helper()
	eventstest.Eventually(t, waitFor, cond, format, args...)
}

func status(t *testing.T, m *reconcilers.Manager, name string) reconcilers.Status {
	t.Helper()
	s, ok := m.Status(name)
	if !ok {
		t.Fatalf("Status(%q): reconciler does not run", name)
	}
	return s
}

// metric returns the value of the named counter or gauge for the
// reconciler, and whether the series exists.
func (h *harness) metric(name, reconciler string) (float64, bool) {
	h.t.Helper()
	families, err := h.reg.Gather()
	if err != nil {
		h.t.Fatal(err)
	}
	for _, mf := range families {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() != "reconciler" || l.GetValue() != reconciler {
					continue
				}
				switch {
				case m.GetCounter() != nil:
					return m.GetCounter().GetValue(), true
				case m.GetGauge() != nil:
					return m.GetGauge().GetValue(), true
				}
			}
		}
	}
	return 0, false
}

// value is metric, reading a series that does not exist yet as 0: the
// framework makes a counter's series on its first increment.
func (h *harness) value(name, reconciler string) float64 {
	v, _ := h.metric(name, reconciler)
	return v
}
