package loadgen_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	coordinationv1 "k8s.io/api/coordination/v1"

	"herd/cmd/herd/loadgen"
	"herd/events/eventstest"
)

// leaseRun is a run of kubelets with node leases, renewing every 50 ms.
func leaseRun(server string) loadgen.Config {
	cfg := tiny(server, loadgen.StyleKubelet)
	cfg.Nodes, cfg.Lease, cfg.Interval, cfg.NamePrefix = 3, true, 50*time.Millisecond, "leased-"
	return cfg
}

// TestLeaseKubeletsRenewTheirLeases: every turn renews the node's lease
// (its renewTime moves from one run to the next), a status report goes
// out whenever one is due, and the report says how far behind schedule
// the turns began.
func TestLeaseKubeletsRenewTheirLeases(t *testing.T) {
	server := startHerd(t, nil)
	var renewed []time.Time
	for _, statusEvery := range []time.Duration{time.Nanosecond, loadgen.DefaultStatusEvery} {
		cfg := leaseRun(server)
		cfg.StatusEvery = statusEvery
		r, err := loadgen.Run(t.Context(), cfg, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		for name, p := range map[string]loadgen.Phase{"register": r.Register, "heartbeats": r.Heartbeats} {
			if p.Requests == 0 || p.Acknowledged != p.Requests || len(p.Errors) > 0 {
				t.Errorf("status every %s, %s: %d of %d acknowledged, errors %v (%s)", statusEvery, name, p.Acknowledged, p.Requests, p.Errors, p.FirstError)
			}
		}
		if _, ok := r.Register.Kinds["lease read"]; !ok {
			t.Errorf("status every %s: registering read no lease: %v", statusEvery, r.Register.Kinds)
		}
		beats := r.Heartbeats.Kinds
		if beats["lease renewal"].Acknowledged < 3 {
			t.Errorf("status every %s: renewals %+v", statusEvery, beats["lease renewal"])
		}
		// Due at every turn, or not before five minutes have passed.
		if got, due := beats["status report"].Acknowledged, statusEvery == time.Nanosecond; (got > 0) != due {
			t.Errorf("status every %s: %d status reports", statusEvery, got)
		}
		if l := r.Heartbeats.ScheduleLag; l == nil || l.Max < l.P99 || l.P99 < l.P50 || l.P50 < 0 {
			t.Errorf("status every %s: schedule lag %+v", statusEvery, l)
		}
		l := lease(t, server, "leased-00000")
		if l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity != "leased-00000" || l.Spec.LeaseDurationSeconds == nil || *l.Spec.LeaseDurationSeconds != 40 || l.Spec.RenewTime == nil {
			t.Fatalf("lease %+v", l.Spec)
		}
		renewed = append(renewed, l.Spec.RenewTime.Time)
	}
	if !renewed[1].After(renewed[0]) {
		t.Errorf("renewTime did not move: %v", renewed)
	}
}

// TestALeaseKubeletReadsItsLeaseAgainAfterAConflict: when another client
// changes a node's lease, the next renewal is refused with 409; the node
// reads the lease afresh and renews that, keeping the other's change, as
// the kubelet's lease controller does.
func TestALeaseKubeletReadsItsLeaseAgainAfterAConflict(t *testing.T) {
	server := startHerd(t, nil)
	cfg := leaseRun(server)
	cfg.Nodes, cfg.Duration = 1, time.Minute // ended by the test
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	type result struct {
		r   loadgen.Report
		err error
	}
	done := make(chan result, 1)
	go func() {
		r, err := loadgen.Run(ctx, cfg, io.Discard)
		done <- result{r, err}
	}()

	const name = "leased-00000"
	// Two renewTimes seen: the node renews from the lease its last PUT
	// was answered, which the patch below makes stale.
	var first, last time.Time
	eventstest.Eventually(t, eventstest.WaitFor, func() bool {
		l, ok := tryLease(t, server, name)
		if !ok || l.Spec.RenewTime == nil {
			return false
		}
		if first.IsZero() {
			first = l.Spec.RenewTime.Time
		}
		last = l.Spec.RenewTime.Time
		return last.After(first)
	}, "the node's lease is never renewed")
	bumped := patchLease(t, server, name, `{"metadata":{"labels":{"bumped":"by-the-test"}}}`)
	eventstest.Eventually(t, eventstest.WaitFor, func() bool {
		l, ok := tryLease(t, server, name)
		return ok && l.Labels["bumped"] == "by-the-test" && l.ResourceVersion != bumped.ResourceVersion &&
			l.Spec.RenewTime != nil && l.Spec.RenewTime.After(last)
	}, "the lease is not renewed after another client changed it (or its change is lost)")
	cancel()
	res := <-done
	if res.err != nil && !errors.Is(res.err, context.Canceled) {
		t.Fatal(res.err)
	}
	// The 409 came in whichever phase the patch fell in: while the
	// fleet (here, its one node) was still registering (the node kept
	// alive from the moment it registered), the warm-up or the window;
	// the read after it was counted before the renewal the test saw (the
	// last renewal may not be: the test cancelled the run as soon as
	// herd had it).
	var conflicts, reads uint64
	for _, p := range []loadgen.Phase{res.r.KeptAlive, res.r.Warmup, res.r.Heartbeats} {
		conflicts += p.Kinds["lease renewal"].Errors["409"]
		reads += p.Kinds["lease read"].Acknowledged
	}
	if conflicts == 0 || reads == 0 {
		t.Errorf("%d renewals refused with 409, %d lease reads after registering: want both; kept alive %+v, warm-up %+v, window %+v",
			conflicts, reads, res.r.KeptAlive.Kinds, res.r.Warmup.Kinds, res.r.Heartbeats.Kinds)
	}
}

// TestLeaseIsValidated: --lease is the kubelet's, with a positive
// --status-every.
func TestLeaseIsValidated(t *testing.T) {
	for _, tc := range []struct {
		style       string
		statusEvery time.Duration
		want        string
	}{
		{loadgen.StyleAgent, time.Minute, "--lease: only the kubelet style"},
		{loadgen.StyleKubelet, 0, "--status-every 0s"},
	} {
		cfg := tiny("http://127.0.0.1:1", tc.style)
		cfg.Lease, cfg.StatusEvery = true, tc.statusEvery
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s, status every %s: %v, want an error naming %q", tc.style, tc.statusEvery, err, tc.want)
		}
	}
}

