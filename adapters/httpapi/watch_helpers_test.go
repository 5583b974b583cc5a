package httpapi

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"
	clocktesting "k8s.io/utils/clock/testing"

	"herd/domain"
	"herd/events"
	"herd/events/eventstest"
	"herd/projections"
	"herd/projections/watch"
)

// watchAPI is herd's API with its watch hub over a real log in a temp
// dir, served on a loopback port, with a fake clock.
type watchAPI struct {
	url   string
	store *events.Store
	w     *projections.Writer
	clk   *clocktesting.FakeClock
	hub   *watch.Hub
	srv   *Server
}

func newWatchAPI(t testing.TB, cfg watch.Config) *watchAPI {
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
	if cfg.PollInterval == 0 {
		cfg.PollInterval = time.Millisecond
	}
	hub, err := watch.NewHub(store.Log(), cfg, clk, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	w := projections.NewWriter(store.Log(), clk, nil)
	srv, err := NewServer(Deps{
		Nodes: w.NodeCommands(), NodeView: projections.NewNodeView(store.Log()), Pods: w.PodCommands(), PodView: projections.NewPodView(store.Log()),
		Timeline: projections.NewTimelineView(store.Log()), KubeletTargets: w.KubeletTargetsCommands(),
		ConfigMaps: w.ConfigMapCommands(), ConfigMapView: projections.NewConfigMapView(store.Log()),
		Devices: w.DeviceBindingCommands(), DeviceBindings: projections.NewDeviceBindingView(store.Log()),
		Namespaces: w.NamespaceCommands(), NamespaceView: projections.NewNamespaceView(store.Log()), Leases: w.LeaseCommands(), LeaseView: projections.NewLeaseView(store.Log()),
		ReplicaSets: w.ReplicaSetCommands(), ReplicaSetView: projections.NewReplicaSetView(store.Log()),
		Deployments: w.DeploymentCommands(), DeploymentView: projections.NewDeploymentView(store.Log()),
		PodDisruptionBudgets: w.PodDisruptionBudgetCommands(), PodDisruptionBudgetView: projections.NewPodDisruptionBudgetView(store.Log()), Evictions: w.Evictions(),
		Jobs: w.JobCommands(), JobView: projections.NewJobView(store.Log()),
		CronJobs: w.CronJobCommands(), CronJobView: projections.NewCronJobView(store.Log()),
		StatefulSets: w.StatefulSetCommands(), StatefulSetView: projections.NewStatefulSetView(store.Log()),
		ControllerRevisions: w.ControllerRevisionCommands(), ControllerRevisionView: projections.NewControllerRevisionView(store.Log()),
		DaemonSets: w.DaemonSetCommands(), DaemonSetView: projections.NewDaemonSetView(store.Log()),
		Log: store.Log(), KubeletTargetView: projections.NewKubeletTargetView(store.Log()), Watch: hub, Clock: clk, Logger: zap.NewNop(), Gatherer: prometheus.NewRegistry(),
	}, Config{Thresholds: domain.DefaultThresholds})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.EnsureNamespaces(t.Context(), uuid.NewString); err != nil {
		t.Fatal(err)
	}
	if err := hub.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	hs.Config.RegisterOnShutdown(hub.Stop)
	t.Cleanup(func() {
		hub.Stop()
		hs.Close()
	})
	return &watchAPI{url: hs.URL, store: store, w: w, clk: clk, hub: hub, srv: srv}
}

// do runs one command on a node at the clock's time.
func (a *watchAPI) do(t testing.TB, name string, cmd domain.NodeCommand) domain.Node {
	t.Helper()
	n, err := a.w.NodeCommands().Execute(context.Background(), domain.Key{Name: name}, cmd)
	if err != nil {
		t.Fatalf("%T on %s: %v", cmd, name, err)
	}
	return n
}

func (a *watchAPI) head(t testing.TB) int64 {
	t.Helper()
	h, err := a.store.Head(t.Context(), a.store.DB())
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func register(name string, labels map[string]string) domain.RegisterNode {
	return domain.RegisterNode{Registration: domain.Registration{Name: name, UID: "uid-" + name, Kind: domain.KindLinux, Labels: labels}}
}

func healthy() domain.RecordHeartbeat {
	return domain.RecordHeartbeat{Metrics: &domain.Metrics{
		CPUCount: 4, Load1: 1, Load5: 1, Load15: 1, MemoryTotalBytes: 1000, MemoryAvailableBytes: 500,
		DiskTotalBytes: 1000, DiskAvailableBytes: 500, PIDsMax: 1000, PIDsCurrent: 10,
	}}
}

// get sends a GET with the Accept header given and returns the answer,
// body read.
func (a *watchAPI) get(t *testing.T, path, accept string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, a.url+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, body
}

// lines is an open streaming response read line by line.
type lines struct {
	resp  *http.Response
	lines chan string
}

// open starts a streaming GET with the headers given.
func (a *watchAPI) open(t *testing.T, path string, headers map[string]string) *lines {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.url+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req) //nolint:bodyclose // a watch stream: the body is closed by t.Cleanup below
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET %s: %s %s", path, resp.Status, body)
	}
	l := &lines{resp: resp, lines: make(chan string, 1<<16)}
	go func() {
		defer close(l.lines)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			l.lines <- sc.Text()
		}
	}()
	t.Cleanup(func() {
		cancel()
		resp.Body.Close()
	})
	return l
}

// next is the next line; ok is false at the end of the stream.
func (l *lines) next(t *testing.T) (string, bool) {
	t.Helper()
	select {
	case s, ok := <-l.lines:
		return s, ok
	case <-time.After(eventstest.WaitFor):
		t.Fatalf("no line within %s", eventstest.WaitFor)
	}
	return "", false
}

// frame is one JSON watch event.
type frame struct {
	Type   string          `json:"type"`
	Object json.RawMessage `json:"object"`
}

func (l *lines) frame(t *testing.T) frame {
	t.Helper()
	s, ok := l.next(t)
	if !ok {
		t.Fatal("the watch ended")
	}
	var f frame
	if err := json.Unmarshal([]byte(s), &f); err != nil {
		t.Fatalf("a line that is not a watch event: %q", s)
	}
	return f
}

// objectRV is the resourceVersion in a frame's object's metadata.
func objectRV(t *testing.T, f frame) string {
	t.Helper()
	var o struct {
		Metadata struct {
			Name            string `json:"name"`
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(f.Object, &o); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%s@%s", o.Metadata.Name, o.Metadata.ResourceVersion)
}

func hasPrefix(s, p string) bool { return strings.HasPrefix(s, p) }
