package health

import (
	"math"
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
