package projections

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"herd/domain"
)

func TestDrainingAndNoExecuteQueries(t *testing.T) {
	w, store, clk := newWriter(t)
	ctx := t.Context()
	for _, name := range []string{"draining", "drained", "no-execute", "no-schedule", "gone", "plain"} {
		do(t, w, clk, name, register(name, domain.KindLinux))
	}
	do(t, w, clk, "draining", domain.DrainNode{})
	do(t, w, clk, "drained", domain.DrainNode{})
	do(t, w, clk, "drained", domain.MarkNodeDrained{})
	do(t, w, clk, "no-execute", domain.TaintNode{Taint: domain.Taint{Key: "example.com/gpu", Effect: domain.EffectNoExecute}})
	do(t, w, clk, "no-schedule", domain.TaintNode{Taint: domain.Taint{Key: "example.com/gpu", Effect: domain.EffectNoSchedule}})
	do(t, w, clk, "gone", domain.TaintNode{Taint: domain.Taint{Key: "example.com/gpu", Effect: domain.EffectNoExecute}})
	do(t, w, clk, "gone", domain.DrainNode{})
	do(t, w, clk, "gone", domain.DeleteNode{})
	v := NewNodeView(store.Log())

	draining, err := v.Draining(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, n := range draining {
		names = append(names, n.Name)
	}
	if diff := cmp.Diff([]string{"draining"}, names); diff != "" {
		t.Errorf("Draining (-want +got):\n%s", diff)
	}
	noExecute, err := v.NamesWithNoExecute(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"no-execute"}, noExecute); diff != "" {
		t.Errorf("NamesWithNoExecute (-want +got):\n%s", diff)
	}
	check, err := v.NamesNeedingTaintCheck(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// None reported, so Ready is not True on any of them.
	if diff := cmp.Diff([]string{"drained", "draining", "no-execute", "no-schedule", "plain"}, check); diff != "" {
		t.Errorf("NamesNeedingTaintCheck (-want +got):\n%s", diff)
	}
	do(t, w, clk, "no-execute", domain.UntaintNode{Key: "example.com/gpu", Effect: domain.EffectNoExecute})
	if noExecute, err = v.NamesWithNoExecute(ctx); err != nil || len(noExecute) != 0 {
		t.Errorf("NamesWithNoExecute after the untaint = %v, %v; want none", noExecute, err)
	}
}

// markSilent is the health rules' mark of a node silent since its last
// report, judged by it.
func markSilent() domain.NodeCommand {
	return domain.NodeFrom(func(n domain.Node) (domain.NodeCommand, error) {
		return domain.MarkNodeUnreachable{LastHeard: n.LastHeartbeat}, nil
	})
}

func TestNamesNeedingTaintCheck(t *testing.T) {
	w, store, clk := newWriter(t)
	ready := domain.RecordHeartbeat{Reported: []domain.ReportedCondition{{Type: domain.ConditionReady, Status: domain.ConditionTrue}}}
	for _, name := range []string{"healthy", "pressure", "tainted", "not-ready"} {
		do(t, w, clk, name, register(name, domain.KindLinux))
		do(t, w, clk, name, ready)
	}
	do(t, w, clk, "pressure", domain.RecordHeartbeat{Reported: []domain.ReportedCondition{
		{Type: domain.ConditionReady, Status: domain.ConditionTrue}, {Type: domain.ConditionDiskPressure, Status: domain.ConditionTrue}}})
	// Ready again, its unreachable taint not yet taken off.
	do(t, w, clk, "tainted", markSilent())
	do(t, w, clk, "tainted", domain.SyncConditionTaints{})
	do(t, w, clk, "tainted", ready)
	do(t, w, clk, "not-ready", markSilent())
	got, err := NewNodeView(store.Log()).NamesNeedingTaintCheck(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"not-ready", "pressure", "tainted"}, got); diff != "" {
		t.Errorf("NamesNeedingTaintCheck (-want +got):\n%s", diff)
	}
}

// BenchmarkNodeQueries compares what the drain and NoExecute reconcilers
// read to find their nodes in a fleet of 100,000: every node decoded
// (List, as they did) against the partial indexes (Draining,
// NamesWithNoExecute), with ten nodes draining and ten NoExecute-tainted.
func BenchmarkNodeQueries(b *testing.B) {
	const nodes = 100000
	w, store, _ := newWriter(b)
	ctx := context.Background()
	for i := range nodes {
		name := fmt.Sprintf("node-%06d", i)
		cmds := []domain.NodeCommand{register(name, domain.KindLinux), metrics(500)}
		switch i % 10000 {
		case 1:
			cmds = append(cmds, domain.DrainNode{})
		case 2:
			cmds = append(cmds, domain.TaintNode{Taint: domain.Taint{Key: "example.com/gpu", Effect: domain.EffectNoExecute}})
		}
		if _, err := w.NodeCommands().Execute(ctx, domain.Key{Name: name}, domain.NodeSequence(cmds)); err != nil {
			b.Fatal(err)
		}
	}
	v := NewNodeView(store.Log())
	for _, q := range []struct {
		name string
		run  func() (int, error)
	}{
		{"List", func() (int, error) { ns, _, err := v.List(ctx); return len(ns), err }},
		{"Draining", func() (int, error) { ns, err := v.Draining(ctx); return len(ns), err }},
		{"NamesWithNoExecute", func() (int, error) { ns, err := v.NamesWithNoExecute(ctx); return len(ns), err }},
	} {
		b.Run(q.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := q.run(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/query")
		})
	}
}
