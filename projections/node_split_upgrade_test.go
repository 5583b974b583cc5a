package projections

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"herd/domain"
	"herd/events"
)

// nanos is t in Unix nanoseconds, 0 for the zero time, as the nodes
// table's integer columns kept times before the split.
func nanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// TestNodesOfAHerdBeforeTheSplitVerifyClean: a database whose nodes an
// older herd wrote before the hot/cold split — its nodes table as
// SQLite's first file made it (each node's JSON whole, its version,
// resourceVersion and last heartbeat beside it), the deadline index of
// 0006, no node_heartbeats, no node_rows — opens with the present
// migration: the columns and the index go, node_heartbeats and node_rows
// are made, each node gets its hot row and reads as it was written, and
// a rebuild of the log finds the live rows equal to it (replay
// --verify).
func TestNodesOfAHerdBeforeTheSplitVerifyClean(t *testing.T) {
	w, store, clk := newWriter(t)
	ctx := t.Context()
	do(t, w, clk, "a", register("a", domain.KindLinux))
	clk.Step(10 * time.Second)
	do(t, w, clk, "a", metrics(500))
	do(t, w, clk, "b", register("b", domain.KindLinux))
	clk.Step(10 * time.Second)
	do(t, w, clk, "a", metrics(50)) // memory pressure: a condition changes
	do(t, w, clk, "b", metrics(500))
	view := NewNodeView(store.Log())
	written := map[string]domain.Node{}
	for _, name := range []string{"a", "b"} {
		n, err := view.Get(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		written[name] = n
	}

	history := filepath.Join("testdata", "history_before_described", "sqlite")
	first, err := os.ReadFile(filepath.Join(history, "0001_nodes.sql"))
	if err != nil {
		t.Fatal(err)
	}
	nodesTable := regexp.MustCompile(`(?s)CREATE TABLE nodes \(.*?\) WITHOUT ROWID;`).Find(first)
	deadline, err := os.ReadFile(filepath.Join(history, "0006_nodes_deadline_index.sql"))
	if err != nil || nodesTable == nil {
		t.Fatalf("the history's nodes table %q and deadline index: %v", nodesTable, err)
	}
	for _, stmt := range []string{
		`DROP VIEW node_rows`, `DROP TABLE node_heartbeats`, `DROP TABLE nodes`,
		string(nodesTable), string(deadline),
		`DELETE FROM schema_migrations WHERE component = 'projections' AND version = 12`,
		`DELETE FROM projection_checkpoints WHERE projection = '` + splitNodeRowsMark + `'`,
	} {
		if _, err := store.DB().ExecContext(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	for _, n := range written {
		whole, err := marshalStored(n)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := store.DB().ExecContext(ctx, `INSERT INTO nodes (name, kind, deleted, version, resource_version, agent_state, ready, registered_at, last_heartbeat, data)
VALUES (?, ?, 0, ?, ?, ?, ?, ?, ?, ?)`, n.Name, string(n.Kind), n.Version, n.ResourceVersion, string(n.AgentState),
			string(readyStatus(n)), nanos(n.RegisteredAt), nanos(n.LastHeartbeat), whole); err != nil {
			t.Fatal(err)
		}
	}

	if err := Migrate(ctx, store.Log()); err != nil {
		t.Fatalf("a database from before the split: %v", err)
	}
	if got, want := strs(t, store.DB(), `SELECT name FROM pragma_table_info('nodes') ORDER BY cid`),
		[]string{"name", "kind", "deleted", "agent_state", "ready", "registered_at", "data"}; !slices.Equal(got, want) {
		t.Errorf("the nodes table's columns after the split %v; want %v", got, want)
	}
	if got := strs(t, store.DB(), `SELECT name FROM sqlite_schema WHERE name = 'nodes_by_deadline'`); len(got) != 0 {
		t.Error("the deadline index is still there after the split")
	}
	if got := strs(t, store.DB(), `SELECT name FROM node_heartbeats ORDER BY name`); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("hot rows after the split: %v; want a and b", got)
	}
	for name, n := range written {
		got, err := view.Get(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(n, got); diff != "" {
			t.Errorf("%s after the split (-written +read):\n%s", name, diff)
		}
	}
	diff, _, err := Verify(ctx, store, filepath.Join(t.TempDir(), "scratch.db"), events.Config{}, RebuildOptions{})
	if err != nil || diff != nil {
		t.Fatalf("verify after the split: %v %v", diff, err)
	}
	if err := Migrate(ctx, store.Log()); err != nil {
		t.Fatalf("the split database opened again: %v", err)
	}
}
