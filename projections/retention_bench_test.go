package projections

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	clocktesting "k8s.io/utils/clock/testing"

	"herd/domain"
	"herd/events"
)

// BenchmarkRetentionFleet is a fleet heartbeating through the unit of work
// on a fake clock with herd's default retention: every node reports every
// 10 s, a round of the retention policy runs every 10 s of fleet time,
// and the database file's size is recorded every simulated hour. The
// target is a 10,000-node fleet over 7 simulated days whose file holds
// steady under 2 GB over the last day.
//
// HERD_BENCH_FLEET_NODES (default 10,000) and HERD_BENCH_FLEET_MINUTES
// (default 60) size the run; HERD_BENCH_FLEET_DIR keeps the database there.
func BenchmarkRetentionFleet(b *testing.B) {
	nodes := envInt(b, "HERD_BENCH_FLEET_NODES", 10000)
	minutes := envInt(b, "HERD_BENCH_FLEET_MINUTES", 60)
	dir := os.Getenv("HERD_BENCH_FLEET_DIR")
	if dir == "" {
		dir = b.TempDir()
	}
	for range b.N {
		runFleet(b, filepath.Join(dir, "herd.db"), nodes, minutes)
	}
}

func envInt(b *testing.B, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		b.Fatalf("%s=%q: want a positive integer", name, v)
	}
	return n
}

// fleetWorkers is how many heartbeats are in flight at once, as many
// concurrent requests would be: enough to fill a group commit.
const fleetWorkers = 256

func runFleet(b *testing.B, path string, nodes, minutes int) {
	ctx := context.Background()
	_ = os.Remove(path)
	store, err := events.Open(ctx, events.Config{Path: path}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = store.Close() }()
	if err := Migrate(ctx, store.Log()); err != nil {
		b.Fatal(err)
	}
	clk := clocktesting.NewFakeClock(t0)
	reg := prometheus.NewRegistry()
	m := NewMetrics(reg)
	w := NewWriter(store.Log(), clk, m)
	c, err := NewCompactor(w, CompactionConfig{Retention: DefaultHeartbeatRetention}, m)
	if err != nil {
		b.Fatal(err)
	}
	names := make([]string, nodes)
	for i := range names {
		names[i] = fmt.Sprintf("node-%05d", i)
	}
	inParallel(b, names, func(name string) domain.NodeCommand { return register(name, domain.KindLinux) }, w, clk)

	// The file is measured every 5 simulated minutes; once twice the
	// retention has passed, the window is full and the file should hold.
	const sampleEvery = 30 // ticks of 10 s
	steadyFrom := int(2 * DefaultHeartbeatRetention / (10 * time.Second))
	start := time.Now()
	var beats int64
	var steady []int64
	ticks := minutes * 6
	for tick := 1; tick <= ticks; tick++ {
		clk.Step(10 * time.Second)
		inParallel(b, names, func(string) domain.NodeCommand { return metrics(500) }, w, clk)
		beats += int64(nodes)
		if _, err := c.Compact(ctx); err != nil {
			b.Fatal(err)
		}
		if tick%sampleEvery != 0 && tick != ticks {
			continue
		}
		size := fileBytes(b, path)
		if tick >= steadyFrom {
			steady = append(steady, size)
		}
		comp := store.Compaction()
		b.Logf("%s: %d heartbeats, %.0f MB on disk (herd.db and WAL), %d deleted, %.0f heartbeats/s", time.Duration(tick)*10*time.Second, beats,
			float64(size)/1e6, comp.Deleted, float64(beats)/time.Since(start).Seconds())
	}
	b.ReportMetric(float64(beats)/time.Since(start).Seconds(), "heartbeats/s")
	reportBatchTimes(b, reg)
	if len(steady) == 0 {
		b.Logf("run at least %d minutes to see the file once the window is full", steadyFrom/6)
		return
	}
	lo, hi := steady[0], steady[0]
	for _, s := range steady {
		lo, hi = min(lo, s), max(hi, s)
	}
	b.ReportMetric(float64(hi)/1e6, "MB-max-steady")
	b.ReportMetric(float64(steady[len(steady)-1]-steady[0])/1e6, "MB-growth-steady")
}

// inParallel runs one command per node through the unit of work, from
// fleetWorkers goroutines, at the clock's time.
func inParallel(b *testing.B, names []string, cmd func(string) domain.NodeCommand, w *Writer, clk *clocktesting.FakeClock) {
	var wg sync.WaitGroup
	next := make(chan string)
	for range fleetWorkers {
		wg.Go(func() {
			for name := range next {
				if _, err := w.NodeCommands().Execute(context.Background(), domain.Key{Name: name}, cmd(name)); err != nil {
					b.Error(err)
				}
			}
		})
	}
	for _, n := range names {
		next <- n
	}
	close(next)
	wg.Wait()
	if b.Failed() {
		b.FailNow()
	}
}

// fileBytes is the size of the database file and its WAL.
func fileBytes(b *testing.B, path string) int64 {
	var total int64
	for _, p := range []string{path, path + "-wal"} {
		st, err := os.Stat(p)
		if err != nil && !os.IsNotExist(err) {
			b.Fatal(err)
		}
		if err == nil {
			total += st.Size()
		}
	}
	return total
}

// reportBatchTimes logs how long the retention policy's batches held the
// write lock, from the histogram herd serves on /metrics.
func reportBatchTimes(b *testing.B, g prometheus.Gatherer) {
	families, err := g.Gather()
	if err != nil {
		b.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != "herd_log_compaction_batch_duration_seconds" {
			continue
		}
		h := f.GetMetric()[0].GetHistogram()
		if h.GetSampleCount() == 0 {
			return
		}
		var within []string
		for _, bk := range h.GetBucket() {
			within = append(within, fmt.Sprintf("<=%gms: %d", bk.GetUpperBound()*1000, bk.GetCumulativeCount()))
		}
		b.Logf("%d deletion batches, mean %.2f ms; cumulative %v", h.GetSampleCount(), h.GetSampleSum()/float64(h.GetSampleCount())*1000, within)
		b.ReportMetric(h.GetSampleSum()/float64(h.GetSampleCount())*1000, "ms/batch")
	}
}
