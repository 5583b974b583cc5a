package health

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/zap"
	clocktesting "k8s.io/utils/clock/testing"

	"herd/domain"
	"herd/events"
	"herd/projections"
)

// BenchmarkMonitor measures one health check of 10,000 registered nodes,
// all within their deadline: the pass herd makes every monitor period. The
// target is under 50 ms.
func BenchmarkMonitor(b *testing.B) {
	const nodes = 10000
	ctx := context.Background()
	store, err := events.Open(ctx, events.Config{Path: filepath.Join(b.TempDir(), "herd.db")}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = store.Close() }()
	if err := projections.Migrate(ctx, store.Log()); err != nil {
		b.Fatal(err)
	}
	t0 := time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)
	clk := clocktesting.NewFakeClock(t0)
	w := projections.NewWriter(store.Log(), clk, nil)
	hb := domain.RecordHeartbeat{Metrics: &domain.Metrics{CPUCount: 4, MemoryTotalBytes: 100, MemoryAvailableBytes: 50,
		DiskTotalBytes: 100, DiskAvailableBytes: 50, PIDsMax: 100, PIDsCurrent: 1}}
	for i := range nodes {
		name := fmt.Sprintf("node-%05d", i)
		reg := domain.RegisterNode{Registration: domain.Registration{Name: name, Kind: domain.KindLinux}}
		if _, err := w.NodeCommands().Execute(ctx, domain.Key{Name: name}, domain.NodeSequence{reg, hb}); err != nil {
			b.Fatal(err)
		}
	}
	r, err := New(DefaultConfig(), w, projections.NewNodeView(store.Log()), clk, zap.NewNop())
	if err != nil {
		b.Fatal(err)
	}
	clk.Step(30 * time.Second)
	b.ResetTimer()
	for b.Loop() {
		if err := r.monitor(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/check")
}
