package projections

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"herd/domain"
	"herd/events"
)

func TestRebuildEqualsLiveViews(t *testing.T) {
	w, store, clk := newWriter(t)
	ctx := context.Background()
	for _, name := range []string{"a", "b", "c"} {
		do(t, w, clk, name, register(name, domain.KindIllumos))
	}
	for i := range 20 {
		clk.Step(10 * time.Second)
		avail := int64(500)
		if i%4 == 0 {
			avail = 50 // memory pressure comes and goes
		}
		do(t, w, clk, "a", metrics(avail))
		do(t, w, clk, "b", metrics(500))
	}
	do(t, w, clk, "b", domain.DeregisterNode{})
	do(t, w, clk, "b", register("b", domain.KindIllumos))
	do(t, w, clk, "c", domain.SetNodeLabels{Labels: map[string]string{"zone": "b"}})
	do(t, w, clk, "c", domain.DeleteNode{})

	diff, stats, err := Verify(ctx, store, filepath.Join(t.TempDir(), "scratch.db"), events.Config{}, RebuildOptions{BatchSize: 7})
	if err != nil {
		t.Fatal(err)
	}
	if diff != nil {
		t.Fatalf("rebuilt views differ from live ones: %s", diff)
	}
	head, _ := store.Head(ctx, store.DB())
	if stats.Events != head || stats.Head != head {
		t.Errorf("rebuild replayed %d events up to %d, log head is %d", stats.Events, stats.Head, head)
	}

	// Rebuilding the live views in place changes nothing either.
	before, _, _ := NewNodeView(store.Log()).List(ctx)
	if _, err := Rebuild(ctx, store.Log(), RebuildOptions{}); err != nil {
		t.Fatal(err)
	}
	after, _, _ := NewNodeView(store.Log()).List(ctx)
	if len(before) != 2 || len(after) != len(before) {
		t.Fatalf("nodes before rebuild %d, after %d, want 2", len(before), len(after))
	}
}

func TestVerifyNamesTheFirstDifference(t *testing.T) {
	w, store, clk := newWriter(t)
	ctx := context.Background()
	do(t, w, clk, "a", register("a", domain.KindLinux))
	do(t, w, clk, "b", register("b", domain.KindLinux))
	// Corrupt one live row behind the log's back.
	if _, err := store.DB().ExecContext(ctx, `UPDATE nodes SET kind = 'rp2040' WHERE name = 'b'`); err != nil {
		t.Fatal(err)
	}
	diff, _, err := Verify(ctx, store, filepath.Join(t.TempDir(), "scratch.db"), events.Config{}, RebuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if diff == nil {
		t.Fatal("Verify found no difference in a tampered view")
	}
	if diff.Table != "nodes" || !strings.Contains(diff.Key, "name=b") ||
		!strings.Contains(diff.Live, "rp2040") || strings.Contains(diff.Rebuilt, "rp2040") {
		t.Errorf("difference = %+v", diff)
	}
}

func TestRebuildKeepsTheViewsSchema(t *testing.T) {
	w, store, clk := newWriter(t)
	ctx := context.Background()
	do(t, w, clk, "a", register("a", domain.KindLinux))
	schema := func() string {
		var out []string
		rows, err := store.DB().QueryContext(ctx, `SELECT type, name, tbl_name, COALESCE(sql, '') FROM sqlite_schema ORDER BY name`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var typ, name, table, sql string
			if err := rows.Scan(&typ, &name, &table, &sql); err != nil {
				t.Fatal(err)
			}
			out = append(out, strings.Join([]string{typ, name, table, sql}, " "))
		}
		return strings.Join(out, "\n")
	}
	before := schema()
	if _, err := Rebuild(ctx, store.Log(), RebuildOptions{}); err != nil {
		t.Fatal(err)
	}
	if after := schema(); after != before {
		t.Errorf("schema after a rebuild:\n%s\nwant:\n%s", after, before)
	}
}

func TestRebuildSkipsStretchesOfDeletedRecords(t *testing.T) {
	w, store, clk := newWriter(t)
	ctx := context.Background()
	do(t, w, clk, "a", register("a", domain.KindLinux))
	for range 9 {
		clk.Step(10 * time.Second)
		do(t, w, clk, "a", metrics(500))
	}
	// Positions 3 to 8 are heartbeats a retention policy deleted: with
	// batches of 2, whole ranges come back empty.
	if _, err := store.DB().ExecContext(ctx, `DELETE FROM events WHERE position BETWEEN 3 AND 8`); err != nil {
		t.Fatal(err)
	}
	var kept, head int64
	if err := store.DB().QueryRowContext(ctx, `SELECT COUNT(*), MAX(position) FROM events`).Scan(&kept, &head); err != nil {
		t.Fatal(err)
	}
	var progress []int64
	stats, err := Rebuild(ctx, store.Log(), RebuildOptions{BatchSize: 2, Progress: func(done, total int64) {
		if total != head {
			t.Errorf("progress of %d towards %d, want towards the head, %d", done, total, head)
		}
		progress = append(progress, done)
	}})
	if err != nil {
		t.Fatal(err)
	}
	// Every batch, gaps included, moves progress on to its last position.
	var want []int64
	for p := int64(2); p < head; p += 2 {
		want = append(want, p)
	}
	if want = append(want, head); !slices.Equal(progress, want) {
		t.Errorf("progress at %v, want %v", progress, want)
	}
	if stats.Events != kept || stats.Head != head {
		t.Errorf("rebuild replayed %d events up to %d, want %d up to %d", stats.Events, stats.Head, kept, head)
	}
}
