package app

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"go.uber.org/fx"
	corev1 "k8s.io/api/core/v1"
)

// TestDemoPicosLookLikeRealBoards: the demo's Pico nodes are what the
// firmware registers — addresses, allocatable and System Info — not a
// sketch of one.
func TestDemoPicosLookLikeRealBoards(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Listen, cfg.DataDir, cfg.LogLevel, cfg.PollInterval = "127.0.0.1:0", t.TempDir(), "error", 10*time.Millisecond
	cfg.Demo = 3 // demo-linux-00, demo-illumos-01, demo-rp2040-02
	var srv *HTTPServer
	a := startApp(t, fx.New(Options(cfg, DemoOption(cfg), fx.Populate(&srv)), fx.NopLogger))
	var n corev1.Node
	eventually(t, "the demo's Pico registers", func() bool {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL()+"/api/v1/nodes/demo-rp2040-02", nil)
		if err != nil {
			return false
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		return resp.StatusCode == http.StatusOK && json.NewDecoder(resp.Body).Decode(&n) == nil
	})
	info := n.Status.NodeInfo
	if len(n.Status.Addresses) == 0 || n.Status.Addresses[0].Type != corev1.NodeInternalIP {
		t.Errorf("addresses %v, want the board's InternalIP first", n.Status.Addresses)
	}
	if len(n.Status.Allocatable) == 0 || n.Status.Allocatable.Memory().IsZero() {
		t.Errorf("allocatable %v, want the board's", n.Status.Allocatable)
	}
	if info.OSImage != "Pico SDK" || info.MachineID == "" || info.BootID == "" || info.KernelVersion == "" || info.Architecture != "arm" {
		t.Errorf("nodeInfo %+v, want the firmware's System Info", info)
	}
	stopApp(t, a)
}

// TestDemoAgentsHaveFigures: kubectl top node has something to show on
// the demo: its agents report CPU use with their other figures.
func TestDemoAgentsHaveFigures(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Listen, cfg.DataDir, cfg.LogLevel, cfg.PollInterval = "127.0.0.1:0", t.TempDir(), "error", 10*time.Millisecond
	cfg.Demo = 2 // demo-linux-00, demo-illumos-01
	var srv *HTTPServer
	a := startApp(t, fx.New(Options(cfg, DemoOption(cfg), fx.Populate(&srv)), fx.NopLogger))
	var list struct {
		Items []struct {
			Metadata struct{ Name string } `json:"metadata"`
			Usage    map[string]string     `json:"usage"`
		} `json:"items"`
	}
	eventually(t, "the demo's agents have CPU and memory figures", func() bool {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL()+"/apis/metrics.k8s.io/v1beta1/nodes", nil)
		if err != nil {
			return false
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		return resp.StatusCode == http.StatusOK && json.NewDecoder(resp.Body).Decode(&list) == nil && len(list.Items) == 2
	})
	for _, m := range list.Items {
		if m.Usage["cpu"] == "" || m.Usage["memory"] == "" {
			t.Errorf("%s: usage %v, want cpu and memory", m.Metadata.Name, m.Usage)
		}
	}
	stopApp(t, a)
}
