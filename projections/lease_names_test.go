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
	if _, err := w.LeaseCommands().Execute(ctx, domain.Key{Namespace: domain.NodeLeaseNamespace, Name: "web-02"},
		domain.CreateLease{Namespace: domain.NodeLeaseNamespace, Name: "web-02", Content: leaseContent("web-02", clk.Now())}); err != nil {
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

// TestALeaseIsKnownNeverWrittenWhileAnotherLeaseCommits: while a commit
// of one lease is under way (kubelets renew all the time), another lease
// herd never wrote is still known never written, from memory; the lease
// being committed is not, until its commit has ended.
func TestALeaseIsKnownNeverWrittenWhileAnotherLeaseCommits(t *testing.T) {
	w, store, clk := newWriter(t)
	ctx := t.Context()
	inCommit, release := make(chan struct{}), make(chan struct{})
	w.unit.ObserveCommits(func(streams map[string]int64, err error) {
		w.leaseNames.ended(streams, err)
		if _, ok := streams[domain.LeaseStream(domain.NodeLeaseNamespace, "busy")]; ok {
			close(inCommit)
			<-release
		}
	})
	leases := NewLeaseView(store.Log()).Remembering(w)
	if !leases.NeverWritten(ctx, domain.NodeLeaseNamespace, "busy") {
		t.Fatal("a lease never written is not known so")
	}
	created := make(chan error, 1)
	go func() {
		_, err := w.LeaseCommands().Execute(ctx, domain.Key{Namespace: domain.NodeLeaseNamespace, Name: "busy"},
			domain.CreateLease{Namespace: domain.NodeLeaseNamespace, Name: "busy", Content: leaseContent("busy", clk.Now())})
		created <- err
	}()
	<-inCommit
	quiet := leases.NeverWritten(ctx, domain.NodeLeaseNamespace, "quiet")
	busy := leases.NeverWritten(ctx, domain.NodeLeaseNamespace, "busy")
	close(release)
	if err := <-created; err != nil {
		t.Fatal(err)
	}
	if !quiet {
		t.Error("a lease never written is not known so while another lease commits")
	}
	if busy {
		t.Error("the lease being committed is known never written")
	}
	if leases.NeverWritten(ctx, domain.NodeLeaseNamespace, "busy") {
		t.Error("a lease committed is known never written")
	}
}
