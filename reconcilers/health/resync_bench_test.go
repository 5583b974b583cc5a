package health

import (
	"fmt"
	"testing"

	"go.uber.org/zap"
)

// BenchmarkResync measures the health rules' full resync (every 30 s) in
// a healthy fleet of 10,000 and of 100,000 nodes, one pass after another
// as herd runs them, after the first pass of the term: whatever a pass
// reads of the fleet, in full now and then included.
func BenchmarkResync(b *testing.B) {
	benchResync(b, func(*Reconciler) {})
}

// BenchmarkResyncFromMemory measures a full resync from memory alone:
// BenchmarkResync without its full reads of the view.
func BenchmarkResyncFromMemory(b *testing.B) {
	benchResync(b, func(r *Reconciler) {
		r.checks.mu.Lock()
		r.checks.since = 0
		r.checks.mu.Unlock()
	})
}

// benchResync runs full resyncs, calling before ahead of each.
func benchResync(b *testing.B, before func(*Reconciler)) {
	for _, nodes := range []int{10000, 100000} {
		b.Run(fmt.Sprint(nodes), func(b *testing.B) {
			if nodes > 10000 && testing.Short() {
				b.Skip("large fleet")
			}
			f := newBenchFleet(b, nodes)
			r, err := New(DefaultConfig(), f.w, f.view, f.clk, zap.NewNop())
			if err != nil {
				b.Fatal(err)
			}
			ctx := b.Context()
			// The first pass of the term reads the fleet in full.
			if err := r.syncAll(ctx); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				before(r)
				if err := r.syncAll(ctx); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/resync")
		})
	}
}
