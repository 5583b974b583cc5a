package events_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"herd/events"
)

// TestWriteBeginsWhileReadersHoldThePool: with every reader connection of
// the pool taken (view reads under load), a write transaction still
// begins at once and commits, on the connection kept for writes, instead
// of waiting for a reader to finish.
func TestWriteBeginsWhileReadersHoldThePool(t *testing.T) {
	const readers = 2
	s, err := events.Open(t.Context(), events.Config{Path: filepath.Join(t.TempDir(), "herd.db"), MaxOpenConns: readers}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	held := make([]*sql.Conn, 0, readers)
	for range readers {
		c, err := s.DB().Conn(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
	}
	// Before the kept connection, this Begin waited for a reader until
	// the deadline.
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	tx, err := s.Log().Begin(ctx)
	if err != nil {
		t.Fatalf("Begin with every reader connection held: %v", err)
	}
	if _, err := tx.Append(ctx, "node/a", 0, events.Metadata{Actor: "alice"}, at, events.NewEvent{Type: "A", Payload: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	// The readers see the write; the next write gets the kept connection
	// back.
	var n int
	if err := held[0].QueryRowContext(ctx, `SELECT COUNT(*) FROM events WHERE stream = 'node/a'`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("events of node/a = %d, %v; want 1", n, err)
	}
	tx, err = s.Log().Begin(ctx)
	if err != nil {
		t.Fatalf("second Begin: %v", err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	for _, c := range held {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	}
}

// TestTwoWritesAtOnceBothCommit: a write that begins while another holds
// the kept connection takes a pool connection and waits for SQLite's write
// lock there, then commits after the first; neither is lost or refused.
func TestTwoWritesAtOnceBothCommit(t *testing.T) {
	s, _ := openSQLite(t)
	ctx := t.Context()
	first, err := s.Log().Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := first.Append(ctx, "node/a", 0, events.Metadata{}, at, events.NewEvent{Type: "A", Payload: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	second := make(chan error, 1)
	go func() {
		tx, err := s.Log().Begin(ctx)
		if err != nil {
			second <- err
			return
		}
		if _, err := tx.Append(ctx, "node/b", 0, events.Metadata{}, at, events.NewEvent{Type: "B", Payload: []byte(`{}`)}); err != nil {
			_ = tx.Rollback()
			second <- err
			return
		}
		second <- tx.Commit()
	}()
	if err := first.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := <-second; err != nil {
		t.Fatalf("second write: %v", err)
	}
	if head, err := s.Head(ctx, s.DB()); err != nil || head != 2 {
		t.Fatalf("Head = %d, %v; want 2", head, err)
	}
}
