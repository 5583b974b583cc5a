package health

import (
	"testing"
	"time"

	"go.uber.org/zap"

	"herd/domain"
)

// TestTheCountFollowsASilentNodeThatReportsAgain: a node past its deadline
// counts as unreachable before it is marked; when it reports again before
// the monitor marks it (a plain heartbeat, which calls for no reconcile),
// the next monitor pass counts it reachable again.
func TestTheCountFollowsASilentNodeThatReportsAgain(t *testing.T) {
	f := newBenchFleet(t, 4)
	r, err := New(DefaultConfig(), f.w, f.view, f.clk, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	report := func(i int) {
		t.Helper()
		if _, err := f.w.NodeCommands().Execute(ctx, domain.Key{Name: benchNodeName(i)}, domain.RecordHeartbeat{}); err != nil {
			t.Fatal(err)
		}
	}
	f.clk.Step(30 * time.Second)
	for i := 1; i < 4; i++ {
		report(i)
	}
	f.clk.Step(11 * time.Second)
	if _, err := r.Reconcile(ctx, nodeKey(benchNodeName(0))); err != nil {
		t.Fatal(err)
	}
	if got := r.fleet.assessment(); got != (domain.AssessFleet{Unreachable: 1, Total: 4}) {
		t.Fatalf("count with node 0 silent = %+v, want 1 of 4 unreachable", got)
	}
	report(0)
	if err := r.monitor(ctx); err != nil {
		t.Fatal(err)
	}
	if got := r.fleet.assessment(); got != (domain.AssessFleet{Unreachable: 0, Total: 4}) {
		t.Errorf("count after node 0 reported again = %+v, want 0 of 4 unreachable", got)
	}
}
