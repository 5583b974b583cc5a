//go:build cgo

package events_test

import (
	"context"
	"path/filepath"
	"testing"

	"herd/events"
)

// A scratch log's connections checkpoint less often, map the file and
// sort in memory; a durable log keeps SQLite's defaults.
func TestScratchPragmas(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		scratch                    bool
		checkpoint, mmap, tmpStore int64
	}{
		{scratch: true, checkpoint: 10000, mmap: 1 << 30, tmpStore: 2},
		{scratch: false, checkpoint: 1000, mmap: 0, tmpStore: 0},
	} {
		store, err := events.Open(ctx, events.Config{Path: filepath.Join(t.TempDir(), events.DatabaseFileName), Scratch: c.scratch}, nil)
		if err != nil {
			t.Fatal(err)
		}
		db := store.DB()
		// Every connection of the pool, not only the first: hold
		// several at once.
		var held []interface{ Close() error }
		for i := 0; i < 3; i++ {
			conn, err := db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			held = append(held, conn)
			for pragma, want := range map[string]int64{"wal_autocheckpoint": c.checkpoint, "mmap_size": c.mmap, "temp_store": c.tmpStore} {
				var got int64
				if err := conn.QueryRowContext(ctx, "PRAGMA "+pragma).Scan(&got); err != nil {
					t.Fatal(err)
				}
				if got != want {
					t.Errorf("scratch %v, connection %d: PRAGMA %s = %d, want %d", c.scratch, i, pragma, got, want)
				}
			}
		}
		for _, conn := range held {
			_ = conn.Close() // read only
		}
		if err := store.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
