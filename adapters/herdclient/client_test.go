package herdclient_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"
	clocktesting "k8s.io/utils/clock/testing"

	"herd/adapters/herdclient"
	"herd/adapters/httpapi"
	"herd/domain"
	"herd/events"
	"herd/projections"
	"herd/projections/watch"
)

var t0 = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

// herd is a real herd API on a SQLite log in the test's directory,
// listening on loopback.
type herd struct {
	url    string
	writer *projections.Writer
	pods   *projections.PodView
	clock  *clocktesting.FakeClock
}

func newHerd(t *testing.T, auth httpapi.Authenticator) *herd {
	t.Helper()
	ctx := context.Background()
	store, err := events.Open(ctx, events.Config{Path: filepath.Join(t.TempDir(), "herd.db")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	if err := projections.Migrate(ctx, store.Log()); err != nil {
		t.Fatal(err)
	}
	clk := clocktesting.NewFakeClock(t0)
	w := projections.NewWriter(store.Log(), clk, nil)
	pods := projections.NewPodView(store.Log())
	hub, err := watch.NewHub(store.Log(), watch.Config{PollInterval: time.Millisecond}, clk, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := httpapi.NewServer(httpapi.Deps{
		Nodes: w.NodeCommands(), NodeView: projections.NewNodeView(store.Log()), Pods: w.PodCommands(), PodView: pods, Timeline: projections.NewTimelineView(store.Log()),
		Log: store.Log(), KubeletTargetView: projections.NewKubeletTargetView(store.Log()), Watch: hub, Clock: clk, Logger: zap.NewNop(), Gatherer: prometheus.NewRegistry(),
		ConfigMaps: w.ConfigMapCommands(), ConfigMapView: projections.NewConfigMapView(store.Log()), Devices: w.DeviceBindingCommands(), DeviceBindings: projections.NewDeviceBindingView(store.Log()),
		Namespaces: w.NamespaceCommands(), NamespaceView: projections.NewNamespaceView(store.Log()), Leases: w.LeaseCommands(), LeaseView: projections.NewLeaseView(store.Log()),
		ReplicaSets: w.ReplicaSetCommands(), ReplicaSetView: projections.NewReplicaSetView(store.Log()),
		Deployments: w.DeploymentCommands(), DeploymentView: projections.NewDeploymentView(store.Log()),
		DaemonSets: w.DaemonSetCommands(), DaemonSetView: projections.NewDaemonSetView(store.Log()),
		PodDisruptionBudgets: w.PodDisruptionBudgetCommands(), PodDisruptionBudgetView: projections.NewPodDisruptionBudgetView(store.Log()), Evictions: w.Evictions(),
		Jobs: w.JobCommands(), JobView: projections.NewJobView(store.Log()),
		CronJobs: w.CronJobCommands(), CronJobView: projections.NewCronJobView(store.Log()),
		StatefulSets: w.StatefulSetCommands(), StatefulSetView: projections.NewStatefulSetView(store.Log()),
		ControllerRevisions: w.ControllerRevisionCommands(), ControllerRevisionView: projections.NewControllerRevisionView(store.Log()),
		Auth: auth,
	}, httpapi.Config{Thresholds: domain.DefaultThresholds})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.EnsureNamespaces(ctx, uuid.NewString); err != nil {
		t.Fatal(err)
	}
	// The hub starts once the API has registered what it watches.
	if err := hub.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(hub.Stop)
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return &herd{url: srv.URL, writer: w, pods: pods, clock: clk}
}

func (h *herd) client(t *testing.T, token string) *herdclient.Client {
	t.Helper()
	c, err := herdclient.New(herdclient.Config{Server: h.url, Token: token})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// pod writes default/name through herd's unit of work.
func (h *herd) pod(t *testing.T, name string, cmds ...domain.PodCommand) domain.Pod {
	t.Helper()
	p, err := h.writer.PodCommands().Execute(t.Context(), domain.Key{Namespace: "default", Name: name}, domain.PodSequence(cmds))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func create(name, node string) domain.CreatePod {
	grace := int64(30)
	return domain.CreatePod{Namespace: "default", Name: name, UID: "uid-" + name, TerminationGracePeriodSeconds: &grace,
		Spec: domain.PodSpec{NodeName: node, Containers: []domain.Container{{Name: "app", Image: "busybox"}}}}
}

var addr = domain.AssignPodIP{Network: domain.PodNetwork{Pool: "10.88.0.0/16", IP: "10.88.0.2", PrefixLength: 16, Gateway: "10.88.0.1"}}

func metrics(availableGiB int64) domain.Metrics {
	return domain.Metrics{CPUCount: 4, Load1: 0.5, Load5: 0.5, Load15: 0.5, MemoryTotalBytes: 16 << 30, MemoryAvailableBytes: availableGiB << 30,
		DiskTotalBytes: 100 << 30, DiskAvailableBytes: 50 << 30, PIDsMax: 4096, PIDsCurrent: 100, ActiveJobs: 1}
}

func TestANodesLifeThroughTheAPI(t *testing.T) {
	h := newHerd(t, nil)
	c := h.client(t, "")
	ctx := t.Context()
	reg := domain.Registration{Name: "zone-01", Kind: domain.KindIllumos,
		Labels:      map[string]string{domain.LabelRuntime: domain.RuntimeAgent, "kubernetes.io/os": "illumos"},
		Addresses:   []domain.Address{{Type: "Hostname", Address: "zone-01"}},
		Capacity:    domain.ResourceList{"cpu": 4000, "memory": 16 << 30, "pods": 110},
		Allocatable: domain.ResourceList{"cpu": 3500, "memory": 15 << 30, "pods": 110},
		Info:        domain.NodeInfo{AgentVersion: "herd-agent/test", OperatingSystem: "illumos", BootID: "b1"}}
	n, err := c.Register(ctx, reg)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(reg.Labels, n.Labels); diff != "" || n.Kind != domain.KindIllumos || !n.RunsOwnPods() {
		t.Errorf("registered as %s, labels (-want +got):\n%s", n.Kind, diff)
	}
	if diff := cmp.Diff(reg.Allocatable, n.Allocatable); diff != "" {
		t.Errorf("allocatable (-want +got):\n%s", diff)
	}
	n, err = c.Heartbeat(ctx, "zone-01", metrics(1))
	if err != nil {
		t.Fatal(err)
	}
	for typ, want := range map[domain.ConditionType]domain.ConditionStatus{domain.ConditionReady: domain.ConditionTrue, domain.ConditionMemoryPressure: domain.ConditionTrue} {
		if cond, _ := n.Condition(typ); cond.Status != want {
			t.Errorf("%s %s, want %s", typ, cond.Status, want)
		}
	}
	if err := c.Deregister(ctx, "zone-01"); err != nil {
		t.Fatal(err)
	}
	if n, err = c.Node(ctx, "zone-01"); err != nil {
		t.Fatal(err)
	}
	if cond, _ := n.Condition(domain.ConditionReady); cond.Status != domain.ConditionFalse || cond.Reason != domain.ReasonAgentStopped {
		t.Errorf("after deregistering: Ready %+v", cond)
	}
	if _, err := c.Node(ctx, "zone-02"); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("an unknown node: %v", err)
	}
	if _, err := c.Heartbeat(ctx, "zone-02", metrics(8)); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("a heartbeat of an unknown node: %v", err)
	}
}

func TestAnAgentRunsItsPodsThroughTheAPI(t *testing.T) {
	h := newHerd(t, nil)
	c := h.client(t, "")
	ctx := t.Context()
	h.pod(t, "web", create("web", "zone-01"), addr)
	h.pod(t, "other", create("other", "zone-02"))
	pods, err := c.List(ctx, "zone-01")
	if err != nil {
		t.Fatal(err)
	}
	if len(pods) != 1 || pods[0].Name != "web" || pods[0].Network == nil || pods[0].Network.IP != "10.88.0.2" {
		t.Fatalf("zone-01's pods: %+v", pods)
	}
	if _, err := c.List(ctx, ""); err == nil {
		t.Error("a list of every node's pods")
	}

	// A status decided on a pod that changes before it is written is
	// decided again on the pod as it now stands.
	var decisions int
	err = c.UpdateStatus(ctx, "default", "web", func(p domain.Pod) (domain.PodStatus, bool) {
		decisions++
		if decisions == 1 {
			h.pod(t, "web", domain.SetPodMetadata{Labels: map[string]string{"app": "web"}})
		}
		return domain.PodStatus{Phase: domain.PodRunning, StartTime: t0}, true
	})
	if err != nil {
		t.Fatal(err)
	}
	if decisions != 2 {
		t.Errorf("decided %d times, want 2 (once more after the conflict)", decisions)
	}
	p, err := c.Pod(ctx, "default", "web")
	if err != nil {
		t.Fatal(err)
	}
	if p.Status.Phase != domain.PodRunning || p.Status.PodIP != "10.88.0.2" || p.Labels["app"] != "web" {
		t.Errorf("after the report: %+v", p)
	}
	// A pod that is gone is decided on as absent, and nothing is written.
	var sawGone bool
	if err := c.UpdateStatus(ctx, "default", "nope", func(p domain.Pod) (domain.PodStatus, bool) {
		sawGone = !p.Exists()
		return domain.PodStatus{}, false
	}); err != nil || !sawGone {
		t.Errorf("a missing pod: %v, seen gone %v", err, sawGone)
	}

	h.pod(t, "web", domain.DeletePod{})
	seen, err := c.Pod(ctx, "default", "web")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.RecordTermination(ctx, seen, domain.StepShutdownRequested, domain.StepStopped); err != nil {
		t.Fatal(err)
	}
	after, err := c.Pod(ctx, "default", "web")
	if err != nil {
		t.Fatal(err)
	}
	if d := after.Deletion; d == nil || !d.ShutdownRequestedAt.Equal(t0) || !d.StoppedAt.Equal(t0) || !d.DeprovisionedAt.IsZero() {
		t.Errorf("deletion %+v", after.Deletion)
	}
	// Another pod of the same name is never told of the first one's steps.
	recreated := seen
	recreated.UID = "uid-earlier"
	if err := c.RecordTermination(ctx, recreated, domain.StepDeprovisioned); !errors.Is(err, domain.ErrConflict) {
		t.Errorf("a step for another UID: %v", err)
	}
}

func TestTokensAndAddresses(t *testing.T) {
	tf, err := httpapi.ParseTokenFile(strings.NewReader("zone-token,system:node:zone-01,1,system:nodes\n"))
	if err != nil {
		t.Fatal(err)
	}
	h := newHerd(t, tf)
	h.pod(t, "web", create("web", "zone-01"), addr)
	if _, err := h.client(t, "").List(t.Context(), "zone-01"); !errors.Is(err, domain.ErrForbidden) {
		t.Errorf("without a token: %v", err)
	}
	pods, err := h.client(t, "zone-token").List(t.Context(), "zone-01")
	if err != nil || len(pods) != 1 {
		t.Errorf("with the node's token: %v %v", pods, err)
	}
	if _, err := h.client(t, "zone-token").List(t.Context(), "zone-02"); !errors.Is(err, domain.ErrForbidden) {
		t.Errorf("another node's pods: %v", err)
	}
	for _, bad := range []string{"", "127.0.0.1:8080", "ftp://herd", "http://herd/api"} {
		if _, err := herdclient.New(herdclient.Config{Server: bad}); err == nil || !strings.Contains(err.Error(), "--server") {
			t.Errorf("%q: %v", bad, err)
		}
	}
	gone, err := herdclient.New(herdclient.Config{Server: "http://127.0.0.1:1", Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gone.Node(t.Context(), "zone-01"); !herdclient.Retryable(err) {
		t.Errorf("an unreachable herd is worth retrying: %v", err)
	}
	if herdclient.Retryable(&herdclient.StatusError{Code: 422}) || !herdclient.Retryable(&herdclient.StatusError{Code: 503}) {
		t.Error("a refusal is final, an outage is not")
	}
}

// TestAShedRequestSaysHowLongToWait: a 429 keeps herd's Retry-After and
// its message; a refusal without one says nothing of waiting.
func TestAShedRequestSaysHowLongToWait(t *testing.T) {
	shed := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/v1/nodes/n1" {
			w.Header().Set("Retry-After", "3")
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"TooManyRequests","message":"herd is behind; try again","code":429}`))
			return
		}
		http.Error(w, "no such thing", http.StatusNotFound)
	}))
	t.Cleanup(shed.Close)
	c, err := herdclient.New(herdclient.Config{Server: shed.URL})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Node(t.Context(), "n1")
	if got := herdclient.RetryAfter(err); got != 3*time.Second || !herdclient.Retryable(err) || !strings.Contains(err.Error(), "herd is behind") {
		t.Errorf("%v: wait %s, want 3s and a retryable refusal with herd's message", err, got)
	}
	_, err = c.Node(t.Context(), "n2")
	if got := herdclient.RetryAfter(err); err == nil || got != 0 {
		t.Errorf("%v: wait %s, want none", err, got)
	}
}
