package projections

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	clocktesting "k8s.io/utils/clock/testing"

	"herd/domain"
	"herd/events"
	"herd/events/eventstest"
	"herd/events/pgtest"
)

// compactionEngines are the engines the retention tests run on. Each
// opens a fresh log with its views migrated, and says how to open the
// same log in another process: another replica sharing the database on
// PostgreSQL; on SQLite, which one herd writes, the file opened again.
var compactionEngines = []struct {
	name string
	open func(t *testing.T) (log events.Log, another func(t *testing.T) events.Log)
}{
	{"SQLite", func(t *testing.T) (events.Log, func(t *testing.T) events.Log) {
		store := openStore(t)
		return store.Log(), func(t *testing.T) events.Log {
			s, err := events.Open(t.Context(), events.Config{Path: storePath(t, store)}, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = s.Close() })
			return s.Log()
		}
	}},
	{"PostgreSQL", func(t *testing.T) (events.Log, func(t *testing.T) events.Log) {
		url := pgtest.URL(t)
		open := func(t *testing.T) events.Log {
			log, err := events.OpenPostgres(t.Context(), url)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = log.Close() })
			return log
		}
		log := open(t)
		if err := Migrate(t.Context(), log); err != nil {
			t.Fatal(err)
		}
		return log, open
	}},
}

// verifyLive rebuilds the views from log and compares them with the live
// ones, as replay --verify does on each engine.
func verifyLive(t *testing.T, log events.Log, opts RebuildOptions) {
	t.Helper()
	var (
		diff *Difference
		err  error
	)
	if store := events.SQLiteStore(log); store != nil {
		diff, _, err = Verify(t.Context(), store, filepath.Join(t.TempDir(), "scratch.db"), events.Config{}, opts)
	} else {
		diff, _, err = VerifyInPlace(t.Context(), log, opts)
	}
	if err != nil {
		t.Fatal(err)
	}
	if diff != nil {
		t.Fatalf("after compaction, rebuilt views differ from live ones: %s", diff)
	}
}

// logCensus is what a log holds: events per type, and each node stream's
// newest heartbeat.
type logCensus struct {
	byType     map[string]int
	newestBeat map[string]int64
	all        []events.Record
}

