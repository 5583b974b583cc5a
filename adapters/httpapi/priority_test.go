package httpapi

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"herd/events/eventstest"
)

// fakeArrivals records the heartbeats the API notes.
type fakeArrivals struct {
	mu      sync.Mutex
	pending map[string]int
	kept    map[string]time.Time
	refused map[string]int
}

func newFakeArrivals() *fakeArrivals {
	return &fakeArrivals{pending: map[string]int{}, kept: map[string]time.Time{}, refused: map[string]int{}}
}

func (f *fakeArrivals) Arrive(name string, at time.Time) func(bool) {
	f.mu.Lock()
	f.pending[name]++
	f.mu.Unlock()
	return func(kept bool) {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.pending[name]--
		if kept && at.After(f.kept[name]) {
			f.kept[name] = at
		} else if !kept {
			f.refused[name]++
		}
	}
}

func (f *fakeArrivals) state(name string) (pending int, kept time.Time, refused int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.pending[name], f.kept[name], f.refused[name]
}

// rawAnswer is an answer with its headers.
type rawAnswer struct {
	answer
	header http.Header
}

// sendRaw sends rq and keeps the answer's headers.
func sendRaw(t *testing.T, base string, rq req) rawAnswer {
	t.Helper()
	var body io.Reader
	if rq.body != "" {
		body = strings.NewReader(rq.body)
	}
	r, err := http.NewRequestWithContext(t.Context(), rq.method, base+rq.path, body)
	if err != nil {
		t.Fatal(err)
	}
	if rq.contentType != "" {
		r.Header.Set("Content-Type", rq.contentType)
	} else if rq.body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return rawAnswer{answer: answer{code: resp.StatusCode, body: data}, header: resp.Header}
}

// eventually waits, up to a deadline, for cond.
func eventually(t *testing.T, cond func() bool, what string) {
	t.Helper()
	eventstest.Eventually(t, eventstest.WaitFor, cond, "%s", what)
}

// expectShed checks that a is a 429 with Retry-After and a Status naming
// why.
func expectShed(t *testing.T, what string, a rawAnswer, why string) {
	t.Helper()
	expectShedFor(t, what, a, why, "1")
}

// expectShedFor is expectShed with the Retry-After expected.
func expectShedFor(t *testing.T, what string, a rawAnswer, why, retryAfter string) {
	t.Helper()
	if a.code != http.StatusTooManyRequests {
		t.Fatalf("%s: %d %s, want 429", what, a.code, a.body)
	}
	if got := a.header.Get("Retry-After"); got != retryAfter {
		t.Errorf("%s: Retry-After %q, want %s", what, got, retryAfter)
	}
	reason, msg := a.status(t)
	if reason != "TooManyRequests" || !strings.Contains(msg, why) {
		t.Errorf("%s: Status %s %q, want TooManyRequests saying %q", what, reason, msg, why)
	}
}

