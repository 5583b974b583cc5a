package health

import (
	"context"
	"testing"
	"time"

	"go.uber.org/zap"

	"herd/domain"
	"herd/events/eventstest"
)

// readyOf is node i's Ready status in the view.
func (f *benchFleet) readyOf(t *testing.T, i int) domain.ConditionStatus {
	t.Helper()
	n, err := f.view.Get(t.Context(), benchNodeName(i))
	if err != nil {
		t.Fatal(err)
	}
	c, _ := n.Condition(domain.ConditionReady)
	return c.Status
}

// renewLease writes node i's lease renewal at the fake clock's time.
func (f *benchFleet) renewLease(ctx context.Context, i int) error {
	name := benchNodeName(i)
	rt := f.clk.Now()
	content := domain.LeaseContent{Spec: domain.LeaseSpec{HolderIdentity: name, RenewTime: &rt}}
	_, err := f.w.LeaseCommands().Execute(ctx, domain.Key{Namespace: domain.NodeLeaseNamespace, Name: name},
		domain.From[domain.Lease, domain.LeaseCommand](func(l domain.Lease) (domain.LeaseCommand, error) {
			if !l.Exists() {
				return domain.CreateLease{Namespace: domain.NodeLeaseNamespace, Name: name, Content: content}, nil
			}
			return domain.UpdateLease{Content: content}, nil
		}))
	return err
}

// TestAHeartbeatHerdReceivedIsNotMissing: a heartbeat that reached herd
// counts as heard while its write has not landed, and after, from when it
// arrived; one herd refused as the client's mistake does not count.
func TestAHeartbeatHerdReceivedIsNotMissing(t *testing.T) {
	f := newBenchFleet(t, 3) // node 0's heartbeat is in flight, node 1 is silent, node 2's is refused
	ctx := t.Context()
	heard := NewHeard()
	r, err := New(DefaultConfig(), f.w, f.view, f.clk, zap.NewNop(), WithArrivals(heard))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.monitor(ctx); err != nil {
		t.Fatal(err)
	}
	f.clk.Step(30 * time.Second)
	answered := heard.Arrive(benchNodeName(0), f.clk.Now())
	heard.Arrive(benchNodeName(2), f.clk.Now())(false)
	f.clk.Step(15 * time.Second) // 45 s since every node's last written heartbeat
	if err := r.monitor(ctx); err != nil {
		t.Fatal(err)
	}
	got := [3]domain.ConditionStatus{f.readyOf(t, 0), f.readyOf(t, 1), f.readyOf(t, 2)}
	if want := [3]domain.ConditionStatus{domain.ConditionTrue, domain.ConditionUnknown, domain.ConditionUnknown}; got != want {
		t.Fatalf("Ready of the node whose heartbeat is in flight, the silent one and the refused one: %v, want %v", got, want)
	}
	// Answered, node 0 was heard when its heartbeat arrived, at 09:00:30:
	// not silent at 09:01:05, silent at 09:01:15.
	answered(true)
	f.clk.Step(20 * time.Second)
	if err := r.monitor(ctx); err != nil {
		t.Fatal(err)
	}
	if s := f.readyOf(t, 0); s != domain.ConditionTrue {
		t.Fatalf("node 0 heard 35 s ago is %s", s)
	}
	f.clk.Step(10 * time.Second)
	if err := r.monitor(ctx); err != nil {
		t.Fatal(err)
	}
	if s := f.readyOf(t, 0); s != domain.ConditionUnknown {
		t.Fatalf("node 0 heard 45 s ago is %s, want Unknown", s)
	}
}

