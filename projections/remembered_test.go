package projections

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	clocktesting "k8s.io/utils/clock/testing"

	"herd/domain"
	"herd/events/eventstest"
	"herd/events/pgtest"
)

// TestANodeAndItsLeaseReadFromMemoryAreTheirRows: on SQLite the node and
// lease views that remember (Remembering) answer from the unit of work's
// memory, and what they answer is what a read of the rows gives, after
// each kind of write: a registration, a heartbeat, a cordon, a taint, a
// lease's creation and renewal, a deletion.
func TestANodeAndItsLeaseReadFromMemoryAreTheirRows(t *testing.T) {
	w, store, clk := newWriter(t)
	ctx := t.Context()
	rows, remembering := NewNodeView(store.Log()), NewNodeView(store.Log()).Remembering(w)
	leaseRows, leaseRemembering := NewLeaseView(store.Log()), NewLeaseView(store.Log()).Remembering(w)
	same := func(step string) {
		t.Helper()
		if _, ok := w.currentNode("web-01"); !ok {
			t.Fatalf("after %s: the unit of work does not hold the node", step)
		}
		want, werr := rows.Get(ctx, "web-01")
		got, gerr := remembering.Get(ctx, "web-01")
		if !errors.Is(gerr, domain.ErrNotFound) || !errors.Is(werr, domain.ErrNotFound) {
			if gerr != nil || werr != nil {
				t.Fatalf("after %s: from memory %v, from the row %v", step, gerr, werr)
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Fatalf("after %s: the node from memory differs from its row (-row +memory):\n%s", step, d)
			}
		}
	}
	sameLease := func(step string) {
		t.Helper()
		if _, ok := w.currentLease(domain.NodeLeaseNamespace, "web-01"); !ok {
			t.Fatalf("after %s: the unit of work does not hold the lease", step)
		}
		want, werr := leaseRows.Get(ctx, domain.NodeLeaseNamespace, "web-01")
		got, gerr := leaseRemembering.Get(ctx, domain.NodeLeaseNamespace, "web-01")
		if (gerr == nil) != (werr == nil) {
			t.Fatalf("after %s: lease from memory %v, from the row %v", step, gerr, werr)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("after %s: the lease from memory differs from its row (-row +memory):\n%s", step, d)
		}
	}

	do(t, w, clk, "web-01", register("web-01", domain.KindLinux))
	same("the registration")
	clk.Step(10 * time.Second)
	do(t, w, clk, "web-01", metrics(500))
	same("a heartbeat")
	clk.Step(time.Second)
	do(t, w, clk, "web-01", domain.SetNodeSchedulable{Unschedulable: true})
	same("a cordon")
	do(t, w, clk, "web-01", domain.TaintNode{Taint: domain.Taint{Key: "example.com/maintenance", Effect: domain.EffectNoSchedule}})
	same("a taint")

	renew := func(cmd domain.LeaseCommand) {
		t.Helper()
		if _, err := w.LeaseCommands().Execute(ctx, domain.Key{Namespace: domain.NodeLeaseNamespace, Name: "web-01"}, cmd); err != nil {
			t.Fatal(err)
		}
	}
	renew(domain.CreateLease{Namespace: domain.NodeLeaseNamespace, Name: "web-01", UID: "lease-uid", Content: leaseContent("web-01", clk.Now())})
	sameLease("the lease's creation")
	clk.Step(10 * time.Second)
	renew(domain.UpdateLease{Content: leaseContent("web-01", clk.Now())})
	sameLease("a renewal")
	renew(domain.DeleteLease{})
	sameLease("the lease's deletion")
	if _, err := leaseRemembering.Get(ctx, domain.NodeLeaseNamespace, "web-01"); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("a deleted lease from memory: %v, want ErrNotFound", err)
	}
	do(t, w, clk, "web-01", domain.DeleteNode{})
	same("the node's deletion")
	if _, err := remembering.Get(ctx, "web-01"); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("a deleted node from memory: %v, want ErrNotFound", err)
	}
}