const nodeLeases = "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/"

// lease reads a node's lease from herd.
func lease(t *testing.T, server, name string) coordinationv1.Lease {
	t.Helper()
	l, ok := tryLease(t, server, name)
	if !ok {
		t.Fatalf("lease %s: not found", name)
	}
	return l
}

// tryLease reads a node's lease; false when herd has none.
func tryLease(t *testing.T, server, name string) (coordinationv1.Lease, bool) {
	t.Helper()
	return leaseRequest(t, http.MethodGet, server+nodeLeases+name, "")
}

// patchLease merge-patches a node's lease as another client would.
func patchLease(t *testing.T, server, name, patch string) coordinationv1.Lease {
	t.Helper()
	l, ok := leaseRequest(t, http.MethodPatch, server+nodeLeases+name, patch)
	if !ok {
		t.Fatalf("patch lease %s: not found", name)
	}
	return l
}

func leaseRequest(t *testing.T, method, url, patch string) (coordinationv1.Lease, bool) {
	t.Helper()
	var l coordinationv1.Lease
	req, err := http.NewRequestWithContext(t.Context(), method, url, strings.NewReader(patch))
	if err != nil {
		t.Fatal(err)
	}
	if patch != "" {
		req.Header.Set("Content-Type", "application/merge-patch+json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return l, false
	}
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		t.Fatalf("%s %s: %s: %s", method, url, resp.Status, body)
	}
	if err := json.NewDecoder(resp.Body).Decode(&l); err != nil {
		t.Fatal(err)
	}
	return l, true
}

