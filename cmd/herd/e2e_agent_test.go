package main

import (
	"fmt"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// startAgent starts `herd agent --runtime mock` for node name against
// herd at url and waits until herd knows the node Ready and run by its
// own agent.
func startAgent(t *testing.T, url, name string) *herdProc {
	t.Helper()
	return startAgentWithMetrics(t, url, name, freeAddr(t))
}

// startAgentWithMetrics is startAgent with the agent's /metrics and
// /healthz on metrics.
func startAgentWithMetrics(t *testing.T, url, name, metrics string) *herdProc {
	t.Helper()
	p := spawn(t, url, "", nil, "agent", "--server", url, "--node-name", name, "--runtime", "mock",
		"--poll-interval", "100ms", "--heartbeat-interval", "1s", "--log-level", "warn", "--metrics-listen", metrics)
	eventually(t, readyTimeout, func() error {
		if p.exited() {
			t.Fatalf("herd agent %s exited: %v\n%s", name, p.waitErr, p.output.String())
		}
		var n corev1.Node
		code, body := call(t, http.MethodGet, url+"/api/v1/nodes/"+name, nil, &n)
		if code != http.StatusOK {
			return fmt.Errorf("node %s: %d %s", name, code, body)
		}
		if n.Labels["herd.dev/runtime"] != "agent" || !nodeReady(n) {
			return fmt.Errorf("node %s: labels %v, conditions %v", name, n.Labels, n.Status.Conditions)
		}
		return nil
	})
	return p
}

func nodeReady(n corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// createPods creates pods named prefix-0.. through the API.
func createPods(t *testing.T, url, prefix string, n int) {
	t.Helper()
	for i := range n {
		mustCall(t, http.StatusCreated, http.MethodPost, url+"/api/v1/namespaces/default/pods", map[string]any{
			"metadata": map[string]any{"name": fmt.Sprintf("%s-%d", prefix, i)},
			"spec": map[string]any{"containers": []map[string]any{{"name": "app", "image": "busybox",
				"resources": map[string]any{"requests": map[string]string{"cpu": "100m", "memory": "64Mi"}}}}},
		}, nil)
	}
}

// runningPods waits until every pod whose name starts with prefix runs
// with an address, and returns them by name.
func runningPods(t *testing.T, url, prefix string, want int) map[string]corev1.Pod {
	t.Helper()
	out := map[string]corev1.Pod{}
	eventually(t, 30*time.Second, func() error {
		var list corev1.PodList
		mustCall(t, http.StatusOK, http.MethodGet, url+"/api/v1/pods", nil, &list)
		clear(out)
		for _, p := range list.Items {
			if !strings.HasPrefix(p.Name, prefix+"-") {
				continue
			}
			if p.Status.Phase != corev1.PodRunning || p.Status.PodIP == "" {
				return fmt.Errorf("pod %s on %q is %s with IP %q (%s)", p.Name, p.Spec.NodeName, p.Status.Phase, p.Status.PodIP, p.Status.Message)
			}
			out[p.Name] = p
		}
		if len(out) != want {
			return fmt.Errorf("%d pods %s-* run, want %d", len(out), prefix, want)
		}
		return nil
	})
	return out
}

// TestTwoAgentsRunPodsAndADrainGivesTheirAddressesBack is the agents'
// whole story across processes: herd serve and two `herd agent --runtime
// mock` on loopback; pods land on both nodes, run and get addresses of
// their own; draining one node evicts its pods, its agent stops them, and
// their addresses serve new pods.
func TestTwoAgentsRunPodsAndADrainGivesTheirAddressesBack(t *testing.T) {
	t.Parallel()
	// A /29 hands out 5 addresses: what the new pods get at the end can
	// only come from the drained ones. The pressure thresholds are off so
	// that this machine's own load cannot taint the nodes.
	srv := startServe(t, serveOptions{Args: []string{"--pod-cidr", "10.77.0.0/29",
		"--memory-pressure-percent", "100", "--disk-pressure-percent", "100", "--pid-pressure-percent", "100"}})
	pool := netip.MustParsePrefix("10.77.0.0/29")
	agents := map[string]*herdProc{"a1": startAgent(t, srv.URL, "a1"), "a2": startAgent(t, srv.URL, "a2")}

	createPods(t, srv.URL, "web", 4)
	first := runningPods(t, srv.URL, "web", 4)
	seen, onA1 := map[string]string{}, map[string]string{}
	nodes := map[string]int{}
	for name, p := range first {
		ip := netip.MustParseAddr(p.Status.PodIP)
		if !pool.Contains(ip) || ip == netip.MustParseAddr("10.77.0.1") {
			t.Errorf("pod %s has %s, not an address the pool hands out", name, ip)
		}
		if other, dup := seen[p.Status.PodIP]; dup {
			t.Errorf("pods %s and %s share %s", name, other, p.Status.PodIP)
		}
		seen[p.Status.PodIP] = name
		nodes[p.Spec.NodeName]++
		if p.Spec.NodeName == "a1" {
			onA1[name] = p.Status.PodIP
		}
	}
	if nodes["a1"] == 0 || nodes["a2"] == 0 {
		t.Fatalf("pods per node %v, want both nodes used", nodes)
	}

	mustCall(t, http.StatusOK, http.MethodPost, srv.URL+"/apis/herd.dev/v1/nodes/a1/drain", map[string]any{}, nil)
	eventually(t, 30*time.Second, func() error {
		for name := range onA1 {
			if code, _ := call(t, http.MethodGet, srv.URL+"/api/v1/namespaces/default/pods/"+name, nil, nil); code != http.StatusNotFound {
				return fmt.Errorf("pod %s of the drained node is still there (%d)", name, code)
			}
		}
		var n corev1.Node
		mustCall(t, http.StatusOK, http.MethodGet, srv.URL+"/api/v1/nodes/a1", nil, &n)
		if n.Annotations["herd.dev/agent-state"] != "Drained" {
			return fmt.Errorf("node a1 is %s", n.Annotations["herd.dev/agent-state"])
		}
		return nil
	})
	var audit struct {
		Items []struct {
			Type  string `json:"type"`
			Actor string `json:"actor"`
		} `json:"items"`
	}
	for name := range onA1 {
		mustCall(t, http.StatusOK, http.MethodGet, srv.URL+"/apis/herd.dev/v1/auditevents?stream=pod/default/"+name, nil, &audit)
		var steps []string
		for _, e := range audit.Items {
			steps = append(steps, e.Type)
		}
		for _, want := range []string{"PodShutdownRequested", "PodStopped", "PodDeprovisioned", "PodFinalized"} {
			if !slices.Contains(steps, want) {
				t.Errorf("pod %s left without %s: %v", name, want, steps)
			}
		}
	}

	// 4 addresses were in use and len(onA1) came back: every new pod
	// finds one, on the node still schedulable.
	free := 5 - 4 + len(onA1)
	createPods(t, srv.URL, "api", free)
	again := runningPods(t, srv.URL, "api", free)
	reused := 0
	for name, p := range again {
		if p.Spec.NodeName != "a2" {
			t.Errorf("pod %s landed on the drained node %s", name, p.Spec.NodeName)
		}
		if owner, dup := seen[p.Status.PodIP]; dup {
			if _, drained := onA1[owner]; !drained {
				t.Errorf("pod %s has %s, which %s still holds", name, p.Status.PodIP, owner)
			}
			reused++
		}
	}
	if reused != len(onA1) {
		t.Errorf("%d new pods have the drained pods' addresses, want %d", reused, len(onA1))
	}
	for name := range runningPods(t, srv.URL, "web", 4-len(onA1)) {
		if first[name].Status.PodIP == "" {
			t.Errorf("pod %s appeared from nowhere", name)
		}
	}

	// A clean stop deregisters: herd knows at once that the node stopped.
	for name, a := range agents {
		code, err := a.signal(syscall.SIGTERM, stopTimeout)
		if err != nil || code != 0 {
			t.Fatalf("agent %s: exit %d, %v\n%s", name, code, err, a.output.String())
		}
		var n corev1.Node
		mustCall(t, http.StatusOK, http.MethodGet, srv.URL+"/api/v1/nodes/"+name, nil, &n)
		if n.Annotations["herd.dev/agent-state"] != "Stopped" || nodeReady(n) {
			t.Errorf("node %s after its agent stopped: %s, Ready %v", name, n.Annotations["herd.dev/agent-state"], nodeReady(n))
		}
	}
	srv.stop()
}

// TestAnAgentServesMetricsAndHealthz starts herd serve and an agent, and
// reads the agent's /healthz and /metrics on loopback.
func TestAnAgentServesMetricsAndHealthz(t *testing.T) {
	t.Parallel()
	srv := startServe(t, serveOptions{})
	addr := freeAddr(t)
	a := startAgentWithMetrics(t, srv.URL, "m1", addr)
	if code, body := call(t, http.MethodGet, "http://"+addr+"/healthz", nil, nil); code != http.StatusOK || string(body) != "ok\n" {
		t.Errorf("/healthz: %d %q", code, body)
	}
	eventually(t, readyTimeout, func() error {
		_, body := call(t, http.MethodGet, "http://"+addr+"/metrics", nil, nil)
		for _, want := range []string{`herd_agent_heartbeats_total{result="sent"}`, "herd_agent_pods_running 0", "herd_reconciler_reconciles_total"} {
			if !strings.Contains(string(body), want) {
				return fmt.Errorf("/metrics lacks %s", want)
			}
		}
		return nil
	})
	if code, err := a.signal(syscall.SIGTERM, stopTimeout); err != nil || code != 0 {
		t.Fatalf("agent: exit %d, %v", code, err)
	}
	srv.stop()
}
