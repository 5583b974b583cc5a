package projections

import (
	"context"
	"database/sql"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	clocktesting "k8s.io/utils/clock/testing"

	"herd/domain"
	"herd/events"
	"herd/events/eventstest"
	"herd/events/pgtest"
	"herd/projections/viewstore"
)

// Two herd replicas on one PostgreSQL database, each remembering the
// states it committed and deciding its commands on them (command.Unit):
// what one replica remembers, the other may have changed since. These
// tests hold that no command is answered from such a memory.

// countingViews is the committed views, counting the statements read
// through them: the rows a command reads outside any transaction to
// decide on.
type countingViews struct {
	*viewstore.DB
	reads atomic.Int64
}

func (v *countingViews) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	v.reads.Add(1)
	return v.DB.QueryContext(ctx, query, args...)
}

func (v *countingViews) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	v.reads.Add(1)
	return v.DB.QueryRowContext(ctx, query, args...)
}

// replica is one herd replica's writer on a PostgreSQL database, with
// its metrics and the reads its commands make of the committed views.
type replica struct {
	w     *Writer
	log   events.Log
	reg   *prometheus.Registry
	views *countingViews
}

// redecided is how many of the replica's commands were decided again
// because their stream moved before their write.
func (r replica) redecided(t *testing.T) float64 {
	t.Helper()
	return counterValue(t, r.reg, "herd_commit_commands_redecided_total")
}

// replicas opens n replicas on one new PostgreSQL database, the views
// migrated, all reading clk.
func replicas(t *testing.T, n int, clk *clocktesting.FakeClock) []replica {
	t.Helper()
	url := pgtest.URL(t)
	out := make([]replica, n)
	for i := range out {
		log := eventstest.OpenPostgres(t, url)
		if i == 0 {
			if err := Migrate(t.Context(), log); err != nil {
				t.Fatal(err)
			}
		}
		reg := prometheus.NewRegistry()
		views := viewstore.NewDB(log)
		counting := &countingViews{DB: views}
		out[i] = replica{w: newWriterDeciding(log, views, counting, clk, NewMetrics(reg)), log: log, reg: reg, views: counting}
	}
	return out
}

// leaseKey is the node lease web-01's key.
var leaseKey = domain.Key{Namespace: domain.NodeLeaseNamespace, Name: "web-01"}

// streamLen is how many events stream holds, as log reads it.
func streamLen(t *testing.T, log events.Log, stream string) int {
	t.Helper()
	recs, err := log.ReadStream(t.Context(), stream, 0)
	if err != nil {
		t.Fatal(err)
	}
	return len(recs)
}

