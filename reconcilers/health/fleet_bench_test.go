package health

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"
	clocktesting "k8s.io/utils/clock/testing"

	"herd/domain"
	"herd/events"
	"herd/projections"
	"herd/reconcilers"
)

// benchFleet is a herd with registered, reporting nodes on a fake clock.
type benchFleet struct {
	store *events.Store
	w     *projections.Writer
	view  *projections.NodeView
	clk   *clocktesting.FakeClock
}

// newBenchFleet registers nodes named node-00000… that all report once at
// the fake clock's start.
func newBenchFleet(tb testing.TB, nodes int) *benchFleet {
	tb.Helper()
	ctx := context.Background()
	store, err := events.Open(ctx, events.Config{Path: filepath.Join(tb.TempDir(), "herd.db")}, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = store.Close() })
	if err := projections.Migrate(ctx, store.Log()); err != nil {
		tb.Fatal(err)
	}
	clk := clocktesting.NewFakeClock(time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC))
	w := projections.NewWriter(store.Log(), clk, nil)
	hb := domain.RecordHeartbeat{Metrics: &domain.Metrics{CPUCount: 4, MemoryTotalBytes: 100, MemoryAvailableBytes: 50,
		DiskTotalBytes: 100, DiskAvailableBytes: 50, PIDsMax: 100, PIDsCurrent: 1}}
	for i := range nodes {
		name := benchNodeName(i)
		reg := domain.RegisterNode{Registration: domain.Registration{Name: name, Kind: domain.KindLinux}}
		if _, err := w.NodeCommands().Execute(ctx, domain.Key{Name: name}, domain.NodeSequence{reg, hb}); err != nil {
			tb.Fatal(err)
		}
	}
	return &benchFleet{store: store, w: w, view: projections.NewNodeView(store.Log()), clk: clk}
}

func benchNodeName(i int) string { return fmt.Sprintf("node-%06d", i) }

// nodeKey is the reconciler's key of the named node.
func nodeKey(name string) reconcilers.Key {
	return reconcilers.Key{Aggregate: domain.NodeAggregate, Name: name}
}

// heartbeat has the first n nodes report at the fake clock's time.
func (f *benchFleet) heartbeat(tb testing.TB, n int) {
	tb.Helper()
	hb := domain.RecordHeartbeat{Metrics: &domain.Metrics{CPUCount: 4, MemoryTotalBytes: 100, MemoryAvailableBytes: 50,
		DiskTotalBytes: 100, DiskAvailableBytes: 50, PIDsMax: 100, PIDsCurrent: 1}}
	for i := range n {
		if _, err := f.w.NodeCommands().Execute(context.Background(), domain.Key{Name: benchNodeName(i)}, hb); err != nil {
			tb.Fatal(err)
		}
	}
}