// TestBehindHerdShedsWhatCanWaitAndAdmitsHeartbeats: while herd's writes
// are behind, a write and a list are refused with 429 and Retry-After
// (and counted by level), /readyz fails naming the write queue, and a
// node's status report and its lease's renewal are admitted, noted as
// heard before their writes land, and answered once the writes commit.
func TestBehindHerdShedsWhatCanWaitAndAdmitsHeartbeats(t *testing.T) {
	api := newTestAPI(t, nil)
	queue := api.writer.WriteQueue()
	queue.SetClock(api.clock) // the held writes wait as long as herd's clock is stepped
	queue.SetBehind(5*time.Second, nil)
	arrivals := newFakeArrivals()
	api.WritePath, api.Heartbeats = queue, arrivals
	base := api.serve(t).URL
	mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: "/api/v1/nodes", body: nodeJSON("pico-01")})
	mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: leasesPath, body: nodeLeaseJSON("pico-01", "2026-03-01T09:00:00.000000Z")})

	release := queue.Hold()
	defer release()
	reported := make(chan answer, 1)
	go func() {
		reported <- send(t, nil, base, req{method: "PATCH", path: "/api/v1/nodes/pico-01/status", contentType: "application/merge-patch+json", body: readyPatch})
	}()
	eventually(t, func() bool { return queue.Waiting() == 1 }, "the status report to wait for its write")
	if pending, _, _ := arrivals.state("pico-01"); pending != 1 {
		t.Fatalf("the waiting status report is not noted as heard: %d pending", pending)
	}
	api.clock.Step(6 * time.Second)

	expectShed(t, "a ConfigMap created while behind", sendRaw(t, base, req{method: "POST", path: "/api/v1/namespaces/default/configmaps",
		body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"settings"}}`}), "herd is behind: its oldest write has waited 6s")
	expectShed(t, "a list of nodes while behind", sendRaw(t, base, req{method: "GET", path: "/api/v1/nodes"}), "herd is behind")
	if got := testutil.ToFloat64(api.shares.shed.WithLabelValues("writes", "behind")); got != 1 {
		t.Errorf("writes shed for herd being behind: %v, want 1", got)
	}
	if got := testutil.ToFloat64(api.shares.shed.WithLabelValues("reads", "behind")); got != 1 {
		t.Errorf("reads shed for herd being behind: %v, want 1", got)
	}
	ready := sendRaw(t, base, req{method: "GET", path: "/readyz"})
	if ready.code != http.StatusServiceUnavailable || !strings.Contains(string(ready.body), "[-]write-queue failed: herd's writes are behind: the oldest has waited 6s") {
		t.Errorf("/readyz while behind: %d %s", ready.code, ready.body)
	}
	if a := sendRaw(t, base, req{method: "GET", path: "/healthz"}); a.code != http.StatusOK {
		t.Errorf("/healthz while behind: %d %s", a.code, a.body)
	}

	// The lease's renewal is admitted too, and waits with the report.
	renewed := make(chan answer, 1)
	go func() {
		renewed <- send(t, nil, base, req{method: "PUT", path: leasesPath + "/pico-01", body: nodeLeaseJSON("pico-01", "2026-03-01T09:00:06.000000Z")})
	}()
	eventually(t, func() bool { return queue.Waiting() == 2 }, "the lease renewal to wait for its write")
	if pending, _, _ := arrivals.state("pico-01"); pending != 2 {
		t.Fatalf("the waiting renewal is not noted as heard: %d pending", pending)
	}

	release()
	if a := <-reported; a.code != http.StatusOK {
		t.Fatalf("the status report: %d %s", a.code, a.body)
	}
	if a := <-renewed; a.code != http.StatusOK {
		t.Fatalf("the lease renewal: %d %s", a.code, a.body)
	}
	if pending, kept, refused := arrivals.state("pico-01"); pending != 0 || !kept.Equal(t0.Add(6*time.Second)) || refused != 0 {
		t.Errorf("once answered: %d pending, heard at %v, %d refused; want 0, %v, 0", pending, kept, refused, t0.Add(6*time.Second))
	}
	mustSend(t, nil, base, http.StatusOK, req{method: "GET", path: "/readyz"})
	mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: "/api/v1/namespaces/default/configmaps",
		body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"settings"}}`})

	// A heartbeat refused as the client's mistake is not heard.
	mustSend(t, nil, base, http.StatusBadRequest, req{method: "PATCH", path: "/api/v1/nodes/pico-01/status", contentType: "application/merge-patch+json", body: `{"spec":{}}`})
	if _, _, refused := arrivals.state("pico-01"); refused != 1 {
		t.Errorf("a refused status report counted: %d refused, want 1", refused)
	}
}

