package projections

import (
	"context"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"herd/domain"
	"herd/events"
	"herd/projections/command"
)

// TestAMarkIsDecidedOnTheNodeAndItsLeaseAsCommitted: the node's executor
// decides a mark on the node and on its lease's renewal as the write's
// unit of work has them: a mark judged by a heartbeat older than the
// lease's stored renewal, or than the node's stored report, writes
// nothing; judged by the newest of them, it marks, and records it as the
// node's last heartbeat. On both engines.
func TestAMarkIsDecidedOnTheNodeAndItsLeaseAsCommitted(t *testing.T) {
	viewOnEachEngine(t, func(t *testing.T, log events.Log) {
		ctx := t.Context()
		if err := Migrate(ctx, log); err != nil {
			t.Fatal(err)
		}
		clk := clocktesting.NewFakeClock(t0)
		w := NewWriter(log, clk, nil)
		const name = "web-01"
		do(t, w, clk, name, domain.NodeSequence{register(name, domain.KindLinux), metrics(500)})
		lease := func(cmd domain.LeaseCommand) {
			t.Helper()
			if _, err := w.LeaseCommands().Execute(ctx, domain.Key{Namespace: domain.NodeLeaseNamespace, Name: name}, cmd); err != nil {
				t.Fatal(err)
			}
		}
		lease(domain.CreateLease{Namespace: domain.NodeLeaseNamespace, Name: name, Content: leaseContent(name, clk.Now())})
		clk.Step(10 * time.Second)
		renewed := clk.Now()
		lease(domain.UpdateLease{Content: leaseContent(name, renewed)})
		clk.Step(45 * time.Second)

		mark := func(judged time.Time) domain.NodeCommand {
			return domain.IfNodeReporting{Command: domain.NodeSequence{domain.MarkNodeUnreachable{LastHeard: judged}, domain.SyncConditionTaints{}}}
		}
		check := func(what string, n domain.Node, version int64, want domain.ConditionStatus) {
			t.Helper()
			if c, _ := n.Condition(domain.ConditionReady); c.Status != want || n.Version != version {
				t.Fatalf("%s: Ready %s at version %d, want %s at %d", what, c.Status, n.Version, want, version)
			}
			stored, err := NewNodeView(log).Get(ctx, name)
			if err != nil {
				t.Fatal(err)
			}
			if c, _ := stored.Condition(domain.ConditionReady); c.Status != want || stored.Version != version {
				t.Fatalf("%s: the view has Ready %s at version %d, want %s at %d", what, c.Status, stored.Version, want, version)
			}
		}
		before := do(t, w, clk, name, domain.SyncConditionTaints{})
		check("judged before the lease's renewal", do(t, w, clk, name, mark(t0)), before.Version, domain.ConditionTrue)

		// The node's own report, later than the renewal.
		reported := do(t, w, clk, name, metrics(500))
		clk.Step(45 * time.Second)
		check("judged before the node's report", do(t, w, clk, name, mark(renewed)), reported.Version, domain.ConditionTrue)

		marked := do(t, w, clk, name, mark(reported.LastHeartbeat))
		check("judged by the node's report", marked, reported.Version+1, domain.ConditionUnknown)

		// A mark judged by the renewal, on a node whose report is older.
		do(t, w, clk, "db-01", domain.NodeSequence{register("db-01", domain.KindLinux), metrics(500)})
		clk.Step(10 * time.Second)
		if _, err := w.LeaseCommands().Execute(ctx, domain.Key{Namespace: domain.NodeLeaseNamespace, Name: "db-01"},
			domain.CreateLease{Namespace: domain.NodeLeaseNamespace, Name: "db-01", Content: leaseContent("db-01", clk.Now())}); err != nil {
			t.Fatal(err)
		}
		dbRenewed := clk.Now()
		clk.Step(45 * time.Second)
		db := do(t, w, clk, "db-01", mark(dbRenewed))
		recs, err := log.ReadStream(ctx, domain.NodeStream("db-01"), db.Version-1)
		if err != nil || len(recs) != 1 {
			t.Fatalf("db-01's mark: %d records, %v", len(recs), err)
		}
		ev, err := domain.UnmarshalEvent(recs[0].Type, recs[0].Payload)
		if err != nil {
			t.Fatal(err)
		}
		if m, ok := ev.(domain.HeartbeatMissed); !ok || !m.NotReady || !m.LastHeartbeat.Equal(dbRenewed) {
			t.Fatalf("a node judged by its lease's renewal: %+v, want a HeartbeatMissed naming %v its last heartbeat", ev, dbRenewed)
		}
	})
}

