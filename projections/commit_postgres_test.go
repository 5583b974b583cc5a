package projections

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"herd/domain"
	"herd/events"
	"herd/events/eventstest"
	"herd/events/pgtest"
)

// TestGroupCommitOnPostgres: on PostgreSQL, where a failed statement
// aborts the whole transaction, a group of commands still commits the
// accepted ones and leaves no trace of the refused ones — those refused
// by a domain rule before writing, and one that fails after appending —
// and the answers are those of the commands run one after the other.
func TestGroupCommitOnPostgres(t *testing.T) {
	ctx := t.Context()
	log := eventstest.OpenPostgres(t, pgtest.URL(t))
	if err := Migrate(ctx, log); err != nil {
		t.Fatal(err)
	}
	clk := clocktesting.NewFakeClock(t0)
	w := NewWriter(log, clk, nil)
	do(t, w, clk, "web-01", register("web-01", domain.KindLinux))
	clk.Step(time.Second)
	before, _ := log.Head(ctx)

	cmds := []*nodeCommand{
		{node: "web-02", cmd: register("web-02", domain.KindLinux)},
		{node: "web-01", cmd: metrics(-1)}, // impossible metrics: refused
		{node: "ghost", cmd: metrics(1)},   // unknown node: refused
		{node: "web-01", cmd: metrics(500)},
	}
	queued, release := holdGroup(t, w)
	var wg sync.WaitGroup
	n := 0
	for _, cmd := range cmds {
		answered := make(chan struct{})
		wg.Go(func() {
			defer close(answered)
			cmd.got, cmd.err = w.NodeCommands().Execute(ctx, domain.Key{Name: cmd.node}, cmd.cmd)
		})
		if queuedOrAnswered(t, w, n+1, answered) {
			n++
		}
	}
	failed := errors.New("failed after writing")
	var failedErr error
	wg.Go(func() {
		failedErr = w.inTx(ctx, func(tx unitTx) error {
			if _, err := w.unit.Append(ctx, tx, domain.NodeStream("web-09"), 0, []domain.Event{
				domain.NodeRegistered{Registration: register("web-09", domain.KindLinux).Registration}}); err != nil {
				return err
			}
			return failed
		})
	})
	queued(n + 1)
	release()
	wg.Wait()

	want := []error{nil, domain.ErrInvalid, domain.ErrNotFound, nil}
	for i, cmd := range cmds {
		if !errors.Is(cmd.err, want[i]) || (want[i] == nil) != (cmd.err == nil) {
			t.Errorf("command %d (%T on %s): %v, want %v", i, cmd.cmd, cmd.node, cmd.err, want[i])
		}
	}
	if !errors.Is(failedErr, failed) {
		t.Errorf("the command that failed after writing: %v", failedErr)
	}
	recs, err := log.ReadAfter(ctx, before, 0)
	if err != nil {
		t.Fatal(err)
	}
	streams := map[string]int{}
	for _, r := range recs {
		streams[r.Stream]++
	}
	if streams[domain.NodeStream("ghost")] != 0 || streams[domain.NodeStream("web-09")] != 0 {
		t.Errorf("refused or failed commands left events: %v", streams)
	}
	if streams[domain.NodeStream("web-02")] == 0 || streams[domain.NodeStream("web-01")] == 0 {
		t.Errorf("accepted commands' events: %v", streams)
	}
	web01, err := NewNodeView(log).Get(ctx, "web-01")
	if err != nil || web01.Version != cmds[3].got.Version || web01.Metrics == nil || web01.Metrics.MemoryAvailableBytes != 500 {
		t.Errorf("web-01 after the group: %+v, %v (the heartbeat answered version %d)", web01.Metrics, err, cmds[3].got.Version)
	}
	if head, _ := log.Head(ctx); head != recs[len(recs)-1].Position || int64(len(recs)) != head-before {
		t.Errorf("positions after the group: %d events after %d, head %d: a gap or a lost position", len(recs), before, head)
	}
}

