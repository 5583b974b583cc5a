package main

import (
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	dto "github.com/prometheus/client_model/go"
)

// TestServeExposesPerNodeSeries registers a fleet over the API, scrapes
// herd's /metrics with the Prometheus parser and finds every node's
// series, its own herd host's (--local-node) among them; a deleted node's
// series are gone from the next scrape, and after a restart herd serves
// the series of the nodes it already knew.
func TestServeExposesPerNodeSeries(t *testing.T) {
	t.Parallel()
	const local = "herd-local"
	dataDir := t.TempDir()
	srv := startServe(t, serveOptions{DataDir: dataDir, Args: []string{"--local-node", local}})

	registerAgent(t, srv.URL, "web-01")
	registerAgent(t, srv.URL, "web-02")
	heartbeat(t, srv.URL, "web-01", healthyMetrics())
	busy := healthyMetrics()
	busy.MemoryAvailableBytes = gib // 7 of 8 GiB in use
	heartbeat(t, srv.URL, "web-02", busy)
	heartbeat(t, srv.URL, "web-02", busy)
	postNode(t, srv.URL, nodeJSON(t, "pico-node.json", "pico-01", withReady("False", "KubeletNotReady")))

	got := scrapeNodeSeries(t, srv.URL)
	want := map[string]map[string]float64{
		"web-01": {
			`herd_node_condition{condition="Ready",kind="linux",node="web-01",status="True"}`:           1,
			`herd_node_condition{condition="MemoryPressure",kind="linux",node="web-01",status="False"}`: 1,
			`herd_node_agent_state{kind="linux",node="web-01",state="Ready"}`:                           1,
			`herd_node_cordoned{kind="linux",node="web-01"}`:                                            0,
			`herd_node_memory_usage_ratio{kind="linux",node="web-01"}`:                                  0.5,
			`herd_node_disk_usage_ratio{kind="linux",node="web-01"}`:                                    0.4,
			`herd_node_load1{kind="linux",node="web-01"}`:                                               0.5,
			`herd_node_active_jobs{kind="linux",node="web-01"}`:                                         1,
			`herd_node_heartbeats_total{kind="linux",node="web-01"}`:                                    1,
			`herd_node_restarts_total{kind="linux",node="web-01"}`:                                      0,
			`herd_node_max_jobs{kind="linux",node="web-01"}`:                                            8,
		},
		"web-02": {
			`herd_node_memory_usage_ratio{kind="linux",node="web-02"}`: 0.875,
			`herd_node_heartbeats_total{kind="linux",node="web-02"}`:   2,
		},
		"pico-01": {
			`herd_node_condition{condition="Ready",kind="rp2040",node="pico-01",status="False"}`: 1,
			`herd_node_cordoned{kind="rp2040",node="pico-01"}`:                                   0,
		},
	}
	for node, series := range want {
		for key, v := range series {
			if g, ok := got[node][key]; !ok || g != v {
				t.Errorf("%s = %v (present: %v), want %v; %s has %s", key, g, ok, v, node, keys(got[node]))
			}
		}
		if _, ok := got[node][fmt.Sprintf(`herd_node_heartbeat_age_seconds{kind=%q,node=%q}`, kindOf(node), node)]; !ok && node != "pico-01" {
			t.Errorf("%s has no heartbeat age: %s", node, keys(got[node]))
		}
	}
	// An agent whose heartbeat carries no CPU use (its first one, or an
	// older agent's) has a series of every other family.
	wantFamilies := []string{"herd_node_active_jobs", "herd_node_agent_state", "herd_node_condition", "herd_node_cordoned",
		"herd_node_disk_usage_ratio", "herd_node_heartbeat_age_seconds", "herd_node_heartbeats_total", "herd_node_load1",
		"herd_node_max_jobs", "herd_node_memory_usage_ratio", "herd_node_pid_usage_ratio", "herd_node_restarts_total"}
	if diff := cmp.Diff(wantFamilies, families(got["web-01"])); diff != "" {
		t.Errorf("web-01's series (-want +got):\n%s", diff)
	}
	// herd's own host registers and heartbeats on its own schedule.
	eventually(t, 30*time.Second, func() error {
		key := fmt.Sprintf(`herd_node_heartbeats_total{kind="linux",node=%q}`, local)
		if v := scrapeNodeSeries(t, srv.URL)[local][key]; v < 1 {
			return fmt.Errorf("%s = %v, want at least 1", key, v)
		}
		return nil
	})

	mustCall(t, http.StatusOK, http.MethodDelete, srv.URL+"/api/v1/nodes/web-01", nil, nil)
	got = scrapeNodeSeries(t, srv.URL)
	if left := got["web-01"]; len(left) > 0 {
		t.Errorf("a deleted node's series stay: %s", keys(left))
	}
	if len(got["web-02"]) == 0 || len(got["pico-01"]) == 0 {
		t.Errorf("deleting web-01 took other nodes' series: %v", got)
	}

	srv.stop()
	srv = startServe(t, serveOptions{DataDir: dataDir})
	got = scrapeNodeSeries(t, srv.URL)
	if v, ok := got["web-02"][`herd_node_memory_usage_ratio{kind="linux",node="web-02"}`]; !ok || v != 0.875 {
		t.Errorf("after a restart web-02's memory use is %v (present: %v), want 0.875", v, ok)
	}
	if v, ok := got["web-02"][`herd_node_heartbeats_total{kind="linux",node="web-02"}`]; !ok || v != 0 {
		t.Errorf("after a restart web-02's heartbeats are %v (present: %v), want 0: they count since herd started", v, ok)
	}
	if left := got["web-01"]; len(left) > 0 {
		t.Errorf("after a restart the deleted node has series: %s", keys(left))
	}
}

// kindOf is the kind the test's nodes are registered with.
func kindOf(node string) string {
	if strings.HasPrefix(node, "pico") {
		return "rp2040"
	}
	return "linux"
}

// scrapeNodeSeries scrapes herd's /metrics and returns the herd_node_*
// samples by node, each keyed `name{label="value",...}` with the labels
// sorted.
func scrapeNodeSeries(t *testing.T, base string) map[string]map[string]float64 {
	t.Helper()
	families, err := scrapeMetrics(t, base)
	if err != nil {
		t.Fatalf("scrape %s/metrics: %v", base, err)
	}
	out := make(map[string]map[string]float64)
	for name, f := range families {
		if !strings.HasPrefix(name, "herd_node_") {
			continue
		}
		for _, m := range f.GetMetric() {
			var node string
			labels := make([]string, 0, len(m.GetLabel()))
			for _, l := range m.GetLabel() {
				if l.GetName() == "node" {
					node = l.GetValue()
				}
				labels = append(labels, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
			}
			if node == "" {
				t.Errorf("%s has a series without a node label: %v", name, labels)
				continue
			}
			sort.Strings(labels)
			if out[node] == nil {
				out[node] = make(map[string]float64)
			}
			out[node][name+"{"+strings.Join(labels, ",")+"}"] = value(m)
		}
	}
	return out
}

// families lists the names of a node's series, sorted.
func families(series map[string]float64) []string {
	var out []string
	for k := range series {
		name, _, _ := strings.Cut(k, "{")
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// value is a counter's or a gauge's value.
func value(m *dto.Metric) float64 {
	if c := m.GetCounter(); c != nil {
		return c.GetValue()
	}
	return m.GetGauge().GetValue()
}

// keys lists a node's series, for messages.
func keys(series map[string]float64) string {
	out := make([]string, 0, len(series))
	for k := range series {
		out = append(out, k)
	}
	sort.Strings(out)
	return strings.Join(out, "\n  ")
}
