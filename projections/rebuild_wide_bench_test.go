package projections

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"herd/domain"
	"herd/events"
)

// BenchmarkRebuildWide replays the log of a wide fleet: 100,000 nodes, each
// registered, a tenth of them then reporting Ready False (and tainted
// not-ready by the health rules) and a twentieth Ready with memory pressure
// (tainted memory-pressure): about 165,000 events, 1.65 per node. Where
// BenchmarkRebuild measures folding, this one measures writing rows, since
// nearly every event ends in a row of its own. It reports events/s and the
// peak resident memory of the rebuild (Linux; the filled log's share is
// reset before the timer starts).
func BenchmarkRebuildWide(b *testing.B) {
	store := openStore(b)
	ctx := context.Background()
	total := fillWideLog(b, store, 100000)
	resetPeakRSS()
	cpu0, cpuOK := processCPU()
	b.ResetTimer()
	for range b.N {
		stats, err := Rebuild(ctx, store.Log(), RebuildOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if stats.Events != total {
			b.Fatalf("replayed %d events, want %d", stats.Events, total)
		}
	}
	b.ReportMetric(float64(total*int64(b.N))/b.Elapsed().Seconds(), "events/s")
	if cpu1, ok := processCPU(); ok && cpuOK {
		b.ReportMetric(float64((cpu1-cpu0).Microseconds())/float64(total*int64(b.N)), "cpu-µs/event")
	}
	if peak, ok := peakRSS(); ok {
		b.ReportMetric(float64(peak)/(1<<20), "peak-RSS-MB")
	}
}

// fillWideLog writes the history of a wide fleet straight into the log (no
// views), in one transaction: per node the events the domain decides for
// its registration and, for a share of the nodes, one kubelet report and
// the condition taints that follow.
func fillWideLog(b testing.TB, store *events.Store, nodes int) int64 {
	b.Helper()
	ctx := context.Background()
	tx, err := store.DB().BeginTx(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	now := t0
	var total int64
	for i := range nodes {
		name := fmt.Sprintf("node-%06d", i)
		var n domain.Node
		var batch []events.NewEvent
		step := func(cmd domain.NodeCommand) {
			evs, err := domain.DecideNode(n, cmd, now)
			if err != nil {
				b.Fatal(err)
			}
			for _, ev := range evs {
				n = domain.EvolveNode(n, ev)
				payload, _ := json.Marshal(ev)
				batch = append(batch, events.NewEvent{Type: ev.EventType(), Payload: payload})
			}
		}
		now = now.Add(time.Millisecond)
		step(register(name, domain.KindKubelet))
		if report := wideReport(i); report != nil {
			step(domain.RecordHeartbeat{Reported: report})
			step(domain.SyncConditionTaints{})
		}
		recs, err := store.Append(ctx, tx, domain.NodeStream(name), 0, events.Metadata{Source: "bench"}, now, batch...)
		if err != nil {
			b.Fatal(err)
		}
		total += int64(len(recs))
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	return total
}

// wideReport is what node i's kubelet reports in the wide log: nothing for
// 85 in 100, Ready False for 10, Ready with memory pressure for 5.
func wideReport(i int) []domain.ReportedCondition {
	switch i % 20 {
	case 0, 1:
		return []domain.ReportedCondition{{Type: domain.ConditionReady, Status: domain.ConditionFalse, Reason: "KubeletNotReady", Message: "container runtime is down"}}
	case 2:
		return []domain.ReportedCondition{
			{Type: domain.ConditionReady, Status: domain.ConditionTrue, Reason: "KubeletReady", Message: "kubelet is posting ready status"},
			{Type: domain.ConditionMemoryPressure, Status: domain.ConditionTrue, Reason: "KubeletHasInsufficientMemory", Message: "kubelet has insufficient memory available"},
		}
	}
	return nil
}

// resetPeakRSS forgets the process's peak resident memory so far (Linux:
// "5" to clear_refs), after returning what the garbage collector can, so
// that peakRSS measures what comes after.
func resetPeakRSS() {
	runtime.GC()
	debug.FreeOSMemory()
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}

// peakRSS is the process's peak resident memory in bytes (VmHWM); ok is
// false where /proc does not say.
func peakRSS() (int64, bool) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, false
	}
	defer func() { _ = f.Close() }()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if v, ok := strings.CutPrefix(s.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10, err == nil
		}
	}
	return 0, false
}

// TestWriteWideLog writes the wide log of BenchmarkRebuildWide into
// $HERD_WIDE_LOG_DIR/herd.db (views empty), for measuring `herd replay
// --data-dir` on it; without the variable it does nothing.
func TestWriteWideLog(t *testing.T) {
	dir := os.Getenv("HERD_WIDE_LOG_DIR")
	if dir == "" {
		t.Skip("HERD_WIDE_LOG_DIR not set")
	}
	ctx := context.Background()
	store, err := events.Open(ctx, events.Config{Path: filepath.Join(dir, "herd.db")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = store.Close() }()
	if err := Migrate(ctx, store.Log()); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d events", fillWideLog(t, store, 100000))
}
