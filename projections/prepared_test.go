package projections

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	clocktesting "k8s.io/utils/clock/testing"

	"herd/domain"
	"herd/events"
	"herd/events/eventstest"
	"herd/events/pgtest"
	"herd/projections/command"
)

// onBothEngines runs test on a fresh SQLite log and a fresh PostgreSQL
// database, each with the views migrated.
func onBothEngines(t *testing.T, test func(t *testing.T, log events.Log)) {
	t.Run("sqlite", func(t *testing.T) { test(t, openStore(t).Log()) })
	t.Run("postgres", func(t *testing.T) {
		log := eventstest.OpenPostgres(t, pgtest.URL(t))
		if err := Migrate(t.Context(), log); err != nil {
			t.Fatal(err)
		}
		test(t, log)
	})
}

// counterValue is the value of the counter name gathered from reg.
func counterValue(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name {
			return mf.GetMetric()[0].GetCounter().GetValue()
		}
	}
	t.Fatalf("no metric %s", name)
	return 0
}

// concurrently runs n copies of fn at once, all decided on the same state:
// the group commit is held until all n are queued, so that all but the
// first find their stream moved. It returns each one's error.
func concurrently(t *testing.T, w *Writer, n int, fn func(i int) error) []error {
	t.Helper()
	queued, release := holdGroup(t, w)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { errs[i] = fn(i) })
	}
	queued(n)
	release()
	wg.Wait()
	return errs
}

// TestConcurrentRenewalsOfOneLeaseApplyOnce: 32 renewals of one lease
// queued in one group commit are each applied exactly once: the stream
// ends 32 versions on and each renewal got a version of its own.
func TestConcurrentRenewalsOfOneLeaseApplyOnce(t *testing.T) {
	onBothEngines(t, func(t *testing.T, log events.Log) {
		ctx := t.Context()
		clk := clocktesting.NewFakeClock(t0)
		w := NewWriter(log, clk, nil)
		const ns, name, n = domain.NodeLeaseNamespace, "web-01", 32
		created, err := w.LeaseCommands().Execute(ctx, domain.Key{Namespace: ns, Name: name},
			domain.CreateLease{Namespace: ns, Name: name, Content: leaseContent(name, clk.Now())})
		if err != nil {
			t.Fatal(err)
		}
		got := make([]domain.Lease, n)
		errs := concurrently(t, w, n, func(i int) error {
			var err error
			renew := t0.Add(time.Duration(i+1) * time.Second)
			got[i], err = w.LeaseCommands().Execute(ctx, domain.Key{Namespace: ns, Name: name},
				domain.UpdateLease{Content: leaseContent(name, renew)})
			return err
		})
		versions := map[int64]bool{}
		for i, err := range errs {
			if err != nil {
				t.Fatalf("renewal %d: %v", i, err)
			}
			if versions[got[i].Version] {
				t.Errorf("renewal %d: version %d answered twice", i, got[i].Version)
			}
			versions[got[i].Version] = true
		}
		recs, err := log.ReadStream(ctx, domain.LeaseStream(ns, name), created.Version)
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) != n {
			t.Errorf("%d events appended by %d renewals", len(recs), n)
		}
		stored, err := NewLeaseView(log).Get(ctx, ns, name)
		if err != nil {
			t.Fatal(err)
		}
		if want := created.Version + n; stored.Version != want {
			t.Errorf("lease version %d after %d renewals of version %d, want %d", stored.Version, n, created.Version, want)
		}
		last := recs[len(recs)-1]
		if stored.ResourceVersion != last.Position {
			t.Errorf("lease resourceVersion %d, want its last event's position %d", stored.ResourceVersion, last.Position)
		}
		for i := range got {
			if got[i].Version == stored.Version && got[i].ResourceVersion != last.Position {
				t.Errorf("the last renewal answered resourceVersion %d, want %d", got[i].ResourceVersion, last.Position)
			}
		}
	})
}

// leaseRenewals makes the lease web-01 through a new writer on log and
// returns them, with renew (a renewal as at a time) and onLeader (such a
// renewal run whole on the group commit's leader).
func leaseRenewals(t *testing.T, log events.Log, m *Metrics) (w *Writer, key domain.Key, created domain.Lease,
	renew func(at time.Time) domain.LeaseCommand, onLeader func(at time.Time) error) {
	t.Helper()
	ctx := t.Context()
	clk := clocktesting.NewFakeClock(t0)
	w = NewWriter(log, clk, m)
	key = domain.Key{Namespace: domain.NodeLeaseNamespace, Name: "web-01"}
	created, err := w.LeaseCommands().Execute(ctx, key,
		domain.CreateLease{Namespace: key.Namespace, Name: key.Name, Content: leaseContent("web-01", clk.Now())})
	if err != nil {
		t.Fatal(err)
	}
	renew = func(at time.Time) domain.LeaseCommand {
		return domain.UpdateLease{Content: leaseContent("web-01", at)}
	}
	onLeader = func(at time.Time) error {
		return w.inTx(ctx, func(tx unitTx) error {
			_, err := leases.updateTx(ctx, w, tx, key.String(), func(l domain.Lease) ([]domain.Event, error) {
				return domain.DecideLease(l, renew(at), clk.Now())
			})
			return err
		})
	}
	return w, key, created, renew, onLeader
}

