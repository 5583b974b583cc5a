package events

import (
	"path/filepath"
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