// TestPreparedWriteWhileReadersWaitOnPostgres: on PostgreSQL, lists wait
// inside the database for another replica's append still running, each
// on one of this replica's few connections; a node's write in the
// meantime needs no connection beyond its group's own, so it commits
// rather than waiting for them while they wait for the other replica.
func TestPreparedWriteWhileReadersWaitOnPostgres(t *testing.T) {
	ctx := t.Context()
	url := pgtest.URL(t)
	log := eventstest.OpenPostgres(t, url)
	if err := Migrate(ctx, log); err != nil {
		t.Fatal(err)
	}
	clk := clocktesting.NewFakeClock(t0)
	w := NewWriter(log, clk, nil)

	// Another replica's append, left running.
	other := eventstest.OpenPostgres(t, url)
	tx, err := other.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Append(ctx, "node/elsewhere", 0, events.Metadata{}, t0, events.NewEvent{Type: "NodeRegistered", Payload: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	var lists sync.WaitGroup
	nodes := NewNodeView(log)
	for range maxWaitingLists {
		lists.Go(func() {
			if _, _, err := nodes.List(ctx); err != nil {
				t.Errorf("a list after the other replica's append: %v", err)
			}
		})
	}
	// The lists are waiting once they hold their connections.
	db, _ := events.SQLDB(log)
	eventstest.Eventually(t, eventstest.WaitFor, func() bool { return db.Stats().InUse >= maxWaitingLists },
		"the %d waiting lists to hold their connections", maxWaitingLists)

	wrote := make(chan error, 1)
	go func() {
		_, err := w.NodeCommands().Execute(ctx, domain.Key{Name: "web-01"}, register("web-01", domain.KindLinux))
		wrote <- err
	}()
	answered := false
	select {
	case err := <-wrote:
		answered = true
		if err != nil {
			t.Errorf("registering web-01: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Error("registering web-01 waited for the lists that wait for another replica")
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	lists.Wait()
	if !answered {
		if err := <-wrote; err != nil {
			t.Errorf("registering web-01, once the other replica committed: %v", err)
		}
	}
}

// maxWaitingLists is how many of a replica's connections (four) lists
// may hold while the group commit's transaction holds the last.
const maxWaitingLists = 3

// TestAGroupsViewRowsAllCommitOrNoneOnPostgres: on PostgreSQL the view
// rows of a group's ready writes run together (one pipelined batch): 40
// renewals of as many leases in one group each store their lease's row
// as answered; then, with one lease's row refused by the database, the
// next 40 renewals in one group all get the error and the group leaves
// nothing behind, neither events nor rows.
func TestAGroupsViewRowsAllCommitOrNoneOnPostgres(t *testing.T) {
	ctx := t.Context()
	url := pgtest.URL(t)
	log := eventstest.OpenPostgres(t, url)
	if err := Migrate(ctx, log); err != nil {
		t.Fatal(err)
	}
	clk := clocktesting.NewFakeClock(t0)
	w := NewWriter(log, clk, nil)
	const ns, n = domain.NodeLeaseNamespace, 40
	name := func(i int) string { return fmt.Sprintf("batch-%02d", i) }
	for i := range n {
		if _, err := w.LeaseCommands().Execute(ctx, domain.Key{Namespace: ns, Name: name(i)},
			domain.CreateLease{Namespace: ns, Name: name(i), Content: leaseContent(name(i), clk.Now())}); err != nil {
			t.Fatal(err)
		}
	}
	renewAll := func(at time.Time) ([]domain.Lease, []error) {
		got := make([]domain.Lease, n)
		errs := concurrently(t, w, n, func(i int) error {
			var err error
			got[i], err = w.LeaseCommands().Execute(ctx, domain.Key{Namespace: ns, Name: name(i)},
				domain.UpdateLease{Content: leaseContent(name(i), at)})
			return err
		})
		return got, errs
	}
	leases := NewLeaseView(log)

	got, errs := renewAll(t0.Add(time.Minute))
	for i, err := range errs {
		if err != nil {
			t.Fatalf("renewal of %s: %v", name(i), err)
		}
		stored, err := leases.Get(ctx, ns, name(i))
		if err != nil {
			t.Fatal(err)
		}
		if stored.Version != got[i].Version || stored.ResourceVersion != got[i].ResourceVersion {
			t.Errorf("%s stored at version %d, resourceVersion %d; its renewal answered %d, %d",
				name(i), stored.Version, stored.ResourceVersion, got[i].Version, got[i].ResourceVersion)
		}
	}

	db, _ := events.SQLDB(log)
	if _, err := db.ExecContext(ctx, `CREATE FUNCTION refuse_lease_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN RAISE EXCEPTION 'lease row refused'; END $$`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `CREATE TRIGGER refuse_lease_row BEFORE INSERT OR UPDATE ON leases
FOR EACH ROW WHEN (NEW.name = '`+name(n/2)+`') EXECUTE FUNCTION refuse_lease_row()`); err != nil {
		t.Fatal(err)
	}
	before, err := log.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, errs = renewAll(t0.Add(2 * time.Minute))
	for i, err := range errs {
		if err == nil || !strings.Contains(err.Error(), "lease row refused") {
			t.Errorf("renewal of %s in the group with a refused row: %v, want the refusal", name(i), err)
		}
		stored, err := leases.Get(ctx, ns, name(i))
		if err != nil {
			t.Fatal(err)
		}
		if stored.Version != got[i].Version {
			t.Errorf("%s at version %d after the failed group, want %d as before it", name(i), stored.Version, got[i].Version)
		}
	}
	if recs, err := log.ReadAfter(ctx, before, 0); err != nil || len(recs) != 0 {
		t.Errorf("the failed group left %d events (%v)", len(recs), err)
	}
}