// TestTheReportPrintsKindsAndScheduleLag: a lease run's report breaks the
// window down by kind and says how far behind schedule it sent, in text
// and in JSON.
func TestTheReportPrintsKindsAndScheduleLag(t *testing.T) {
	r := loadgen.Report{Style: "kubelet", Server: "http://127.0.0.1:8080", Nodes: 100000, Connections: 64, IntervalSeconds: 10,
		Lease: true, StatusEverySeconds: 300, WindowSeconds: 600,
		Heartbeats: loadgen.Phase{Requests: 6000010, Acknowledged: 6000000, Seconds: 600, PerSecond: 10000,
			Latency: &loadgen.Latency{P50: 1, P99: 8, Max: 90}, Errors: map[string]uint64{"409": 10}, FirstError: "PUT /x: Conflict",
			ScheduleLag: &loadgen.Latency{P50: 0.1, P99: 2.5, Max: 40},
			Kinds: map[string]loadgen.Phase{
				"lease renewal": {Requests: 5800010, Acknowledged: 5800000, PerSecond: 9666.7, Latency: &loadgen.Latency{P50: 1, P99: 7, Max: 80},
					Errors: map[string]uint64{"409": 10}, FirstError: "PUT /x: Conflict"},
				"status report": {Requests: 200000, Acknowledged: 200000, PerSecond: 333.3, Latency: &loadgen.Latency{P50: 2, P99: 12, Max: 90}},
			}}}
	var text strings.Builder
	if err := r.Print(&text, "text"); err != nil {
		t.Fatal(err)
	}
	want := `herd loadgen       kubelet style with node leases, status every 300s, 100000 nodes, 64 connections, heartbeats every 10s per node
server             http://127.0.0.1:8080
register           0/0 acknowledged in 0.0s, 0/s
warm-up            0/0 acknowledged in 0.0s, 0/s
heartbeats         6000000/6000010 acknowledged in 600.0s, 10000/s; latency p50 1.0ms p99 8.0ms max 90.0ms
  errors           409×10; first: PUT /x: Conflict
  behind schedule  p50 0.1ms p99 2.5ms max 40.0ms
  lease renewal    5800000/5800010 acknowledged, 9667/s; latency p50 1.0ms p99 7.0ms max 80.0ms
    errors         409×10; first: PUT /x: Conflict
  status report    200000/200000 acknowledged, 333/s; latency p50 2.0ms p99 12.0ms max 90.0ms
`
	if diff := cmp.Diff(want, text.String()); diff != "" {
		t.Errorf("text (-want +got):\n%s", diff)
	}
	var js strings.Builder
	if err := r.Print(&js, "json"); err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{`"scheduleLag": {`, `"p99Ms": 2.5`, `"lease renewal": {`, `"status report": {`, `"lease": true`, `"statusEverySeconds": 300`} {
		if !strings.Contains(js.String(), field) {
			t.Errorf("json lacks %s:\n%s", field, js.String())
		}
	}
}

