package projections

import (
	"context"
	"path/filepath"
	"testing"

	"herd/domain"
	"herd/events"
	"herd/projections/viewstore"
)

// TestStartingUpgradesNodeRowsWithoutTheirKindLabel: a node row written
// before herd stored herd.dev/kind gains it the first time herd starts on
// the database, so the live view equals a rebuild at once; the upgrade
// runs once.
func TestStartingUpgradesNodeRowsWithoutTheirKindLabel(t *testing.T) {
	w, store, clk := newWriter(t)
	ctx := context.Background()
	do(t, w, clk, "old", register("old", domain.KindIllumos))
	stripKindLabel := func() {
		t.Helper()
		n, err := NewNodeView(store.Log()).Get(ctx, "old")
		if err != nil {
			t.Fatal(err)
		}
		delete(n.Labels, domain.LabelKind)
		if err := upsertNode(ctx, viewstore.NewDB(store.Log()), n); err != nil {
			t.Fatal(err)
		}
	}
	kindLabel := func() string {
		t.Helper()
		n, err := NewNodeView(store.Log()).Get(ctx, "old")
		if err != nil {
			t.Fatal(err)
		}
		return n.Labels[domain.LabelKind]
	}

	// A database that was already upgraded is left alone.
	stripKindLabel()
	if err := Migrate(ctx, store.Log()); err != nil {
		t.Fatal(err)
	}
	if got := kindLabel(); got != "" {
		t.Fatalf("an upgraded database was upgraded again: kind label %q", got)
	}

	// One from before the upgrade gets the label.
	if _, err := store.DB().ExecContext(ctx, `DELETE FROM projection_checkpoints WHERE projection = ?`, derivedLabelsMark); err != nil {
		t.Fatal(err)
	}
	if err := Migrate(ctx, store.Log()); err != nil {
		t.Fatal(err)
	}
	if got := kindLabel(); got != string(domain.KindIllumos) {
		t.Fatalf("kind label after the upgrade %q, want %q", got, domain.KindIllumos)
	}
	diff, _, err := Verify(ctx, store, filepath.Join(t.TempDir(), "scratch.db"), events.Config{}, RebuildOptions{})
	if err != nil || diff != nil {
		t.Fatalf("after the upgrade the live views differ from a rebuild: %v %v", diff, err)
	}
}
