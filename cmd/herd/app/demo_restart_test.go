package app

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"go.uber.org/fx"
	corev1 "k8s.io/api/core/v1"
)

// TestHerdsRestartIsNoRestartOfTheDemosNodes: Ctrl-C on `herd serve
// --demo` and a new start on the same data dir find the demo's nodes as
// they were: they stand for machines that go on running while herd is
// down, so herd's stop marks none of them NotReady or tainted, and its
// start counts no restart of theirs.
func TestHerdsRestartIsNoRestartOfTheDemosNodes(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Listen, cfg.DataDir, cfg.LogLevel, cfg.PollInterval = "127.0.0.1:0", t.TempDir(), "error", 10*time.Millisecond
	cfg.Demo = 3 // demo-linux-00, demo-illumos-01, demo-rp2040-02
	names := []string{"demo-linux-00", "demo-illumos-01", "demo-rp2040-02"}

	// run starts herd with the demo, waits until every node is as want
	// says, reads them once more after stopping the demo's nodes with
	// herd, and returns them as they were then.
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
	first := run("every demo node is Ready", ready)
	second := run("every demo node is Ready again", ready)
	for _, name := range names {
		n := second[name]
		if got := n.Annotations["herd.dev/restart-count"]; got != first[name].Annotations["herd.dev/restart-count"] {
			t.Errorf("%s: restart count %q after herd's restart, want %q: herd's restart is none of its nodes'",
				name, got, first[name].Annotations["herd.dev/restart-count"])
		}
		for _, taint := range n.Spec.Taints {
			t.Errorf("%s: tainted %s:%s after herd's restart", name, taint.Key, taint.Effect)
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
