package health

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"

	"herd/domain"
)

// TestTheEvictionRateTaintsOneNodeAtATime: under --node-eviction-rate
// 0.1, four of ten nodes falling silent together are all marked at once,
// but get their NoExecute taints one every ten seconds, in the order of
// their names; a waiting node that reports again leaves the queue
// without using a turn, and the next gets it.
func TestTheEvictionRateTaintsOneNodeAtATime(t *testing.T) {
	f := newBenchFleet(t, 10)
	cfg := DefaultConfig()
	cfg.EvictionRate = 0.1
	r, err := New(cfg, f.w, f.view, f.clk, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	// tainted lists the silent nodes that carry the unreachable
	// NoExecute taint, and those marked.
	tainted := func() (noExecute, marked []int) {
		t.Helper()
		for i := 6; i < 10; i++ {
			n, err := f.view.Get(ctx, benchNodeName(i))
			if err != nil {
				t.Fatal(err)
			}
			if ready, _ := n.Condition(domain.ConditionReady); ready.Status == domain.ConditionUnknown {
				marked = append(marked, i)
			}
			if n.HasTaint(domain.TaintUnreachable, domain.EffectNoExecute) {
				noExecute = append(noExecute, i)
			}
		}
		return noExecute, marked
	}
	pass := func() time.Duration {
		t.Helper()
		res, err := r.Reconcile(ctx, keyEvictions)
		if err != nil {
			t.Fatal(err)
		}
		return res.RequeueAfter
	}
	for range 8 {
		f.clk.Step(5 * time.Second)
		f.heartbeat(t, 6)
	}
	f.clk.Step(5 * time.Second)
	f.heartbeat(t, 6)
	if err := r.monitor(ctx); err != nil {
		t.Fatal(err)
	}
	if got, marked := tainted(); len(got) != 1 || got[0] != 6 || len(marked) != 4 {
		t.Fatalf("right after the marks %v carry NoExecute and %v are marked, want the first by name alone and all four", got, marked)
	}
	if wait := pass(); wait <= 0 || wait > 10*time.Second {
		t.Errorf("the pass after the first taint comes back in %s, want within the rate's 10 s", wait)
	}
	f.clk.Step(10 * time.Second)
	f.heartbeat(t, 6)
	if wait := pass(); wait <= 0 {
		t.Errorf("with two nodes still waiting the pass does not come back")
	}
	if got, _ := tainted(); len(got) != 2 || got[1] != 7 {
		t.Fatalf("ten seconds on %v carry NoExecute, want nodes 6 and 7", got)
	}
	// Node 8 reports again while it waits: node 9 gets the next turn.
	if _, err := f.w.NodeCommands().Execute(ctx, domain.Key{Name: benchNodeName(8)}, domain.RecordHeartbeat{Metrics: &domain.Metrics{CPUCount: 4,
		MemoryTotalBytes: 100, MemoryAvailableBytes: 50, DiskTotalBytes: 100, DiskAvailableBytes: 50, PIDsMax: 100, PIDsCurrent: 1}}); err != nil {
		t.Fatal(err)
	}
	f.clk.Step(10 * time.Second)
	f.heartbeat(t, 6)
	if wait := pass(); wait != 0 {
		t.Errorf("with no node waiting the pass comes back in %s", wait)
	}
	if got, _ := tainted(); len(got) != 3 || got[2] != 9 {
		t.Fatalf("twenty seconds on %v carry NoExecute, want 6, 7 and 9 (8 reported again)", got)
	}
}

// TestWithoutAnEvictionRateEveryNodeIsTaintedAtOnce: herd's default.
func TestWithoutAnEvictionRateEveryNodeIsTaintedAtOnce(t *testing.T) {
	f := newBenchFleet(t, 10)
	r, err := New(DefaultConfig(), f.w, f.view, f.clk, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	for range 9 {
		f.clk.Step(5 * time.Second)
		f.heartbeat(t, 6)
	}
	if err := r.monitor(t.Context()); err != nil {
		t.Fatal(err)
	}
	for i := 6; i < 10; i++ {
		n, err := f.view.Get(t.Context(), benchNodeName(i))
		if err != nil {
			t.Fatal(err)
		}
		if !n.HasTaint(domain.TaintUnreachable, domain.EffectNoExecute) {
			t.Errorf("node %d has %v, want the unreachable NoExecute taint at once", i, n.Taints)
		}
	}
}

func TestTheEvictionRateIsChecked(t *testing.T) {
	cfg := DefaultConfig()
	for _, bad := range []float64{-1, math.Inf(1)} {
		cfg.EvictionRate = bad
		if err := cfg.Validate(); err == nil {
			t.Errorf("--node-eviction-rate %v accepted", bad)
		}
	}
}

// TestAPartialDisruptionOfALargeFleetSlowsTheTaints: 40 of 60 nodes
// falling silent together is a disruption (two thirds, past 0.55). In a
// fleet of more than --large-fleet-size-threshold nodes that still has
// reachable ones, Kubernetes' node lifecycle controller slows its
// evictions to --secondary-node-eviction-rate rather than stopping them,
// and so does herd: one node gets its NoExecute taint at once, the next
// 100 s later at 0.01 a second, and the marks say so. In a fleet no
// larger than the threshold, or with no secondary rate, or with every
// node silent, the taints are withheld.
func TestAPartialDisruptionOfALargeFleetSlowsTheTaints(t *testing.T) {
	const nodes, reporting = 60, 20
	run := func(t *testing.T, cfg Config, reporting int) (*benchFleet, *Reconciler) {
		t.Helper()
		f := newBenchFleet(t, nodes)
		r, err := New(cfg, f.w, f.view, f.clk, zap.NewNop())
		if err != nil {
			t.Fatal(err)
		}
		for range 9 {
			f.clk.Step(5 * time.Second)
			f.heartbeat(t, reporting)
		}
		if err := r.monitor(t.Context()); err != nil {
			t.Fatal(err)
		}
		return f, r
	}
	// tainted are the silent nodes that carry the unreachable NoExecute
	// taint; every silent one must be marked, and its mark say why.
	tainted := func(t *testing.T, f *benchFleet, wantNote string) (got []int) {
		t.Helper()
		for i := reporting; i < nodes; i++ {
			n, err := f.view.Get(t.Context(), benchNodeName(i))
			if err != nil {
				t.Fatal(err)
			}
			ready, _ := n.Condition(domain.ConditionReady)
			if ready.Status != domain.ConditionUnknown || !strings.Contains(ready.Message, wantNote) {
				t.Fatalf("node %d: Ready %s %q, want Unknown saying %q", i, ready.Status, ready.Message, wantNote)
			}
			if n.HasTaint(domain.TaintUnreachable, domain.EffectNoExecute) {
				got = append(got, i)
			}
		}
		return got
	}

	t.Run("slowed", func(t *testing.T) {
		f, r := run(t, DefaultConfig(), reporting)
		if got := tainted(t, f, "slows NoExecute taints to 0.01 nodes a second"); !slices.Equal(got, []int{20}) {
			t.Fatalf("right after the marks %v carry NoExecute, want the first by name alone", got)
		}
		res, err := r.Reconcile(t.Context(), keyEvictions)
		if err != nil {
			t.Fatal(err)
		}
		if res.RequeueAfter < 90*time.Second || res.RequeueAfter > 100*time.Second {
			t.Errorf("the next turn comes in %s, want within the secondary rate's 100 s", res.RequeueAfter)
		}
		for range 20 {
			f.clk.Step(5 * time.Second)
			f.heartbeat(t, reporting)
		}
		if _, err := r.Reconcile(t.Context(), keyEvictions); err != nil {
			t.Fatal(err)
		}
		if got := tainted(t, f, "slows"); !slices.Equal(got, []int{20, 21}) {
			t.Fatalf("100 s on %v carry NoExecute, want nodes 20 and 21", got)
		}
	})
	withheld := func(name string, cfg Config, reporting int) {
		t.Run(name, func(t *testing.T) {
			f, _ := run(t, cfg, reporting)
			if got := tainted(t, f, "withholds NoExecute taints"); len(got) != 0 {
				t.Fatalf("%v carry NoExecute, want none", got)
			}
		})
	}
	small := DefaultConfig()
	small.LargeFleetThreshold = nodes
	withheld("a fleet no larger than the threshold", small, reporting)
	none := DefaultConfig()
	none.SecondaryEvictionRate = 0
	withheld("no secondary rate", none, reporting)
	withheld("every node silent", DefaultConfig(), 0)
}

// TestADisruptionKeepsTheTaintsPresentUnlessEveryNodeIsSilent: as
// Kubernetes treats a zone in partial disruption, herd adds no NoExecute
// taint once most of a small fleet is silent, but a node tainted before
// keeps its taint; only when every node is silent, as in Kubernetes' full
// disruption of every zone, do the taints present come off.
func TestADisruptionKeepsTheTaintsPresentUnlessEveryNodeIsSilent(t *testing.T) {
	f := newBenchFleet(t, 10)
	r, err := New(DefaultConfig(), f.w, f.view, f.clk, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	noExecute := func() (got []int) {
		t.Helper()
		for i := range 10 {
			n, err := f.view.Get(ctx, benchNodeName(i))
			if err != nil {
				t.Fatal(err)
			}
			if n.HasTaint(domain.TaintUnreachable, domain.EffectNoExecute) {
				got = append(got, i)
			}
		}
		return got
	}
	pass := func(reporting int) {
		t.Helper()
		f.clk.Step(5 * time.Second)
		f.heartbeat(t, reporting)
		if err := r.monitor(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := r.Reconcile(ctx, keyAll); err != nil {
			t.Fatal(err)
		}
	}
	// Node 9 falls silent alone: one of ten, tainted.
	for range 9 {
		pass(9)
	}
	if got := noExecute(); !slices.Equal(got, []int{9}) {
		t.Fatalf("node 9 silent alone: %v carry NoExecute, want 9", got)
	}
	// Six more: seven of ten, a disruption of a small fleet.
	for range 9 {
		pass(3)
	}
	if got := noExecute(); !slices.Equal(got, []int{9}) {
		t.Fatalf("seven of ten silent: %v carry NoExecute, want node 9 alone, which had it before", got)
	}
	// Every node silent: the taints present come off.
	for range 9 {
		pass(0)
	}
	if got := noExecute(); len(got) != 0 {
		t.Fatalf("every node silent: %v carry NoExecute, want none", got)
	}
}
