package events

import (
	"context"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"
)

// TestWritesGoOnWhenTheKeptConnectionIsGone: a write transaction begins
// and commits on a pool connection when the connection kept for writes
// was closed under the store, and so does every write after it.
func TestWritesGoOnWhenTheKeptConnectionIsGone(t *testing.T) {
	s, err := Open(t.Context(), Config{Path: filepath.Join(t.TempDir(), "herd.db")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	if err := s.writer.conn.Close(); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2025, 3, 1, 3, 12, 0, 0, time.UTC)
	for i := range 2 {
		tx, err := s.Log().Begin(t.Context())
		if err != nil {
			t.Fatalf("write %d: Begin: %v", i, err)
		}
		if _, err := tx.Append(t.Context(), "node/a", int64(i), Metadata{}, at, NewEvent{Type: "A", Payload: []byte(`{}`)}); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	if head, err := s.Head(t.Context(), s.db); err != nil || head != 2 {
		t.Fatalf("Head = %d, %v; want 2", head, err)
	}
}

// TestWritersTakeTheirTurnInTheOrderTheyCame: the process's writers — a
// group commit's transaction, the watch hub's snapshots, a follower's
// position — wait for the turn to write in a queue, and write in the
// order they came, rather than meeting in SQLite's busy wait, where the
// first to look after the lock frees wins, however long the others
// waited.
func TestWritersTakeTheirTurnInTheOrderTheyCame(t *testing.T) {
	s, err := Open(t.Context(), Config{Path: filepath.Join(t.TempDir(), "herd.db")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	at := time.Date(2025, 3, 1, 3, 12, 0, 0, time.UTC)
	tx, err := s.Log().Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	appended, err := tx.Append(t.Context(), "node/a", 0, Metadata{}, at, NewEvent{Type: "A", Payload: []byte(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	// The transaction holds the turn; the writers below queue behind it,
	// each named in its context, and are told in the order they get it.
	type nameKey struct{}
	var (
		order []string // appended to only by the turn's holder
		wg    sync.WaitGroup
	)
	s.writer.taken = func(ctx context.Context) { order = append(order, ctx.Value(nameKey{}).(string)) }
	write := func(name string, fn func(ctx context.Context) error) {
		queued := s.writer.turn.waiting.Load()
		ctx := context.WithValue(t.Context(), nameKey{}, name)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := fn(ctx); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}()
		for s.writer.turn.waiting.Load() == queued {
			runtime.Gosched() // until it waits for the turn
		}
	}
	commit := func(stream string) func(ctx context.Context) error {
		return func(ctx context.Context) error {
			tx, err := s.Log().Begin(ctx)
			if err != nil {
				return err
			}
			if _, err := tx.Append(ctx, stream, 0, Metadata{}, at, NewEvent{Type: "B", Payload: []byte(`{}`)}); err != nil {
				return err
			}
			return tx.Commit()
		}
	}
	write("commit", commit("node/b"))
	write("snapshot", func(ctx context.Context) error {
		return s.SaveSnapshots(ctx, []Snapshot{{Stream: "node/a", Position: appended[0].Position, Version: 1, TakenAt: at, State: []byte(`{}`)}})
	})
	write("position", func(ctx context.Context) error {
		return s.Log().(GroupPositions).SaveGroupPosition(ctx, "reconcilers", 1)
	})
	write("second commit", commit("node/c"))
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if want := []string{"commit", "snapshot", "position", "second commit"}; !slices.Equal(order, want) {
		t.Errorf("the writers wrote in the order %v, want the order they came: %v", order, want)
	}
}
