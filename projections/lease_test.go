package projections

import (
	"errors"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"herd/domain"
	"herd/events"
)

func leaseContent(holder string, renew time.Time) domain.LeaseContent {
	d := int32(40)
	return domain.LeaseContent{Spec: domain.LeaseSpec{HolderIdentity: holder, LeaseDurationSeconds: &d, RenewTime: &renew}}
}

func streamTypes(t *testing.T, store *events.Store, stream string) []string {
	t.Helper()
	recs, err := store.ReadStream(t.Context(), store.DB(), stream, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range recs {
		out = append(out, r.Type)
	}
	return out
}

// TestANodesLeaseRenewalIsItsHeartbeat: creating and renewing the lease
// kube-node-lease/NAME moves node NAME's last heartbeat in the same
// transaction; a lease elsewhere, or of a node herd does not know, is
// only a lease; a refused renewal changes neither.
func TestANodesLeaseRenewalIsItsHeartbeat(t *testing.T) {
	w, store, clk := newWriter(t)
	ctx := t.Context()
	do(t, w, clk, "web-01", register("web-01", domain.KindKubelet))
	update := func(ns, name string, cmd domain.LeaseCommand) (domain.Lease, error) {
		return w.UpdateLease(ctx, ns, name, func(l domain.Lease) ([]domain.Event, error) {
			return domain.DecideLease(l, cmd, clk.Now())
		})
	}
	clk.Step(10 * time.Second)
	if _, err := update(domain.NodeLeaseNamespace, "web-01", domain.CreateLease{Namespace: domain.NodeLeaseNamespace, Name: "web-01",
		Content: leaseContent("web-01", clk.Now())}); err != nil {
		t.Fatal(err)
	}
	nodes := NewNodeView(store)
	if n, _ := nodes.Get(ctx, "web-01"); !n.LastHeartbeat.Equal(clk.Now()) {
		t.Errorf("web-01's last heartbeat %v after its lease was created at %v", n.LastHeartbeat, clk.Now())
	}
	clk.Step(10 * time.Second)
	l, err := update(domain.NodeLeaseNamespace, "web-01", domain.UpdateLease{Content: leaseContent("web-01", clk.Now())})
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := nodes.Get(ctx, "web-01"); !n.LastHeartbeat.Equal(clk.Now()) {
		t.Errorf("web-01's last heartbeat %v after its lease was renewed at %v", n.LastHeartbeat, clk.Now())
	}
	if got := streamTypes(t, store, domain.LeaseStream(domain.NodeLeaseNamespace, "web-01")); !slices.Equal(got, []string{"LeaseCreated", "LeaseRenewed"}) {
		t.Errorf("lease events %q", got)
	}
	if got := streamTypes(t, store, domain.NodeStream("web-01")); got[len(got)-1] != "HeartbeatRecorded" || len(got) < 3 {
		t.Errorf("node events %q, want a heartbeat per lease write", got)
	}

	head, _ := store.Head(ctx, store.DB())
	if _, err := update(domain.NodeLeaseNamespace, "web-01", domain.UpdateLease{Content: leaseContent("web-01", clk.Now()), ResourceVersion: l.ResourceVersion - 1}); !errors.Is(err, domain.ErrConflict) {
		t.Errorf("stale renewal: %v", err)
	}
	if h, _ := store.Head(ctx, store.DB()); h != head {
		t.Errorf("a refused renewal moved the head from %d to %d", head, h)
	}

	for _, c := range []struct{ ns, name string }{{"default", "web-01"}, {domain.NodeLeaseNamespace, "unknown"}} {
		if _, err := update(c.ns, c.name, domain.CreateLease{Namespace: c.ns, Name: c.name, Content: leaseContent("x", clk.Now())}); err != nil {
			t.Fatalf("%s/%s: %v", c.ns, c.name, err)
		}
	}
	if h, _ := store.Head(ctx, store.DB()); h != head+2 {
		t.Errorf("two leases that renew no node appended %d events, want 2", h-head)
	}
	view := NewLeaseView(store)
	list, _, err := view.List(ctx, domain.NodeLeaseNamespace)
	if err != nil || len(list) != 2 || list[0].Name != "unknown" || list[1].Name != "web-01" {
		t.Errorf("kube-node-lease leases %+v, %v", list, err)
	}
	diff, _, err := Verify(ctx, store, filepath.Join(t.TempDir(), "scratch.db"), events.Config{}, RebuildOptions{})
	if err != nil || diff != nil {
		t.Fatalf("rebuild: %v, %v", diff, err)
	}
}