// TestAFullShareOfWritesShedsWritesNotHeartbeats: with one write at a
// time allowed (--max-mutating-requests-inflight 1) and one running, the
// next write is refused with 429 and Retry-After, and a heartbeat is
// admitted.
func TestAFullShareOfWritesShedsWritesNotHeartbeats(t *testing.T) {
	api := newTestAPI(t, nil)
	shares, err := newShares(Config{MaxMutatingRequestsInflight: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	api.shares = shares
	queue := api.writer.WriteQueue()
	base := api.serve(t).URL
	mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: "/api/v1/nodes", body: nodeJSON("pico-01")})

	release := queue.Hold()
	defer release()
	created := make(chan answer, 1)
	go func() {
		created <- send(t, nil, base, req{method: "POST", path: "/api/v1/namespaces/default/configmaps",
			body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"first"}}`})
	}()
	eventually(t, func() bool { return queue.Waiting() == 1 }, "the first write to wait for its commit")
	expectShed(t, "a second write", sendRaw(t, base, req{method: "POST", path: "/api/v1/namespaces/default/configmaps",
		body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"second"}}`}), "too many writes at once: herd runs 1 at a time (--max-mutating-requests-inflight)")
	reported := make(chan answer, 1)
	go func() {
		reported <- send(t, nil, base, req{method: "PATCH", path: "/api/v1/nodes/pico-01/status", contentType: "application/merge-patch+json", body: readyPatch})
	}()
	eventually(t, func() bool { return queue.Waiting() == 2 }, "the heartbeat to be admitted")
	mustSend(t, nil, base, http.StatusOK, req{method: "GET", path: "/api/v1/nodes/pico-01"})
	release()
	if a := <-created; a.code != http.StatusCreated {
		t.Fatalf("the first write: %d %s", a.code, a.body)
	}
	if a := <-reported; a.code != http.StatusOK {
		t.Fatalf("the heartbeat: %d %s", a.code, a.body)
	}
	if got := testutil.ToFloat64(api.shares.shed.WithLabelValues("writes", "inflight")); got != 1 {
		t.Errorf("writes shed for a full share: %v, want 1", got)
	}
}

