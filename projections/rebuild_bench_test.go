package projections

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"herd/domain"
	"herd/events"
)

// BenchmarkRebuild replays a log of 1,000,000 node events (1,000 nodes, each
// registered and then heartbeating, with memory pressure coming and going)
// into empty views and reports events per second. The target is 200,000.
func BenchmarkRebuild(b *testing.B) {
	const (
		nodes         = 1000
		eventsPerNode = 1000
	)
	store := openStore(b)
	ctx := context.Background()
	total := fillLog(b, store, nodes, eventsPerNode)
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

// fillLog writes a realistic node history straight into the log (no views):
// the events the domain decides, appended 100 at a time.
func fillLog(b *testing.B, store *events.Store, nodes, perNode int) int64 {
	b.Helper()
	ctx := context.Background()
	now := t0
	var total int64
	tx, err := store.DB().BeginTx(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	for i := range nodes {
		name := fmt.Sprintf("node-%04d", i)
		var n domain.Node
		var batch []events.NewEvent
		flush := func() {
			if len(batch) == 0 {
				return
			}
			recs, err := store.Append(ctx, tx, domain.NodeStream(name), n.Version-int64(len(batch)), events.Metadata{Source: "bench"}, now, batch...)
			if err != nil {
				b.Fatal(err)
			}
			total += int64(len(recs))
			batch = batch[:0]
		}
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
			if len(batch) >= 100 {
				flush()
			}
		}
		step(register(name, domain.KindLinux))
		for j := 0; n.Version < int64(perNode); j++ {
			now = now.Add(time.Millisecond)
			avail := int64(500)
			if j%50 == 49 {
				avail = 50
			}
			step(metrics(avail))
		}
		flush()
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	return total
}
