package health

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"go.uber.org/zap"
)

// BenchmarkResync measures the health rules' full resync (every 30 s) in
// a healthy fleet of 10,000 and of 100,000 nodes, one pass after another
// as herd runs them, after the first pass of the term: whatever a pass
// reads of the fleet, in full now and then included. It reports the
// process's CPU time per pass beside the wall time, which a shared
// machine stretches.
func BenchmarkResync(b *testing.B) {
	for _, nodes := range []int{10000, 100000} {
		b.Run(fmt.Sprint(nodes), func(b *testing.B) {
			if nodes > 10000 && testing.Short() {
				b.Skip("large fleet")
			}
			f := newBenchFleet(b, nodes)
			for _, c := range resyncCases {
				b.Run(c.name, func(b *testing.B) {
					r, err := New(DefaultConfig(), f.w, f.view, f.clk, zap.NewNop())
					if err != nil {
						b.Fatal(err)
					}
					benchResync(b, r, c.before)
				})
			}
		})
	}
}

// resyncCase is one way of running passes: before runs ahead of each.
type resyncCase struct {
	name   string
	before func(*Reconciler)
}

// benchResync runs full resyncs of r, the first of its term untimed.
func benchResync(b *testing.B, r *Reconciler, before func(*Reconciler)) {
	ctx := b.Context()
	if err := r.syncAll(ctx); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	cpu0 := cpuTime(b)
	b.ResetTimer()
	for b.Loop() {
		before(r)
		if err := r.syncAll(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	cpu := cpuTime(b) - cpu0
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/resync")
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/resync")
}

// cpuTime is the CPU time the process used so far, user and system.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
