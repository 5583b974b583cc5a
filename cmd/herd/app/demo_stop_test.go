package app

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.uber.org/fx"
	corev1 "k8s.io/api/core/v1"
)

// TestDemoRestartIsACleanStart: Ctrl-C on `herd serve --demo` and a new
// start on the same data dir show the demo's agents restarted from a clean
// start, not recovered from a crash: the demo's nodes say goodbye before
// the API closes, as herd's agents do. (The simulated Picos keep their
// boot ID across runs, so they show no restart at all.)
func TestDemoRestartIsACleanStart(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Listen, cfg.DataDir, cfg.LogLevel, cfg.PollInterval = "127.0.0.1:0", t.TempDir(), "error", 10*time.Millisecond
	cfg.Demo = 3 // demo-linux-00, demo-illumos-01, demo-rp2040-02
	names := []string{"demo-linux-00", "demo-illumos-01", "demo-rp2040-02"}

	// run starts herd with the demo, waits until every node is as want
	// says, stops it cleanly, and returns the nodes as they were.
	run := func(what string, want func(corev1.Node) bool) map[string]corev1.Node {
		var srv *HTTPServer
		a := startApp(t, fx.New(Options(cfg, DemoOption(cfg), fx.Populate(&srv)), fx.NopLogger))
		seen := map[string]corev1.Node{}
		eventually(t, what, func() bool {
			for _, name := range names {
				n, ok := getDemoNode(t, srv.URL(), name)
				if !ok || !want(n) {
					return false
				}
				seen[name] = n
			}
			return true
		})
		stopApp(t, a)
		return seen
	}
	ready := func(n corev1.Node) bool {
		c := n.Status.Conditions
		return len(c) > 0 && c[len(c)-1].Type == corev1.NodeReady && c[len(c)-1].Status == corev1.ConditionTrue
	}
	run("every demo node is Ready", ready)
	second := run("every demo agent restarted once", func(n corev1.Node) bool {
		return ready(n) && (strings.Contains(n.Name, "rp2040") || n.Annotations["herd.dev/restart-count"] == "1")
	})
	for _, name := range names {
		why := second[name].Annotations["herd.dev/last-restart-reason"]
		if want := "clean start"; !strings.Contains(name, "rp2040") && why != want {
			t.Errorf("%s: last restart %q, want %q", name, why, want)
		}
		if why == "crash recovery" {
			t.Errorf("%s: a clean stop was taken for a crash", name)
		}
	}
}

// getDemoNode reads a node through the API, false while it is not there.
func getDemoNode(t *testing.T, base, name string) (corev1.Node, bool) {
	var n corev1.Node
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, base+"/api/v1/nodes/"+name, nil)
	if err != nil {
		return n, false
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return n, false
	}
	defer resp.Body.Close()
	return n, resp.StatusCode == http.StatusOK && json.NewDecoder(resp.Body).Decode(&n) == nil
}
