package loadgen_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"herd/cmd/herd/loadgen"
)

// TestEachNodeTalksToOneServerOnly loads two herds that share nothing:
// were a node's renewal or report ever sent to the other one, that herd
// would not know the node and refuse it. Three connections for two
// servers also deal the connections out unevenly.
func TestEachNodeTalksToOneServerOnly(t *testing.T) {
	servers := []string{startHerd(t, nil), startHerd(t, nil)}
	for _, tc := range []struct {
		name, style string
		lease       bool
	}{
		{"kubelet", loadgen.StyleKubelet, false},
		{"kubelet with leases", loadgen.StyleKubelet, true},
		{"agent", loadgen.StyleAgent, false},
		{"pico", loadgen.StylePico, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tiny(servers[0], tc.style)
			cfg.Servers, cfg.Nodes, cfg.Connections = servers, 7, 3
			cfg.NamePrefix = strings.ReplaceAll(tc.name, " ", "-") + "-"
			if tc.lease {
				cfg.Lease, cfg.Interval = true, 50*time.Millisecond
			}
			r, err := loadgen.Run(t.Context(), cfg, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(servers, r.Servers); diff != "" || r.Server != servers[0] {
				t.Errorf("report's server %q, servers (-want +got):\n%s", r.Server, diff)
			}
			for name, p := range map[string]loadgen.Phase{"register": r.Register, "heartbeats": r.Heartbeats} {
				if p.Requests == 0 || p.Acknowledged != p.Requests || len(p.Errors) > 0 {
					t.Errorf("%s: %d of %d acknowledged, errors %v (%s)", name, p.Acknowledged, p.Requests, p.Errors, p.FirstError)
				}
				if len(p.Servers) != 2 || p.Servers[0].Acknowledged == 0 || p.Servers[1].Acknowledged == 0 ||
					p.Servers[0].Requests+p.Servers[1].Requests != p.Requests {
					t.Errorf("%s by server: %+v, want both, adding up to %d requests", name, p.Servers, p.Requests)
				}
			}
			for s, server := range servers {
				got := nodes(t, server)
				for i := range cfg.Nodes {
					name := fmt.Sprintf("%s%05d", cfg.NamePrefix, i)
					if _, ok := got[name]; ok != (i%2 == s) {
						t.Errorf("server %d has %s: %v", s, name, ok)
					}
				}
			}
		})
	}
}

