package scheduler

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"
	clocktesting "k8s.io/utils/clock/testing"

	"herd/domain"
	"herd/events"
	"herd/events/eventstest"
	"herd/projections"
	"herd/reconcilers"
)

// harness is one test's log in a real SQLite file, its views and writer,
// a fake clock, and the scheduler.
type harness struct {
	t     testing.TB
	store *events.Store
	w     *projections.Writer
	pods  *projections.PodView
	clock *clocktesting.FakeClock
	r     *Reconciler
	mgr   *reconcilers.Manager
	reg   *prometheus.Registry
}

func newHarness(t testing.TB, cfg Config) *harness {
	t.Helper()
	ctx := context.Background()
	store, err := events.Open(ctx, events.Config{Path: filepath.Join(t.TempDir(), "herd.db"), PollInterval: 5 * time.Millisecond}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Registered first, so it runs after the manager's Stop.
	t.Cleanup(func() {
		if err := store.Close(); err != nil {
			t.Error(err)
		}
	})
	if err := projections.Migrate(ctx, store.Log()); err != nil {
		t.Fatal(err)
	}
	clk := clocktesting.NewFakeClock(t0)
	w := projections.NewWriter(store.Log(), clk, nil)
	pods := projections.NewPodView(store.Log())
	// As herd serve wires it: the pod lists from the Writer's memory.
	r, err := New(cfg, w, projections.NewNodeView(store.Log()), pods.Remembering(w), clk, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	return &harness{t: t, store: store, w: w, pods: pods, clock: clk, r: r}
}

// start runs the scheduler in the reconciler framework, with one worker,
// until the test ends.
func (h *harness) start() {
	h.t.Helper()
	h.reg = prometheus.NewRegistry()
	mgr, err := reconcilers.NewManager(reconcilers.Params{
		Config:      reconcilers.Config{Enabled: []string{"*"}, Workers: 1, MaxRetries: 5},
		Reconcilers: []reconcilers.Reconciler{h.r},
		Store:       h.store,
		Clock:       h.clock,
		Logger:      zap.NewNop(),
		Metrics:     reconcilers.NewMetrics(h.reg),
	})
	if err != nil {
		h.t.Fatal(err)
	}
	if err := mgr.Start(context.Background()); err != nil {
		h.t.Fatal(err)
	}
	h.mgr = mgr
	h.t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), eventstest.WaitFor)
		defer cancel()
		if err := mgr.Stop(ctx); err != nil {
			h.t.Error(err)
		}
	})
}

// node registers a node with the given allocatable resources and labels,
// and makes it Ready.
func (h *harness) node(name string, alloc domain.ResourceList, labels map[string]string) {
	h.t.Helper()
	h.nodeCmd(name, domain.RegisterNode{Registration: domain.Registration{
		Name: name, UID: "uid-" + name, Kind: domain.KindLinux, Labels: labels, Allocatable: alloc, Capacity: alloc,
	}})
	h.nodeCmd(name, domain.RecordHeartbeat{Reported: []domain.ReportedCondition{{Type: domain.ConditionReady, Status: domain.ConditionTrue}}})
}

func (h *harness) nodeCmd(name string, cmd domain.NodeCommand) {
	h.t.Helper()
	if _, err := h.w.NodeCommands().Execute(context.Background(), domain.Key{Name: name}, cmd); err != nil {
		h.t.Fatalf("%T on node %s: %v", cmd, name, err)
	}
}

// pod creates default/name with one container requesting cpu millicores
// and memory bytes.
func (h *harness) pod(name string, cpu, memory int64) {
	h.t.Helper()
	h.podCmd(name, domain.CreatePod{Namespace: "default", Name: name, UID: "uid-" + name, Spec: domain.PodSpec{
		Containers: []domain.Container{{Name: "main", Image: "busybox", Requests: domain.ResourceList{"cpu": cpu, "memory": memory}}},
	}})
}

func (h *harness) podCmd(name string, cmd domain.PodCommand) {
	h.t.Helper()
	if err := h.tryPodCmd(name, cmd); err != nil {
		h.t.Fatalf("%T on pod %s: %v", cmd, name, err)
	}
}

func (h *harness) tryPodCmd(name string, cmd domain.PodCommand) error {
	_, err := h.w.PodCommands().Execute(context.Background(), domain.Key{Namespace: "default", Name: name}, cmd)
	return err
}

// get reads default/name from the pod view.
func (h *harness) get(name string) domain.Pod {
	h.t.Helper()
	p, err := h.pods.Get(context.Background(), "default", name)
	if err != nil {
		h.t.Fatalf("get pod %s: %v", name, err)
	}
	return p
}

// nodeOf is the node default/name is bound to, "" for none.
func (h *harness) nodeOf(name string) string { return h.get(name).Spec.NodeName }

// scheduledCondition is default/name's PodScheduled condition.
func (h *harness) scheduledCondition(name string) domain.PodCondition {
	c, _ := h.get(name).Condition(domain.PodConditionScheduled)
	return c
}

// eventually waits for cond, showing got() when it gives up.
func (h *harness) eventually(cond func() bool, what string, got func() any) {
	h.t.Helper()
	eventstest.Eventually(h.t, eventstest.WaitFor, cond, "%s; got %v", what, later(got))
}

// later is worked out when a failure message is printed.
type later func() any

func (l later) String() string { return fmt.Sprint(l()) }

// stream is the events of default/name's stream.
func (h *harness) stream(name string) []events.Record {
	h.t.Helper()
	recs, err := h.store.ReadStream(context.Background(), h.store.DB(), domain.PodStream("default", name), 0)
	if err != nil {
		h.t.Fatal(err)
	}
	return recs
}

// idle reports whether the scheduler's consumer has read the whole log and
// it has no pass queued or running. (A pass taken off the queue a moment
// ago may show as neither; callers know no event could have queued one.)
func (h *harness) idle() bool {
	s, ok := h.mgr.Status("scheduler")
	head, err := h.store.Head(context.Background(), h.store.DB())
	return ok && err == nil && s.Position >= head && s.Queued == 0 && s.InFlight == 0
}

// passes is how many passes the scheduler has finished, as the
// framework counts them.
func (h *harness) passes() float64 {
	h.t.Helper()
	families, err := h.reg.Gather()
	if err != nil {
		h.t.Fatal(err)
	}
	for _, mf := range families {
		if mf.GetName() == "herd_reconciler_reconciles_total" {
			for _, m := range mf.GetMetric() {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}
