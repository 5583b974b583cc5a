package projections

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"herd/domain"
	"herd/events"
	"herd/events/eventstest"
	"herd/events/pgtest"
)

var t0 = time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)

// requireRebuildEqual fails t unless rebuilding store's log into a
// scratch file gives the rows its live views hold.
func requireRebuildEqual(t *testing.T, store *events.Store) {
	t.Helper()
	diff, _, err := Verify(t.Context(), store, filepath.Join(t.TempDir(), "scratch.db"), events.Config{}, RebuildOptions{BatchSize: 2})
	if err != nil || diff != nil {
		t.Fatalf("rebuilt views differ from live ones: %v, %v", diff, err)
	}
}

// viewOnEachEngine runs a view's test, run, on a SQLite file, whose
// rebuild must then equal the live rows, and on PostgreSQL.
func viewOnEachEngine(t *testing.T, run func(t *testing.T, log events.Log)) {
	t.Run("sqlite", func(t *testing.T) {
		store := openStore(t)
		run(t, store.Log())
		requireRebuildEqual(t, store)
	})
	t.Run("postgres", func(t *testing.T) {
		run(t, eventstest.OpenPostgres(t, pgtest.URL(t)))
	})
}

// openStore opens a fresh log with the views migrated, in t's temp dir.
func openStore(tb testing.TB) *events.Store {
	tb.Helper()
	ctx := context.Background()
	store, err := events.Open(ctx, events.Config{Path: filepath.Join(tb.TempDir(), "herd.db")}, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = store.Close() })
	if err := Migrate(ctx, store.Log()); err != nil {
		tb.Fatal(err)
	}
	return store
}

func newWriter(tb testing.TB) (*Writer, *events.Store, *clocktesting.FakeClock) {
	store := openStore(tb)
	clk := clocktesting.NewFakeClock(t0)
	return NewWriter(store.Log(), clk, nil), store, clk
}

// do runs one command on a node through the writer at the clock's time.
func do(tb testing.TB, w *Writer, clk *clocktesting.FakeClock, name string, cmd domain.NodeCommand) domain.Node {
	tb.Helper()
	if w.clock != clk {
		tb.Fatalf("do: the writer reads another clock")
	}
	n, err := w.NodeCommands().Execute(context.Background(), domain.Key{Name: name}, cmd)
	if err != nil {
		tb.Fatalf("%T on %s: %v", cmd, name, err)
	}
	return n
}

func register(name string, kind domain.NodeKind) domain.RegisterNode {
	return domain.RegisterNode{Registration: domain.Registration{
		Name: name, UID: "uid-" + name, Kind: kind,
		Labels:   map[string]string{"zone": "a"},
		Capacity: domain.ResourceList{"cpu": 4000, "memory": 8 << 30, "pods": 10},
	}}
}

func metrics(memAvailable int64) domain.RecordHeartbeat {
	return domain.RecordHeartbeat{Metrics: &domain.Metrics{
		CPUCount: 4, Load1: 1, Load5: 1, Load15: 1,
		MemoryTotalBytes: 1000, MemoryAvailableBytes: memAvailable,
		DiskTotalBytes: 1000, DiskAvailableBytes: 500,
		PIDsMax: 1000, PIDsCurrent: 10,
	}}
}
