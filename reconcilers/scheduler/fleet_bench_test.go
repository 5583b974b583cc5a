package scheduler

import (
	"context"
	"fmt"
	"testing"
	"time"

	"herd/domain"
)

// BenchmarkPassWithLargeFleet measures what one pod that fits nowhere
// costs the scheduler in a fleet of 100,000 nodes: a pass when it is due
// (every node and pod read), and a pass while it backs off (nothing but
// the unbound pods read), which is what a node event that cannot make room
// (a node tainted, not ready, silent) now calls for.
func BenchmarkPassWithLargeFleet(b *testing.B) {
	const nodes = 100000
	if testing.Short() {
		b.Skip("large fleet")
	}
	h := newHarness(b, Config{})
	alloc := domain.ResourceList{"cpu": 1000, "memory": 2 * gi, "pods": 10}
	for i := range nodes {
		name := fmt.Sprintf("node-%06d", i)
		reg := domain.RegisterNode{Registration: domain.Registration{Name: name, UID: "uid-" + name, Kind: domain.KindLinux, Allocatable: alloc, Capacity: alloc}}
		hb := domain.RecordHeartbeat{Reported: []domain.ReportedCondition{{Type: domain.ConditionReady, Status: domain.ConditionTrue}}}
		if _, err := h.w.NodeCommands().Execute(context.Background(), domain.Key{Name: name}, domain.NodeSequence{reg, hb}); err != nil {
			b.Fatal(err)
		}
	}
	h.pod("big", 64000, mi)
	ctx := context.Background()
	b.Run("due", func(b *testing.B) {
		for b.Loop() {
			h.r.backoff.flush()
			if _, err := h.r.Reconcile(ctx, keyPending); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/pass")
	})
	b.Run("backing-off", func(b *testing.B) {
		h.clock.Step(time.Minute)
		if _, err := h.r.Reconcile(ctx, keyPending); err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for b.Loop() {
			if _, err := h.r.Reconcile(ctx, keyPending); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/pass")
	})
}
