package main

import (
	"encoding/json"
	"net/http"
	"os/exec"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// TestKubectlTopAndExplain drives a real herd serve with the machine's
// kubectl: kubectl top reads the metrics API herd serves from its
// agents' heartbeats, and kubectl explain the schemas of its OpenAPI
// documents.
func TestKubectlTopAndExplain(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Skip("kubectl is not on PATH")
	}
	srv := startServe(t, serveOptions{})
	registerAgent(t, srv.URL, "web-01")
	heartbeatWithCPU(t, srv.URL, "web-01", healthyMetrics(), 37.5) // 1.5 of 4 CPUs; 4Gi of 8Gi used
	registerAgent(t, srv.URL, "web-02")
	busy := healthyMetrics()
	busy.MemoryAvailableBytes = 2 * gib
	heartbeatWithCPU(t, srv.URL, "web-02", busy, 12.5) // 0.5 of 4 CPUs; 6Gi used
	postNode(t, srv.URL, nodeJSON(t, "pico-node.json", "pico-01"))
	kc := newKubectl(t, srv.URL)

	t.Run("top node", func(t *testing.T) {
		header, rows := table(t, kc.must(t, "top", "node"))
		if len(header) < 5 || header[1] != "CPU(cores)" || header[3] != "MEMORY(bytes)" {
			t.Fatalf("header %q", header)
		}
		got := byName(rows)
		for name, want := range map[string][2]string{"web-01": {"1500m", "4096Mi"}, "web-02": {"500m", "6144Mi"}} {
			if row := got[name]; row == nil || row[1] != want[0] || row[3] != want[1] {
				t.Errorf("%s: %q, want CPU %s and memory %s", name, row, want[0], want[1])
			}
		}
		// The agent's allocatable CPU is 3500m: 1500m is 42% of it.
		if row := got["web-01"]; row != nil && row[2] != "42%" {
			t.Errorf("web-01's CPU%% %q, want 42%% of its allocatable 3500m", row[2])
		}
		// A Pico reports no figures: kubectl shows it without any, or not
		// at all.
		if row := got["pico-01"]; row != nil && row[1] != "<unknown>" {
			t.Errorf("pico-01 %q, want no figures", row)
		}
	})

	t.Run("top node by name", func(t *testing.T) {
		_, rows := table(t, kc.must(t, "top", "node", "web-02"))
		if len(rows) != 1 || rows[0][0] != "web-02" || rows[0][1] != "500m" {
			t.Errorf("rows %q, want web-02 alone with 500m", rows)
		}
		res := kc.run(t, "top", "node", "pico-01")
		if res.Code == 0 || !strings.Contains(res.Stderr, `herd has no CPU and memory figures for node "pico-01" yet`) {
			t.Errorf("top node pico-01: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
		}
	})

	t.Run("top pod says there are none", func(t *testing.T) {
		res := kc.run(t, "top", "pod", "-A")
		if res.Code != 0 || !strings.Contains(res.Stderr, "No resources found") {
			t.Errorf("top pod -A: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
		}
	})

	explains := []struct {
		field string
		// docs are descriptions the explanation must carry, from
		// Kubernetes' own documentation of the types.
		docs []string
	}{
		{"pod.spec.containers", []string{corev1.PodSpec{}.SwaggerDoc()["containers"], corev1.Container{}.SwaggerDoc()[""], corev1.Container{}.SwaggerDoc()["image"]}},
		{"pod.spec", []string{corev1.Pod{}.SwaggerDoc()["spec"], corev1.PodSpec{}.SwaggerDoc()["nodeName"]}},
		{"node.status", []string{corev1.NodeStatus{}.SwaggerDoc()[""], corev1.NodeStatus{}.SwaggerDoc()["conditions"]}},
		{"node.status.capacity", []string{corev1.NodeStatus{}.SwaggerDoc()["capacity"]}},
		{"configmap.data", []string{corev1.ConfigMap{}.SwaggerDoc()["data"]}},
	}
	for _, tt := range explains {
		t.Run("explain "+tt.field, func(t *testing.T) {
			out := kc.must(t, "explain", tt.field)
			flat := strings.Join(strings.Fields(out), " ")
			for _, doc := range tt.docs {
				// The first sentence, as kubectl wraps it.
				first, _, _ := strings.Cut(doc, ". ")
				first = strings.Join(strings.Fields(first), " ")
				if first == "" || !strings.Contains(flat, first) {
					t.Errorf("kubectl explain %s lacks %q:\n%s", tt.field, first, out)
				}
			}
		})
	}
}

// heartbeatWithCPU posts an agent heartbeat whose metrics carry the CPU
// share the agent measured since its previous one.
func heartbeatWithCPU(t *testing.T, base, name string, m agentMetrics, cpuPercent float64) {
	t.Helper()
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var metrics map[string]any
	if err := json.Unmarshal(data, &metrics); err != nil {
		t.Fatal(err)
	}
	metrics["cpuPercent"] = cpuPercent
	mustCall(t, http.StatusOK, http.MethodPost, agentPath(base, name)+"/heartbeat", map[string]any{"metrics": metrics}, nil)
}