// TestAFullShareOfHeartbeatsShedsTheNextAndStillHearsIt: with one
// heartbeat at a time taken in (--max-heartbeats-inflight 1) and one
// waiting for its write, another node's lease renewal is refused with 429
// and a Retry-After of a quarter of the grace period, counted by level,
// and still noted as heard for that node; a write of another level is not
// held back by the heartbeats' share.
func TestAFullShareOfHeartbeatsShedsTheNextAndStillHearsIt(t *testing.T) {
	api := newTestAPI(t, nil)
	shares, err := newShares(Config{MaxHeartbeatsInflight: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	api.shares = shares
	arrivals := newFakeArrivals()
	api.Heartbeats = arrivals
	queue := api.writer.WriteQueue()
	base := api.serve(t).URL
	for _, n := range []string{"pico-01", "pico-02"} {
		mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: "/api/v1/nodes", body: nodeJSON(n)})
		mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: leasesPath, body: nodeLeaseJSON(n, "2026-03-01T09:00:00.000000Z")})
	}

	release := queue.Hold()
	defer release()
	reported := make(chan answer, 1)
	go func() {
		reported <- send(t, nil, base, req{method: "PATCH", path: "/api/v1/nodes/pico-01/status", contentType: "application/merge-patch+json", body: readyPatch})
	}()
	eventually(t, func() bool { return queue.Waiting() == 1 }, "the first heartbeat to wait for its commit")
	api.clock.Step(3 * time.Second)
	// Retried after a quarter of the default grace period (40 s): the
	// renewal already counted, so its retry can wait for the next one.
	expectShedFor(t, "a second node's renewal", sendRaw(t, base, req{method: "PUT", path: leasesPath + "/pico-02",
		body: nodeLeaseJSON("pico-02", "2026-03-01T09:00:03.000000Z")}),
		"too many node heartbeats at once: herd takes 1 at a time (--max-heartbeats-inflight)", "10")
	if pending, kept, refused := arrivals.state("pico-02"); pending != 0 || !kept.Equal(t0.Add(3*time.Second)) || refused != 0 {
		t.Errorf("the shed renewal: %d pending, heard at %v, %d refused; want 0, %v, 0", pending, kept, refused, t0.Add(3*time.Second))
	}
	if got := testutil.ToFloat64(api.shares.shed.WithLabelValues("node-heartbeats", "inflight")); got != 1 {
		t.Errorf("heartbeats shed for a full share: %v, want 1", got)
	}
	created := make(chan answer, 1)
	go func() {
		created <- send(t, nil, base, req{method: "POST", path: "/api/v1/namespaces/default/configmaps",
			body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"settings"}}`})
	}()
	eventually(t, func() bool { return queue.Waiting() == 2 }, "a write of another level to be admitted")
	release()
	if a := <-reported; a.code != http.StatusOK {
		t.Fatalf("the first heartbeat: %d %s", a.code, a.body)
	}
	if a := <-created; a.code != http.StatusCreated {
		t.Fatalf("the ConfigMap: %d %s", a.code, a.body)
	}
	mustSend(t, nil, base, http.StatusOK, req{method: "PUT", path: leasesPath + "/pico-02", body: nodeLeaseJSON("pico-02", "2026-03-01T09:00:04.000000Z")})
}

// TestAShedHeartbeatIsRetriedAfterAQuarterOfTheGracePeriod: the
// Retry-After of a heartbeat refused for its share is a kubelet's renewal
// interval under herd's grace period, from 1 to 10 seconds.
func TestAShedHeartbeatIsRetriedAfterAQuarterOfTheGracePeriod(t *testing.T) {
	for _, tc := range []struct {
		grace time.Duration
		want  int
	}{{0, 10}, {40 * time.Second, 10}, {2 * time.Minute, 10}, {20 * time.Second, 5}, {2 * time.Second, 1}} {
		s := &Server{cfg: Config{NodeMonitorGracePeriod: tc.grace}}
		if got := s.heartbeatRetryAfter(); got != tc.want {
			t.Errorf("grace period %s: Retry-After %d, want %d", tc.grace, got, tc.want)
		}
	}
}

// TestHeartbeatsAreTheirOwnLevel: a kubelet's status report and Lease
// renewal and herd's agent's heartbeat are node heartbeats, on whatever
// API group they come; a node's other writes and a lease elsewhere are
// not.
func TestHeartbeatsAreTheirOwnLevel(t *testing.T) {
	for _, tc := range []struct {
		method, pattern, path string
		want                  priorityLevel
	}{
		{"PATCH", "/api/v1/nodes/{name}/status", "/api/v1/nodes/n1/status", levelHeartbeats},
		{"PUT", "/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases/{name}", "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1", levelHeartbeats},
		{"POST", "/apis/herd.dev/v1/nodes/{name}/heartbeat", "/apis/herd.dev/v1/nodes/n1/heartbeat", levelHeartbeats},
		{"PATCH", "/api/v1/nodes/{name}", "/api/v1/nodes/n1", levelWrites},
		{"POST", "/apis/herd.dev/v1/nodes/{name}/drain", "/apis/herd.dev/v1/nodes/n1/drain", levelWrites},
		{"PUT", "/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases/{name}", "/apis/coordination.k8s.io/v1/namespaces/default/leases/n1", levelWrites},
		{"GET", "/api/v1/nodes", "/api/v1/nodes", levelReads},
	} {
		r := httptest.NewRequestWithContext(t.Context(), tc.method, tc.path, nil)
		r.Pattern = tc.method + " " + tc.pattern
		r.SetPathValue("name", "n1")
		if strings.Contains(tc.pattern, "{namespace}") {
			r.SetPathValue("namespace", strings.Split(tc.path, "/")[5])
		}
		if got := priorityOf(r, routeInfo(r)); got != tc.want {
			t.Errorf("%s %s: level %v, want %v", tc.method, tc.path, got, tc.want)
		}
	}
}