// TestARenewalCommittedWhileTheMarkWaitsMakesItStale: a mark is decided
// outside the write lock on the node and its lease as last committed; a
// renewal of the lease committed after that decision and before the
// mark's write makes its write stale: it is decided again on the
// renewal, writes nothing, and the node stays Ready. The renewal is
// written in the group the mark waits behind, or ahead of the mark in
// its own group (a prepared renewal queued first). On both engines.
func TestARenewalCommittedWhileTheMarkWaitsMakesItStale(t *testing.T) {
	for _, sameGroup := range []bool{false, true} {
		name := "renewed in the group before"
		if sameGroup {
			name = "renewed ahead of it in its group"
		}
		t.Run(name, func(t *testing.T) {
			viewOnEachEngine(t, func(t *testing.T, log events.Log) { markOvertakenByRenewal(t, log, sameGroup) })
		})
	}
}

func markOvertakenByRenewal(t *testing.T, log events.Log, sameGroup bool) {
	ctx := t.Context()
	if err := Migrate(ctx, log); err != nil {
		t.Fatal(err)
	}
	clk := clocktesting.NewFakeClock(t0)
	w := NewWriter(log, clk, nil)
	const name = "web-01"
	key := domain.Key{Namespace: domain.NodeLeaseNamespace, Name: name}
	do(t, w, clk, name, domain.NodeSequence{register(name, domain.KindLinux), metrics(500)})
	clk.Step(10 * time.Second)
	judged := clk.Now()
	if _, err := w.LeaseCommands().Execute(ctx, key, domain.CreateLease{Namespace: domain.NodeLeaseNamespace, Name: name, Content: leaseContent(name, judged)}); err != nil {
		t.Fatal(err)
	}
	before := do(t, w, clk, name, domain.SyncConditionTaints{})
	clk.Step(45 * time.Second)
	queued := func(n int) {
		for w.unit.Queued() < n {
			time.Sleep(time.Millisecond)
		}
	}

	// A group holds the lead until the mark, decided on the lease
	// renewed at judged, waits behind it. It renews the lease itself, or
	// a prepared renewal queued before the mark does, in the mark's group.
	held, leading := make(chan error, 1), make(chan struct{})
	go func() {
		held <- w.unit.Do(ctx, func(tx command.Tx) error {
			close(leading)
			if sameGroup {
				queued(2)
				return nil
			}
			queued(1)
			_, err := leases.updateTx(ctx, w, tx, key.String(), func(l domain.Lease) ([]domain.Event, error) {
				return domain.DecideLease(l, domain.UpdateLease{Content: leaseContent(name, clk.Now())}, clk.Now())
			})
			return err
		})
	}()
	<-leading
	renewed := make(chan error, 1)
	if sameGroup {
		go func() {
			_, err := w.LeaseCommands().Execute(ctx, key, domain.UpdateLease{Content: leaseContent(name, clk.Now())})
			renewed <- err
		}()
		queued(1)
	} else {
		renewed <- nil
	}
	mark := domain.IfNodeReporting{Command: domain.NodeSequence{domain.MarkNodeUnreachableSince(judged), domain.SyncConditionTaints{}}}
	n, err := w.NodeCommands().Execute(context.Background(), domain.Key{Name: name}, mark)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []chan error{held, renewed} {
		if err := <-c; err != nil {
			t.Fatal(err)
		}
	}
	if c, _ := n.Condition(domain.ConditionReady); c.Status != domain.ConditionTrue || n.Version != before.Version {
		t.Fatalf("a mark overtaken by a renewal: Ready %s at version %d, want True at %d", c.Status, n.Version, before.Version)
	}
	stored, err := NewNodeView(log).Get(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := stored.Condition(domain.ConditionReady); c.Status != domain.ConditionTrue || stored.Version != before.Version {
		t.Fatalf("the view has Ready %s at version %d, want True at %d", c.Status, stored.Version, before.Version)
	}
	l, err := NewLeaseView(log).Get(ctx, domain.NodeLeaseNamespace, name)
	if err != nil || !l.RenewedAt.After(judged) {
		t.Fatalf("the lease: renewed at %v (%v), want after %v", l.RenewedAt, err, judged)
	}
}