// BenchmarkReconcileNode measures one node's reconcile in a fleet of which
// 90% has just fallen silent and not been marked yet: the key a mass outage
// puts on the queue for every node.
func BenchmarkReconcileNode(b *testing.B) {
	for _, nodes := range []int{1000, 10000, 100000} {
		b.Run(fmt.Sprint(nodes), func(b *testing.B) {
			if nodes > 10000 && testing.Short() {
				b.Skip("large fleet")
			}
			f := newBenchFleet(b, nodes)
			f.clk.Step(30 * time.Second)
			f.heartbeat(b, nodes/10)
			f.clk.Step(15 * time.Second)
			r, err := New(DefaultConfig(), f.w, f.view, f.clk, zap.NewNop())
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			// The fleet is counted once, at the first need.
			if err := r.seed(ctx); err != nil {
				b.Fatal(err)
			}
			i := 0
			b.ResetTimer()
			for b.Loop() {
				if _, err := r.Reconcile(ctx, nodeKey(benchNodeName(i%nodes))); err != nil {
					b.Fatal(err)
				}
				i++
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/key")
		})
	}
}

// BenchmarkMarkSilent measures the monitor pass that finds silent of nodes
// past their deadline together and marks them: the time from the end of
// their grace period until the last of them is Unknown.
func BenchmarkMarkSilent(b *testing.B) {
	for _, c := range []struct{ nodes, silent int }{{20000, 20000}, {100000, 10000}, {100000, 100000}} {
		b.Run(fmt.Sprintf("%d-of-%d", c.silent, c.nodes), func(b *testing.B) {
			if c.nodes > 20000 && testing.Short() {
				b.Skip("large fleet")
			}
			f := newBenchFleet(b, c.nodes)
			f.clk.Step(30 * time.Second)
			// The first nodes - silent report again; the rest fall silent.
			hb := domain.RecordHeartbeat{}
			for i := range c.nodes - c.silent {
				if _, err := f.w.NodeCommands().Execute(context.Background(), domain.Key{Name: benchNodeName(c.nodes - 1 - i)}, hb); err != nil {
					b.Fatal(err)
				}
			}
			// The view as herd wires it (cmd/herd/app): nodes and leases
			// read from the command layer's memory where it holds them.
			r, err := New(DefaultConfig(), f.w, f.view.Remembering(f.w), f.clk, zap.NewNop())
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			if err := r.seed(ctx); err != nil {
				b.Fatal(err)
			}
			f.clk.Step(11 * time.Second)
			b.ResetTimer()
			for b.Loop() {
				if err := r.monitor(ctx); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(b.Elapsed().Seconds(), "s/pass")
		})
	}
}

// BenchmarkFullResync measures the health rules' full resync (every 30 s,
// and when a disruption begins or ends) in a healthy fleet of 100,000
// nodes, against reading and judging every node as it did before.
func BenchmarkFullResync(b *testing.B) {
	const nodes = 100000
	if testing.Short() {
		b.Skip("large fleet")
	}
	f := newBenchFleet(b, nodes)
	r, err := New(DefaultConfig(), f.w, f.view, f.clk, zap.NewNop())
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.Run("now", func(b *testing.B) {
		for b.Loop() {
			if err := r.syncAll(ctx); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/resync")
	})
	b.Run("every-node", func(b *testing.B) {
		for b.Loop() {
			names, err := f.view.Names(ctx)
			if err != nil {
				b.Fatal(err)
			}
			for _, name := range names {
				n, err := f.view.Get(ctx, name)
				if err != nil {
					b.Fatal(err)
				}
				if err := r.syncTaints(ctx, n, noExecute{}); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/resync")
	})
}

// BenchmarkMarkStale measures a monitor pass over 5,000 silent nodes
// that have Leases (kube-node-lease), each mark decided on its node's
// lease as last committed (a ready write that reads the lease's stream).
// In the "renewing" case every silent node's lease is renewed once while
// the pass runs, one after the other in the order the pass marks them
// (node name): a mark decided before its lease's renewal commits and
// queued behind it is stale, and runs again on the group commit's
// leader, which finds the node heard and marks nothing. stale/pass is how
// many marks went that way (the command layer's
// herd_commit_commands_redecided_total), marked how many nodes are
// Unknown after the pass; the "quiet" case is the same pass with no
// renewal, every mark committed as decided. The renewals' own writes
// share the pass's group commits and are part of its time. Run it with
// -test.benchtime 1x: a second pass finds the nodes marked.
func BenchmarkMarkStale(b *testing.B) {
	for _, c := range []struct {
		name  string
		renew bool
	}{{"quiet", false}, {"renewing", true}} {
		b.Run(fmt.Sprintf("5000-of-5000-%s", c.name), func(b *testing.B) {
			const nodes = 5000
			f := newBenchFleet(b, nodes)
			reg := prometheus.NewRegistry()
			// A writer of its own, with metrics, on the same log: its
			// memory starts empty and reads the rows the first one wrote.
			f.w = projections.NewWriter(f.store.Log(), f.clk, projections.NewMetrics(reg))
			ctx := context.Background()
			for i := range nodes {
				if err := f.renewLease(ctx, i); err != nil {
					b.Fatal(err)
				}
			}
			f.clk.Step(30 * time.Second)
			// The view as herd wires it (cmd/herd/app).
			r, err := New(DefaultConfig(), f.w, f.view.Remembering(f.w), f.clk, zap.NewNop())
			if err != nil {
				b.Fatal(err)
			}
			if err := r.seed(ctx); err != nil {
				b.Fatal(err)
			}
			f.clk.Step(11 * time.Second)
			before := redecided(b, reg)
			passes := 0
			b.ResetTimer()
			for b.Loop() {
				renewed := make(chan error, 1)
				if c.renew {
					go func() {
						for i := range nodes {
							if err := f.renewLease(ctx, i); err != nil {
								renewed <- err
								return
							}
						}
						renewed <- nil
					}()
				} else {
					renewed <- nil
				}
				if err := r.monitor(ctx); err != nil {
					b.Fatal(err)
				}
				if err := <-renewed; err != nil {
					b.Fatal(err)
				}
				passes++
			}
			b.StopTimer()
			marked := 0
			for i := range nodes {
				n, err := f.view.Get(ctx, benchNodeName(i))
				if err != nil {
					b.Fatal(err)
				}
				if ready, _ := n.Condition(domain.ConditionReady); ready.Status == domain.ConditionUnknown {
					marked++
				}
			}
			b.ReportMetric(b.Elapsed().Seconds()/float64(passes), "s/pass")
			b.ReportMetric((redecided(b, reg)-before)/float64(passes), "stale/pass")
			b.ReportMetric(float64(marked), "marked")
		})
	}
}

// redecided is the command layer's count of commands decided again on
// the leader (herd_commit_commands_redecided_total) in reg.
func redecided(tb testing.TB, reg *prometheus.Registry) float64 {
	tb.Helper()
	families, err := reg.Gather()
	if err != nil {
		tb.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == "herd_commit_commands_redecided_total" {
			return f.GetMetric()[0].GetCounter().GetValue()
		}
	}
	tb.Fatal("no herd_commit_commands_redecided_total")
	return 0
}