func census(t *testing.T, log events.Log) logCensus {
	t.Helper()
	recs, err := log.ReadAfter(t.Context(), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	c := logCensus{byType: map[string]int{}, newestBeat: map[string]int64{}, all: recs}
	for _, r := range recs {
		c.byType[r.Type]++
		if slices.Contains(compactedTypes, r.Type) {
			c.newestBeat[r.Stream] = r.Position
		}
	}
	return c
}

func pico(status domain.ConditionStatus) domain.RecordHeartbeat {
	return domain.RecordHeartbeat{Reported: []domain.ReportedCondition{{Type: domain.ConditionReady, Status: status, Reason: "PicoReady"}}}
}

// TestCompactionKeepsNewestHeartbeatsAndEveryOtherEvent, on each engine:
// superseded heartbeats and lease renewals older than the window go;
// each node's newest, every later one and every other event stay; the
// compaction point moves, in the log and, on PostgreSQL, on the other
// replicas; what is kept rebuilds to the live views.
func TestCompactionKeepsNewestHeartbeatsAndEveryOtherEvent(t *testing.T) {
	for _, e := range compactionEngines {
		t.Run(e.name, func(t *testing.T) {
			log, another := e.open(t)
			testCompactionKeepsNewest(t, log, another)
		})
	}
}

func testCompactionKeepsNewest(t *testing.T, log events.Log, another func(t *testing.T) events.Log) {
	clk := clocktesting.NewFakeClock(t0)
	w := NewWriter(log, clk, nil)
	ctx := context.Background()
	var replica events.Log // another replica, there before the compaction
	if _, engine := events.SQLDB(log); engine == events.EnginePostgres {
		replica = another(t)
	}
	do(t, w, clk, "agent", register("agent", domain.KindIllumos))
	do(t, w, clk, "pico", register("pico", domain.KindRP2040))
	do(t, w, clk, "quiet", register("quiet", domain.KindLinux))
	do(t, w, clk, "gone", register("gone", domain.KindLinux))
	do(t, w, clk, "kubelet", register("kubelet", domain.KindKubelet))
	created := map[string]bool{}
	renew := func(ns, name string) {
		t.Helper()
		var cmd domain.LeaseCommand = domain.UpdateLease{Content: leaseContent(name, clk.Now())}
		if !created[ns+"/"+name] {
			cmd = domain.CreateLease{Namespace: ns, Name: name, Content: leaseContent(name, clk.Now())}
			created[ns+"/"+name] = true
		}
		if _, err := w.LeaseCommands().Execute(ctx, domain.Key{Namespace: ns, Name: name}, cmd); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 360 { // an hour at 10 s
		renew(domain.NodeLeaseNamespace, "kubelet") // the node's heartbeat too
		if i%3 == 0 {
			renew("default", "leader")
		}
		clk.Step(10 * time.Second)
		avail := int64(500)
		if i%30 < 3 {
			avail = 50 // memory pressure comes and goes
		}
		do(t, w, clk, "agent", metrics(avail))
		status := domain.ConditionTrue
		if i > 100 && i < 120 {
			status = domain.ConditionFalse
		}
		do(t, w, clk, "pico", pico(status))
		switch {
		case i < 50:
			do(t, w, clk, "quiet", metrics(400)) // then plain heartbeats only
		case i < 300:
			do(t, w, clk, "quiet", domain.RecordHeartbeat{})
		}
		switch {
		case i < 200:
			do(t, w, clk, "gone", metrics(500))
		case i == 200:
			do(t, w, clk, "gone", domain.DeleteNode{})
		}
		if i == 150 {
			do(t, w, clk, "agent", domain.DeregisterNode{})
			do(t, w, clk, "agent", register("agent", domain.KindIllumos))
		}
	}
	before := census(t, log)
	nodesBefore, _, err := NewNodeView(log).List(ctx)
	if err != nil {
		t.Fatal(err)
	}

	c, err := NewCompactor(w, CompactionConfig{Retention: 15 * time.Minute, BatchSize: 50, ScanSize: 97}, nil)
	if err != nil {
		t.Fatal(err)
	}
	stats, err := c.Compact(ctx)
	if err != nil {
		t.Fatal(err)
	}
	after := census(t, log)
	cut := clk.Now().Add(-15 * time.Minute)

	// Every event but superseded heartbeats before the cut is still there.
	for typ, n := range before.byType {
		if !slices.Contains(compactedTypes, typ) && after.byType[typ] != n {
			t.Errorf("%s: %d before compaction, %d after", typ, n, after.byType[typ])
		}
	}
	if diff := cmp.Diff(before.newestBeat, after.newestBeat); diff != "" {
		t.Errorf("each node's newest heartbeat and each lease's newest renewal (-before +after):\n%s", diff)
	}
	deleted := 0
	for _, typ := range compactedTypes {
		if before.byType[typ] == after.byType[typ] {
			t.Errorf("no %s was deleted", typ)
		}
		deleted += before.byType[typ] - after.byType[typ]
	}
	if deleted == 0 || deleted != stats.Deleted {
		t.Fatalf("round says it deleted %d, the log lost %d heartbeats and renewals", stats.Deleted, deleted)
	}
	// Every heartbeat recorded after the cut is kept.
	kept := map[int64]bool{}
	for _, r := range after.all {
		kept[r.Position] = true
	}
	for _, r := range before.all {
		if !r.RecordedAt.Before(cut) && !kept[r.Position] {
			t.Fatalf("%s@%d recorded at %s, after the cut %s, was deleted", r.Stream, r.Version, r.RecordedAt, cut)
		}
	}
	// The quiet node's last metrics came from a heartbeat that no later
	// one superseded: it is kept.
	nodesAfter, _, err := NewNodeView(log).List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(nodesBefore, nodesAfter); diff != "" {
		t.Errorf("compaction changed the node view:\n%s", diff)
	}

	// The log's own bookkeeping: the compaction point, the count.
	comp := log.Compaction()
	if comp.Through == 0 || comp.Through != stats.Through || comp.Deleted != int64(deleted) || !comp.Before.Equal(cut) {
		t.Errorf("compaction = %+v, want through %d, %d deleted, before %s", comp, stats.Through, deleted, cut)
	}
	head, err := log.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if count := int64(len(after.all)); count != head-comp.Deleted {
		t.Errorf("%d events in the log, head %d minus %d deleted says %d", count, head, comp.Deleted, head-comp.Deleted)
	}

	// A rebuild of what is kept equals the live views.
	verifyLive(t, log, RebuildOptions{BatchSize: 64})

	// A second round, and a restarted compactor, find nothing more.
	if s, err := c.Compact(ctx); err != nil || s.Deleted != 0 {
		t.Errorf("second round deleted %d (%v), want 0", s.Deleted, err)
	}
	restarted, _ := NewCompactor(w, CompactionConfig{Retention: 15 * time.Minute}, nil)
	if s, err := restarted.Compact(ctx); err != nil || s.Deleted != 0 {
		t.Errorf("a restarted compactor deleted %d (%v), want 0", s.Deleted, err)
	}
	// A process that opens the log reads the compaction; a replica that
	// was there hears of it.
	if got := another(t).Compaction(); got != comp {
		t.Errorf("the log opened again says %+v, want %+v", got, comp)
	}
	if replica != nil {
		eventstest.Eventually(t, eventstest.WaitFor, func() bool { return replica.Compaction() == comp },
			"another replica hears of the compaction %+v", comp)
	}
}

// storePath is the file behind store.
func storePath(t *testing.T, store *events.Store) string {
	t.Helper()
	var seq int
	var name, file string
	if err := store.DB().QueryRowContext(context.Background(), `PRAGMA database_list`).Scan(&seq, &name, &file); err != nil {
		t.Fatal(err)
	}
	return file
}

// TestCompactionKeepsAThinnedSeries keeps, beyond the retention window,
// the first heartbeat of each node in every KeepEvery, and no other
// superseded one.
func TestCompactionKeepsAThinnedSeries(t *testing.T) {
	for _, e := range compactionEngines {
		t.Run(e.name, func(t *testing.T) {
			log, _ := e.open(t)
			testCompactionKeepsAThinnedSeries(t, log)
		})
	}
}

func testCompactionKeepsAThinnedSeries(t *testing.T, log events.Log) {
	clk := clocktesting.NewFakeClock(t0)
	w := NewWriter(log, clk, nil)
	ctx := context.Background()
	do(t, w, clk, "pico", register("pico", domain.KindRP2040))
	for range 360 {
		clk.Step(10 * time.Second)
		do(t, w, clk, "pico", pico(domain.ConditionTrue))
	}
	before := census(t, log)
	c, err := NewCompactor(w, CompactionConfig{Retention: 15 * time.Minute, KeepEvery: 5 * time.Minute, ScanSize: 50}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	cut := clk.Now().Add(-15 * time.Minute)
	bucket := func(r events.Record) int64 { return r.RecordedAt.UnixNano() / int64(5*time.Minute) }
	had, kept := map[int64]int{}, map[int64]int{}
	for _, r := range before.all {
		if r.Type == compactedTypes[0] && r.RecordedAt.Before(cut) {
			had[bucket(r)]++
		}
	}
	for _, r := range census(t, log).all {
		if r.Type == compactedTypes[0] && r.RecordedAt.Before(cut) {
			kept[bucket(r)]++
		}
	}
	last := bucket(events.Record{RecordedAt: cut.Add(-time.Nanosecond)})
	for b, n := range had {
		want := 1
		if b == last {
			want = 2 // the first of the bucket, and the newest before the cut
		}
		if kept[b] != want {
			t.Errorf("bucket %d: %d heartbeats, %d kept, want %d", b, n, kept[b], want)
		}
	}
	verifyLive(t, log, RebuildOptions{})
}