// TestStaleRenewalIsDecidedAgain: a renewal decided on a lease that
// another command moves before the renewal's turn (here one run on the
// leader, queued first) finds its stream moved, is decided again on the
// newer lease and applied once after it; the redecided counter says so.
func TestStaleRenewalIsDecidedAgain(t *testing.T) {
	onBothEngines(t, func(t *testing.T, log events.Log) {
		ctx := t.Context()
		reg := prometheus.NewRegistry()
		w, key, created, renew, onLeader := leaseRenewals(t, log, NewMetrics(reg))
		queued, release := holdGroup(t, w)
		var wg sync.WaitGroup
		var onLeaderErr, preparedErr error
		var prepared domain.Lease
		wg.Go(func() { onLeaderErr = onLeader(t0.Add(time.Second)) })
		queued(1)
		wg.Go(func() {
			prepared, preparedErr = w.LeaseCommands().Execute(ctx, key, renew(t0.Add(2*time.Second)))
		})
		queued(2)
		release()
		wg.Wait()
		if onLeaderErr != nil || preparedErr != nil {
			t.Fatalf("renewal on the leader: %v; prepared renewal: %v", onLeaderErr, preparedErr)
		}
		if prepared.Version != created.Version+2 || !prepared.Spec.RenewTime.Equal(t0.Add(2*time.Second)) {
			t.Errorf("the stale renewal answered version %d renewTime %v, want %d and %v", prepared.Version, prepared.Spec.RenewTime, created.Version+2, t0.Add(2*time.Second))
		}
		recs, err := log.ReadStream(ctx, domain.LeaseStream(key.Namespace, key.Name), 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) != 3 {
			t.Errorf("%d events in the lease's stream after a creation and two renewals", len(recs))
		}
		if v := counterValue(t, reg, "herd_commit_commands_redecided_total"); v != 1 {
			t.Errorf("herd_commit_commands_redecided_total = %v, want 1", v)
		}
	})
}

// TestStaleRenewalRunsOnTheLeaderNotDecidedAgainAndAgain: a renewal
// found stale is not decided again outside the lock, where the writes
// the leader runs ahead of it could make it stale again for as long as
// its lease stays busy (one write per node waited over 10 seconds with
// 64 clients writing two nodes): it runs on the leader, so it is decided
// twice at most, however busy the lease. Here a further renewal queues
// while the stale one is decided the second time; decided outside the
// lock, the stale one would meet it ahead of itself and be decided a
// third time.
func TestStaleRenewalRunsOnTheLeaderNotDecidedAgainAndAgain(t *testing.T) {
	onBothEngines(t, func(t *testing.T, log events.Log) {
		ctx := t.Context()
		w, key, created, renew, onLeader := leaseRenewals(t, log, nil)
		queued, release := holdGroup(t, w)
		var wg sync.WaitGroup
		var firstErr, laterErr, staleErr error
		wg.Go(func() { firstErr = onLeader(t0.Add(time.Second)) })
		queued(1)
		var decided atomic.Int32
		var stale domain.Lease
		// The lease's executor, with a decision that counts itself.
		counted := command.NewCommands(w.unit, leases.on(w), func(l domain.Lease, cmd domain.LeaseCommand, now time.Time) ([]domain.Event, error) {
			if decided.Add(1) == 2 {
				// Another client renews now, and waits its turn.
				waiting := queueLen(w)
				wg.Go(func() { laterErr = onLeader(t0.Add(3 * time.Second)) })
				for deadline := time.Now().Add(eventstest.WaitFor); queueLen(w) <= waiting && time.Now().Before(deadline); {
					runtime.Gosched()
				}
			}
			return domain.DecideLease(l, cmd, now)
		}, nil)
		wg.Go(func() {
			stale, staleErr = counted.Execute(ctx, key, renew(t0.Add(2*time.Second)))
		})
		queued(2)
		release()
		wg.Wait()
		if firstErr != nil || staleErr != nil || laterErr != nil {
			t.Fatalf("renewals: %v; %v; %v", firstErr, staleErr, laterErr)
		}
		if n := decided.Load(); n != 2 {
			t.Errorf("the stale renewal was decided %d times, want 2 (once prepared, once on the leader)", n)
		}
		if stale.Version != created.Version+2 || !stale.Spec.RenewTime.Equal(t0.Add(2*time.Second)) {
			t.Errorf("the stale renewal answered version %d renewTime %v, want %d and %v", stale.Version, stale.Spec.RenewTime, created.Version+2, t0.Add(2*time.Second))
		}
		recs, err := log.ReadStream(ctx, domain.LeaseStream(key.Namespace, key.Name), 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) != 4 {
			t.Errorf("%d events in the lease's stream after a creation and three renewals", len(recs))
		}
	})
}

