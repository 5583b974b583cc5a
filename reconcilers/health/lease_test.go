package health

import (
	"testing"
	"time"

	"go.uber.org/zap"

	"herd/domain"
)

// TestANodeHeardByItsLeaseIsNotMarked: a node whose kubelet only renews
// its lease in kube-node-lease (its status reports come every few
// minutes) is heard from at each renewal, fed to the deadlines by the
// dispatcher (KeysFor), and kept after a restart, whose seed reads the
// lease's renewal time from the view; when its renewals stop it is
// marked a grace period after the last one, and HeartbeatMissed names
// that renewal as its last heartbeat.
func TestANodeHeardByItsLeaseIsNotMarked(t *testing.T) {
	f := newBenchFleet(t, 3) // node 0 renews, node 1 is silent, node 2 renews and then stops
	ctx := t.Context()
	cfg := DefaultConfig()
	start := func() *Reconciler {
		r, err := New(cfg, f.w, f.view, f.clk, zap.NewNop())
		if err != nil {
			t.Fatal(err)
		}
		if err := r.monitor(ctx); err != nil {
			t.Fatal(err)
		}
		return r
	}
	r := start()
	renew := func(i int) {
		t.Helper()
		name := benchNodeName(i)
		from, err := f.store.Head(ctx, f.store.DB())
		if err != nil {
			t.Fatal(err)
		}
		rt := f.clk.Now()
		content := domain.LeaseContent{Spec: domain.LeaseSpec{HolderIdentity: name, RenewTime: &rt}}
		if _, err := f.w.LeaseCommands().Execute(ctx, domain.Key{Namespace: domain.NodeLeaseNamespace, Name: name},
			domain.From[domain.Lease, domain.LeaseCommand](func(l domain.Lease) (domain.LeaseCommand, error) {
				if !l.Exists() {
					return domain.CreateLease{Namespace: domain.NodeLeaseNamespace, Name: name, Content: content}, nil
				}
				return domain.UpdateLease{Content: content}, nil
			})); err != nil {
			t.Fatal(err)
		}
		recs, err := f.store.ReadAfter(ctx, f.store.DB(), from, 10)
		if err != nil {
			t.Fatal(err)
		}
		for _, rec := range recs {
			if keys := r.Watches().KeysFor(rec); len(keys) > 0 {
				t.Fatalf("a lease renewal asked for a reconcile of %v", keys)
			}
		}
	}
	ready := func(i int) domain.ConditionStatus {
		t.Helper()
		n, err := f.view.Get(ctx, benchNodeName(i))
		if err != nil {
			t.Fatal(err)
		}
		c, _ := n.Condition(domain.ConditionReady)
		return c.Status
	}
	var lastOf2 time.Time
	for step := range 7 { // 70 s of renewals, past the grace period of both
		f.clk.Step(10 * time.Second)
		renew(0)
		if step < 2 {
			renew(2)
			lastOf2 = f.clk.Now()
		}
		if step == 3 {
			r = start() // a restart: the deadlines start again from the view
		}
		if err := r.monitor(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if got := [3]domain.ConditionStatus{ready(0), ready(1), ready(2)}; got != [3]domain.ConditionStatus{domain.ConditionTrue, domain.ConditionUnknown, domain.ConditionUnknown} {
		t.Fatalf("Ready of the renewing, the silent and the stopped node: %v", got)
	}
	recs, err := f.store.ReadStream(ctx, f.store.DB(), domain.NodeStream(benchNodeName(2)), 0)
	if err != nil {
		t.Fatal(err)
	}
	var missed *domain.HeartbeatMissed
	for _, rec := range recs {
		if rec.Type == (domain.HeartbeatMissed{}).EventType() {
			ev, err := domain.UnmarshalEvent(rec.Type, rec.Payload)
			if err != nil {
				t.Fatal(err)
			}
			m := ev.(domain.HeartbeatMissed)
			missed = &m
		}
	}
	if missed == nil || !missed.LastHeartbeat.Equal(lastOf2) {
		t.Errorf("the stopped node's HeartbeatMissed %+v, want its last renewal %v as its last heartbeat", missed, lastOf2)
	}
	if late := missed.At.Sub(lastOf2.Add(cfg.GracePeriod)); late < 0 || late > cfg.MonitorPeriod+10*time.Second {
		t.Errorf("the stopped node was marked %v after its grace period", late)
	}
}
