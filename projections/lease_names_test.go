package projections

import (
	"testing"
	"time"

	"herd/domain"
)

// TestANodesLeaseNeverWrittenIsNotRead: the health rules' look at a
// node's lease, for a lease herd never wrote (a node registering before
// its kubelet stores its lease), reads no row on SQLite: with the leases
// table gone from under it, it still answers "no lease". A lease written
// since, and one written before a restart, are found.
func TestANodesLeaseNeverWrittenIsNotRead(t *testing.T) {
	w, store, clk := newWriter(t)
	ctx := t.Context()
	nodes := NewNodeView(store.Log()).Remembering(w)
	if at, err := nodes.NodeLeaseRenewedAt(ctx, "web-01"); err != nil || !at.IsZero() {
		t.Fatalf("a lease never written: renewed at %v, %v", at, err)
	}
	exec := func(stmt string) {
		t.Helper()
		if _, err := store.DB().ExecContext(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	exec(`ALTER TABLE leases RENAME TO leases_away`)
	at, err := nodes.NodeLeaseRenewedAt(ctx, "web-02")
	exec(`ALTER TABLE leases_away RENAME TO leases`)
	if err != nil || !at.IsZero() {
		t.Fatalf("a lease never written, without the leases table: renewed at %v, %v; want no lease and no read", at, err)
	}

	clk.Step(10 * time.Second)
	if _, err := w.UpdateLease(ctx, domain.NodeLeaseNamespace, "web-02", func(l domain.Lease) ([]domain.Event, error) {
		return domain.DecideLease(l, domain.CreateLease{Namespace: domain.NodeLeaseNamespace, Name: "web-02", Content: leaseContent("web-02", clk.Now())}, clk.Now())
	}); err != nil {
		t.Fatal(err)
	}
	if at, err := nodes.NodeLeaseRenewedAt(ctx, "web-02"); err != nil || !at.Equal(clk.Now()) {
		t.Errorf("a lease written: renewed at %v, %v; want %v", at, err, clk.Now())
	}
	restarted := NewNodeView(store.Log()).Remembering(NewWriter(store.Log(), clk, nil))
	if at, err := restarted.NodeLeaseRenewedAt(ctx, "web-02"); err != nil || !at.Equal(clk.Now()) {
		t.Errorf("a lease written before a restart: renewed at %v, %v; want %v", at, err, clk.Now())
	}
}
