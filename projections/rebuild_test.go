package projections

import (
	"context"
	"path/filepath"
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
	before, _, _ := NewNodeView(store).List(ctx)
	if _, err := Rebuild(ctx, store, RebuildOptions{}); err != nil {
		t.Fatal(err)
	}
	after, _, _ := NewNodeView(store).List(ctx)
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