// TestARenewalOnALeaseAnotherReplicaRenewedIsDecidedAgainOnPostgres:
// replica A remembers a lease; B renews it; A's renewal, decided on its
// memory, is refused by the stream's version, decided again on B's
// renewal and stored once, after it, and A answers what it stored.
func TestARenewalOnALeaseAnotherReplicaRenewedIsDecidedAgainOnPostgres(t *testing.T) {
	ctx := t.Context()
	clk := clocktesting.NewFakeClock(t0)
	rs := replicas(t, 2, clk)
	a, b := rs[0], rs[1]
	stream := domain.LeaseStream(leaseKey.Namespace, leaseKey.Name)
	if _, err := a.w.LeaseCommands().Execute(ctx, leaseKey, domain.CreateLease{Namespace: leaseKey.Namespace, Name: leaseKey.Name, Content: leaseContent("web-01", clk.Now())}); err != nil {
		t.Fatal(err)
	}
	if _, ok := a.w.unit.Remembered(stream); !ok {
		t.Fatal("replica A does not remember the lease it created")
	}
	clk.Step(10 * time.Second)
	byB, err := b.w.LeaseCommands().Execute(ctx, leaseKey, domain.UpdateLease{Content: leaseContent("web-01", clk.Now())})
	if err != nil {
		t.Fatal(err)
	}
	clk.Step(10 * time.Second)
	byA, err := a.w.LeaseCommands().Execute(ctx, leaseKey, domain.UpdateLease{Content: leaseContent("web-01", clk.Now())})
	if err != nil {
		t.Fatal(err)
	}
	head, err := a.log.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if byA.Version != 3 || byA.ResourceVersion != head || byA.ResourceVersion <= byB.ResourceVersion || !byA.Spec.RenewTime.Equal(clk.Now()) {
		t.Errorf("replica A's renewal answered version %d at %d renewed %v; want version 3 at the head %d, after B's %d, renewed %v",
			byA.Version, byA.ResourceVersion, byA.Spec.RenewTime, head, byB.ResourceVersion, clk.Now())
	}
	if n := streamLen(t, a.log, stream); n != 3 {
		t.Errorf("the lease's stream holds %d events, want 3: the creation and one renewal by each replica", n)
	}
	row, err := loadLease(ctx, a.views.DB, leaseKey.Namespace, leaseKey.Name)
	if err != nil {
		t.Fatal(err)
	}
	if row.Version != 3 || row.ResourceVersion != byA.ResourceVersion || !row.Spec.RenewTime.Equal(clk.Now()) {
		t.Errorf("the lease's row: version %d at %d renewed %v; A answered version 3 at %d renewed %v",
			row.Version, row.ResourceVersion, row.Spec.RenewTime, byA.ResourceVersion, clk.Now())
	}
	// Decided first on A's memory of version 1, refused by the version
	// B's renewal took, then on the row.
	if got := a.redecided(t); got != 1 {
		t.Errorf("replica A decided %v commands again, want its renewal's 1", got)
	}
	if s, ok := a.w.unit.Remembered(stream); !ok || s.(domain.Lease).Version != 3 {
		t.Errorf("replica A remembers %+v (%v), want the lease at version 3", s, ok)
	}
}

// TestANoOpOnANodeAnotherReplicaChangedIsAnsweredFromItsRowOnPostgres: a
// cordon on replica A of a node B cordoned since A remembered it is
// answered with B's cordon and stores nothing; an uncordon on A that its
// memory says is already done, after B cordoned the node, uncordons it.
func TestANoOpOnANodeAnotherReplicaChangedIsAnsweredFromItsRowOnPostgres(t *testing.T) {
	ctx := t.Context()
	clk := clocktesting.NewFakeClock(t0)
	rs := replicas(t, 2, clk)
	a, b := rs[0], rs[1]
	stream := nodes.of.Stream("web-01")
	do(t, a.w, clk, "web-01", register("web-01", domain.KindLinux))
	if _, ok := a.w.unit.Remembered(stream); !ok {
		t.Fatal("replica A does not remember the node it registered")
	}
	cordoned := do(t, b.w, clk, "web-01", domain.SetNodeSchedulable{Unschedulable: true})
	got := do(t, a.w, clk, "web-01", domain.SetNodeSchedulable{Unschedulable: true})
	if !got.Unschedulable || got.ResourceVersion != cordoned.ResourceVersion || got.Version != cordoned.Version {
		t.Errorf("replica A's cordon answered unschedulable %v at %d (version %d); B cordoned it at %d (version %d)",
			got.Unschedulable, got.ResourceVersion, got.Version, cordoned.ResourceVersion, cordoned.Version)
	}
	if n := streamLen(t, a.log, stream); n != 2 {
		t.Errorf("the node's stream holds %d events after a cordon of a cordoned node, want 2", n)
	}

	// A uncordons (and remembers the node uncordoned); B cordons again;
	// A's uncordon is no change to its memory, and one to the node.
	do(t, a.w, clk, "web-01", domain.SetNodeSchedulable{Unschedulable: false})
	if s, ok := a.w.unit.Remembered(stream); !ok || s.(domain.Node).Unschedulable {
		t.Fatalf("replica A remembers %+v (%v), want the node uncordoned", s, ok)
	}
	do(t, b.w, clk, "web-01", domain.SetNodeSchedulable{Unschedulable: true})
	got = do(t, a.w, clk, "web-01", domain.SetNodeSchedulable{Unschedulable: false})
	head, err := a.log.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got.Unschedulable || got.ResourceVersion != head {
		t.Errorf("replica A's uncordon answered unschedulable %v at %d, want schedulable at the head %d", got.Unschedulable, got.ResourceVersion, head)
	}
	row, err := NewNodeView(a.log).Get(ctx, "web-01")
	if err != nil {
		t.Fatal(err)
	}
	if row.Unschedulable || row.ResourceVersion != head {
		t.Errorf("the node's row: unschedulable %v at %d, want schedulable at %d", row.Unschedulable, row.ResourceVersion, head)
	}
	if n := streamLen(t, a.log, stream); n != 5 {
		t.Errorf("the node's stream holds %d events, want 5", n)
	}
}

