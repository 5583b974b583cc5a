package projections

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"

	"herd/domain"
)

// scrapeSeries gathers c through a registry, as /metrics does, and returns
// each sample as `name{label="value",...}` (labels sorted) → value.
func scrapeSeries(t *testing.T, c prometheus.Collector) map[string]float64 {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(c)
	families, err := reg.Gather()
	if err != nil {
		t.Fatalf("gather: %v", err)
	}
	out := make(map[string]float64)
	for _, f := range families {
		for _, m := range f.GetMetric() {
			out[seriesKey(f.GetName(), m)] = sampleValue(m)
		}
	}
	return out
}

func seriesKey(name string, m *dto.Metric) string {
	var labels []string
	for _, l := range m.GetLabel() {
		labels = append(labels, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
	}
	sort.Strings(labels)
	return name + "{" + strings.Join(labels, ",") + "}"
}

func sampleValue(m *dto.Metric) float64 {
	if c := m.GetCounter(); c != nil {
		return c.GetValue()
	}
	return m.GetGauge().GetValue()
}

// ofNode keeps the series of one node.
func ofNode(series map[string]float64, node string) map[string]float64 {
	out := make(map[string]float64)
	for k, v := range series {
		if strings.Contains(k, fmt.Sprintf("node=%q", node)) {
			out[k] = v
		}
	}
	return out
}

func u64(v uint64) *uint64   { return &v }
func i64(v int64) *int64     { return &v }
func f64(v float64) *float64 { return &v }

func TestNodeSeriesFollowsCommits(t *testing.T) {
	w, _, clk := newWriter(t)
	s := NewNodeSeries(w, clk)

	reg := register("web-01", domain.KindLinux)
	reg.Registration.MaxJobs = 4
	do(t, w, clk, "web-01", reg)
	hb := domain.RecordHeartbeat{Metrics: &domain.Metrics{
		CPUCount: 4, Load1: 1.5, MemoryTotalBytes: 1000, MemoryAvailableBytes: 250,
		DiskTotalBytes: 1000, DiskAvailableBytes: 950, PIDsMax: 1000, PIDsCurrent: 100, ActiveJobs: 3,
		CPUPercent: f64(37.5),
	}}
	do(t, w, clk, "web-01", hb)
	clk.Step(10 * time.Second)
	do(t, w, clk, "web-01", hb)
	do(t, w, clk, "web-01", domain.SetNodeSchedulable{Unschedulable: true})

	do(t, w, clk, "kube-01", register("kube-01", domain.KindKubelet))
	do(t, w, clk, "kube-01", domain.RecordHeartbeat{
		Reported: []domain.ReportedCondition{{Type: domain.ConditionReady, Status: domain.ConditionFalse, Reason: "KubeletNotReady"}},
		Kubelet: &domain.KubeletMetrics{
			CPUUsageNanoCores:    u64(1_000_000_000), // one of its 4 CPUs
			MemoryAvailableBytes: u64(600), MemoryWorkingSetBytes: u64(400),
			NodeFSAvailableBytes: u64(20), NodeFSCapacityBytes: u64(100),
			RlimitMaxPID: i64(200), RlimitCurProc: i64(50),
		},
	})
	do(t, w, clk, "idle-01", register("idle-01", domain.KindRP2040))
	clk.Step(30 * time.Second)

	got := scrapeSeries(t, s)
	web := map[string]float64{
		`herd_node_agent_state{kind="linux",node="web-01",state="Ready"}`:                           1,
		`herd_node_condition{condition="CPUPressure",kind="linux",node="web-01",status="False"}`:    1,
		`herd_node_condition{condition="DiskPressure",kind="linux",node="web-01",status="False"}`:   1,
		`herd_node_condition{condition="HighLoad",kind="linux",node="web-01",status="False"}`:       1,
		`herd_node_condition{condition="MemoryPressure",kind="linux",node="web-01",status="False"}`: 1,
		`herd_node_condition{condition="PIDPressure",kind="linux",node="web-01",status="False"}`:    1,
		`herd_node_condition{condition="Ready",kind="linux",node="web-01",status="True"}`:           1,
		`herd_node_cordoned{kind="linux",node="web-01"}`:                                            1,
		`herd_node_cpu_usage_ratio{kind="linux",node="web-01"}`:                                     0.375,
		`herd_node_memory_usage_ratio{kind="linux",node="web-01"}`:                                  0.75,
		`herd_node_disk_usage_ratio{kind="linux",node="web-01"}`:                                    0.05,
		`herd_node_pid_usage_ratio{kind="linux",node="web-01"}`:                                     0.1,
		`herd_node_load1{kind="linux",node="web-01"}`:                                               1.5,
		`herd_node_active_jobs{kind="linux",node="web-01"}`:                                         3,
		`herd_node_max_jobs{kind="linux",node="web-01"}`:                                            4,
		`herd_node_restarts_total{kind="linux",node="web-01"}`:                                      0,
		`herd_node_heartbeats_total{kind="linux",node="web-01"}`:                                    2,
		`herd_node_heartbeat_age_seconds{kind="linux",node="web-01"}`:                               30,
	}
	kube := map[string]float64{
		`herd_node_agent_state{kind="kubelet",node="kube-01",state="Starting"}`:               1,
		`herd_node_condition{condition="Ready",kind="kubelet",node="kube-01",status="False"}`: 1,
		`herd_node_cordoned{kind="kubelet",node="kube-01"}`:                                   0,
		`herd_node_cpu_usage_ratio{kind="kubelet",node="kube-01"}`:                            0.25,
		`herd_node_memory_usage_ratio{kind="kubelet",node="kube-01"}`:                         0.4,
		`herd_node_disk_usage_ratio{kind="kubelet",node="kube-01"}`:                           0.8,
		`herd_node_pid_usage_ratio{kind="kubelet",node="kube-01"}`:                            0.25,
		`herd_node_restarts_total{kind="kubelet",node="kube-01"}`:                             0,
		`herd_node_heartbeats_total{kind="kubelet",node="kube-01"}`:                           1,
		`herd_node_heartbeat_age_seconds{kind="kubelet",node="kube-01"}`:                      30,
	}
	idle := map[string]float64{
		`herd_node_agent_state{kind="rp2040",node="idle-01",state="Starting"}`: 1,
		`herd_node_cordoned{kind="rp2040",node="idle-01"}`:                     0,
		`herd_node_restarts_total{kind="rp2040",node="idle-01"}`:               0,
		`herd_node_heartbeats_total{kind="rp2040",node="idle-01"}`:             0,
	}
	for node, want := range map[string]map[string]float64{"web-01": web, "kube-01": kube, "idle-01": idle} {
		if diff := cmp.Diff(want, ofNode(got, node)); diff != "" {
			t.Errorf("series of %s (-want +got):\n%s", node, diff)
		}
	}

	do(t, w, clk, "web-01", domain.DeleteNode{})
	got = scrapeSeries(t, s)
	if left := ofNode(got, "web-01"); len(left) > 0 {
		t.Errorf("a deleted node keeps its series: %v", left)
	}
	if len(ofNode(got, "kube-01")) != len(kube) {
		t.Errorf("deleting web-01 changed kube-01's series: %v", ofNode(got, "kube-01"))
	}
}

func TestNodeSeriesLoadsTheView(t *testing.T) {
	w, store, clk := newWriter(t)
	do(t, w, clk, "a", register("a", domain.KindLinux))
	do(t, w, clk, "a", metrics(500))
	do(t, w, clk, "b", register("b", domain.KindIllumos))
	do(t, w, clk, "gone", register("gone", domain.KindLinux))
	do(t, w, clk, "gone", domain.DeleteNode{})

	// herd starts again: a new writer and collector on the same log.
	w2 := NewWriter(store.Log(), clk, nil)
	s := NewNodeSeries(w2, clk)
	if err := s.Load(t.Context(), NewNodeView(store.Log())); err != nil {
		t.Fatal(err)
	}
	got := scrapeSeries(t, s)
	if v, ok := got[`herd_node_memory_usage_ratio{kind="linux",node="a"}`]; !ok || v != 0.5 {
		t.Errorf("a's memory use after a restart: %v (present %v), want 0.5", v, ok)
	}
	if v := got[`herd_node_heartbeats_total{kind="linux",node="a"}`]; v != 0 {
		t.Errorf("heartbeats before herd started are counted: %v", v)
	}
	if _, ok := got[`herd_node_cordoned{kind="illumos",node="b"}`]; !ok {
		t.Errorf("b has no series after a restart: %v", ofNode(got, "b"))
	}
	if left := ofNode(got, "gone"); len(left) > 0 {
		t.Errorf("a node deleted before herd started has series: %v", left)
	}

	do(t, w2, clk, "a", metrics(500))
	if v := scrapeSeries(t, s)[`herd_node_heartbeats_total{kind="linux",node="a"}`]; v != 1 {
		t.Errorf("heartbeats after the load: %v, want 1", v)
	}
}

// A deletion committed while Load reads the view must not be undone by
// the older row Load read.
func TestNodeSeriesLoadKeepsNewerDeletions(t *testing.T) {
	w, store, clk := newWriter(t)
	n := do(t, w, clk, "a", register("a", domain.KindLinux))
	s := NewNodeSeries(nil, clk)
	deleted := n
	deleted.Version, deleted.Deleted = n.Version+1, true
	s.observe(deleted, []domain.Event{domain.NodeDeleted{}})
	if err := s.Load(t.Context(), NewNodeView(store.Log())); err != nil {
		t.Fatal(err)
	}
	if left := ofNode(scrapeSeries(t, s), "a"); len(left) > 0 {
		t.Errorf("the view's older row brought a deleted node back: %v", left)
	}
	// Once loaded, a deleted node leaves nothing behind.
	s.observe(domain.Node{Name: "b", Kind: domain.KindLinux, Version: 1}, nil)
	s.observe(domain.Node{Name: "b", Kind: domain.KindLinux, Version: 2, Deleted: true}, nil)
	s.mu.Lock()
	kept := len(s.nodes)
	s.mu.Unlock()
	if kept != 0 {
		t.Errorf("%d samples kept after every node was deleted, want 0", kept)
	}
}

// Commits and scrapes at once: run with -race.
func TestNodeSeriesConcurrentCommitsAndScrapes(t *testing.T) {
	w, _, clk := newWriter(t)
	s := NewNodeSeries(w, clk)
	const nodes, beats = 8, 20
	for i := range nodes {
		name := fmt.Sprintf("n%d", i)
		do(t, w, clk, name, register(name, domain.KindLinux))
	}
	var wg sync.WaitGroup
	for i := range nodes {
		wg.Go(func() {
			name := fmt.Sprintf("n%d", i)
			for range beats {
				if _, err := w.NodeCommands().Execute(context.Background(), domain.Key{Name: name}, metrics(500)); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Go(func() {
		for range 20 {
			if _, err := testutil.GatherAndCount(gathererOf(s)); err != nil {
				t.Error(err)
				return
			}
		}
	})
	wg.Wait()
	got := scrapeSeries(t, s)
	for i := range nodes {
		key := fmt.Sprintf(`herd_node_heartbeats_total{kind="linux",node="n%d"}`, i)
		if got[key] != beats {
			t.Errorf("%s = %v, want %d", key, got[key], beats)
		}
	}
}

func gathererOf(c prometheus.Collector) prometheus.Gatherer {
	reg := prometheus.NewRegistry()
	reg.MustRegister(c)
	return reg
}
