package projections

import (
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"herd/domain"
	"herd/events"
	"herd/events/eventstest"
	"herd/events/pgtest"
	"herd/projections/viewstore"
)

// TestLeasesThroughTheUnitOfWorkOnPostgres: the lease aggregate's unit of
// work — load the row, decide, append, write the row, in one
// group-committed transaction — and its reads run on PostgreSQL as on
// SQLite. A
// created and renewed lease reads back with its resourceVersion and
// herd's time of the renewal; a stale renewal gets ErrConflict and
// changes nothing; many leases renewed at once are group-committed
// without losing one, each row at its last event's position; the view
// pages through them at the log's head.
func TestLeasesThroughTheUnitOfWorkOnPostgres(t *testing.T) {
	ctx := t.Context()
	url := pgtest.URL(t)
	log := eventstest.OpenPostgres(t, url)
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if err := Migrate(ctx, log); err != nil {
		t.Fatal(err)
	}
	views := viewstore.NewDBOn(db, events.EnginePostgres.Dialect())
	clk := clocktesting.NewFakeClock(t0)
	w := NewWriter(log, clk, nil)
	update := func(name string, cmd domain.LeaseCommand) (domain.Lease, error) {
		return w.LeaseCommands().Execute(ctx, domain.Key{Namespace: domain.NodeLeaseNamespace, Name: name}, cmd)
	}

	if _, err := update("web-01", domain.CreateLease{Namespace: domain.NodeLeaseNamespace, Name: "web-01", Content: leaseContent("web-01", clk.Now())}); err != nil {
		t.Fatal(err)
	}
	clk.Step(10 * time.Second)
	renewed, err := update("web-01", domain.UpdateLease{Content: leaseContent("web-01", clk.Now())})
	if err != nil {
		t.Fatal(err)
	}
	stored, err := loadLease(ctx, views, domain.NodeLeaseNamespace, "web-01")
	if err != nil {
		t.Fatal(err)
	}
	head, _ := log.Head(ctx)
	if stored.ResourceVersion != head || renewed.ResourceVersion != head || !stored.RenewedAt.Equal(clk.Now()) || stored.Version != 2 {
		t.Errorf("stored lease: version %d, resourceVersion %d (answered %d, head %d), renewed at %v (now %v)",
			stored.Version, stored.ResourceVersion, renewed.ResourceVersion, head, stored.RenewedAt, clk.Now())
	}
	if _, err := update("web-01", domain.Precondition[domain.LeaseCommand]{ResourceVersion: head - 1, Command: domain.UpdateLease{Content: leaseContent("web-01", clk.Now())}}); !errors.Is(err, domain.ErrConflict) {
		t.Errorf("stale renewal: %v, want ErrConflict", err)
	}
	if h, _ := log.Head(ctx); h != head {
		t.Errorf("a refused renewal moved the head from %d to %d", head, h)
	}

	const leases, renewals = 20, 5
	var wg sync.WaitGroup
	errs := make(chan error, leases)
	for i := range leases {
		wg.Go(func() {
			name := fmt.Sprintf("n-%02d", i)
			if _, err := update(name, domain.CreateLease{Namespace: domain.NodeLeaseNamespace, Name: name, Content: leaseContent(name, clk.Now())}); err != nil {
				errs <- err
				return
			}
			for k := range renewals {
				// Each renewal names a later renewTime: one that changes
				// nothing records nothing.
				at := clk.Now().Add(time.Duration(k+1) * time.Second)
				if _, err := update(name, domain.UpdateLease{Content: leaseContent(name, at)}); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	recs, err := log.ReadAfter(ctx, head, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != leases*(1+renewals) {
		t.Fatalf("the log holds %d new events, want %d", len(recs), leases*(1+renewals))
	}
	last := map[string]int64{}
	for _, r := range recs {
		last[r.Stream] = r.Position
	}
	// The lease view reads the same rows at the log's head.
	view := &LeaseView{db: views}
	all, at, err := view.Rows(ctx, "", 0)
	if h, _ := log.Head(ctx); err != nil || at != h || len(all) != leases+1 {
		t.Fatalf("rows: %d at %d (head %d), %v; want %d", len(all), at, h, err, leases+1)
	}
	page, _, err := view.Rows(ctx, domain.NodeLeaseNamespace+"/n-05", 3)
	if err != nil || len(page) != 3 || page[0].Name != "n-06" || page[2].Name != "n-08" {
		t.Errorf("the page after n-05: %+v, %v", page, err)
	}
	if got, err := view.Get(ctx, domain.NodeLeaseNamespace, "web-01"); err != nil || got.ResourceVersion != stored.ResourceVersion {
		t.Errorf("get web-01: %+v, %v", got, err)
	}
	for i := range leases {
		name := fmt.Sprintf("n-%02d", i)
		l, err := loadLease(ctx, views, domain.NodeLeaseNamespace, name)
		if err != nil {
			t.Fatal(err)
		}
		if want := last[domain.LeaseStream(domain.NodeLeaseNamespace, name)]; l.ResourceVersion != want || l.Version != 1+renewals {
			t.Errorf("%s: version %d at %d, want %d at its last event %d", name, l.Version, l.ResourceVersion, 1+renewals, want)
		}
	}
}
