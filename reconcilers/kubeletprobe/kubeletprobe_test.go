package kubeletprobe

import (
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/zap"
	clocktesting "k8s.io/utils/clock/testing"

	"herd/domain"
	"herd/events"
	"herd/projections"
	"herd/reconcilers"
	"herd/reconcilers/reconcilerstest"
)

var t0 = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

// loopback is the network the tests' kubelets listen on, allowed to be
// probed.
var loopback = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}

type harness struct {
	log   events.Log
	w     *projections.Writer
	view  *projections.NodeView
	clock *clocktesting.FakeClock
	r     *Reconciler
}

func newHarness(t *testing.T, cfg Config) *harness {
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
	w := projections.NewWriter(store.Log(), clk, nil)
	view := projections.NewNodeView(store.Log())
	r, err := New(cfg, w.NodeCommands(), view, clk, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	return &harness{log: store.Log(), w: w, view: view, clock: clk, r: r}
}

// register registers a node of kind whose kubelet endpoint is addr
// ("host:port"), or none when addr is empty.
func (h *harness) register(t *testing.T, name string, kind domain.NodeKind, addr string) {
	t.Helper()
	reg := domain.Registration{Name: name, Kind: kind}
	if addr != "" {
		host, port, _ := net.SplitHostPort(addr)
		p, _ := strconv.Atoi(port)
		reg.Addresses = []domain.Address{{Type: "Hostname", Address: name}, {Type: "InternalIP", Address: host}}
		reg.KubeletPort = int32(p)
	}
	if _, err := h.w.NodeCommands().Execute(t.Context(), domain.Key{Name: name}, domain.RegisterNode{Registration: reg}); err != nil {
		t.Fatal(err)
	}
}

func (h *harness) condition(t *testing.T, name string) (domain.Condition, bool) {
	t.Helper()
	n, err := h.view.Get(t.Context(), name)
	if err != nil {
		t.Fatal(err)
	}
	return n.Condition(domain.ConditionKubeletReachable)
}

// kubelet is an httptest server on 127.0.0.1 answering /healthz with code,
// counting its probes.
func kubelet(t *testing.T, code int) (addr string, probes *atomic.Int64) {
	t.Helper()
	probes = &atomic.Int64{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/healthz" {
			http.NotFound(w, r)
			return
		}
		probes.Add(1)
		w.WriteHeader(code)
		_, _ = w.Write([]byte("ok"))
	}))
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String(), probes
}

// closedPort is a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return addr
}

// hanging is a loopback server that accepts and never answers, until the
// test ends.
func hanging(t *testing.T) string {
	t.Helper()
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-done:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(done); srv.Close() })
	return srv.Listener.Addr().String()
}

func TestProbeOutcomes(t *testing.T) {
	cfg := Config{Kinds: []domain.NodeKind{domain.KindRP2040}, Interval: 15 * time.Second, Timeout: 200 * time.Millisecond, Networks: loopback}
	healthy, _ := kubelet(t, http.StatusOK)
	broken, _ := kubelet(t, http.StatusServiceUnavailable)
	refused, stuck := closedPort(t), hanging(t)
	tests := []struct {
		name       string
		kind       domain.NodeKind
		addr       string
		want       *domain.Condition
		wantResult reconcilers.Result
	}{
		{"healthy", domain.KindRP2040, healthy, &domain.Condition{Status: domain.ConditionTrue, Reason: domain.ReasonKubeletHealthy,
			Message: "GET http://" + healthy + "/healthz: 200 OK"}, reconcilers.Result{RequeueAfter: 15 * time.Second}},
		{"an HTTP error", domain.KindRP2040, broken, &domain.Condition{Status: domain.ConditionFalse, Reason: domain.ReasonHTTPStatus,
			Message: "GET http://" + broken + "/healthz: HTTP 503 Service Unavailable"}, reconcilers.Result{RequeueAfter: 15 * time.Second}},
		{"connection refused", domain.KindRP2040, refused, &domain.Condition{Status: domain.ConditionFalse, Reason: domain.ReasonConnectionRefused,
			Message: "GET http://" + refused + "/healthz: connection refused"}, reconcilers.Result{RequeueAfter: 15 * time.Second}},
		{"timeout", domain.KindRP2040, stuck, &domain.Condition{Status: domain.ConditionFalse, Reason: domain.ReasonProbeTimeout,
			Message: "GET http://" + stuck + "/healthz: timeout: no answer within 200ms"}, reconcilers.Result{RequeueAfter: 15 * time.Second}},
		{"a kind herd does not probe", domain.KindLinux, healthy, nil, reconcilers.Result{}},
		{"no kubelet endpoint", domain.KindRP2040, "", nil, reconcilers.Result{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, cfg)
			h.register(t, "pico-01", tt.kind, tt.addr)
			res, err := h.r.Reconcile(t.Context(), reconcilerstest.NodeKey("pico-01"))
			if err != nil {
				t.Fatal(err)
			}
			if res != tt.wantResult {
				t.Errorf("result %+v, want %+v", res, tt.wantResult)
			}
			got, ok := h.condition(t, "pico-01")
			if tt.want == nil {
				if ok {
					t.Errorf("the node has %+v, want no KubeletReachable condition", got)
				}
				return
			}
			tt.want.Type = domain.ConditionKubeletReachable
			tt.want.LastTransitionTime = t0
			tt.want.LastHeartbeatTime = t0
			if diff := cmp.Diff(*tt.want, got); diff != "" {
				t.Errorf("condition (-want +got):\n%s", diff)
			}
		})
	}
}

