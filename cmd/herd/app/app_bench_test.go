package app

import (
	"context"
	"fmt"
	"testing"
	"time"

	"go.uber.org/fx"

	"herd/domain"
	"herd/projections"
)

// BenchmarkAppendWithReconcilers appends heartbeats through the unit of
// work of a running herd, once with no reconciler running and once with
// all of them, and reports events per second for each. The dispatcher
// reads each commit once, without the write lock, and the reconcilers
// work outside any transaction, so what remains is the CPU their work
// takes. The target: within 10%.
func BenchmarkAppendWithReconcilers(b *testing.B) {
	for _, tc := range []struct {
		name    string
		enabled []string
	}{{"none", nil}, {"all", []string{"*"}}} {
		b.Run("reconcilers="+tc.name, func(b *testing.B) {
			cfg := DefaultConfig()
			cfg.Listen, cfg.DataDir, cfg.LogLevel = "127.0.0.1:0", b.TempDir(), "error"
			cfg.Reconcilers.Enabled = tc.enabled
			var w *projections.Writer
			a := fx.New(Options(cfg, fx.Populate(&w)), fx.NopLogger)
			ctx := context.Background()
			if err := a.Start(ctx); err != nil {
				b.Fatal(err)
			}
			defer func() { _ = a.Stop(ctx) }()
			const nodes = 100
			names := make([]string, nodes)
			for i := range names {
				names[i] = fmt.Sprintf("node-%03d", i)
				update(b, w, names[i], domain.RegisterNode{Registration: domain.Registration{Name: names[i], Kind: domain.KindLinux}})
			}
			hb := domain.RecordHeartbeat{Metrics: &domain.Metrics{CPUCount: 4, MemoryTotalBytes: 100, MemoryAvailableBytes: 50,
				DiskTotalBytes: 100, DiskAvailableBytes: 50, PIDsMax: 100, PIDsCurrent: 1}}
			b.ResetTimer()
			start := time.Now()
			i := 0
			for b.Loop() {
				update(b, w, names[i%nodes], hb)
				i++
			}
			b.ReportMetric(float64(i)/time.Since(start).Seconds(), "events/s")
		})
	}
}

func update(b *testing.B, w *projections.Writer, name string, cmd domain.NodeCommand) {
	b.Helper()
	if _, err := w.NodeCommands().Execute(context.Background(), domain.Key{Name: name}, cmd); err != nil {
		b.Fatal(err)
	}
}
