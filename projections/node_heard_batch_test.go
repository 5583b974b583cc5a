package projections

import (
	"context"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"herd/domain"
	"herd/events"
)

// TestABatchedMarkWeighsTheLease: a mark in a batch of node commands is
// decided on the node and its lease's renewal, as the node's executor
// decides one alone: judged by a heartbeat older than the lease's
// renewal it writes nothing, while the batch's other command is
// written. A dry run of the mark weighs it as well. On both engines.
func TestABatchedMarkWeighsTheLease(t *testing.T) {
	viewOnEachEngine(t, func(t *testing.T, log events.Log) {
		ctx := t.Context()
		if err := Migrate(ctx, log); err != nil {
			t.Fatal(err)
		}
		clk := clocktesting.NewFakeClock(t0)
		w := NewWriter(log, clk, nil)
		for _, name := range []string{"web-01", "web-02"} {
			do(t, w, clk, name, domain.NodeSequence{register(name, domain.KindLinux), metrics(500)})
		}
		clk.Step(10 * time.Second)
		if _, err := w.LeaseCommands().Execute(ctx, domain.Key{Namespace: domain.NodeLeaseNamespace, Name: "web-01"},
			domain.CreateLease{Namespace: domain.NodeLeaseNamespace, Name: "web-01", Content: leaseContent("web-01", clk.Now())}); err != nil {
			t.Fatal(err)
		}
		clk.Step(45 * time.Second)
		mark := domain.IfNodeReporting{Command: domain.NodeSequence{domain.MarkNodeUnreachable{LastHeard: t0}, domain.SyncConditionTaints{}}}
		before := do(t, w, clk, "web-01", domain.SyncConditionTaints{})
		states, refused, err := w.NodeCommands().(domain.BatchExecutor[domain.Node, domain.NodeCommand]).ExecuteBatch(ctx, []domain.Keyed[domain.NodeCommand]{
			{Key: domain.Key{Name: "web-01"}, Command: mark},
			{Key: domain.Key{Name: "web-02"}, Command: domain.SetNodeSchedulable{Unschedulable: true}},
		})
		if err != nil {
			t.Fatal(err)
		}
		if refused != nil && (refused[0] != nil || refused[1] != nil) {
			t.Fatalf("refused %v", refused)
		}
		stored, err := NewNodeView(log).Get(ctx, "web-01")
		if err != nil {
			t.Fatal(err)
		}
		for what, n := range map[string]domain.Node{"answered": states[0], "stored": stored} {
			if c, _ := n.Condition(domain.ConditionReady); c.Status != domain.ConditionTrue || n.Version != before.Version {
				t.Errorf("web-01 %s: Ready %s at version %d, want True at %d: the lease renewed after the heartbeat the mark was judged by", what, c.Status, n.Version, before.Version)
			}
		}
		if !states[1].Unschedulable {
			t.Errorf("web-02 not cordoned by the batch")
		}

		// A dry run of the mark weighs the lease too, and of a mark
		// judged by the renewal answers the node marked, writing nothing.
		dry := w.NodeCommands().(interface {
			DryRun(context.Context, domain.Key, domain.NodeCommand) (domain.Node, error)
		})
		n, err := dry.DryRun(ctx, domain.Key{Name: "web-01"}, mark)
		if err != nil {
			t.Fatal(err)
		}
		if c, _ := n.Condition(domain.ConditionReady); c.Status != domain.ConditionTrue {
			t.Errorf("dry run of a mark judged before the lease's renewal: Ready %s, want True", c.Status)
		}
		renewedMark := domain.IfNodeReporting{Command: domain.NodeSequence{domain.MarkNodeUnreachable{LastHeard: t0.Add(10 * time.Second)}, domain.SyncConditionTaints{}}}
		if n, err = dry.DryRun(ctx, domain.Key{Name: "web-01"}, renewedMark); err != nil {
			t.Fatal(err)
		}
		if c, _ := n.Condition(domain.ConditionReady); c.Status != domain.ConditionUnknown {
			t.Errorf("dry run of a mark judged by the lease's renewal: Ready %s, want Unknown", c.Status)
		}
		if stored, err = NewNodeView(log).Get(ctx, "web-01"); err != nil {
			t.Fatal(err)
		}
		if stored.Version != before.Version {
			t.Errorf("web-01 at version %d after dry runs, want %d", stored.Version, before.Version)
		}
	})
}
