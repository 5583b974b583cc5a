package health

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/zap"

	"herd/domain"
	"herd/projections"
)

// countingView counts the rows the reconciler reads through its View.
type countingView struct {
	View
	rows atomic.Int64
}

var _ View = (*countingView)(nil)

func (v *countingView) Get(ctx context.Context, name string) (domain.Node, error) {
	v.rows.Add(1)
	return v.View.Get(ctx, name)
}

func (v *countingView) FleetHealth(ctx context.Context) (domain.FleetHealth, error) {
	v.rows.Add(1)
	return v.View.FleetHealth(ctx)
}

func (v *countingView) NodeDeadlines(ctx context.Context) ([]projections.NodeDeadline, error) {
	out, err := v.View.NodeDeadlines(ctx)
	v.rows.Add(int64(len(out)))
	return out, err
}

func (v *countingView) NamesNeedingTaintCheck(ctx context.Context) ([]string, error) {
	out, err := v.View.NamesNeedingTaintCheck(ctx)
	v.rows.Add(int64(len(out)))
	return out, err
}

// reads is what one reconcile read, in rows.
type reads struct {
	Node    int64 // the reconcile of the one node still reporting
	Silent  int64 // a silent node's reconcile, before the monitor marks it
	Monitor int64 // a monitor pass, beyond the one row of each node it finds silent
}

// TestReadsDoNotGrowWithTheFleet fails when reconciling one node reads more
// of a fleet of 10,000 nodes than of a fleet of 10, or when a monitor pass
// reads more than the nodes it finds silent: the cost per key must not
// grow with the fleet. The fleet is in the state of the issue that asked
// for this: all but one node have just fallen silent and none is marked
// yet, so a reconcile that looked for the silent nodes itself would read
// them all.
func TestReadsDoNotGrowWithTheFleet(t *testing.T) {
	measure := func(t *testing.T, nodes int) reads {
		f := newBenchFleet(t, nodes)
		view := &countingView{View: f.view}
		// Both fleets large, so that both are disrupted alike: the
		// NoExecute taints slowed to the secondary rate, not withheld.
		cfg := DefaultConfig()
		cfg.LargeFleetThreshold = 5
		r, err := New(cfg, f.w, view, f.clk, zap.NewNop())
		if err != nil {
			t.Fatal(err)
		}
		ctx := t.Context()
		// Counting the fleet once, at the first need, is the one read
		// of every node.
		if err := r.monitor(ctx); err != nil {
			t.Fatal(err)
		}
		f.clk.Step(30 * time.Second)
		if _, err := f.w.NodeCommands().Execute(ctx, domain.Key{Name: benchNodeName(1)}, domain.RecordHeartbeat{}); err != nil {
			t.Fatal(err)
		}
		f.clk.Step(15 * time.Second)
		var got reads
		count := func(into *int64, do func() error) {
			view.rows.Store(0)
			if err := do(); err != nil {
				t.Fatal(err)
			}
			*into = view.rows.Load()
		}
		count(&got.Node, func() error { _, err := r.Reconcile(ctx, nodeKey(benchNodeName(1))); return err })
		count(&got.Silent, func() error { _, err := r.Reconcile(ctx, nodeKey(benchNodeName(0))); return err })
		count(&got.Monitor, func() error { return r.monitor(ctx) })
		got.Monitor -= int64(nodes - 1)
		for _, i := range []int{0, nodes - 1} {
			n, err := f.view.Get(ctx, benchNodeName(i))
			if err != nil {
				t.Fatal(err)
			}
			if c, _ := n.Condition(domain.ConditionReady); c.Status != domain.ConditionUnknown {
				t.Fatalf("%d nodes: %s's Ready is %q, want Unknown", nodes, n.Name, c.Status)
			}
		}
		return got
	}
	small := measure(t, 10)
	large := measure(t, 10000)
	if diff := cmp.Diff(small, large); diff != "" {
		t.Errorf("rows read with 10,000 nodes differ from those with 10 (-10 +10000):\n%s", diff)
	}
	if small.Node > 4 || small.Silent > 4 || small.Monitor > 4 {
		t.Errorf("rows read %+v: want at most 4 for any of them", small)
	}
	t.Logf("rows read: %+v", small)
}

// TestDeadlinesFedByTheDispatcherNeedNoReads: the heartbeats the
// dispatcher hands over (KeysFor) move the deadlines kept in memory, so a
// monitor pass over a fleet that keeps reporting reads no node at all;
// only a node the memory thinks silent is read, to confirm it.
func TestDeadlinesFedByTheDispatcherNeedNoReads(t *testing.T) {
	const nodes = 100
	f := newBenchFleet(t, nodes)
	view := &countingView{View: f.view}
	r, err := New(DefaultConfig(), f.w, view, f.clk, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	if err := r.monitor(ctx); err != nil { // the seed: one read of the fleet
		t.Fatal(err)
	}
	from, err := f.store.Head(ctx, f.store.DB())
	if err != nil {
		t.Fatal(err)
	}
	f.clk.Step(30 * time.Second)
	f.heartbeat(t, nodes)
	recs, err := f.store.ReadAfter(ctx, f.store.DB(), from, 10*nodes)
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range recs {
		if keys := r.Watches().KeysFor(rec); len(keys) > 0 {
			t.Fatalf("a plain heartbeat asked for a reconcile of %v", keys)
		}
	}
	f.clk.Step(30 * time.Second) // past the registration's grace, not the heartbeats'
	view.rows.Store(0)
	if err := r.monitor(ctx); err != nil {
		t.Fatal(err)
	}
	if got := view.rows.Load(); got > 1 {
		t.Errorf("a monitor pass over %d nodes that all reported read %d rows, want at most the fleet's health row", nodes, got)
	}
	for i := range nodes {
		n, err := f.view.Get(ctx, benchNodeName(i))
		if err != nil {
			t.Fatal(err)
		}
		if c, _ := n.Condition(domain.ConditionReady); c.Status == domain.ConditionUnknown {
			t.Fatalf("%s was marked though it reported", n.Name)
		}
	}
}
