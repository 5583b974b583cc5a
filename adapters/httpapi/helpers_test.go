package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	clocktesting "k8s.io/utils/clock/testing"

	"herd/events"
	"herd/projections"
	"herd/projections/watch"
)

var t0 = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

// metaT0 is t0 as Kubernetes objects carry it.
var metaT0 = metav1.NewTime(t0)

// testAPI is a Server on a real SQLite log in the test's temp dir.
type testAPI struct {
	*Server
	store  *events.Store
	clock  *clocktesting.FakeClock
	writer *projections.Writer
}

func newTestAPI(t testing.TB, auth Authenticator) *testAPI {
	t.Helper()
	ctx := context.Background()
	store, err := events.Open(ctx, events.Config{Path: filepath.Join(t.TempDir(), "herd.db")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	a := newTestAPIOn(t, store.Log(), auth)
	a.store = store
	return a
}

// newTestAPIOn is a Server on log, which may be either engine's; its
// store is nil.
func newTestAPIOn(t testing.TB, log events.Log, auth Authenticator) *testAPI {
	t.Helper()
	return newTestAPIWith(t, log, auth, func(*Deps) {})
}

// newTestAPIWith is newTestAPIOn with deps changed by change first (a
// what-if runner added).
func newTestAPIWith(t testing.TB, log events.Log, auth Authenticator, change func(*Deps)) *testAPI {
	t.Helper()
	ctx := context.Background()
	if err := projections.Migrate(ctx, log); err != nil {
		t.Fatal(err)
	}
	clk := clocktesting.NewFakeClock(t0)
	w := projections.NewWriter(log, clk, nil)
	hub, err := watch.NewHub(log, watch.Config{PollInterval: time.Millisecond}, clk, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	deps := Deps{
		Nodes: w.NodeCommands(), NodeView: projections.NewNodeView(log).Remembering(w), Timeline: projections.NewTimelineView(log), KubeletTargets: w.KubeletTargetsCommands(),
		Pods: w.PodCommands(), PodView: projections.NewPodView(log),
		Log: log, KubeletTargetView: projections.NewKubeletTargetView(log), Watch: hub, Clock: clk, Logger: zap.NewNop(), Gatherer: prometheus.NewRegistry(),
		ConfigMaps: w.ConfigMapCommands(), ConfigMapView: projections.NewConfigMapView(log),
		Devices: w.DeviceBindingCommands(), DeviceBindings: projections.NewDeviceBindingView(log),
		Namespaces: w.NamespaceCommands(), NamespaceView: projections.NewNamespaceView(log), Leases: w.LeaseCommands(), LeaseView: projections.NewLeaseView(log).Remembering(w),
		ReplicaSets: w.ReplicaSetCommands(), ReplicaSetView: projections.NewReplicaSetView(log),
		Deployments: w.DeploymentCommands(), DeploymentView: projections.NewDeploymentView(log),
		PodDisruptionBudgets: w.PodDisruptionBudgetCommands(), PodDisruptionBudgetView: projections.NewPodDisruptionBudgetView(log), Evictions: w.Evictions(),
		Jobs: w.JobCommands(), JobView: projections.NewJobView(log),
		CronJobs: w.CronJobCommands(), CronJobView: projections.NewCronJobView(log),
		StatefulSets: w.StatefulSetCommands(), StatefulSetView: projections.NewStatefulSetView(log),
		ControllerRevisions: w.ControllerRevisionCommands(), ControllerRevisionView: projections.NewControllerRevisionView(log),
		DaemonSets: w.DaemonSetCommands(), DaemonSetView: projections.NewDaemonSetView(log),
		Auth: auth, UI: fakeUI,
	}
	change(&deps)
	s, err := NewServer(deps, Config{})
	if err != nil {
		t.Fatal(err)
	}
	// As herd serve does at start: default, kube-system, kube-public and
	// kube-node-lease exist.
	if _, err := w.EnsureNamespaces(ctx, uuid.NewString); err != nil {
		t.Fatal(err)
	}
	if err := hub.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(hub.Stop)
	return &testAPI{Server: s, clock: clk, writer: w}
}

// serve starts the API on a loopback port for the test.
func (a *testAPI) serve(t testing.TB) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(a)
	t.Cleanup(srv.Close)
	return srv
}

// head is the log's head position.
func (a *testAPI) head(t *testing.T) int64 {
	t.Helper()
	h, err := a.store.Head(t.Context(), a.store.DB())
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// req is one request in a test table.
type req struct {
	method, path, contentType, token string
	body                             string
}

// answer is what came back.
type answer struct {
	code int
	body []byte
}

func (a answer) status(t *testing.T) (reason, message string) {
	t.Helper()
	var st struct {
		Kind    string `json:"kind"`
		Reason  string `json:"reason"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal(a.body, &st); err != nil || st.Kind != "Status" {
		t.Fatalf("answer %d is not a Status: %s", a.code, a.body)
	}
	return st.Reason, st.Message
}

// send sends rq to base with c (http.DefaultClient when nil).
func send(t *testing.T, c *http.Client, base string, rq req) answer {
	t.Helper()
	if c == nil {
		c = http.DefaultClient
	}
	var body io.Reader
	if rq.body != "" {
		body = strings.NewReader(rq.body)
	}
	r, err := http.NewRequestWithContext(t.Context(), rq.method, base+rq.path, body)
	if err != nil {
		t.Fatal(err)
	}
	ct := rq.contentType
	if ct == "" && rq.body != "" {
		ct = "application/json"
	}
	if ct != "" {
		r.Header.Set("Content-Type", ct)
	}
	if rq.token != "" {
		r.Header.Set("Authorization", "Bearer "+rq.token)
	}
	resp, err := c.Do(r)
	if err != nil {
		t.Fatalf("%s %s: %v", rq.method, rq.path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return answer{code: resp.StatusCode, body: bytes.TrimSpace(data)}
}

// mustSend is send that requires the status want.
func mustSend(t *testing.T, c *http.Client, base string, want int, rq req) answer {
	t.Helper()
	a := send(t, c, base, rq)
	if a.code != want {
		t.Fatalf("%s %s: %d %s, want %d", rq.method, rq.path, a.code, a.body, want)
	}
	return a
}

// nodeJSON is a Node a node or a Pico posts.
func nodeJSON(name string) string {
	return `{"apiVersion":"v1","kind":"Node","metadata":{"name":"` + name + `","labels":{"node.kubernetes.io/instance-type":"rp2040-pico"}},` +
		`"status":{"conditions":[{"type":"Ready","status":"True","reason":"KubeletReady","lastHeartbeatTime":"1970-01-01T00:00:00Z","lastTransitionTime":"1970-01-01T00:00:00Z"}],` +
		`"nodeInfo":{"bootID":"boot-1"}}}`
}

const readyPatch = `{"status":{"conditions":[{"type":"Ready","status":"True","reason":"KubeletReady","lastHeartbeatTime":"1970-01-01T00:00:00Z"}]}}`

// recordingClientset is client-go's clientset, in its default
// configuration (protobuf), for the server at url, and what media type
// each request it sent with a body had, as the server saw it (those keep
// accepts, when it is given: client-go sends a PATCH or an eviction as
// JSON whatever it is configured with).
func recordingClientset(t *testing.T, url string, keep func(*http.Request) bool) (*kubernetes.Clientset, func() []string) {
	t.Helper()
	var mu sync.Mutex
	var sent []string
	cfg := &rest.Config{Host: url, WrapTransport: func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(r *http.Request) (*http.Response, error) {
			if r.Body != nil && (keep == nil || keep(r)) {
				mu.Lock()
				sent = append(sent, r.Header.Get("Content-Type"))
				mu.Unlock()
			}
			return rt.RoundTrip(r)
		})
	}}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(sent)
	}
}

// roundTripFunc is a function as an http.RoundTripper.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// decodeInto reads an answer's body as a T (a kind's API object),
// failing t with the body when it is not one.
func decodeInto[T any](t *testing.T, a answer) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(a.body, &v); err != nil {
		t.Fatalf("not a %T: %v: %s", v, err, a.body)
	}
	return v
}

// refusedLeavingTheLog sends rq and wants it answered code with a
// message naming want, and the log's head still at head: a refusal
// changes nothing.
func refusedLeavingTheLog(t *testing.T, api *testAPI, base string, code int, rq req, want string, head int64) {
	t.Helper()
	a := mustSend(t, nil, base, code, rq)
	if _, msg := a.status(t); !strings.Contains(msg, want) {
		t.Errorf("message %q, want it to name %q", msg, want)
	}
	if h := api.head(t); h != head {
		t.Errorf("the refusal moved the head from %d to %d", head, h)
	}
}