// TestASecondReplicasWritesAreReadOnPostgres: two herd replicas on one
// PostgreSQL database; what one replica committed for a node and its
// lease, the other's views answer, even for a node and lease it wrote
// itself a moment before: no replica answers from a memory another
// replica's writes have made stale.
func TestASecondReplicasWritesAreReadOnPostgres(t *testing.T) {
	ctx := t.Context()
	url := pgtest.URL(t)
	logA, logB := eventstest.OpenPostgres(t, url), eventstest.OpenPostgres(t, url)
	if err := Migrate(ctx, logA); err != nil {
		t.Fatal(err)
	}
	clk := clocktesting.NewFakeClock(t0)
	a, b := NewWriter(logA, clk, nil), NewWriter(logB, clk, nil)
	nodesA, leasesA := NewNodeView(logA).Remembering(a), NewLeaseView(logA).Remembering(a)
	lease := func(w *Writer, cmd domain.LeaseCommand) domain.Lease {
		t.Helper()
		l, err := w.LeaseCommands().Execute(ctx, domain.Key{Namespace: domain.NodeLeaseNamespace, Name: "web-01"}, cmd)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}

	do(t, a, clk, "web-01", register("web-01", domain.KindLinux))
	lease(a, domain.CreateLease{Namespace: domain.NodeLeaseNamespace, Name: "web-01", UID: "lease-uid", Content: leaseContent("web-01", clk.Now())})
	clk.Step(10 * time.Second)
	renewed := lease(b, domain.UpdateLease{Content: leaseContent("web-01", clk.Now())})
	cordoned := do(t, b, clk, "web-01", domain.SetNodeSchedulable{Unschedulable: true})

	l, err := leasesA.Get(ctx, domain.NodeLeaseNamespace, "web-01")
	if err != nil {
		t.Fatal(err)
	}
	if l.ResourceVersion != renewed.ResourceVersion || !l.RenewedAt.Equal(clk.Now()) {
		t.Errorf("replica A reads the lease at resourceVersion %d renewed %v; replica B renewed it at %d, %v",
			l.ResourceVersion, l.RenewedAt, renewed.ResourceVersion, clk.Now())
	}
	n, err := nodesA.Get(ctx, "web-01")
	if err != nil {
		t.Fatal(err)
	}
	if !n.Unschedulable || n.ResourceVersion != cordoned.ResourceVersion {
		t.Errorf("replica A's node view: unschedulable %v at resourceVersion %d; replica B cordoned it at %d",
			n.Unschedulable, n.ResourceVersion, cordoned.ResourceVersion)
	}
}

// TestALeasesRenewalTimeReadFromMemoryIsItsRows: the health rules' read
// of a node's lease renewal answers from memory what the row says, for a
// lease renewed and a lease deleted.
func TestALeasesRenewalTimeReadFromMemoryIsItsRows(t *testing.T) {
	w, store, clk := newWriter(t)
	ctx := t.Context()
	rows, remembering := NewNodeView(store.Log()), NewNodeView(store.Log()).Remembering(w)
	do(t, w, clk, "web-01", register("web-01", domain.KindLinux))
	for _, cmd := range []domain.LeaseCommand{
		domain.CreateLease{Namespace: domain.NodeLeaseNamespace, Name: "web-01", UID: "lease-uid", Content: leaseContent("web-01", clk.Now())},
		domain.UpdateLease{Content: leaseContent("web-01", clk.Now().Add(10*time.Second))},
		domain.DeleteLease{},
	} {
		clk.Step(10 * time.Second)
		if _, err := w.LeaseCommands().Execute(ctx, domain.Key{Namespace: domain.NodeLeaseNamespace, Name: "web-01"}, cmd); err != nil {
			t.Fatal(err)
		}
		if _, ok := w.currentLease(domain.NodeLeaseNamespace, "web-01"); !ok {
			t.Fatalf("after %T: the unit of work does not hold the lease", cmd)
		}
		want, werr := rows.NodeLeaseRenewedAt(ctx, "web-01")
		got, gerr := remembering.NodeLeaseRenewedAt(ctx, "web-01")
		if werr != nil || gerr != nil || !got.Equal(want) {
			t.Errorf("after %T: from memory %v, %v; the row %v, %v", cmd, got, gerr, want, werr)
		}
	}
}