// TestConnectionsStayWithTheirServer: --connections 3 over two servers
// is two connections to the first and one to the second, never more,
// and a server hears of its own nodes only.
func TestConnectionsStayWithTheirServer(t *testing.T) {
	stubs := []*nodeStub{newNodeStub(t), newNodeStub(t)}
	cfg := tiny(stubs[0].srv.URL, loadgen.StyleKubelet)
	cfg.Servers, cfg.Nodes, cfg.Connections, cfg.Duration = []string{stubs[0].srv.URL, stubs[1].srv.URL}, 7, 3, 200*time.Millisecond
	cfg.Encoding = loadgen.EncodingJSON // what the stubs answer in
	r, err := loadgen.Run(t.Context(), cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if r.Heartbeats.Acknowledged == 0 || r.Heartbeats.Acknowledged != r.Heartbeats.Requests {
		t.Errorf("heartbeats %+v", r.Heartbeats)
	}
	for s, stub := range stubs {
		stub.mu.Lock()
		conns, names := stub.conns, stub.names
		stub.mu.Unlock()
		if want := 2 - s; conns == 0 || conns > want {
			t.Errorf("server %d: %d connections, want 1 to %d", s, conns, want)
		}
		for name := range names {
			var i int
			if _, err := fmt.Sscanf(strings.TrimPrefix(name, "loadgen-kubelet-"), "%d", &i); err != nil || i%2 != s {
				t.Errorf("server %d heard of %s", s, name)
			}
		}
		if len(names) != 4-s {
			t.Errorf("server %d heard of %d nodes, want %d: %v", s, len(names), 4-s, names)
		}
	}
}

// nodeStub answers every request as herd answers a good one, and counts
// the connections made to it and the nodes named in requests.
type nodeStub struct {
	srv   *httptest.Server
	mu    sync.Mutex
	conns int
	names map[string]bool
}

func newNodeStub(t *testing.T) *nodeStub {
	t.Helper()
	s := &nodeStub{names: map[string]bool{}}
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := ""
		if rest, ok := strings.CutPrefix(r.URL.Path, "/api/v1/nodes/"); ok {
			name, _, _ = strings.Cut(rest, "/")
		} else {
			var n struct {
				Metadata struct {
					Name string `json:"name"`
				} `json:"metadata"`
			}
			_ = json.NewDecoder(r.Body).Decode(&n)
			name = n.Metadata.Name
		}
		_, _ = io.Copy(io.Discard, r.Body)
		s.mu.Lock()
		s.names[name] = true
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"kind":"Node","apiVersion":"v1","metadata":{"name":"`+name+`","resourceVersion":"1"}}`)
	}))
	s.srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.mu.Lock()
			s.conns++
			s.mu.Unlock()
		}
	}
	s.srv.Start()
	t.Cleanup(s.srv.Close)
	return s
}

// TestSeveralServerPIDsAreEachReportedAndSummed measures the test's own
// process, where herd runs, and a sleeping child as a second replica.
func TestSeveralServerPIDsAreEachReportedAndSummed(t *testing.T) {
	server := startHerd(t, nil)
	sleeper := exec.CommandContext(t.Context(), "sleep", "60")
	if err := sleeper.Start(); err != nil {
		t.Skipf("no second process to measure: %v", err)
	}
	t.Cleanup(func() {
		_ = sleeper.Process.Kill()
		_ = sleeper.Wait()
	})
	pids := []int{os.Getpid(), sleeper.Process.Pid}

	cfg := tiny(server, loadgen.StyleKubelet)
	cfg.ServerPIDs = pids
	r, err := loadgen.Run(t.Context(), cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.ServerProcesses) != 2 {
		t.Fatalf("server processes %+v, want one for each of %v", r.ServerProcesses, pids)
	}
	var sum loadgen.Process
	for k, p := range r.ServerProcesses {
		if p.PID != pids[k] || p.RSSFinalBytes <= 0 || p.RSSPeakBytes < p.RSSFinalBytes || p.CPUSeconds < 0 {
			t.Errorf("process %d: %+v", pids[k], p)
		}
		sum.CPUSeconds += p.CPUSeconds
		sum.CPUCores += p.CPUCores
		sum.RSSFinalBytes += p.RSSFinalBytes
		sum.HWMBytes += p.HWMBytes
	}
	total := r.ServerProcess
	if total == nil || total.PID != 0 || total.CPUSeconds != sum.CPUSeconds || total.CPUCores != sum.CPUCores ||
		total.RSSFinalBytes != sum.RSSFinalBytes || total.HWMBytes != sum.HWMBytes || total.RSSPeakBytes < total.RSSFinalBytes {
		t.Errorf("together %+v, want the sum of %+v", total, r.ServerProcesses)
	}

	cfg.ServerPIDs = pids[1:]
	if r, err = loadgen.Run(t.Context(), cfg, io.Discard); err != nil {
		t.Fatal(err)
	}
	if p := r.ServerProcess; p == nil || p.PID != pids[1] || r.ServerProcesses != nil {
		t.Errorf("one pid: process %+v, processes %+v", p, r.ServerProcesses)
	}

	cfg.ServerPIDs = []int{0} // --server-pid 0 has always measured nothing
	if r, err = loadgen.Run(t.Context(), cfg, io.Discard); err != nil {
		t.Fatal(err)
	}
	if r.ServerProcess != nil || r.ServerProcesses != nil {
		t.Errorf("--server-pid 0: process %+v, processes %+v", r.ServerProcess, r.ServerProcesses)
	}
}

// TestSeveralServersAreValidated: every URL is checked, each replica and
// process is given once, and every server has a connection.
func TestSeveralServersAreValidated(t *testing.T) {
	tests := []struct {
		name    string
		servers []string
		conns   int
		pids    []int
		want    string
	}{
		{"none", nil, 2, nil, "--server: want at least one URL"},
		{"the second is no URL", []string{"http://127.0.0.1:1", "127.0.0.1:2"}, 2, nil, `--server "127.0.0.1:2"`},
		{"twice", []string{"http://127.0.0.1:1", "http://127.0.0.1:1"}, 2, nil, "--server http://127.0.0.1:1: given twice"},
		{"fewer connections than servers", []string{"http://127.0.0.1:1", "http://127.0.0.1:2", "http://127.0.0.1:3"}, 2, nil, "--connections 2: want at least one for each of the 3 servers"},
		{"a negative pid", []string{"http://127.0.0.1:1"}, 2, []int{10, -1}, "--server-pid -1"},
		{"a pid twice", []string{"http://127.0.0.1:1"}, 2, []int{10, 11, 10}, "--server-pid 10: given twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tiny("", loadgen.StyleKubelet)
			cfg.Servers, cfg.Connections, cfg.ServerPIDs = tt.servers, tt.conns, tt.pids
			if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Validate() = %v, want an error naming %q", err, tt.want)
			}
		})
	}
}

func TestTheReportListsEveryServerAndProcess(t *testing.T) {
	r := loadgen.Report{Style: "kubelet", Server: "http://127.0.0.1:8080", Servers: []string{"http://127.0.0.1:8080", "http://127.0.0.1:8081"},
		Nodes: 10000, Connections: 64, WindowSeconds: 60,
		Register: loadgen.Phase{Requests: 10000, Acknowledged: 10000, Seconds: 2, PerSecond: 5000},
		Heartbeats: loadgen.Phase{Requests: 1200000, Acknowledged: 1200000, Seconds: 60, PerSecond: 20000, Latency: &loadgen.Latency{P50: 2.5, P99: 40, Max: 120},
			Servers: []loadgen.Phase{
				{Requests: 700000, Acknowledged: 700000, PerSecond: 11666.7, Latency: &loadgen.Latency{P50: 2, P99: 30, Max: 100}},
				{Requests: 500001, Acknowledged: 500000, PerSecond: 8333.3, Latency: &loadgen.Latency{P50: 3, P99: 50, Max: 120},
					Errors: map[string]uint64{"503": 1}, FirstError: "PATCH /x: Service Unavailable"},
			}},
		ServerProcess: &loadgen.Process{CPUSeconds: 90, CPUCores: 1.5, RSSFinalBytes: 200 << 20, RSSPeakBytes: 230 << 20, HWMBytes: 250 << 20},
		ServerProcesses: []loadgen.Process{
			{PID: 42, CPUSeconds: 60, CPUCores: 1, RSSFinalBytes: 100 << 20, RSSPeakBytes: 120 << 20, HWMBytes: 130 << 20},
			{PID: 43, CPUSeconds: 30, CPUCores: 0.5, RSSFinalBytes: 100 << 20, RSSPeakBytes: 110 << 20, HWMBytes: 120 << 20},
		}}
	var text strings.Builder
	if err := r.Print(&text, "text"); err != nil {
		t.Fatal(err)
	}
	want := `herd loadgen  kubelet style, 10000 nodes, 64 connections, heartbeats as fast as possible
servers       2, node i talking to server i mod 2
  server 0    http://127.0.0.1:8080
  server 1    http://127.0.0.1:8081
register      10000/10000 acknowledged in 2.0s, 5000/s
warm-up       0/0 acknowledged in 0.0s, 0/s
heartbeats    1200000/1200000 acknowledged in 60.0s, 20000/s; latency p50 2.5ms p99 40.0ms max 120.0ms
  server 0    700000/700000 acknowledged, 11667/s; latency p50 2.0ms p99 30.0ms max 100.0ms
  server 1    500000/500001 acknowledged, 8333/s; latency p50 3.0ms p99 50.0ms max 120.0ms
    errors    503×1; first: PATCH /x: Service Unavailable
herd cpu      1.500 of a core (90.00 s of CPU in 60.0 s), 2 processes together
herd rss      final 200.0 MiB, peak in window 230.0 MiB, peaks of the processes 250.0 MiB, together
  pid 42      cpu 1.000 of a core (60.00 s); rss final 100.0 MiB, peak in window 120.0 MiB, peak of the process 130.0 MiB
  pid 43      cpu 0.500 of a core (30.00 s); rss final 100.0 MiB, peak in window 110.0 MiB, peak of the process 120.0 MiB
`
	if diff := cmp.Diff(want, text.String()); diff != "" {
		t.Errorf("text (-want +got):\n%s", diff)
	}
	var js strings.Builder
	if err := r.Print(&js, "json"); err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{`"servers": [`, `"http://127.0.0.1:8081"`, `"serverProcesses": [`, `"pid": 43`, `"cpuCores": 1.5`, `"perSecond": 8333.3`} {
		if !strings.Contains(js.String(), field) {
			t.Errorf("json lacks %s:\n%s", field, js.String())
		}
	}
}
