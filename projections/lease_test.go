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
// kube-node-lease/NAME is node NAME's heartbeat, recorded once: one event
// in the lease's stream, the lease's row written and no row of the
// node's, the node's resourceVersion unmoved, and herd's time of the
// renewal kept for the health rules; a lease elsewhere, or of a node herd
// does not know, is only a lease; a refused renewal changes nothing.
func TestANodesLeaseRenewalIsItsHeartbeat(t *testing.T) {
	w, store, clk := newWriter(t)
	ctx := t.Context()
	do(t, w, clk, "web-01", register("web-01", domain.KindKubelet))
	update := func(ns, name string, cmd domain.LeaseCommand) (domain.Lease, error) {
		return w.LeaseCommands().Execute(ctx, domain.Key{Namespace: ns, Name: name}, cmd)
	}
	nodes := NewNodeView(store.Log())
	before, err := nodes.Get(ctx, "web-01")
	if err != nil {
		t.Fatal(err)
	}
	coldWrites, hotWrites, leaseWrites := countRowWrites(t, store, "nodes"), countRowWrites(t, store, "node_heartbeats"), countRowWrites(t, store, "leases")
	heardAt := func(what string) {
		t.Helper()
		if at, err := nodes.NodeLeaseRenewedAt(ctx, "web-01"); err != nil || !at.Equal(clk.Now()) {
			t.Errorf("web-01's lease renewed at %v (%v) after %s at %v", at, err, what, clk.Now())
		}
		ds, err := nodes.NodeDeadlines(ctx)
		if err != nil || len(ds) != 1 || !ds[0].LastHeartbeat.Equal(clk.Now()) {
			t.Errorf("deadlines after %s: %+v, %v; want last heard at %v", what, ds, err, clk.Now())
		}
	}
	clk.Step(10 * time.Second)
	if _, err := update(domain.NodeLeaseNamespace, "web-01", domain.CreateLease{Namespace: domain.NodeLeaseNamespace, Name: "web-01",
		Content: leaseContent("web-01", clk.Now())}); err != nil {
		t.Fatal(err)
	}
	heardAt("the lease's creation")
	clk.Step(10 * time.Second)
	head, _ := store.Head(ctx, store.DB())
	l, err := update(domain.NodeLeaseNamespace, "web-01", domain.UpdateLease{Content: leaseContent("web-01", clk.Now())})
	if err != nil {
		t.Fatal(err)
	}
	heardAt("a renewal")
	if h, _ := store.Head(ctx, store.DB()); h != head+1 || l.ResourceVersion != h {
		t.Errorf("a renewal appended %d events (lease at %d, head %d), want 1", h-head, l.ResourceVersion, h)
	}
	if got := streamTypes(t, store, domain.LeaseStream(domain.NodeLeaseNamespace, "web-01")); !slices.Equal(got, []string{"LeaseCreated", "LeaseRenewed"}) {
		t.Errorf("lease events %q", got)
	}
	if got := streamTypes(t, store, domain.NodeStream("web-01")); !slices.Equal(got, []string{"NodeRegistered"}) {
		t.Errorf("node events %q, want the lease's writes to record nothing in the node's stream", got)
	}
	if cold, hot, lw := coldWrites(), hotWrites(), leaseWrites(); cold != 0 || hot != 0 || lw != 2 {
		t.Errorf("a lease's creation and renewal wrote %d full node rows, %d hot node rows, %d lease rows; want 0, 0, 2", cold, hot, lw)
	}
	if after, _ := nodes.Get(ctx, "web-01"); after.ResourceVersion != before.ResourceVersion {
		t.Errorf("web-01's resourceVersion moved from %d to %d with its lease", before.ResourceVersion, after.ResourceVersion)
	}

	head, _ = store.Head(ctx, store.DB())
	if _, err := update(domain.NodeLeaseNamespace, "web-01", domain.Precondition[domain.LeaseCommand]{ResourceVersion: l.ResourceVersion - 1, Command: domain.UpdateLease{Content: leaseContent("web-01", clk.Now())}}); !errors.Is(err, domain.ErrConflict) {
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
	view := NewLeaseView(store.Log())
	list, _, err := view.List(ctx, domain.NodeLeaseNamespace)
	if err != nil || len(list) != 2 || list[0].Name != "unknown" || list[1].Name != "web-01" {
		t.Errorf("kube-node-lease leases %+v, %v", list, err)
	}
	diff, _, err := Verify(ctx, store, filepath.Join(t.TempDir(), "scratch.db"), events.Config{}, RebuildOptions{})
	if err != nil || diff != nil {
		t.Fatalf("rebuild: %v, %v", diff, err)
	}
}

// TestLeasesRenewedBeforeTheirRenewalTimeWasKeptAreFilledAtStart: a lease
// view written before renewed_at existed gets each lease's renewal time
// from the log once, at start — the newest write with a renew time since
// the lease's last deletion — so that the live view equals a rebuild.
func TestLeasesRenewedBeforeTheirRenewalTimeWasKeptAreFilledAtStart(t *testing.T) {
	w, store, clk := newWriter(t)
	ctx := t.Context()
	write := func(name string, cmd domain.LeaseCommand) {
		t.Helper()
		clk.Step(10 * time.Second)
		if _, err := w.LeaseCommands().Execute(ctx, domain.Key{Namespace: domain.NodeLeaseNamespace, Name: name}, cmd); err != nil {
			t.Fatal(err)
		}
	}
	create := func(name string) domain.LeaseCommand {
		return domain.CreateLease{Namespace: domain.NodeLeaseNamespace, Name: name, Content: leaseContent(name, clk.Now())}
	}
	write("renewed", create("renewed"))
	write("renewed", domain.UpdateLease{Content: leaseContent("renewed", clk.Now())})
	renewedAt := clk.Now()
	write("recreated", create("recreated"))
	write("recreated", domain.DeleteLease{})
	write("recreated", domain.CreateLease{Namespace: domain.NodeLeaseNamespace, Name: "recreated", Content: domain.LeaseContent{Spec: domain.LeaseSpec{HolderIdentity: "x"}}})
	write("gone", create("gone"))
	write("gone", domain.DeleteLease{})
	for _, q := range []string{`UPDATE leases SET renewed_at = 0`, `DELETE FROM projection_checkpoints WHERE projection = '` + leasesRenewedAtMark + `'`} {
		if _, err := store.DB().ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if err := Migrate(ctx, store.Log()); err != nil {
		t.Fatal(err)
	}
	nodes := NewNodeView(store.Log())
	for name, want := range map[string]time.Time{"renewed": renewedAt, "recreated": {}, "gone": {}} {
		if at, err := nodes.NodeLeaseRenewedAt(ctx, name); err != nil || !at.Equal(want) {
			t.Errorf("%s renewed at %v (%v) after the upgrade, want %v", name, at, err, want)
		}
	}
	diff, _, err := Verify(ctx, store, filepath.Join(t.TempDir(), "scratch.db"), events.Config{}, RebuildOptions{})
	if err != nil || diff != nil {
		t.Fatalf("verify after the upgrade: %v, %v", diff, err)
	}
}
