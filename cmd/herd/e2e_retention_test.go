package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	corev1 "k8s.io/api/core/v1"

	"herd/events"
	"herd/events/pgtest"
)

// retentionArgs make herd compact as it goes: heartbeats are kept for a
// second, and a round runs every 50 ms, so that a SIGKILL lands while
// deletions are under way; every node is snapshotted after every third
// event, so that deletions meet snapshots they make untrue.
var retentionArgs = []string{"--heartbeat-retention=1s", "--heartbeat-compaction-interval=50ms", "--snapshot-every=3"}

// TestSIGKILLDuringCompactionLosesNothingKept kills herd twice while it
// deletes old heartbeats under a stream of new ones. Each deletion is one
// transaction with its bookkeeping, so after the restarts the log counts
// exactly what it says it holds, every node's newest acknowledged write is
// still its state, and a rebuild of what is kept equals the live views.
func TestSIGKILLDuringCompactionLosesNothingKept(t *testing.T) {
	t.Parallel()
	dataDir := t.TempDir()
	srv := startServe(t, serveOptions{DataDir: dataDir, Args: retentionArgs})
	nodes := make([]string, durabilityNodes)
	for i := range nodes {
		nodes[i] = fmt.Sprintf("agent-%02d", i)
		registerAgent(t, srv.URL, nodes[i])
	}
	var acks []ack
	for round := 1; round <= 2; round++ {
		base := srv.URL
		before := metricValue(t, base, "herd_log_compacted_events_total")
		// Killed once the retention deletes and the watch hub has saved a
		// snapshot since: one saved less than the retention's second
		// before the kill is of an event the deletions keep, so some
		// snapshot is left to check whatever the hub's writer had queued.
		snapsAtCompaction := -1.0
		ready := func() bool {
			if metricValue(t, base, "herd_log_compacted_events_total") <= before {
				return false
			}
			saved := savedSnapshots(t, base)
			if snapsAtCompaction < 0 {
				snapsAtCompaction = saved
				return false
			}
			return saved > snapsAtCompaction
		}
		more, _ := writeUntilSignalled(t, srv, nodes, syscall.SIGKILL, ready)
		acks = append(acks, more...)
		args := retentionArgs
		if round == 2 {
			args = []string{"--reconcilers=", "--heartbeat-retention=0", "--snapshot-every=3"}
		}
		srv = startServe(t, serveOptions{DataDir: dataDir, Args: args})
	}
	// Every node's newest acknowledged write is no newer than its state.
	newest := map[string]int64{}
	for _, a := range acks {
		newest[a.node] = max(newest[a.node], a.rv)
	}
	var list corev1.NodeList
	mustCall(t, http.StatusOK, http.MethodGet, srv.URL+"/api/v1/nodes", nil, &list)
	for _, n := range list.Items {
		rv, err := strconv.ParseInt(n.ResourceVersion, 10, 64)
		if err != nil || rv < newest[n.Name] {
			t.Errorf("node %s is at %d, but a write at %d was acknowledged", n.Name, rv, newest[n.Name])
		}
	}
	served := map[string]float64{}
	for _, name := range []string{"herd_log_events", "herd_log_database_bytes", "herd_log_compacted_events_total", "herd_log_compacted_through_position"} {
		served[name] = metricValue(t, srv.URL, name)
	}
	if res := mustHerd(t, "log", "--server", srv.URL, "--limit", "1"); !strings.Contains(res.Stderr, "is thinned") {
		t.Errorf("herd log said %q on stderr, want a note that history is thinned", res.Stderr)
	}
	srv.stop()

	store, err := events.Open(context.Background(), events.Config{Path: filepath.Join(dataDir, "herd.db")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	comp := store.Compaction()
	var count, head int64
	err = store.DB().QueryRowContext(t.Context(), `SELECT COUNT(*), MAX(position) FROM events`).Scan(&count, &head)
	err = errors.Join(err, store.Close())
	if err != nil {
		t.Fatal(err)
	}
	if comp.Deleted == 0 || count != head-comp.Deleted {
		t.Errorf("the log holds %d events; its head %d minus the %d it says it deleted is %d", count, head, comp.Deleted, head-comp.Deleted)
	}
	want := map[string]float64{
		"herd_log_events": float64(count), "herd_log_compacted_events_total": float64(comp.Deleted),
		"herd_log_compacted_through_position": float64(comp.Through),
	}
	for name, v := range want {
		if served[name] != v {
			t.Errorf("/metrics said %s %g, the log says %g", name, served[name], v)
		}
	}
	if served["herd_log_database_bytes"] <= 0 {
		t.Errorf("/metrics said herd_log_database_bytes %g", served["herd_log_database_bytes"])
	}
	t.Logf("%d heartbeats deleted across two SIGKILLs, compaction point %d, %d events kept", comp.Deleted, comp.Through, count)
	res := mustHerd(t, "replay", "--verify", "--data-dir", dataDir)
	if !strings.Contains(res.Stdout, "the live views equal a rebuild") {
		t.Errorf("replay --verify said %q, want that the live views equal a rebuild", res.Stdout)
	}
	// The snapshots the deletions left are true to the log.
	if m := regexp.MustCompile(`the (\d+) snapshots equal their streams`).FindStringSubmatch(res.Stdout); m == nil || m[1] == "0" {
		t.Errorf("replay --verify said %q, want that some snapshots equal their streams", res.Stdout)
	}
}

// savedSnapshots is herd_snapshots_total{result="saved"} on base.
func savedSnapshots(t *testing.T, base string) float64 {
	t.Helper()
	families, err := scrapeMetrics(t, base)
	if err != nil {
		return 0
	}
	for _, m := range families["herd_snapshots_total"].GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == "result" && l.GetValue() == "saved" {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}

// scrapeMetrics reads herd's /metrics with the Prometheus parser.
func scrapeMetrics(t *testing.T, base string) (map[string]*dto.MetricFamily, error) {
	t.Helper()
	resp, err := get(t.Context(), http.DefaultClient, base+"/metrics")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	return parser.TextToMetricFamilies(resp.Body)
}

// metricValue reads one unlabelled counter or gauge from herd's /metrics,
// 0 when herd does not answer.
func metricValue(t *testing.T, base, name string) float64 {
	t.Helper()
	families, err := scrapeMetrics(t, base)
	if err != nil {
		return 0
	}
	f, ok := families[name]
	if !ok || len(f.GetMetric()) == 0 {
		return 0
	}
	m := f.GetMetric()[0]
	if c := m.GetCounter(); c != nil {
		return c.GetValue()
	}
	return m.GetGauge().GetValue()
}

// TestServeReplicasThinTheLogOnOne: two herd serve replicas on one
// PostgreSQL database with retention on. One of them runs it
// (herd_leader{job="retention"} is 1 there, 0 on the other); old
// heartbeats written through the other go; the other replica hears of
// the compaction point and refuses a list at a resourceVersion before it
// with 410 Expired; what is kept verifies against the live views.
func TestServeReplicasThinTheLogOnOne(t *testing.T) {
	herdBinary(t) // skipped with -short, before a database is made
	database := pgtest.URL(t)
	args := append([]string{"--database", database, "--reconcilers="}, retentionArgs...)
	a := startServe(t, serveOptions{Args: args})
	eventually(t, readyTimeout, func() error { return leadsRetention(t, a, 1) })
	b := startServe(t, serveOptions{Args: args})
	eventually(t, readyTimeout, func() error { return leadsRetention(t, b, 0) })

	registerAgent(t, b.URL, "agent-00")
	old := resourceVersion(t, heartbeat(t, b.URL, "agent-00", healthyMetrics()))
	// Heartbeats through b until a, which runs the retention, has thinned
	// them and b has heard of it.
	eventually(t, time.Minute, func() error {
		heartbeat(t, b.URL, "agent-00", healthyMetrics())
		if through := metricValue(t, b.URL, "herd_log_compacted_through_position"); through <= float64(old) {
			return fmt.Errorf("b's compaction point is %g, not past %d yet", through, old)
		}
		return nil
	})
	if n := metricValue(t, b.URL, "herd_log_compacted_events_total"); n == 0 {
		t.Errorf("b says the retention deleted %g events", n)
	}
	// The fleet as it was there is still listed, with a warning that its
	// heartbeats were thinned.
	resp, err := get(t.Context(), apiClient, b.URL+"/api/v1/nodes?resourceVersionMatch=Exact&resourceVersion="+strconv.FormatInt(old, 10))
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(resp.Header.Get("Warning"), "thinned heartbeats") {
		t.Errorf("an exact list before the compaction point: %s, Warning %q", resp.Status, resp.Header.Get("Warning"))
	}
	if err := leadsRetention(t, b, 0); err != nil {
		t.Errorf("b after the deletions: %v", err)
	}
	a.stop()
	b.stop()
	if res := mustHerd(t, "replay", "--verify", "--database", database); !strings.Contains(res.Stdout, "the live views equal a rebuild") {
		t.Errorf("replay --verify said %q, want that the live views equal a rebuild", res.Stdout)
	}
}

// leadsRetention checks that p's herd_leader{job="retention"} is gauge.
func leadsRetention(t *testing.T, p *herdProc, gauge int) error {
	t.Helper()
	metrics, err := fetch(t, p.URL+"/metrics")
	if err != nil {
		return err
	}
	series := `herd_leader{job="retention"} ` + strconv.Itoa(gauge)
	if !strings.Contains(metrics, series+"\n") {
		return fmt.Errorf("/metrics has no %s", series)
	}
	return nil
}