// TestConcurrentHeartbeatsOfOneNodeApplyOnce: as for a lease, 32
// heartbeats of one node decided on the same state apply exactly once
// each, and the node's rows end at its last event.
func TestConcurrentHeartbeatsOfOneNodeApplyOnce(t *testing.T) {
	onBothEngines(t, func(t *testing.T, log events.Log) {
		ctx := t.Context()
		clk := clocktesting.NewFakeClock(t0)
		w := NewWriter(log, clk, nil)
		const n = 32
		do(t, w, clk, "web-01", register("web-01", domain.KindLinux))
		before := do(t, w, clk, "web-01", metrics(100)) // the first heartbeat also sets the conditions
		errs := concurrently(t, w, n, func(i int) error {
			_, err := w.NodeCommands().Execute(ctx, domain.Key{Name: "web-01"}, metrics(int64(100+i)))
			if err != nil {
				t.Logf("heartbeat %d: %v", i, err)
			}
			return err
		})
		for i, err := range errs {
			if err != nil {
				t.Fatalf("heartbeat %d: %v", i, err)
			}
		}
		recs, err := log.ReadStream(ctx, domain.NodeStream("web-01"), before.Version)
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) != n {
			t.Fatalf("%d events appended by %d heartbeats", len(recs), n)
		}
		got, err := NewNodeView(log).Get(ctx, "web-01")
		if err != nil {
			t.Fatal(err)
		}
		if got.Version != before.Version+n || got.ResourceVersion != recs[n-1].Position {
			t.Errorf("node at version %d rv %d, want %d rv %d", got.Version, got.ResourceVersion, before.Version+n, recs[n-1].Position)
		}
	})
}

// TestRefusedPreparedCommandWritesNothing: a command its decision refuses
// returns that error and writes nothing, whether refused at once (a
// renewal on a resourceVersion the lease left) or on being decided again
// (the second of two deletions decided on the same lease).
func TestRefusedPreparedCommandWritesNothing(t *testing.T) {
	onBothEngines(t, func(t *testing.T, log events.Log) {
		ctx := t.Context()
		clk := clocktesting.NewFakeClock(t0)
		w := NewWriter(log, clk, nil)
		key := domain.Key{Namespace: domain.NodeLeaseNamespace, Name: "web-01"}
		created, err := w.LeaseCommands().Execute(ctx, key,
			domain.CreateLease{Namespace: key.Namespace, Name: key.Name, Content: leaseContent("web-01", clk.Now())})
		if err != nil {
			t.Fatal(err)
		}
		head, _ := log.Head(ctx)
		_, err = w.LeaseCommands().Execute(ctx, key, domain.Precondition[domain.LeaseCommand]{ResourceVersion: created.ResourceVersion + 1000, Command: domain.UpdateLease{
			Content: leaseContent("web-01", t0.Add(time.Second))}})
		if !errors.Is(err, domain.ErrConflict) {
			t.Errorf("renewal on an old resourceVersion: err = %v, want ErrConflict", err)
		}
		if h, _ := log.Head(ctx); h != head {
			t.Errorf("a refused renewal moved the log head from %d to %d", head, h)
		}

		errs := concurrently(t, w, 2, func(int) error {
			_, err := w.LeaseCommands().Execute(ctx, key, domain.DeleteLease{})
			return err
		})
		if (errs[0] == nil) == (errs[1] == nil) || !errors.Is(errors.Join(errs...), domain.ErrNotFound) {
			t.Errorf("two deletions of one lease: %v, want one done and one not found", errs)
		}
		recs, err := log.ReadStream(ctx, domain.LeaseStream(key.Namespace, key.Name), 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) != 2 || recs[1].Type != "LeaseDeleted" {
			t.Errorf("lease stream after a refused renewal and two deletions: %d events", len(recs))
		}
	})
}

// TestPreparedRowsCarryTheirPositions: the positions a prepared command's
// rows carry (a lease's resource_version column and JSON, a node's hot
// row and timeline) are the positions its events got, not placeholders.
func TestPreparedRowsCarryTheirPositions(t *testing.T) {
	w, store, clk := newWriter(t)
	ctx := context.Background()
	n := do(t, w, clk, "web-01", register("web-01", domain.KindLinux))
	clk.Step(time.Second)
	hb := do(t, w, clk, "web-01", metrics(100))
	fresh, err := NewNodeView(store.Log()).Get(ctx, "web-01")
	if err != nil {
		t.Fatal(err)
	}
	head, err := store.Head(ctx, store.DB())
	if err != nil {
		t.Fatal(err)
	}
	if fresh.ResourceVersion != hb.ResourceVersion || hb.ResourceVersion <= n.ResourceVersion || hb.ResourceVersion != head {
		t.Errorf("node rv: view %d, answered %d, registration %d, log head %d", fresh.ResourceVersion, hb.ResourceVersion, n.ResourceVersion, head)
	}
	tl, err := NewTimelineView(store.Log()).Node(ctx, "web-01", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range tl {
		if e.Position <= 0 || e.Position > hb.ResourceVersion {
			t.Errorf("timeline entry %s at position %d", e.Kind, e.Position)
		}
	}
	if len(tl) == 0 {
		t.Error("a registration left no timeline entry")
	}
}
