package main

import (
	"context"
	"fmt"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestKubectlShowsASilentNode: a node that stops heartbeating shows as
// NotReady in kubectl get nodes, and kubectl describe node shows its
// Unknown conditions and the unreachable taints. herd runs with short
// health timings so that real time can pass quickly; the rules are the
// same as with Kubernetes' defaults.
func TestKubectlShowsASilentNode(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Skip("kubectl is not on PATH")
	}
	srv := startServe(t, serveOptions{Args: []string{
		"--node-monitor-period", "100ms", "--node-monitor-grace-period", "1s", "--node-startup-grace-period", "1s",
	}})
	registerAgent(t, srv.URL, "web-01")
	registerAgent(t, srv.URL, "web-02")
	web02Registered := time.Now()
	heartbeat(t, srv.URL, "web-01", healthyMetrics())

	// web-02 keeps reporting, so that one silent node out of two is an
	// ordinary outage and not a fleet-wide one.
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	defer func() { stop(); <-done }()
	go func() {
		defer close(done)
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			if code, _ := call(t, http.MethodPost, agentPath(srv.URL, "web-02")+"/heartbeat", heartbeatBody(healthyMetrics()), nil); code != http.StatusOK && ctx.Err() == nil {
				t.Errorf("web-02 heartbeat: %d", code)
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()

	kc := newKubectl(t, srv.URL)
	eventually(t, 20*time.Second, func() error {
		_, rows := table(t, kc.must(t, "get", "nodes"))
		if got := columnByName(rows, 1); got["web-01"] != "NotReady" || got["web-02"] != "Ready" {
			return fmt.Errorf("STATUS by node %v, want web-01 NotReady and web-02 Ready", got)
		}
		return nil
	})
	// The agent went silent without a word: Lost, in kubectl's wide table
	// and in herd's own list.
	eventually(t, 20*time.Second, func() error {
		header, rows := table(t, kc.must(t, "get", "nodes", "-o", "wide"))
		state := columnByName(rows, slices.Index(header, "STATE"))
		if state["web-01"] != "Lost" || state["web-02"] != "Ready" {
			return fmt.Errorf("kubectl STATE by node %v, want web-01 Lost and web-02 Ready", state)
		}
		header, rows = table(t, mustHerd(t, "node", "list", "--server", srv.URL).Stdout)
		if state := columnByName(rows, slices.Index(header, "STATE")); state["web-01"] != "Lost" {
			return fmt.Errorf("herd node list STATE by node %v, want web-01 Lost", state)
		}
		return nil
	})
	eventually(t, 20*time.Second, func() error {
		out := kc.must(t, "describe", "node", "web-01")
		for _, want := range []string{
			"node.kubernetes.io/unreachable:NoExecute",
			"node.kubernetes.io/unreachable:NoSchedule",
			"Ready            Unknown",
			"MemoryPressure   Unknown",
			"NodeStatusUnknown",
			"Kubelet stopped posting node status.",
			"HeartbeatMissed",
		} {
			if !strings.Contains(out, want) {
				return fmt.Errorf("kubectl describe node web-01 lacks %q:\n%s", want, out)
			}
		}
		return nil
	})

	// herd replay --what-if, beside the running herd: with the grace
	// period herd runs with, what happened; with an hour's, web-01 would
	// not have gone NotReady.
	replay := func(grace string) string {
		return mustHerd(t, "replay", "--what-if", "--since", "2m", "--data-dir", srv.DataDir,
			"--node-monitor-period", "100ms", "--node-monitor-grace-period", grace, "--node-startup-grace-period", "1s").Stdout
	}
	if out := replay("1s"); !strings.Contains(out, "0 nodes and 0 pods would have fared differently; 1 nodes") {
		t.Errorf("herd replay --what-if with the grace period herd runs with:\n%s", out)
	}
	if out := replay("1h"); !strings.Contains(out, "node web-01: went NotReady at ") || !strings.Contains(out, "would not have") {
		t.Errorf("herd replay --what-if with an hour's grace period:\n%s", out)
	}
	// herd what-if, the same under its own name, with web-02 failing half
	// a second after it registered (a node that fails before it exists
	// never joins): it would have gone NotReady too, a grace period and a
	// check later. The window ends at the log's newest event, which
	// web-02's heartbeats keep moving on: asked again until it reaches
	// that far.
	fails := "web-02@" + web02Registered.Add(500*time.Millisecond).UTC().Format(time.RFC3339Nano)
	eventually(t, 20*time.Second, func() error {
		out := mustHerd(t, "what-if", "--since", "2m", "--data-dir", srv.DataDir, "--node-fails", fails,
			"--node-monitor-period", "100ms", "--node-monitor-grace-period", "1s", "--node-startup-grace-period", "1s").Stdout
		if !strings.Contains(out, "node web-02: did not go NotReady; would have at ") || !strings.Contains(out, "in the what-if node web-02 fails at ") {
			return fmt.Errorf("herd what-if with web-02 failing:\n%s", out)
		}
		return nil
	})
	if res := herd(t, nil, "replay", "--what-if", "--data-dir", srv.DataDir); res.Code == 0 || !strings.Contains(res.Stderr, "--what-if needs --since") {
		t.Errorf("herd replay --what-if without --since: exit %d, %s", res.Code, res.Stderr)
	}
}