func TestProbesFollowHerdsClock(t *testing.T) {
	h := newHarness(t, Config{Kinds: []domain.NodeKind{domain.KindRP2040}, Interval: 15 * time.Second, Timeout: time.Second, Networks: loopback})
	addr, probes := kubelet(t, http.StatusOK)
	h.register(t, "pico-01", domain.KindRP2040, addr)
	h.register(t, "web-01", domain.KindLinux, addr)
	ctx := t.Context()

	keys, err := h.r.Resync(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"node/pico-01"}, reconcilerstest.Strings(keys)); diff != "" {
		t.Errorf("first resync (-want +got):\n%s", diff)
	}
	steps := []struct {
		advance    time.Duration
		wantProbes int64
		wantResult time.Duration
	}{
		{0, 1, 15 * time.Second},
		{0, 1, 15 * time.Second},                // an extra key at once probes nothing
		{10 * time.Second, 1, 5 * time.Second},  // nor one early
		{5 * time.Second, 2, 15 * time.Second},  // due
		{20 * time.Second, 3, 15 * time.Second}, // late is due too
	}
	for i, s := range steps {
		h.clock.Step(s.advance)
		res, err := h.r.Reconcile(ctx, reconcilerstest.NodeKey("pico-01"))
		if err != nil {
			t.Fatal(err)
		}
		if probes.Load() != s.wantProbes || res.RequeueAfter != s.wantResult {
			t.Errorf("step %d: %d probes, requeue after %s; want %d, %s", i, probes.Load(), res.RequeueAfter, s.wantProbes, s.wantResult)
		}
	}
	if keys, _ := h.r.Resync(ctx); len(keys) != 0 {
		t.Errorf("resync right after a probe: %v, want none", keys)
	}
	h.clock.Step(16 * time.Second)
	if keys, _ := h.r.Resync(ctx); len(keys) != 1 {
		t.Errorf("resync after a missed probe: %v, want pico-01", keys)
	}
	if h.r.Watches().Scope().Takes(reconcilers.Pass("nonsense")) {
		t.Error("the probe takes a key that names no node")
	}
	if res, err := h.r.Reconcile(ctx, reconcilerstest.NodeKey("gone")); err != nil || res != (reconcilers.Result{}) {
		t.Errorf("a node that does not exist: %+v, %v", res, err)
	}
}

func TestConfigValidate(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Errorf("default: %v", err)
	}
	bad := Config{Kinds: []domain.NodeKind{"toaster"}, Interval: time.Second, Timeout: 2 * time.Second}
	if err := bad.Validate(); err == nil {
		t.Error("a bad kind and a timeout longer than the interval passed")
	}
}

// TestAProbesResultNamesNoCause: the probe queued by a node's
// registration reads the kubelet, not the registration; the condition it
// records names no cause.
func TestAProbesResultNamesNoCause(t *testing.T) {
	cfg := Config{Kinds: []domain.NodeKind{domain.KindRP2040}, Interval: 15 * time.Second, Timeout: 200 * time.Millisecond, Networks: loopback}
	h := newHarness(t, cfg)
	addr, _ := kubelet(t, http.StatusOK)
	h.register(t, "pico-01", domain.KindRP2040, addr)
	recs, err := h.log.ReadAfter(t.Context(), 0, 0)
	if err != nil || len(recs) == 0 {
		t.Fatalf("the registration: %v, %v", recs, err)
	}
	queued := recs[len(recs)-1]
	ctx := events.WithMetadata(t.Context(), events.CausedBy(queued, "", ""))
	if _, err := h.r.Reconcile(ctx, reconcilerstest.NodeKey("pico-01")); err != nil {
		t.Fatal(err)
	}
	after, err := h.log.ReadAfter(t.Context(), queued.Position, 0)
	if err != nil || len(after) == 0 {
		t.Fatalf("the probe recorded nothing: %v", err)
	}
	for _, rec := range after {
		if rec.Metadata.CausationID != "" || rec.Metadata.CorrelationID != "" || rec.Metadata.Actor != "system:herd:kubeletprobe" {
			t.Errorf("%s at %d: metadata %+v, want the prober's, with no cause", rec.Type, rec.Position, rec.Metadata)
		}
	}
}

// TestRegistrationsNotProbedQueueNothing: a node registering with no
// kubelet endpoint, or of a kind herd does not probe, queues no key, so
// the reconciler never reads it (a fleet of kubelets registering would
// otherwise cost a read of every node's row); one of a probed kind with an
// endpoint is queued, and so is every deletion.
func TestRegistrationsNotProbedQueueNothing(t *testing.T) {
	h := newHarness(t, Config{Kinds: []domain.NodeKind{domain.KindRP2040}, Interval: 15 * time.Second, Timeout: time.Second, Networks: loopback})
	addr, _ := kubelet(t, http.StatusOK)
	h.register(t, "pico-01", domain.KindRP2040, addr)
	h.register(t, "pico-02", domain.KindRP2040, "")
	h.register(t, "web-01", domain.KindLinux, addr)
	for _, name := range []string{"pico-02", "web-01"} {
		if _, err := h.w.NodeCommands().Execute(t.Context(), domain.Key{Name: name}, domain.DeleteNode{}); err != nil {
			t.Fatal(err)
		}
	}
	recs, err := h.log.ReadAfter(t.Context(), 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, rec := range recs {
		for _, k := range reconcilerstest.Strings(h.r.Watches().KeysFor(rec)) {
			got = append(got, rec.Type+" "+k)
		}
	}
	want := []string{"NodeRegistered node/pico-01", "NodeDeleted node/pico-02", "NodeDeleted node/web-01"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("keys queued (-want +got):\n%s", diff)
	}
}