// TestARefusalOnALeaseAnotherReplicaRenewedIsDecidedOnItsRowOnPostgres:
// a renewal on replica A that names the resourceVersion of B's renewal,
// which A's memory is behind, is stored, not refused; one that names
// A's own renewal, which B's has since overtaken, is refused, not
// stored.
func TestARefusalOnALeaseAnotherReplicaRenewedIsDecidedOnItsRowOnPostgres(t *testing.T) {
	ctx := t.Context()
	clk := clocktesting.NewFakeClock(t0)
	rs := replicas(t, 2, clk)
	a, b := rs[0], rs[1]
	stream := domain.LeaseStream(leaseKey.Namespace, leaseKey.Name)
	renew := func(r replica, rv int64) (domain.Lease, error) {
		clk.Step(10 * time.Second)
		return r.w.LeaseCommands().Execute(ctx, leaseKey, domain.Precondition[domain.LeaseCommand]{
			ResourceVersion: rv, Command: domain.UpdateLease{Content: leaseContent("web-01", clk.Now())}})
	}
	created, err := a.w.LeaseCommands().Execute(ctx, leaseKey, domain.CreateLease{Namespace: leaseKey.Namespace, Name: leaseKey.Name, Content: leaseContent("web-01", clk.Now())})
	if err != nil {
		t.Fatal(err)
	}
	byB, err := renew(b, created.ResourceVersion)
	if err != nil {
		t.Fatal(err)
	}
	// A remembers the lease at its creation; the client saw B's renewal.
	byA, err := renew(a, byB.ResourceVersion)
	if err != nil {
		t.Fatalf("replica A's renewal at B's resourceVersion %d: %v", byB.ResourceVersion, err)
	}
	if byA.Version != 3 || !byA.Spec.RenewTime.Equal(clk.Now()) {
		t.Errorf("replica A's renewal answered version %d renewed %v, want version 3 renewed %v", byA.Version, byA.Spec.RenewTime, clk.Now())
	}

	// A remembers its renewal; B renews after it; a client that saw A's
	// renewal only is refused on A.
	byB, err = renew(b, byA.ResourceVersion)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := renew(a, byA.ResourceVersion); !errors.Is(err, domain.ErrConflict) {
		t.Errorf("replica A's renewal at its own resourceVersion %d, overtaken by B's %d: %v, want ErrConflict",
			byA.ResourceVersion, byB.ResourceVersion, err)
	}
	if n := streamLen(t, a.log, stream); n != 4 {
		t.Errorf("the lease's stream holds %d events, want 4", n)
	}
	row, err := loadLease(ctx, a.views.DB, leaseKey.Namespace, leaseKey.Name)
	if err != nil {
		t.Fatal(err)
	}
	if row.ResourceVersion != byB.ResourceVersion {
		t.Errorf("the lease's row is at %d, want B's renewal at %d", row.ResourceVersion, byB.ResourceVersion)
	}
}

