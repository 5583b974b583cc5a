package health

import (
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap"
	clocktesting "k8s.io/utils/clock/testing"

	"herd/domain"
	"herd/projections"
)

// hookArrivals knows of no heartbeat beyond the log; it counts the nodes
// it is asked about and runs during, if set, on the first.
type hookArrivals struct {
	asked  atomic.Int64
	during func()
}

func (a *hookArrivals) LastArrival(string, time.Time) time.Time {
	if a.asked.Add(1) == 1 && a.during != nil {
		a.during()
	}
	return time.Time{}
}

// countedBacklog is a write path never behind that counts its readings.
type countedBacklog struct{ asked atomic.Int64 }

func (b *countedBacklog) Oldest() time.Duration {
	b.asked.Add(1)
	return 0
}

// newRecountRules is health rules with nodes node-000000… in memory, the
// first silent of them past their deadline and the rest heard just now,
// and no view: what a full resync from memory counts.
func newRecountRules(t *testing.T, nodes, silentNodes int, opts ...Option) (*Reconciler, *clocktesting.FakeClock) {
	t.Helper()
	start := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	clk := clocktesting.NewFakeClock(start)
	r, err := New(DefaultConfig(), nil, nil, clk, zap.NewNop(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	clk.Step(time.Hour)
	ds := make([]projections.NodeDeadline, nodes)
	for i := range ds {
		hb := clk.Now()
		if i < silentNodes {
			hb = start
		}
		ds[i] = projections.NodeDeadline{Name: benchNodeName(i), Ready: domain.ConditionTrue, LastHeartbeat: hb, RegisteredAt: start}
	}
	r.deadlines.seed(ds)
	return r, clk
}

// TestARecountAsksForArrivalsOnlyOfNodesSilentInTheLog: a full resync
// from memory reads how far herd's writes are behind once, and asks for
// heartbeats not written yet only of the nodes the written ones leave
// silent, not of every node.
func TestARecountAsksForArrivalsOnlyOfNodesSilentInTheLog(t *testing.T) {
	arrivals, backlog := &hookArrivals{}, &countedBacklog{}
	r, _ := newRecountRules(t, 100, 3, WithArrivals(arrivals), WithBacklog(backlog))
	if err := r.recountFromMemory(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := r.fleet.assessment(); got != (domain.AssessFleet{Unreachable: 3, Total: 100}) {
		t.Fatalf("count = %+v, want 3 of 100 unreachable", got)
	}
	if got := arrivals.asked.Load(); got != 3 {
		t.Errorf("arrivals asked of %d nodes, want 3 (the silent ones)", got)
	}
	if got := backlog.asked.Load(); got != 1 {
		t.Errorf("write backlog read %d times in one pass, want 1", got)
	}
}

// TestANodeHeardDuringARecountKeepsItsVerdict: a node that reports while
// a full resync counts the fleet from a copy of the deadlines taken
// before that report is counted reachable when the count is put in
// place: the reconcile's verdict is newer than the copy's.
func TestANodeHeardDuringARecountKeepsItsVerdict(t *testing.T) {
	arrivals := &hookArrivals{}
	r, clk := newRecountRules(t, 10, 1, WithArrivals(arrivals))
	// The first (only) node the arrivals are asked about is node 0, the
	// silent one: as the recount classifies it from its copy, its
	// reconcile reads it reporting.
	arrivals.during = func() {
		n := domain.Node{Name: benchNodeName(0), Version: 2, RegisteredAt: clk.Now().Add(-time.Hour), LastHeartbeat: clk.Now(),
			Conditions: []domain.Condition{{Type: domain.ConditionReady, Status: domain.ConditionTrue}}}
		r.observe(n, n.Name, clk.Now())
	}
	if err := r.recountFromMemory(t.Context()); err != nil {
		t.Fatal(err)
	}
	if arrivals.asked.Load() == 0 {
		t.Fatal("the recount never asked about node 0: the test heard nothing during it")
	}
	if got := r.fleet.assessment(); got != (domain.AssessFleet{Unreachable: 0, Total: 10}) {
		t.Errorf("count after node 0 reported during the recount = %+v, want 0 of 10 unreachable", got)
	}
	if got := r.fleet.silentNames(); len(got) != 0 {
		t.Errorf("silent after the recount: %v, want none", got)
	}
	// The next recount, from the deadlines as they are now, agrees.
	if err := r.recountFromMemory(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := r.fleet.assessment(); got != (domain.AssessFleet{Unreachable: 0, Total: 10}) {
		t.Errorf("count on the next recount = %+v, want 0 of 10 unreachable", got)
	}
}

// TestARecountOvertakenByAResetIsDropped: a term that ends while a full
// resync counts the fleet leaves the count forgotten, to be read afresh;
// the recount does not put back the count of a term that ended.
func TestARecountOvertakenByAResetIsDropped(t *testing.T) {
	arrivals := &hookArrivals{}
	r, _ := newRecountRules(t, 10, 1, WithArrivals(arrivals))
	arrivals.during = r.fleet.reset
	if err := r.recountFromMemory(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !r.fleet.needsSeed() {
		t.Errorf("after a reset during the recount the count is %+v, want it forgotten", r.fleet.assessment())
	}
	// The recount after it counts as usual.
	arrivals.during = nil
	if err := r.recountFromMemory(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := r.fleet.assessment(); got != (domain.AssessFleet{Unreachable: 1, Total: 10}) {
		t.Errorf("count on the next recount = %+v, want 1 of 10 unreachable", got)
	}
}

// TestAMarkedNodeLosesItsOtherConditionTaintsInTheSameUpdate: a node
// under memory pressure, tainted for it, that falls silent is marked
// with its pressure taint taken off (MemoryPressure is Unknown) and its
// unreachable taints on, in one update; a node with no condition taint
// gets its unreachable taints from the mark alone.
func TestAMarkedNodeLosesItsOtherConditionTaintsInTheSameUpdate(t *testing.T) {
	f := newBenchFleet(t, 10)
	r, err := New(DefaultConfig(), f.w, f.view.Remembering(f.w), f.clk, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	pressed := benchNodeName(0)
	if _, err := f.w.NodeCommands().Execute(ctx, domain.Key{Name: pressed}, domain.RecordHeartbeat{Reported: []domain.ReportedCondition{
		{Type: domain.ConditionReady, Status: domain.ConditionTrue},
		{Type: domain.ConditionMemoryPressure, Status: domain.ConditionTrue},
	}}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Reconcile(ctx, nodeKey(pressed)); err != nil {
		t.Fatal(err)
	}
	taints := func(name string) map[string][]domain.TaintEffect {
		t.Helper()
		n, err := f.view.Get(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string][]domain.TaintEffect{}
		for _, tn := range n.Taints {
			out[tn.Key] = append(out[tn.Key], tn.Effect)
		}
		return out
	}
	if got := taints(pressed); len(got[domain.TaintMemoryPressure]) != 1 {
		t.Fatalf("%s under memory pressure has taints %v, want its memory-pressure taint", pressed, got)
	}
	// Nodes 0 and 1 fall silent; the rest of the fleet reports.
	f.clk.Step(30 * time.Second)
	for i := 2; i < 10; i++ {
		if _, err := f.w.NodeCommands().Execute(ctx, domain.Key{Name: benchNodeName(i)}, domain.RecordHeartbeat{}); err != nil {
			t.Fatal(err)
		}
	}
	f.clk.Step(11 * time.Second)
	if err := r.monitor(ctx); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{pressed, benchNodeName(1)} {
		got := taints(name)
		if len(got[domain.TaintMemoryPressure]) != 0 || len(got[domain.TaintUnreachable]) != 2 || len(got) != 1 {
			t.Errorf("%s marked has taints %v, want the unreachable ones (NoSchedule, NoExecute) alone", name, got)
		}
	}
}
