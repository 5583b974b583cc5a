package projections

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"herd/domain"
	"herd/events"
)

// TestVerifyLeavesNothingBehind: a verify without room for its scratch
// copy is refused before it writes anything, naming what it needs and
// what is free; one that fails after the copy (here, its context ends)
// and one that succeeds both leave no scratch file, journal or WAL.
func TestVerifyLeavesNothingBehind(t *testing.T) {
	w, store, clk := newWriter(t)
	do(t, w, clk, "a", register("a", domain.KindLinux))
	dir := t.TempDir()
	scratch := filepath.Join(dir, "verify-1.db")
	leftovers := func() []string {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		return names
	}

	freeBytes = func(string) (int64, bool) { return 1024, true }
	t.Cleanup(func() { freeBytes = diskFree })
	_, _, err := Verify(t.Context(), store, scratch, events.Config{}, RebuildOptions{})
	if err == nil || !strings.Contains(err.Error(), "only 0.0 MiB is free") || !strings.Contains(err.Error(), "twice the log's") {
		t.Fatalf("a verify without room: %v", err)
	}
	if got := leftovers(); len(got) != 0 {
		t.Errorf("a refused verify left %v", got)
	}

	freeBytes = diskFree
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, _, err := Verify(ctx, store, scratch, events.Config{}, RebuildOptions{}); err == nil {
		t.Fatal("a verify whose context had ended succeeded")
	}
	if _, _, err := Verify(t.Context(), store, scratch, events.Config{}, RebuildOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := leftovers(); len(got) != 0 {
		t.Errorf("verifies left %v", got)
	}
}
