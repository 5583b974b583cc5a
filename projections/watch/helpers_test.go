package watch_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"herd/domain"
	"herd/events"
	"herd/events/eventstest"
	"herd/events/pgtest"
	"herd/projections"
	"herd/projections/watch"
)

var t0 = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

// TestMain stops the tests' PostgreSQL server when they are done.
func TestMain(m *testing.M) { os.Exit(pgtest.Run(m)) }

// fixture is a real log, its writer and node view, a fake clock and a
// hub over them: on SQLite in a temp dir (newFixture), or on PostgreSQL
// with the hub and the view on another replica than the writer
// (newReplicasFixture).
type fixture struct {
	store *events.Store // nil on PostgreSQL
	log   events.Log    // the writer's
	w     *projections.Writer
	view  *projections.NodeView
	clk   *clocktesting.FakeClock
	hub   *watch.Hub
	// rowsRead counts the hub's reads of the node view.
	rowsRead *atomic.Int64
}

func newFixture(t *testing.T, cfg watch.Config) *fixture {
	t.Helper()
	store, err := events.Open(t.Context(), events.Config{Path: filepath.Join(t.TempDir(), "herd.db")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	f := newFixtureOn(t, cfg, store.Log(), store.Log())
	f.store = store
	return f
}

// newReplicasFixture is a fixture on two herd processes sharing one
// PostgreSQL database: the writer appends through one, the hub and the
// view read through the other, whose log it also returns.
func newReplicasFixture(t *testing.T, cfg watch.Config) (*fixture, *events.Postgres) {
	t.Helper()
	url := pgtest.URL(t)
	open := func() *events.Postgres { return eventstest.OpenPostgres(t, url) }
	writer, reader := open(), open()
	return newFixtureOn(t, cfg, writer, reader), reader
}

// newFixtureOn is a fixture whose writer appends to write and whose hub
// and view read read.
func newFixtureOn(t *testing.T, cfg watch.Config, write, read events.Log) *fixture {
	t.Helper()
	if err := projections.Migrate(t.Context(), write); err != nil {
		t.Fatal(err)
	}
	clk := clocktesting.NewFakeClock(t0)
	if cfg.PollInterval == 0 {
		cfg.PollInterval = time.Millisecond
	}
	hub, err := watch.NewHub(read, cfg, clk, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	view := projections.NewNodeView(read)
	k, rowsRead := nodeKind(view), new(atomic.Int64)
	rows := k.Rows
	k.Rows = func(ctx context.Context, after string, limit int) ([]watch.Row[domain.Node], int64, error) {
		rowsRead.Add(1)
		return rows(ctx, after, limit)
	}
	if err := watch.Register(hub, k); err != nil {
		t.Fatal(err)
	}
	return &fixture{log: write, w: projections.NewWriter(write, clk, nil), view: view, clk: clk, hub: hub, rowsRead: rowsRead}
}

func (f *fixture) start(t *testing.T) {
	t.Helper()
	if err := f.hub.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.hub.Stop)
}

// nodeKind shows nodes as the domain has them: the object's JSON is the
// domain.Node itself, so tests compare exact states.
func nodeKind(view *projections.NodeView) *watch.Kind[domain.Node] {
	return &watch.Kind[domain.Node]{
		Resource: "nodes",
		Prefix:   "node/",
		Fold:     projections.FoldNode,
		Meta: func(n domain.Node) (watch.Meta, bool) {
			return watch.Meta{Key: n.Name, Labels: n.Labels, Fields: nameField(n.Name)}, n.Exists()
		},
		Encode: func(n domain.Node, rv int64) ([]byte, error) {
			n.ResourceVersion = rv
			return json.Marshal(n)
		},
		Rows: func(ctx context.Context, after string, limit int) ([]watch.Row[domain.Node], int64, error) {
			nodes, head, err := view.Rows(ctx, after, limit)
			rows := make([]watch.Row[domain.Node], len(nodes))
			for i, n := range nodes {
				rows[i] = watch.Row[domain.Node]{Key: n.Name, Stream: domain.NodeStream(n.Name), ResourceVersion: n.ResourceVersion, State: n}
			}
			return rows, head, err
		},
	}
}

// do runs one command on a node at the clock's time and returns the node
// after it.
func (f *fixture) do(t *testing.T, name string, cmd domain.NodeCommand) domain.Node {
	t.Helper()
	n, err := f.w.NodeCommands().Execute(context.Background(), domain.Key{Name: name}, cmd)
	if err != nil {
		t.Fatalf("%T on %s: %v", cmd, name, err)
	}
	return n
}

func (f *fixture) head(t *testing.T) int64 {
	t.Helper()
	head, err := f.log.Head(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return head
}

func register(name string, labels map[string]string) domain.RegisterNode {
	return domain.RegisterNode{Registration: domain.Registration{Name: name, UID: "uid-" + name, Kind: domain.KindLinux, Labels: labels}}
}

func heartbeat(memAvailable int64) domain.RecordHeartbeat {
	return domain.RecordHeartbeat{Metrics: &domain.Metrics{
		CPUCount: 4, Load1: 1, Load5: 1, Load15: 1,
		MemoryTotalBytes: 1000, MemoryAvailableBytes: memAvailable,
		DiskTotalBytes: 1000, DiskAvailableBytes: 500, PIDsMax: 1000, PIDsCurrent: 10,
	}}
}

// seen is one event as a test compares it: type, node, the object's
// resourceVersion, and the node it carries.
type seen struct {
	Type string
	Node domain.Node
}

func (s seen) String() string {
	return fmt.Sprintf("%s %s@%d", s.Type, s.Node.Name, s.Node.ResourceVersion)
}

func decode(t *testing.T, ev watch.Event) seen {
	t.Helper()
	data, err := ev.Object.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var n domain.Node
	if err := json.Unmarshal(data, &n); err != nil {
		t.Fatal(err)
	}
	if n.ResourceVersion != ev.Object.ResourceVersion {
		t.Errorf("%s: JSON says resourceVersion %d, the object %d", ev.Type, n.ResourceVersion, ev.Object.ResourceVersion)
	}
	return seen{Type: string(ev.Type), Node: n}
}

// receive reads events from w until it has n, failing after
// eventstest.WaitFor.
func receive(t *testing.T, w *watch.Watcher, n int) []seen {
	t.Helper()
	var out []seen
	deadline := time.NewTimer(eventstest.WaitFor)
	defer deadline.Stop()
	for len(out) < n {
		evs, err := w.Next(t.Context())
		if err != nil {
			t.Fatalf("after %d of %d events: %v", len(out), n, err)
		}
		for _, ev := range evs {
			out = append(out, decode(t, ev))
		}
		if len(evs) > 0 {
			continue
		}
		select {
		case <-w.Changed():
		case <-deadline.C:
			t.Fatalf("got %d of %d events within %s: %v", len(out), n, eventstest.WaitFor, out)
		}
	}
	if len(out) > n {
		t.Fatalf("got %d events, want %d: %v", len(out), n, out)
	}
	return out
}

// drain reads whatever w has up to the hub's position now, and requires
// that to be nothing.
func expectNothing(t *testing.T, f *fixture, w *watch.Watcher) {
	t.Helper()
	head := f.head(t)
	eventstest.Eventually(t, eventstest.WaitFor, func() bool { return f.hub.Position() >= head }, "hub at %d", head)
	for {
		evs, err := w.Next(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if len(evs) > 0 {
			var got []seen
			for _, ev := range evs {
				got = append(got, decode(t, ev))
			}
			t.Fatalf("unexpected events: %v", got)
		}
		if w.Position() >= head {
			return
		}
	}
}

func mustWatch(t *testing.T, hub *watch.Hub, req watch.Request) (*watch.Watcher, []*watch.Object) {
	t.Helper()
	w, initial, err := hub.Watch(t.Context(), req)
	if err != nil {
		t.Fatalf("watch %+v: %v", req, err)
	}
	t.Cleanup(w.Close)
	return w, initial
}

// nameField is a node's metadata.name as a field selector matches it, a
// value as herd's own kinds keep it (a map built for every event would
// weigh on what the hub's memory measures).
type nameField string

func (f nameField) Has(field string) bool { return field == "metadata.name" }

func (f nameField) Get(field string) string {
	if field == "metadata.name" {
		return string(f)
	}
	return ""
}