// TestPacedNodesKeepAliveWhileTheOthersRegister: with an interval, a node
// renews its lease from the moment it has registered, while the rest of
// the fleet still registers; no node heartbeats before it has registered
// (herd would refuse it); unpaced runs send nothing of the kind.
func TestPacedNodesKeepAliveWhileTheOthersRegister(t *testing.T) {
	server := startHerd(t, nil)
	cfg := leaseRun(server)
	// One connection registers 20 nodes one after the other, three
	// requests each: far longer than one interval.
	cfg.Nodes, cfg.Connections, cfg.Interval, cfg.NamePrefix = 20, 1, time.Millisecond, "kept-"
	r, err := loadgen.Run(t.Context(), cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	k := r.KeptAlive
	if k.Acknowledged == 0 || k.Acknowledged != k.Requests || len(k.Errors) > 0 {
		t.Errorf("kept alive: %d of %d acknowledged, errors %v (%s)", k.Acknowledged, k.Requests, k.Errors, k.FirstError)
	}
	if r.Warmup.Requests != 0 {
		t.Errorf("a paced run sent a warm-up burst of %d requests", r.Warmup.Requests)
	}

	cfg.Interval, cfg.NamePrefix = 0, "unpaced-"
	r, err = loadgen.Run(t.Context(), cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if r.KeptAlive.Requests != 0 || r.Warmup.Requests != uint64(cfg.Nodes) {
		t.Errorf("unpaced: kept alive %d, warm-up %d requests", r.KeptAlive.Requests, r.Warmup.Requests)
	}
}

// TestANodeRegistersAgainAfterA429: a registration herd sheds with 429
// is tried again after its Retry-After, as a kubelet and herd agent do,
// so every node ends registered and the refusals show in the report.
func TestANodeRegistersAgainAfterA429(t *testing.T) {
	var mu sync.Mutex
	refused := map[string]bool{}
	front, server := behindProxy(t, func(w http.ResponseWriter, r *http.Request, herd http.Handler) {
		kubelet := r.Method == http.MethodPost && r.URL.Path == "/api/v1/nodes"
		agent := r.Method == http.MethodPut && strings.HasSuffix(r.URL.Path, "/registration")
		if kubelet || agent {
			// The first registration on each connection is refused.
			mu.Lock()
			first := !refused[r.RemoteAddr]
			refused[r.RemoteAddr] = true
			mu.Unlock()
			if first {
				w.Header().Set("Retry-After", "1")
				http.Error(w, "too many writes at once", http.StatusTooManyRequests)
				return
			}
		}
		herd.ServeHTTP(w, r)
	})

	for _, style := range []string{"lease", "plain", loadgen.StyleAgent} {
		cfg := leaseRun(front)
		switch style {
		case "plain":
			cfg.Lease, cfg.Interval, cfg.NamePrefix = false, 0, "plain-"
		case loadgen.StyleAgent:
			cfg.Style, cfg.Lease, cfg.Interval, cfg.NamePrefix = loadgen.StyleAgent, false, 0, "agent-"
		}
		r, err := loadgen.Run(t.Context(), cfg, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		reg := r.Register
		if cfg.Lease {
			reg = r.Register.Kinds["node registration"]
		}
		if reg.Acknowledged != uint64(cfg.Nodes) || reg.Errors["429"] == 0 {
			t.Errorf("%s: node registrations: %d acknowledged, refusals %v; want all %d acknowledged after a 429", style, reg.Acknowledged, reg.Errors, cfg.Nodes)
		}
		registered := nodes(t, server)
		for i := range cfg.Nodes {
			if name := fmt.Sprintf("%s%05d", cfg.NamePrefix, i); registered[name].Name == "" {
				t.Errorf("%s: node %s was not registered", style, name)
			}
		}
	}
}

// TestAShedRenewalIsSentAgainAfterItsRetryAfter: a lease renewal or
// status report herd sheds with 429 is sent again after the Retry-After,
// as client-go's REST client does under a kubelet, and both tries show in
// the report.
func TestAShedRenewalIsSentAgainAfterItsRetryAfter(t *testing.T) {
	var mu sync.Mutex
	refusedAt := map[string]time.Time{} // the first renewal or report of each node, refused
	againAfter := map[string]time.Duration{}
	front, _ := behindProxy(t, func(w http.ResponseWriter, r *http.Request, herd http.Handler) {
		heartbeat := (r.Method == http.MethodPut && strings.Contains(r.URL.Path, "/namespaces/kube-node-lease/leases/")) ||
			(r.Method == http.MethodPatch && strings.HasSuffix(r.URL.Path, "/status"))
		if heartbeat {
			key := r.Method + " " + r.URL.Path
			mu.Lock()
			at, seen := refusedAt[key]
			if !seen {
				refusedAt[key] = time.Now()
			} else if _, ok := againAfter[key]; !ok {
				againAfter[key] = time.Since(at)
			}
			mu.Unlock()
			if !seen {
				w.Header().Set("Retry-After", "1")
				http.Error(w, "too many node heartbeats at once", http.StatusTooManyRequests)
				return
			}
		}
		herd.ServeHTTP(w, r)
	})

	cfg := leaseRun(front)
	cfg.Nodes, cfg.Connections, cfg.Duration, cfg.StatusEvery = 2, 2, 1500*time.Millisecond, time.Nanosecond
	r, err := loadgen.Run(t.Context(), cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(refusedAt) != 4 {
		t.Fatalf("refused %v, want each node's first renewal and first status report", refusedAt)
	}
	for key := range refusedAt {
		if d, ok := againAfter[key]; !ok || d < time.Second {
			t.Errorf("%s refused with Retry-After 1: sent again after %v (sent again: %t), want at least 1s", key, d, ok)
		}
	}
	var shed uint64
	for _, p := range []loadgen.Phase{r.Register, r.KeptAlive, r.Warmup, r.Heartbeats} {
		shed += p.Kinds["lease renewal"].Errors["429"] + p.Kinds["status report"].Errors["429"]
	}
	if shed != 4 {
		t.Errorf("%d refusals in the report, want 4", shed)
	}
}

// TestASlowNodeDoesNotHoldBackTheOthers: paced nodes keep their own
// timers, as kubelets do. A node whose renewals herd answers slowly does
// not delay the other nodes its worker drives, and its turns that come
// due while its renewal still runs are skipped and counted.
func TestASlowNodeDoesNotHoldBackTheOthers(t *testing.T) {
	const slow = "paced-00000"
	var mu sync.Mutex
	renewals := map[string]int{}
	front, _ := behindProxy(t, func(w http.ResponseWriter, r *http.Request, herd http.Handler) {
		if r.Method == http.MethodPut && strings.Contains(r.URL.Path, "/namespaces/kube-node-lease/leases/") {
			name := r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:]
			mu.Lock()
			renewals[name]++
			mu.Unlock()
			if name == slow {
				time.Sleep(600 * time.Millisecond)
			}
		}
		herd.ServeHTTP(w, r)
	})

	// Two connections: the worker of nodes 0 and 2 and the worker of 1
	// and 3, so node 2 shares its worker with the slow node.
	cfg := leaseRun(front)
	cfg.Nodes, cfg.Connections, cfg.Interval, cfg.Duration, cfg.NamePrefix = 4, 2, 100*time.Millisecond, 2*time.Second, "paced-"
	r, err := loadgen.Run(t.Context(), cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if slowN, other := renewals[slow], renewals["paced-00002"]; other < 2*slowN || other < 12 {
		t.Errorf("renewals: the slow node %d, the node sharing its worker %d; want the other unhindered (at least 12, twice the slow one's)", slowN, other)
	}
	if r.Heartbeats.TurnsSkipped == 0 {
		t.Errorf("no turn of the slow node skipped: %+v", r.Heartbeats)
	}
}

// TestLatencyLeavesOutTheWaitForAConnection: with more paced nodes than
// connections, requests wait for a connection of the run's pool; a
// kubelet has its own, so the latency reported is from the moment the
// request had one.
func TestLatencyLeavesOutTheWaitForAConnection(t *testing.T) {
	const answerAfter = 300 * time.Millisecond
	front, _ := behindProxy(t, func(w http.ResponseWriter, r *http.Request, herd http.Handler) {
		if r.Method == http.MethodPut && strings.Contains(r.URL.Path, "/namespaces/kube-node-lease/leases/") {
			time.Sleep(answerAfter)
		}
		herd.ServeHTTP(w, r)
	})

	// Four nodes renewing every 100 ms over one connection: each renewal
	// waits for the others' on the one connection.
	cfg := leaseRun(front)
	cfg.Nodes, cfg.Connections, cfg.Interval, cfg.Duration, cfg.NamePrefix = 4, 1, 100*time.Millisecond, 2*time.Second, "pooled-"
	r, err := loadgen.Run(t.Context(), cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	l := r.Heartbeats.Kinds["lease renewal"].Latency
	if l == nil || l.P50 < float64(answerAfter.Milliseconds()) || l.Max > 2*float64(answerAfter.Milliseconds()) {
		t.Errorf("renewals' latency %+v, want from %v (herd's answer) to less than twice that (no wait for the connection)", l, answerAfter)
	}
}

// TestAPhaseEndsWithoutWaitingOutRetryAfters: a turn waiting out a long
// Retry-After stops waiting when its phase ends, so the next phase begins
// at once. Were it waited for, every other node would go without a turn
// (and a real fleet without heartbeats) between the phases.
func TestAPhaseEndsWithoutWaitingOutRetryAfters(t *testing.T) {
	var renewals atomic.Int64
	front, _ := behindProxy(t, func(w http.ResponseWriter, r *http.Request, herd http.Handler) {
		// The renewal while registering goes through; every later one
		// is refused for 30 s.
		if r.Method == http.MethodPut && strings.HasSuffix(r.URL.Path, "/leases/waits-00000") && renewals.Add(1) > 1 {
			w.Header().Set("Retry-After", "30")
			http.Error(w, "too many node heartbeats at once", http.StatusTooManyRequests)
			return
		}
		herd.ServeHTTP(w, r)
	})

	cfg := leaseRun(front)
	cfg.Nodes, cfg.Connections, cfg.Interval, cfg.Duration, cfg.NamePrefix = 2, 2, 100*time.Millisecond, time.Second, "waits-"
	ctx, cancel := context.WithTimeout(t.Context(), 25*time.Second)
	defer cancel()
	r, err := loadgen.Run(ctx, cfg, io.Discard)
	if err != nil {
		t.Fatalf("the run did not end before its 30 s Retry-After: %v", err)
	}
	if got := r.Heartbeats.Kinds["lease renewal"]; got.Errors["429"] == 0 || got.Acknowledged == 0 {
		t.Errorf("renewals in the window %+v: want the other node's acknowledged and the first's refused", got)
	}
}

// behindProxy starts a herd and a proxy in front of it, which hands each
// request to front with herd as the handler to pass it on to: front
// answers some itself (a refusal, say) or delays them. It returns the
// proxy's URL and herd's.
func behindProxy(t *testing.T, front func(w http.ResponseWriter, r *http.Request, herd http.Handler)) (proxied, server string) {
	t.Helper()
	server = startHerd(t, nil)
	target, err := url.Parse(server)
	if err != nil {
		t.Fatal(err)
	}
	herd := httputil.NewSingleHostReverseProxy(target)
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { front(w, r, herd) }))
	t.Cleanup(proxy.Close)
	return proxy.URL, server
}