// TestARenewalWaitingInAStalledWritePathIsNotMarked: while herd's write
// path is stalled, a node whose renewal waits in it is not marked, nor is
// a node whose silence is no longer than herd's own delay; once the
// writes land, nothing was marked, and a node silent beyond its grace
// period and herd's delay is marked as before.
func TestARenewalWaitingInAStalledWritePathIsNotMarked(t *testing.T) {
	f := newBenchFleet(t, 2) // node 0 renews into the stalled write path, node 1 is silent
	ctx := t.Context()
	heard := NewHeard()
	queue := f.w.WriteQueue()
	queue.SetClock(f.clk) // the renewal waits as long as herd's clock is stepped
	r, err := New(DefaultConfig(), f.w, f.view, f.clk, zap.NewNop(), WithArrivals(heard), WithBacklog(queue))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.monitor(ctx); err != nil {
		t.Fatal(err)
	}
	f.clk.Step(30 * time.Second)
	release := queue.Hold()
	defer release()
	answered := heard.Arrive(benchNodeName(0), f.clk.Now())
	renewed := make(chan error, 1)
	go func() { renewed <- f.renewLease(ctx, 0) }()
	waitFor(t, func() bool { return queue.Waiting() == 1 }, "the renewal to wait in the write path")
	f.clk.Step(15 * time.Second) // 45 s of silence in the log; the renewal has waited 15 s
	if got := queue.Oldest(); got != 15*time.Second {
		t.Fatalf("the write path is %v behind, want 15s", got)
	}
	// A mark would wait in the stalled write path: bounded, so that it
	// fails the test rather than hangs it.
	stalled, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := r.monitor(stalled); err != nil {
		t.Fatalf("the monitor pass while herd's writes wait: %v", err)
	}
	if s0, s1 := f.readyOf(t, 0), f.readyOf(t, 1); s0 != domain.ConditionTrue || s1 != domain.ConditionTrue {
		t.Fatalf("while herd's writes wait 15 s, the renewing node is %s and the one silent for 45 s is %s; want both True", s0, s1)
	}
	release()
	if err := <-renewed; err != nil {
		t.Fatal(err)
	}
	answered(true)
	if got := queue.Oldest(); got != 0 {
		t.Fatalf("the write path is %v behind once its writes landed", got)
	}
	if n := countEvents(t, f, domain.HeartbeatMissed{}.EventType()); n != 0 {
		t.Fatalf("%d HeartbeatMissed in the log once the stalled writes landed, want none", n)
	}
	f.clk.Step(time.Second)
	if err := r.monitor(ctx); err != nil {
		t.Fatal(err)
	}
	if s0, s1 := f.readyOf(t, 0), f.readyOf(t, 1); s0 != domain.ConditionTrue || s1 != domain.ConditionUnknown {
		t.Fatalf("once herd caught up, the renewing node is %s and the silent one %s; want True and Unknown", s0, s1)
	}
}

// countEvents counts the log's events of type typ.
func countEvents(t *testing.T, f *benchFleet, typ string) int {
	t.Helper()
	recs, err := f.store.ReadAfter(t.Context(), f.store.DB(), 0, 100000)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, rec := range recs {
		if rec.Type == typ {
			n++
		}
	}
	return n
}

// waitFor waits, up to a deadline, for cond.
func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	eventstest.Eventually(t, eventstest.WaitFor, cond, "%s", what)
}

// TestMarkingASilentNodeWritesOneEvent: each node that falls silent is
// marked with one event, a HeartbeatMissed that says it all (its
// conditions Unknown, Ready no longer True, its unreachable taints), and
// the node it leaves is the one the separate events left.
func TestMarkingASilentNodeWritesOneEvent(t *testing.T) {
	const nodes = 3
	f := newBenchFleet(t, nodes)
	ctx := t.Context()
	r, err := New(DefaultConfig(), f.w, f.view, f.clk, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	if err := r.monitor(ctx); err != nil {
		t.Fatal(err)
	}
	from, err := f.store.Head(ctx, f.store.DB())
	if err != nil {
		t.Fatal(err)
	}
	f.clk.Step(45 * time.Second)
	if err := r.monitor(ctx); err != nil {
		t.Fatal(err)
	}
	recs, err := f.store.ReadAfter(ctx, f.store.DB(), from, 1000)
	if err != nil {
		t.Fatal(err)
	}
	perNode := map[string][]string{}
	for _, rec := range recs {
		if name, ok := domain.NodeAggregate.Key(rec.Stream); ok {
			perNode[name] = append(perNode[name], rec.Type)
		}
	}
	for i := range nodes {
		name := benchNodeName(i)
		if got := perNode[name]; len(got) != 1 || got[0] != (domain.HeartbeatMissed{}).EventType() {
			t.Errorf("marking %s wrote %v, want one HeartbeatMissed", name, got)
		}
		n, err := f.view.Get(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range n.Conditions {
			if c.Status != domain.ConditionUnknown {
				t.Errorf("%s: %s is %s after the mark", name, c.Type, c.Status)
			}
		}
		if !n.HasTaint(domain.TaintUnreachable, domain.EffectNoSchedule) || n.AgentState != domain.AgentLost {
			t.Errorf("%s after the mark: taints %v, agent %s", name, n.Taints, n.AgentState)
		}
	}
}
