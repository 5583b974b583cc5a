package health

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"

	"go.uber.org/zap"

	"herd/domain"
	"herd/projections"
	"herd/reconcilers/reconcilerstest"
)

// fullReads counts the reads of the whole fleet a full resync may make.
type fullReads struct {
	View
	reads atomic.Int64
}

func (v *fullReads) NodeDeadlines(ctx context.Context) ([]projections.NodeDeadline, error) {
	v.reads.Add(1)
	return v.View.NodeDeadlines(ctx)
}

func (v *fullReads) NamesNeedingTaintCheck(ctx context.Context) ([]string, error) {
	v.reads.Add(1)
	return v.View.NamesNeedingTaintCheck(ctx)
}

// newResyncFleet is a fleet of nodes, all reporting, and its health rules
// reading it through a view that counts full reads, after the first full
// resync of the term.
func newResyncFleet(t *testing.T, nodes int) (*benchFleet, *fullReads, *Reconciler) {
	t.Helper()
	f := newBenchFleet(t, nodes)
	view := &fullReads{View: f.view}
	r, err := New(DefaultConfig(), f.w, view, f.clk, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	if err := r.syncAll(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := view.reads.Load(); got != 2 {
		t.Fatalf("the first full resync read the fleet %d times, want 2 (the deadlines, the nodes to check)", got)
	}
	return f, view, r
}

// markWithoutTaints leaves node name's conditions Unknown and none of its
// unreachable taints on: marked, then the taints taken off by hand.
func markWithoutTaints(t *testing.T, f *benchFleet, name string) {
	t.Helper()
	if _, err := f.w.NodeCommands().Execute(t.Context(), domain.Key{Name: name},
		reconcilerstest.MarkSilent(domain.UntaintNode{Key: domain.TaintUnreachable})); err != nil {
		t.Fatal(err)
	}
	if got := unreachableTaints(t, f, name); len(got) > 0 {
		t.Fatalf("%s still has its unreachable taints %v", name, got)
	}
}

// unreachableTaints are node name's unreachable taints' effects, in order.
func unreachableTaints(t *testing.T, f *benchFleet, name string) []domain.TaintEffect {
	t.Helper()
	n, err := f.view.Get(t.Context(), name)
	if err != nil {
		t.Fatal(err)
	}
	var out []domain.TaintEffect
	for _, tn := range n.Taints {
		if tn.Key == domain.TaintUnreachable {
			out = append(out, tn.Effect)
		}
	}
	slices.Sort(out)
	return out
}

// TestLaterFullResyncsDecideFromMemory: after the first full resync of a
// term, a full resync neither lists the fleet's deadlines nor asks the
// view which nodes to check; it counts the fleet and finds the node whose
// taints do not follow its conditions from what the reconciles noted, and
// syncs that node's taints as a full read would.
func TestLaterFullResyncsDecideFromMemory(t *testing.T) {
	const nodes = 10
	f, view, r := newResyncFleet(t, nodes)
	ctx := t.Context()
	name := benchNodeName(3)
	markWithoutTaints(t, f, name)
	// Its reconcile read it, and stopped before syncing its taints.
	n, err := heard(ctx, f.view, name)
	if err != nil {
		t.Fatal(err)
	}
	r.observe(n, name, f.clk.Now())

	view.reads.Store(0)
	if err := r.syncAll(ctx); err != nil {
		t.Fatal(err)
	}
	if got := view.reads.Load(); got != 0 {
		t.Errorf("the second full resync read the fleet %d times, want none", got)
	}
	if got, want := unreachableTaints(t, f, name), []domain.TaintEffect{domain.EffectNoExecute, domain.EffectNoSchedule}; !slices.Equal(got, want) {
		t.Errorf("%s's unreachable taints after the resync from memory: %v, want %v", name, got, want)
	}
	if got, want := r.fleet.assessment(), (domain.AssessFleet{Unreachable: 1, Total: nodes}); got != want {
		t.Errorf("the fleet counted from memory: %+v, want %+v", got, want)
	}
}

// TestPeriodicFullReadCorrectsWhatMemoryMissed: a change the health rules
// never saw (here, conditions written with no event handed over) is not
// in memory, so the full resyncs from memory leave it; every
// fullReadEvery-th full resync reads the fleet from the view, finds it,
// and syncs its taints.
func TestPeriodicFullReadCorrectsWhatMemoryMissed(t *testing.T) {
	const nodes = 10
	f, view, r := newResyncFleet(t, nodes)
	ctx := t.Context()
	name := benchNodeName(5)
	markWithoutTaints(t, f, name)
	view.reads.Store(0)
	for i := 1; i < fullReadEvery; i++ {
		if err := r.syncAll(ctx); err != nil {
			t.Fatal(err)
		}
		if got := view.reads.Load(); got != 0 {
			t.Fatalf("full resync %d after the first read the fleet %d times, want none before the %dth", i, got, fullReadEvery)
		}
		if got := unreachableTaints(t, f, name); len(got) > 0 {
			t.Fatalf("full resync %d from memory tainted %s (%v), which it never saw change", i, name, got)
		}
	}
	if err := r.syncAll(ctx); err != nil {
		t.Fatal(err)
	}
	if got := view.reads.Load(); got != 2 {
		t.Errorf("the %dth full resync read the fleet %d times, want 2", fullReadEvery, got)
	}
	if got, want := unreachableTaints(t, f, name), []domain.TaintEffect{domain.EffectNoExecute, domain.EffectNoSchedule}; !slices.Equal(got, want) {
		t.Errorf("%s's unreachable taints after the full read: %v, want %v", name, got, want)
	}
	if got, want := r.fleet.assessment(), (domain.AssessFleet{Unreachable: 1, Total: nodes}); got != want {
		t.Errorf("the fleet counted by the full read: %+v, want %+v", got, want)
	}
}

// TestNewTermReadsInFull: a replica taking the rules over (or herd
// starting again) reads the fleet in full on its next full resync, what
// it kept in memory before being of another term.
func TestNewTermReadsInFull(t *testing.T) {
	f, view, r := newResyncFleet(t, 4)
	ctx := t.Context()
	r.BeginTerm(f.clk.Now())
	view.reads.Store(0)
	if err := r.syncAll(ctx); err != nil {
		t.Fatal(err)
	}
	if got := view.reads.Load(); got != 2 {
		t.Errorf("the first full resync of a new term read the fleet %d times, want 2", got)
	}
}

// TestMemoryNamesTheNodesTheIndexNames: the nodes the memory would have a
// full resync check are those nodes_needing_taint_check names, node by
// node, whatever their conditions and taints.
func TestMemoryNamesTheNodesTheIndexNames(t *testing.T) {
	const nodes = 8
	f := newBenchFleet(t, nodes)
	ctx := t.Context()
	exec := func(i int, cmd domain.NodeCommand) {
		t.Helper()
		if _, err := f.w.NodeCommands().Execute(ctx, domain.Key{Name: benchNodeName(i)}, cmd); err != nil {
			t.Fatal(err)
		}
	}
	// 0 reports and has nothing to check.
	markWithoutTaints(t, f, benchNodeName(1)) // Ready Unknown, no taint
	exec(2, reconcilerstest.MarkSilent(domain.SyncConditionTaints{}))
	exec(3, domain.TaintNode{Taint: domain.Taint{Key: "node.kubernetes.io/out-of-service", Effect: domain.EffectNoExecute}})
	exec(4, domain.TaintNode{Taint: domain.Taint{Key: "example.com/dedicated", Effect: domain.EffectNoSchedule}})
	exec(5, domain.RecordHeartbeat{Metrics: &domain.Metrics{CPUCount: 4, MemoryTotalBytes: 100, MemoryAvailableBytes: 1,
		DiskTotalBytes: 100, DiskAvailableBytes: 50, PIDsMax: 100, PIDsCurrent: 1}})
	exec(6, domain.DeleteNode{})
	// 7 registered with a taint check that cleared: Unknown, then back.
	exec(7, reconcilerstest.MarkSilent(domain.SyncConditionTaints{}))
	exec(7, domain.NodeSequence{domain.RecordHeartbeat{Metrics: &domain.Metrics{CPUCount: 4, MemoryTotalBytes: 100, MemoryAvailableBytes: 50,
		DiskTotalBytes: 100, DiskAvailableBytes: 50, PIDsMax: 100, PIDsCurrent: 1}}, domain.SyncConditionTaints{}})

	want, err := f.view.NamesNeedingTaintCheck(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i := range nodes {
		n, err := heard(ctx, f.view, benchNodeName(i))
		if err != nil {
			t.Fatal(err)
		}
		if needsTaintCheck(n) {
			got = append(got, benchNodeName(i))
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("the memory would check %v, the index names %v", got, want)
	}
	// The states above are those meant: the comparison covers each case.
	for _, i := range []int{1, 2, 3, 5} {
		if !slices.Contains(want, benchNodeName(i)) {
			t.Errorf("the index does not name %s: the case was not set up", benchNodeName(i))
		}
	}
	for _, i := range []int{0, 4, 6, 7} {
		if slices.Contains(want, benchNodeName(i)) {
			t.Errorf("the index names %s: the case was not set up", benchNodeName(i))
		}
	}
}
