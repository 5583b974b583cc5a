package loadgen_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"herd/cmd/herd/app"
	"herd/cmd/herd/loadgen"
)

// tiny is a run small enough for a test: a handful of nodes, a fraction
// of a second.
func tiny(server, style string) loadgen.Config {
	cfg := loadgen.DefaultConfig()
	cfg.Servers, cfg.Style, cfg.Nodes, cfg.Connections, cfg.Duration = []string{server}, style, 5, 2, 300*time.Millisecond
	return cfg
}

func TestEveryStyleRegistersItsNodesAndHerdAcknowledgesEveryHeartbeat(t *testing.T) {
	server := startHerd(t, nil)
	for _, style := range loadgen.Styles {
		t.Run(style, func(t *testing.T) {
			cfg := tiny(server, style)
			cfg.ServerPIDs = []int{os.Getpid()} // herd runs in the test's process
			r, err := loadgen.Run(t.Context(), cfg, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			for name, p := range map[string]loadgen.Phase{"register": r.Register, "warm-up": r.Warmup, "heartbeats": r.Heartbeats} {
				if p.Acknowledged != p.Requests || len(p.Errors) > 0 {
					t.Errorf("%s: %d of %d acknowledged, errors %v (%s)", name, p.Acknowledged, p.Requests, p.Errors, p.FirstError)
				}
				if p.Latency == nil || p.Latency.Max < p.Latency.P99 || p.Latency.P99 < p.Latency.P50 {
					t.Errorf("%s: latency %+v", name, p.Latency)
				}
			}
			if r.Register.Requests != 5 || r.Warmup.Requests != 5 || r.Heartbeats.Requests == 0 || r.Heartbeats.PerSecond <= 0 {
				t.Errorf("register %d, warm-up %d, heartbeats %d (%.0f/s)", r.Register.Requests, r.Warmup.Requests, r.Heartbeats.Requests, r.Heartbeats.PerSecond)
			}
			if p := r.ServerProcess; p == nil || p.RSSFinalBytes <= 0 || p.CPUSeconds < 0 {
				t.Errorf("server process %+v", p)
			}
			got := nodes(t, server)
			prefix := map[string]string{loadgen.StyleKubelet: "loadgen-kubelet-", loadgen.StyleAgent: "loadgen-agent-", loadgen.StylePico: "pico-loadgen-"}[style]
			for i := range 5 {
				name := fmt.Sprintf("%s%05d", prefix, i)
				if n, ok := got[name]; !ok || ready(n) != corev1.ConditionTrue {
					t.Errorf("%s: registered %v, Ready %q", name, ok, ready(n))
				}
			}
		})
	}
}

func TestARunAgainstRegisteredNodesStillGetsOnly2xx(t *testing.T) {
	server := startHerd(t, nil)
	for range 2 {
		cfg := tiny(server, loadgen.StyleKubelet)
		cfg.Duration = 100 * time.Millisecond
		r, err := loadgen.Run(t.Context(), cfg, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		if r.Register.Acknowledged != 5 || len(r.Register.Errors) > 0 {
			t.Errorf("register: %+v", r.Register)
		}
	}
}

func TestIdleSendsNothingInTheWindow(t *testing.T) {
	server := startHerd(t, nil)
	cfg := tiny(server, loadgen.StyleAgent)
	cfg.Idle, cfg.Duration, cfg.ServerPIDs = true, 200*time.Millisecond, []int{os.Getpid()}
	r, err := loadgen.Run(t.Context(), cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if r.Heartbeats.Requests != 0 || r.Register.Acknowledged != 5 || r.WindowSeconds < 0.2 || r.ServerProcess == nil {
		t.Errorf("idle run: heartbeats %d, registered %d, window %.2fs, process %+v",
			r.Heartbeats.Requests, r.Register.Acknowledged, r.WindowSeconds, r.ServerProcess)
	}
}

// TestNodesThatFallSilentAreMarkedOnTime runs herd with a grace period of
// two seconds, checked every 100 ms: real time passes, but little of it.
func TestNodesThatFallSilentAreMarkedOnTime(t *testing.T) {
	const grace = 2 * time.Second
	server := startHerd(t, func(c *app.Config) {
		c.Health.GracePeriod, c.Health.MonitorPeriod = grace, 100*time.Millisecond
	})
	cfg := tiny(server, loadgen.StyleKubelet)
	cfg.Nodes, cfg.FallSilent, cfg.GracePeriod = 6, 2, grace
	cfg.Interval, cfg.ListInterval, cfg.FallSilentTimeout = 200*time.Millisecond, 100*time.Millisecond, 20*time.Second
	r, err := loadgen.Run(t.Context(), cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	s := r.Silence
	if s == nil {
		t.Fatal("no silence report")
	}
	// herd's times are to the second, and it checks every 100 ms: each
	// node is marked within a second of its deadline, as herd sees it.
	if s.Silent != 2 || s.Marked != 2 || s.TimedOut || s.LatenessMax > 1 || s.LatenessP50 < -1 || s.HeartbeatingNotReady != 0 {
		t.Errorf("silence %+v", *s)
	}
	got := nodes(t, server)
	for i := range 6 {
		name := fmt.Sprintf("loadgen-kubelet-%05d", i)
		want := corev1.ConditionTrue
		if i >= 4 {
			want = corev1.ConditionUnknown
		}
		if ready(got[name]) != want {
			t.Errorf("%s: Ready %q, want %q", name, ready(got[name]), want)
		}
	}
	if r.Heartbeats.Acknowledged == 0 || len(r.Heartbeats.Errors) > 0 {
		t.Errorf("the others' heartbeats: %+v", r.Heartbeats)
	}
}

// TestTheWaitForSilentNodesEnds: a herd that never marks them (its health
// reconciler off) is given up on at --fall-silent-timeout.
func TestTheWaitForSilentNodesEnds(t *testing.T) {
	server := startHerd(t, func(c *app.Config) { c.Reconcilers.Enabled = []string{"*", "-health"} })
	cfg := tiny(server, loadgen.StyleAgent)
	cfg.FallSilent, cfg.GracePeriod, cfg.FallSilentTimeout = 2, 100*time.Millisecond, time.Second
	cfg.Interval, cfg.ListInterval = 100*time.Millisecond, 100*time.Millisecond
	r, err := loadgen.Run(t.Context(), cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if s := r.Silence; s == nil || !s.TimedOut || s.Marked != 0 || s.WaitedSeconds < 1 || s.WaitedSeconds > 10 {
		t.Errorf("silence %+v", s)
	}
}

func TestTheReportPrintsAsAFixedBlockAndAsJSON(t *testing.T) {
	r := loadgen.Report{Style: "kubelet", Server: "http://127.0.0.1:8080", Nodes: 10000, Connections: 64,
		Register:      loadgen.Phase{Requests: 10000, Acknowledged: 9999, Seconds: 2, PerSecond: 4999.5, Errors: map[string]uint64{"503": 1}, FirstError: "POST /api/v1/nodes: Service Unavailable"},
		Heartbeats:    loadgen.Phase{Requests: 1200000, Acknowledged: 1200000, Seconds: 60, PerSecond: 20000, Latency: &loadgen.Latency{P50: 2.5, P99: 40, Max: 120}},
		WindowSeconds: 60, ServerProcess: &loadgen.Process{PID: 42, CPUSeconds: 60, CPUCores: 1, RSSFinalBytes: 100 << 20, RSSPeakBytes: 120 << 20, HWMBytes: 130 << 20}}
	var text strings.Builder
	if err := r.Print(&text, "text"); err != nil {
		t.Fatal(err)
	}
	want := `herd loadgen  kubelet style, 10000 nodes, 64 connections, heartbeats as fast as possible
server        http://127.0.0.1:8080
register      9999/10000 acknowledged in 2.0s, 5000/s
  errors      503×1; first: POST /api/v1/nodes: Service Unavailable
warm-up       0/0 acknowledged in 0.0s, 0/s
heartbeats    1200000/1200000 acknowledged in 60.0s, 20000/s; latency p50 2.5ms p99 40.0ms max 120.0ms
herd cpu      1.000 of a core (60.00 s of CPU in 60.0 s)
herd rss      final 100.0 MiB, peak in window 120.0 MiB, peak of the process 130.0 MiB
`
	if diff := cmp.Diff(want, text.String()); diff != "" {
		t.Errorf("text (-want +got):\n%s", diff)
	}
	var js strings.Builder
	if err := r.Print(&js, "json"); err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{`"perSecond": 20000`, `"p99Ms": 40`, `"cpuCores": 1`, `"503": 1`} {
		if !strings.Contains(js.String(), field) {
			t.Errorf("json lacks %s:\n%s", field, js.String())
		}
	}
}

// TestKubeletNodesSpeakEveryEncoding: with --encoding, kubelet-style
// nodes register in protobuf or CBOR and herd answers every request in
// it (a run counts an answer in another media type as an error).
func TestKubeletNodesSpeakEveryEncoding(t *testing.T) {
	server := startHerd(t, nil)
	for _, enc := range loadgen.Encodings {
		t.Run(enc, func(t *testing.T) {
			for _, update := range loadgen.StatusUpdates {
				cfg := tiny(server, loadgen.StyleKubelet)
				cfg.Encoding, cfg.StatusUpdate, cfg.NamePrefix = enc, update, "enc-"+enc+"-"+update+"-"
				r, err := loadgen.Run(t.Context(), cfg, io.Discard)
				if err != nil {
					t.Fatal(err)
				}
				for name, p := range map[string]loadgen.Phase{"register": r.Register, "heartbeats": r.Heartbeats} {
					if p.Acknowledged != p.Requests || len(p.Errors) > 0 || p.Requests == 0 {
						t.Errorf("%s %s: %d of %d acknowledged, errors %v (%s)", update, name, p.Acknowledged, p.Requests, p.Errors, p.FirstError)
					}
				}
				if _, ok := nodes(t, server)[cfg.NamePrefix+"00000"]; !ok {
					t.Errorf("node %s00000 was not registered", cfg.NamePrefix)
				}
			}
		})
	}
}

// TestKubeletNodesSpeakProtobufUnlessTold: without --encoding, a
// kubelet-style node registers and renews its Lease in protobuf, as a
// kubelet does, while its status patches stay JSON; the other styles
// speak JSON.
func TestKubeletNodesSpeakProtobufUnlessTold(t *testing.T) {
	target, err := url.Parse(startHerd(t, nil))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	sent := map[string]string{} // "METHOD kind" -> Content-Type
	proxy := httputil.NewSingleHostReverseProxy(target)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if ct := r.Header.Get("Content-Type"); ct != "" {
			kind := "node"
			switch {
			case strings.Contains(r.URL.Path, "/leases"):
				kind = "lease"
			case strings.HasSuffix(r.URL.Path, "/status"):
				kind = "status"
			}
			mu.Lock()
			sent[r.Method+" "+kind] = ct
			mu.Unlock()
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)

	cfg := tiny(front.URL, loadgen.StyleKubelet)
	cfg.Lease, cfg.Interval, cfg.StatusEvery = true, 50*time.Millisecond, 100*time.Millisecond
	r, err := loadgen.Run(t.Context(), cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if r.Encoding != loadgen.EncodingProtobuf {
		t.Errorf("the report says the nodes spoke %q, want protobuf", r.Encoding)
	}
	mu.Lock()
	defer mu.Unlock()
	for req, want := range map[string]string{
		"POST node":    "application/vnd.kubernetes.protobuf",
		"PUT lease":    "application/vnd.kubernetes.protobuf",
		"PATCH status": "application/strategic-merge-patch+json",
	} {
		if got := sent[req]; got != want {
			t.Errorf("%s sent as %q, want %q (all sent: %v)", req, got, want, sent)
		}
	}

	agent := tiny(front.URL, loadgen.StyleAgent)
	if err := agent.Validate(); err != nil {
		t.Errorf("the agent style with no --encoding: %v", err)
	}
}

// TestStatusUpdateIsValidated: --status-update takes patch or put, and
// only for kubelet-style nodes.
func TestStatusUpdateIsValidated(t *testing.T) {
	for _, tc := range []struct{ style, update, want string }{
		{loadgen.StyleKubelet, "post", `--status-update "post"`},
		{loadgen.StylePico, loadgen.StatusUpdatePut, "--status-update put: only the kubelet style"},
	} {
		cfg := tiny("http://127.0.0.1:1", tc.style)
		cfg.StatusUpdate = tc.update
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s with %s: %v, want an error naming %q", tc.style, tc.update, err, tc.want)
		}
	}
}

// TestEncodingIsValidated: an unknown encoding, or one a style does not
// speak, is refused by name.
func TestEncodingIsValidated(t *testing.T) {
	for _, tc := range []struct{ style, encoding, want string }{
		{loadgen.StyleKubelet, "yaml", `--encoding "yaml"`},
		{loadgen.StyleAgent, loadgen.EncodingProtobuf, "--encoding protobuf: only the kubelet style"},
	} {
		cfg := tiny("http://127.0.0.1:1", tc.style)
		cfg.Encoding = tc.encoding
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s in %s: %v, want an error naming %q", tc.style, tc.encoding, err, tc.want)
		}
	}
}
