package app

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"go.uber.org/fx"
	corev1 "k8s.io/api/core/v1"
)

// TestDemoJobsAreThePodsTheNodeRuns: the JOBS a demo agent reports are
// the pods Running on it, not a random figure: a node with pods counts
// them, and a node with none reports 0.
func TestDemoJobsAreThePodsTheNodeRuns(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Listen, cfg.DataDir, cfg.LogLevel, cfg.PollInterval = "127.0.0.1:0", t.TempDir(), "error", 10*time.Millisecond
	cfg.Demo = 2 // demo-linux-00, demo-illumos-01: 4 Deployment pods between them, and the DaemonSet's on each
	var srv *HTTPServer
	a := startApp(t, fx.New(Options(cfg, DemoOption(cfg), fx.Populate(&srv)), fx.NopLogger))
	defer stopApp(t, a)

	running := map[string]int{}
	eventually(t, "the demo's pods run", func() bool {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL()+"/api/v1/namespaces/demo/pods", nil)
		if err != nil {
			return false
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		var list corev1.PodList
		if json.NewDecoder(resp.Body).Decode(&list) != nil || len(list.Items) != 2*demoPodsPerNode+2 {
			return false
		}
		clear(running)
		for _, p := range list.Items {
			if p.Status.Phase != corev1.PodRunning {
				return false
			}
			running[p.Spec.NodeName]++
		}
		return true
	})
	c := &http.Client{Timeout: 5 * time.Second}
	for _, name := range []string{"demo-linux-00", "demo-illumos-01", "demo-rp2040-09"} {
		got, err := demoRunningPods(t.Context(), c, srv.URL(), name)
		if err != nil {
			t.Fatal(err)
		}
		if got != running[name] {
			t.Errorf("%s: %d jobs, want the %d pods Running on it", name, got, running[name])
		}
		if m := demoMetrics(0, got, time.Now())["metrics"].(map[string]any); m["activeJobs"] != got {
			t.Errorf("%s: heartbeat's activeJobs %v, want %d", name, m["activeJobs"], got)
		}
	}
}
