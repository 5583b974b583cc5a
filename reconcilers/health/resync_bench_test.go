package health

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"go.uber.org/zap"
	clocktesting "k8s.io/utils/clock/testing"

	"herd/domain"
	"herd/projections"
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

// resyncCases are the passes BenchmarkResync measures: as herd runs them
// (a full read every fullReadEvery), and from memory alone.
var resyncCases = []resyncCase{
	{"as-run", func(*Reconciler) {}},
	{"from-memory", func(r *Reconciler) {
		r.checks.mu.Lock()
		r.checks.since = 0
		r.checks.mu.Unlock()
	}},
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

// BenchmarkRecountFromMemory measures the part of a full resync from
// memory that grows with the fleet: counting every node kept in memory
// into the fleet's count, at 10,000 and 100,000 nodes, with no view.
// Beside it, one goroutine hands the health rules a heartbeat every
// 100 µs or so (up to 10,000 a second, as the dispatcher does under
// load) and, with every tenth, a reconcile's verdict of that node, and
// the benchmark reports the longest and the mean time one of them
// waited: how long the recount holds the deadlines and the count.
func BenchmarkRecountFromMemory(b *testing.B) {
	for _, nodes := range []int{10000, 100000} {
		b.Run(fmt.Sprint(nodes), func(b *testing.B) {
			clk := clocktesting.NewFakeClock(time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC))
			r, err := New(DefaultConfig(), nil, nil, clk, zap.NewNop())
			if err != nil {
				b.Fatal(err)
			}
			ds := make([]projections.NodeDeadline, nodes)
			for i := range ds {
				ds[i] = projections.NodeDeadline{Name: benchNodeName(i), Ready: domain.ConditionTrue, LastHeartbeat: clk.Now(), RegisteredAt: clk.Now()}
			}
			r.deadlines.seed(ds)
			names := make([]string, nodes)
			for i := range names {
				names[i] = benchNodeName(i)
			}
			at := clk.Now()
			stop, done := make(chan struct{}), make(chan struct{})
			var longest, total time.Duration
			var notes int
			go func() {
				defer close(done)
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					default:
					}
					name := names[i%nodes]
					t0 := time.Now()
					r.deadlines.heartbeat(name, at)
					if i%10 == 0 {
						r.fleet.set(name, true, reachable)
					}
					w := time.Since(t0)
					total += w
					notes++
					longest = max(longest, w)
					time.Sleep(100 * time.Microsecond)
				}
			}()
			// No term began: nothing to announce.
			b.ReportAllocs()
			for b.Loop() {
				if err := r.recountFromMemory(b.Context()); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			close(stop)
			<-done
			if got := r.fleet.assessment(); got.Total != nodes {
				b.Fatalf("counted %d nodes, want %d", got.Total, nodes)
			}
			b.ReportMetric(float64(longest.Microseconds()), "longest-note-wait-µs")
			if notes > 0 {
				b.ReportMetric(float64(total.Nanoseconds())/float64(notes), "mean-note-ns")
			}
		})
	}
}

// BenchmarkDeadlinesSnapshot measures the copy a full resync from memory
// takes of the deadlines, at 10,000 and 100,000 nodes: all the time it
// holds their lock (the count's lock it holds only to put the new count
// in place, a swap and the nodes set during the pass).
func BenchmarkDeadlinesSnapshot(b *testing.B) {
	for _, nodes := range []int{10000, 100000} {
		b.Run(fmt.Sprint(nodes), func(b *testing.B) {
			now := time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)
			var d deadlines
			ds := make([]projections.NodeDeadline, nodes)
			for i := range ds {
				ds[i] = projections.NodeDeadline{Name: benchNodeName(i), Ready: domain.ConditionTrue, LastHeartbeat: now, RegisteredAt: now}
			}
			d.seed(ds)
			var buf []namedDeadline
			b.ReportAllocs()
			for b.Loop() {
				buf = d.snapshot(buf)
			}
			if len(buf) != nodes {
				b.Fatalf("copied %d deadlines, want %d", len(buf), nodes)
			}
		})
	}
}