// TestARenewalOfARememberedLeaseReadsNoRowOnPostgres: on PostgreSQL a
// lease's renewal, and a renewal that changes nothing, decide on the
// lease as this replica last committed it, without reading its row.
func TestARenewalOfARememberedLeaseReadsNoRowOnPostgres(t *testing.T) {
	ctx := t.Context()
	clk := clocktesting.NewFakeClock(t0)
	a := replicas(t, 1, clk)[0]
	stream := domain.LeaseStream(leaseKey.Namespace, leaseKey.Name)
	if _, err := a.w.LeaseCommands().Execute(ctx, leaseKey, domain.CreateLease{Namespace: leaseKey.Namespace, Name: leaseKey.Name, Content: leaseContent("web-01", clk.Now())}); err != nil {
		t.Fatal(err)
	}
	before := a.views.reads.Load()
	const renewals = 5
	for range renewals {
		clk.Step(10 * time.Second)
		if _, err := a.w.LeaseCommands().Execute(ctx, leaseKey, domain.UpdateLease{Content: leaseContent("web-01", clk.Now())}); err != nil {
			t.Fatal(err)
		}
	}
	// The same renewal again changes nothing: the stream has not moved
	// past the memory, which answers it.
	same, err := a.w.LeaseCommands().Execute(ctx, leaseKey, domain.UpdateLease{Content: leaseContent("web-01", clk.Now())})
	if err != nil {
		t.Fatal(err)
	}
	if reads := a.views.reads.Load() - before; reads != 0 {
		t.Errorf("%d renewals and a renewal that changes nothing read %d statements of the views, want none", renewals, reads)
	}
	if got := a.redecided(t); got != 0 {
		t.Errorf("%v renewals were decided again, want none", got)
	}
	if n := streamLen(t, a.log, stream); n != 1+renewals || same.Version != 1+renewals {
		t.Errorf("the lease's stream holds %d events, the last answer is at version %d; want %d", n, same.Version, 1+renewals)
	}
}

// TestABatchOnANodeAnotherReplicaChangedIsDecidedOnItsRowOnPostgres: a
// batch runs its commands on the group commit's leader, each decided on
// what replica A remembers where it remembers it: a cordon that A's
// memory would write, of a node B cordoned since, is refused by the
// stream's version and decided again on the row (nothing to do); an
// uncordon that A's memory says is done, of a node B cordoned since, is
// decided again on the row and uncordons it.
func TestABatchOnANodeAnotherReplicaChangedIsDecidedOnItsRowOnPostgres(t *testing.T) {
	ctx := t.Context()
	clk := clocktesting.NewFakeClock(t0)
	rs := replicas(t, 2, clk)
	a, b := rs[0], rs[1]
	stream := nodes.of.Stream("web-01")
	batch := func(unschedulable bool) domain.Node {
		t.Helper()
		out, refused, err := a.w.cmds().nodes.ExecuteBatch(ctx, []domain.Keyed[domain.NodeCommand]{
			{Key: domain.Key{Name: "web-01"}, Command: domain.SetNodeSchedulable{Unschedulable: unschedulable}}})
		if err != nil || refused != nil {
			t.Fatalf("replica A's batch: %v, %v", refused, err)
		}
		return out[0]
	}
	do(t, a.w, clk, "web-01", register("web-01", domain.KindLinux))
	cordoned := do(t, b.w, clk, "web-01", domain.SetNodeSchedulable{Unschedulable: true})
	if got := batch(true); !got.Unschedulable || got.ResourceVersion != cordoned.ResourceVersion {
		t.Errorf("replica A's cordon answered unschedulable %v at %d; B cordoned it at %d", got.Unschedulable, got.ResourceVersion, cordoned.ResourceVersion)
	}
	if n := streamLen(t, a.log, stream); n != 2 {
		t.Errorf("the node's stream holds %d events after a cordon of a cordoned node, want 2", n)
	}
	batch(false)
	if s, ok := a.w.unit.Remembered(stream); !ok || s.(domain.Node).Unschedulable {
		t.Fatalf("replica A remembers %+v (%v), want the node uncordoned", s, ok)
	}
	do(t, b.w, clk, "web-01", domain.SetNodeSchedulable{Unschedulable: true})
	got := batch(false)
	head, err := a.log.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got.Unschedulable || got.ResourceVersion != head {
		t.Errorf("replica A's uncordon answered unschedulable %v at %d, want schedulable at the head %d", got.Unschedulable, got.ResourceVersion, head)
	}
	if n := streamLen(t, a.log, stream); n != 5 {
		t.Errorf("the node's stream holds %d events, want 5", n)
	}
}
