package kubelet

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"
	clocktesting "k8s.io/utils/clock/testing"

	"herd/adapters/kubelet/kubelettest"
	"herd/domain"
	"herd/events"
	"herd/events/eventstest"
	"herd/projections"
)

// herdRig is a Manager on a real log in a temporary SQLite file.
type herdRig struct {
	t       *testing.T
	clock   *clocktesting.FakeClock
	store   *events.Store
	writer  *projections.Writer
	nodes   *projections.NodeView
	pods    *projections.PodView
	targets *projections.KubeletTargetView
}

func newHerdRig(t *testing.T) *herdRig {
	t.Helper()
	store, err := events.Open(t.Context(), events.Config{Path: filepath.Join(t.TempDir(), "herd.db")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	if err := projections.Migrate(t.Context(), store.Log()); err != nil {
		t.Fatal(err)
	}
	clk := clocktesting.NewFakeClock(t0)
	return &herdRig{
		t: t, clock: clk, store: store, writer: projections.NewWriter(store.Log(), clk, nil),
		nodes: projections.NewNodeView(store.Log()), pods: projections.NewPodView(store.Log()),
		targets: projections.NewKubeletTargetView(store.Log()),
	}
}

// manager starts a Manager with cfg on the rig's log; it stops with the
// test.
func (h *herdRig) manager(cfg Config) *Manager {
	h.t.Helper()
	sink := &Commands{Nodes: h.writer.NodeCommands(), Pods: podStore{h.writer.PodBatch(), h.pods}}
	m, err := NewManager(cfg, sink, h.writer.KubeletTargetsCommands(), h.targets, h.clock, zap.NewNop(), NewMetrics(prometheus.NewRegistry()))
	if err != nil {
		h.t.Fatal(err)
	}
	m.jitter = func() float64 { return 0.5 }
	if err := m.Start(h.t.Context()); err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { _ = m.Stop(context.Background()) })
	h.waitIdle(m)
	return m
}

func (h *herdRig) waitIdle(m *Manager) {
	h.t.Helper()
	eventstest.Eventually(h.t, eventstest.WaitFor, m.Idle, "pollers did not settle: %+v", m.Status())
}

// pass moves herd's clock once every poller waits, and waits again.
func (h *herdRig) pass(m *Manager, d time.Duration) {
	h.t.Helper()
	h.waitIdle(m)
	h.clock.Step(d)
	h.waitIdle(m)
}

func (h *herdRig) node(name string) domain.Node {
	h.t.Helper()
	n, err := h.nodes.Get(h.t.Context(), name)
	if err != nil {
		h.t.Fatal(err)
	}
	return n
}

func (h *herdRig) setTargets(cmd domain.KubeletTargetsCommand) {
	h.t.Helper()
	if _, err := h.writer.KubeletTargetsCommands().Execute(h.t.Context(), domain.Key{}, cmd); err != nil {
		h.t.Fatal(err)
	}
}

func condition(n domain.Node, t domain.ConditionType) string {
	c, ok := n.Condition(t)
	if !ok {
		return "none"
	}
	return string(c.Status) + " " + c.Reason
}

func TestManagerObservesKubeletsIntoTheLog(t *testing.T) {
	h := newHerdRig(t)
	k := kubelettest.New("worker-a")
	k.SetPods(kubelettest.RunningPod("shop", "web"), kubelettest.CrashLoopingPod("shop", "api", 7))
	srv := serve(t, k)
	cfg := DefaultConfig()
	cfg.Flags = []string{"worker-a=" + srv.URL}
	m := h.manager(cfg)

	n := h.node("worker-a")
	if n.Kind != domain.KindKubelet || n.AgentState != domain.AgentReady || n.KubeletMetrics == nil {
		t.Fatalf("node %+v: want a Ready kubelet node with the summary's figures", n)
	}
	if got := condition(n, domain.ConditionReady) + ", " + condition(n, domain.ConditionMemoryPressure); got != "True KubeletReady, False KubeletHasSufficientMemory" {
		t.Errorf("conditions: %s", got)
	}
	pods, _, err := h.pods.List(t.Context(), projections.PodFilter{NodeName: "worker-a"})
	if err != nil {
		t.Fatal(err)
	}
	if len(pods) != 2 || !pods[0].Observed() || pods[0].Name != "api" || pods[0].Status.Reason != ReasonCrashLoopBackOff ||
		pods[0].Status.ContainerStatuses[0].RestartCount != 7 || pods[1].Name != "web" {
		t.Fatalf("pods %+v: want api crash-looping with 7 restarts, and web", pods)
	}

	// Memory runs short: the next heartbeat turns MemoryPressure True.
	k.SetMemoryAvailable(64 << 20)
	h.pass(m, 10*time.Second)
	if got := condition(h.node("worker-a"), domain.ConditionMemoryPressure); got != "True KubeletHasInsufficientMemory" {
		t.Errorf("MemoryPressure %s, want True KubeletHasInsufficientMemory", got)
	}

	// A target added through the API gets a poller of its own; the pod
	// that left worker-a's kubelet leaves herd.
	kb := kubelettest.New("worker-b")
	kb.SetPods(kubelettest.RunningPod("ops", "agent"))
	srvB := serve(t, kb)
	h.setTargets(domain.SetKubeletTarget{Target: domain.KubeletTarget{Name: "worker-b", URL: srvB.URL}})
	if _, err := m.Reconcile(t.Context(), keyTargets); err != nil {
		t.Fatal(err)
	}
	k.SetPods(kubelettest.RunningPod("shop", "web"))
	h.pass(m, 20*time.Second)
	if nb := h.node("worker-b"); condition(nb, domain.ConditionReady) != "True KubeletReady" {
		t.Errorf("worker-b: Ready %s", condition(nb, domain.ConditionReady))
	}
	if pods, _, _ := h.pods.List(t.Context(), projections.PodFilter{NodeName: "worker-a"}); len(pods) != 1 || pods[0].Name != "web" {
		t.Errorf("worker-a's pods after api left: %+v", pods)
	}

	// worker-b's kubelet goes away: the reason is on the node, once, and
	// no heartbeat comes.
	srvB.Close()
	last := h.node("worker-b").LastHeartbeat
	h.pass(m, 10*time.Second)
	h.pass(m, 20*time.Second)
	nb := h.node("worker-b")
	if nb.ScrapeFailure == nil || nb.ScrapeFailure.Reason != ReasonConnectionRefused || !nb.LastHeartbeat.Equal(last) {
		t.Fatalf("worker-b: scrape failure %+v, last heartbeat %v (was %v)", nb.ScrapeFailure, nb.LastHeartbeat, last)
	}
	recs, err := h.store.ReadStream(t.Context(), h.store.DB(), domain.NodeStream("worker-b"), 0)
	if err != nil {
		t.Fatal(err)
	}
	failed := 0
	for _, r := range recs {
		if r.Type == "NodeScrapeFailed" {
			failed++
		}
	}
	if failed != 1 {
		t.Errorf("%d NodeScrapeFailed events, want 1", failed)
	}

	// Removing worker-b's target stops its poller, stops the node and
	// forgets its pods.
	h.setTargets(domain.RemoveKubeletTarget{Name: "worker-b"})
	if _, err := m.Reconcile(t.Context(), keyTargets); err != nil {
		t.Fatal(err)
	}
	nb = h.node("worker-b")
	if nb.AgentState != domain.AgentStopped || !strings.Contains(mustCondition(t, nb, domain.ConditionReady).Message, "herd no longer polls this kubelet") {
		t.Errorf("worker-b after its target was removed: %s, Ready %+v", nb.AgentState, mustCondition(t, nb, domain.ConditionReady))
	}
	if pods, _, _ := h.pods.List(t.Context(), projections.PodFilter{NodeName: "worker-b"}); len(pods) != 0 {
		t.Errorf("worker-b's pods are still there: %+v", pods)
	}
	if st := m.Status(); len(st) != 1 || st[0].Name != "worker-a" {
		t.Errorf("pollers %+v, want worker-a's alone", st)
	}
}

func mustCondition(t *testing.T, n domain.Node, ct domain.ConditionType) domain.Condition {
	t.Helper()
	c, ok := n.Condition(ct)
	if !ok {
		t.Fatalf("node %s has no %s", n.Name, ct)
	}
	return c
}

func TestManagerFollowsTheConfigurationAcrossRestarts(t *testing.T) {
	h := newHerdRig(t)
	k := kubelettest.New("worker-a")
	srv := serve(t, k)
	cfg := DefaultConfig()
	cfg.Flags = []string{"worker-a=" + srv.URL}
	m := h.manager(cfg)
	if err := m.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	restarts := h.node("worker-a").RestartCount

	// herd starts again with the same configuration: the same target, the
	// node is not registered again.
	m = h.manager(cfg)
	if n := h.node("worker-a"); n.RestartCount != restarts || len(m.Status()) != 1 {
		t.Errorf("after a restart of herd: %d kubelet restarts (want %d), %d pollers", n.RestartCount, restarts, len(m.Status()))
	}
	if err := m.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}

	// ... and without it: the configured target goes.
	m = h.manager(DefaultConfig())
	ts, _, err := h.targets.Targets(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(ts.Targets) != 0 || len(m.Status()) != 0 {
		t.Errorf("targets %+v and pollers %+v, want none", ts.Targets, m.Status())
	}
}

func TestCommandsRefuseToTakeOverAnotherNode(t *testing.T) {
	h := newHerdRig(t)
	if _, err := h.writer.NodeCommands().Execute(t.Context(), domain.Key{Name: "web-01"},
		domain.RegisterNode{Registration: domain.Registration{Name: "web-01", Kind: domain.KindLinux}}); err != nil {
		t.Fatal(err)
	}
	c := &Commands{Nodes: h.writer.NodeCommands(), Pods: podStore{h.writer.PodBatch(), h.pods}}
	err := c.RegisterNode(t.Context(), domain.Registration{Name: "web-01", Kind: domain.KindKubelet}, false)
	if err == nil || !strings.Contains(err.Error(), `node "web-01" is a linux node, not this kubelet's`) {
		t.Errorf("error %v, want a conflict naming the node's kind", err)
	}

	// A pod name herd's own pods hold is refused; the kubelet's others are
	// recorded all the same.
	if _, err := h.writer.PodCommands().Execute(t.Context(), domain.Key{Namespace: "shop", Name: "web"},
		domain.CreatePod{Namespace: "shop", Name: "web", UID: "uid-herd-web", Spec: domain.PodSpec{Containers: []domain.Container{{Name: "web", Image: "nginx"}}}}); err != nil {
		t.Fatal(err)
	}
	l := ObservedPods("worker-a", podList(kubelettest.RunningPod("shop", "web"), kubelettest.RunningPod("shop", "cache")), nil)
	err = c.ObservePods(t.Context(), "worker-a", l)
	if err == nil || !strings.Contains(err.Error(), "managed by herd") {
		t.Errorf("error %v, want the managed pod named", err)
	}
	if p, err := h.pods.Get(t.Context(), "shop", "cache"); err != nil || !p.Observed() {
		t.Errorf("shop/cache: %+v, %v; want it observed", p, err)
	}
	if p, _ := h.pods.Get(t.Context(), "shop", "web"); p.Observed() {
		t.Errorf("herd's own shop/web was taken over: %+v", p)
	}
}

// TestObservedPodsBringTheirNamespace: a kubelet's pods in a namespace
// herd does not know are recorded all the same, and their namespace is
// created ("in use") rather than the pods refused.
func TestObservedPodsBringTheirNamespace(t *testing.T) {
	h := newHerdRig(t)
	nss := projections.NewNamespaceView(h.store.Log())
	c := &Commands{Nodes: h.writer.NodeCommands(), Pods: podStore{h.writer.PodBatch(), h.pods}, Namespaces: namespaceStore{h.writer, nss}}
	l := ObservedPods("worker-a", podList(kubelettest.RunningPod("lab", "probe"), kubelettest.RunningPod("lab", "cache")), nil)
	if err := c.ObservePods(t.Context(), "worker-a", l); err != nil {
		t.Fatal(err)
	}
	if p, err := h.pods.Get(t.Context(), "lab", "probe"); err != nil || !p.Observed() {
		t.Errorf("lab/probe: %+v, %v; want it observed", p, err)
	}
	ns, err := nss.Get(t.Context(), "lab")
	if err != nil || domain.NamespacePhase(ns) != domain.PhaseActive {
		t.Fatalf("namespace lab: %+v, %v; want it Active", ns, err)
	}
	// A second poll writes no namespace again.
	if err := c.ObservePods(t.Context(), "worker-a", l); err != nil {
		t.Fatal(err)
	}
	if again, _ := nss.Get(t.Context(), "lab"); again.Version != ns.Version {
		t.Errorf("namespace lab went from version %d to %d on a second poll", ns.Version, again.Version)
	}
}

// TestCommandsTellWhenAHeartbeatTurnsTheNodeReady: the sink says when a
// heartbeat turned the node's Ready to True — the first, and one after
// herd marked the node silent — and not for the heartbeats between, so
// that the poller reports the pods herd marked not ready meanwhile.
func TestCommandsTellWhenAHeartbeatTurnsTheNodeReady(t *testing.T) {
	h := newHerdRig(t)
	c := &Commands{Nodes: h.writer.NodeCommands(), Pods: podStore{h.writer.PodBatch(), h.pods}}
	if err := c.RegisterNode(t.Context(), domain.Registration{Name: "worker-a", Kind: domain.KindKubelet, UID: "uid-a"}, false); err != nil {
		t.Fatal(err)
	}
	hb := domain.RecordHeartbeat{Reported: []domain.ReportedCondition{readyCondition()}}
	beat := func(want bool, when string) {
		t.Helper()
		h.clock.Step(10 * time.Second)
		if became, err := c.RecordHeartbeat(t.Context(), "worker-a", hb); err != nil || became != want {
			t.Errorf("%s: became Ready %v (%v), want %v", when, became, err, want)
		}
	}
	beat(true, "the first heartbeat")
	beat(false, "a heartbeat of a Ready node")
	h.clock.Step(time.Minute)
	if _, err := h.writer.NodeCommands().Execute(t.Context(), domain.Key{Name: "worker-a"}, domain.NodeFrom(func(n domain.Node) (domain.NodeCommand, error) {
		return domain.MarkNodeUnreachableSince(n.LastHeartbeat), nil
	})); err != nil {
		t.Fatal(err)
	}
	beat(true, "a late heartbeat after herd marked the node silent")
	beat(false, "the next")
}
