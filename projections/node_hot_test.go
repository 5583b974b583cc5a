package projections

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"herd/domain"
	"herd/events"
)

// countNodeRowWrites installs triggers that count every insert into and
// update of the node's full (cold) row, and returns the count so far.
func countNodeRowWrites(t *testing.T, store *events.Store) func() int {
	return countRowWrites(t, store, "nodes")
}

// countRowWrites installs triggers that count every insert into and
// update of table's rows, and returns the count so far.
func countRowWrites(t *testing.T, store *events.Store, table string) func() int {
	t.Helper()
	for _, stmt := range []string{
		`CREATE TABLE IF NOT EXISTS test_row_writes (tbl TEXT NOT NULL)`,
		`CREATE TRIGGER test_count_` + table + `_inserts AFTER INSERT ON ` + table + ` BEGIN INSERT INTO test_row_writes VALUES ('` + table + `'); END`,
		`CREATE TRIGGER test_count_` + table + `_updates AFTER UPDATE ON ` + table + ` BEGIN INSERT INTO test_row_writes VALUES ('` + table + `'); END`,
	} {
		if _, err := store.DB().ExecContext(t.Context(), stmt); err != nil {
			t.Fatal(err)
		}
	}
	return func() int {
		var n int
		if err := store.DB().QueryRowContext(t.Context(), `SELECT COUNT(*) FROM test_row_writes WHERE tbl = ?`, table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
}

// TestAPlainHeartbeatWritesOnlyTheHotRow: a heartbeat that changes
// nothing but times and figures appends its event and rewrites no full
// node row; a read right after it sees the new heartbeat, figures and
// resourceVersion; a heartbeat that changes a condition rewrites the
// row once; and the live rows equal a rebuild of the log byte for byte.
func TestAPlainHeartbeatWritesOnlyTheHotRow(t *testing.T) {
	w, store, clk := newWriter(t)
	ctx := context.Background()
	do(t, w, clk, "a", register("a", domain.KindLinux))
	do(t, w, clk, "a", metrics(500)) // the first report: Ready, conditions appear
	writes := countNodeRowWrites(t, store)
	view := NewNodeView(store.Log())
	for i := range 10 {
		clk.Step(10 * time.Second)
		after := do(t, w, clk, "a", metrics(int64(400+i)))
		got, err := view.Get(ctx, "a")
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(after, got); diff != "" {
			t.Fatalf("a read right after heartbeat %d (-wrote +read):\n%s", i, diff)
		}
		if !got.LastHeartbeat.Equal(clk.Now()) || got.Metrics.MemoryAvailableBytes != int64(400+i) {
			t.Fatalf("heartbeat %d: last heartbeat %s, memory available %d", i, got.LastHeartbeat, got.Metrics.MemoryAvailableBytes)
		}
		for _, c := range got.ConditionsHeard() {
			if !c.LastHeartbeatTime.Equal(clk.Now()) {
				t.Errorf("heartbeat %d: %s's lastHeartbeatTime %s, want %s", i, c.Type, c.LastHeartbeatTime, clk.Now())
			}
		}
		head, _ := store.Head(ctx, store.DB())
		if got.ResourceVersion != head {
			t.Fatalf("heartbeat %d: resourceVersion %d, want the head %d", i, got.ResourceVersion, head)
		}
	}
	if n := writes(); n != 0 {
		t.Errorf("10 plain heartbeats rewrote the full node row %d times, want 0", n)
	}
	clk.Step(10 * time.Second)
	do(t, w, clk, "a", metrics(50)) // memory pressure: a condition changes
	if n := writes(); n != 1 {
		t.Errorf("a heartbeat that changed a condition rewrote the full node row %d times, want 1", n)
	}
	diff, _, err := Verify(ctx, store, filepath.Join(t.TempDir(), "scratch.db"), events.Config{}, RebuildOptions{})
	if err != nil || diff != nil {
		t.Fatalf("verify after heartbeats: %v %v", diff, err)
	}
}

// TestNodeRowsWrittenWholeAreSplitAtStart: a node row written before the
// split (its JSON whole, no hot row) reads whole, and the upgrade at
// start writes it as a rebuild would, so that verify is clean.
func TestNodeRowsWrittenWholeAreSplitAtStart(t *testing.T) {
	w, store, clk := newWriter(t)
	ctx := context.Background()
	do(t, w, clk, "a", register("a", domain.KindLinux))
	clk.Step(10 * time.Second)
	before := do(t, w, clk, "a", metrics(500))
	whole, err := marshalStored(before)
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []struct {
		q    string
		args []any
	}{
		{`DELETE FROM node_heartbeats`, nil},
		{`UPDATE nodes SET data = ? WHERE name = 'a'`, []any{whole}},
		{`DELETE FROM projection_checkpoints WHERE projection = ?`, []any{splitNodeRowsMark}},
	} {
		if _, err := store.DB().ExecContext(ctx, stmt.q, stmt.args...); err != nil {
			t.Fatal(err)
		}
	}
	got, err := NewNodeView(store.Log()).Get(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, got); diff != "" {
		t.Fatalf("a row written whole reads (-wrote +read):\n%s", diff)
	}
	if err := Migrate(ctx, store.Log()); err != nil {
		t.Fatal(err)
	}
	diff, _, err := Verify(ctx, store, filepath.Join(t.TempDir(), "scratch.db"), events.Config{}, RebuildOptions{})
	if err != nil || diff != nil {
		t.Fatalf("verify after the upgrade: %v %v", diff, err)
	}
}
