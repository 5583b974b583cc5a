package events_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"herd/events"
	"herd/events/eventstest"
)

// TestAFullDiskMakesTheLogUnwritableUntilRoomIsBack: with the disk full,
// an append fails with SQLite's "database or disk is full" and the store
// says the log cannot be written, since when and why; once room is back
// its own probe notices, with no write from anyone else.
func TestAFullDiskMakesTheLogUnwritableUntilRoomIsBack(t *testing.T) {
	ctx := t.Context()
	store, err := events.Open(ctx, events.Config{Path: filepath.Join(t.TempDir(), "herd.db")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	appendOne := func(stream string, version int64) error {
		tx, err := store.DB().BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer func() { _ = tx.Rollback() }()
		big := strings.Repeat("x", 256<<10)
		if _, err := store.Append(ctx, tx, stream, version, events.Metadata{Actor: "test"}, time.Now(), events.NewEvent{Type: "Tested", Payload: []byte(`{"x":"` + big + `"}`)}); err != nil {
			return err
		}
		return tx.Commit()
	}
	if err := appendOne("test/a", 0); err != nil {
		t.Fatal(err)
	}
	if err := store.Unwritable(ctx); err != nil {
		t.Fatalf("a log just written: %v", err)
	}
	free, err := eventstest.FillDisk(ctx, store)
	if err != nil {
		t.Fatal(err)
	}
	err = appendOne("test/b", 0)
	if err == nil {
		t.Fatal("an append on a full disk succeeded")
	}
	store.ObserveWrite(err)
	unwritable := store.Unwritable(ctx)
	if unwritable == nil || !strings.Contains(unwritable.Error(), "database or disk is full") || !strings.Contains(unwritable.Error(), "cannot be written since") {
		t.Fatalf("Unwritable on a full disk: %v", unwritable)
	}
	if err := free(); err != nil {
		t.Fatal(err)
	}
	eventstest.Eventually(t, eventstest.WaitFor, func() bool { return store.Unwritable(ctx) == nil },
		"the store never noticed the room was back")
	if err := appendOne("test/b", 0); err != nil {
		t.Fatalf("an append once room is back: %v", err)
	}
}

// TestAWriteRefusedByAFullDiskHandsTheWriteTurnOn: a write transaction
// of herd's own whose append a full disk refuses ends, and the next
// writer gets its turn: after SQLITE_FULL SQLite may have rolled the
// transaction back itself, and a ROLLBACK that then fails must still
// hand the connection kept for writes on, or every later write waits
// forever.
func TestAWriteRefusedByAFullDiskHandsTheWriteTurnOn(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	store, err := events.Open(ctx, events.Config{Path: filepath.Join(t.TempDir(), "herd.db")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	log := store.Log()
	write := func(stream string, size int) error {
		tx, err := log.Begin(ctx)
		if err != nil {
			return err
		}
		evs := []events.NewEvent{{Type: "Tested", Payload: []byte(`{"x":"` + strings.Repeat("x", size) + `"}`)}}
		if _, err := tx.Append(ctx, stream, 0, events.Metadata{Actor: "test"}, time.Now(), evs...); err != nil {
			_ = tx.Rollback()
			return err
		}
		return tx.Commit()
	}
	if err := write("test/a", 10); err != nil {
		t.Fatal(err)
	}
	free, err := eventstest.FillDisk(ctx, store)
	if err != nil {
		t.Fatal(err)
	}
	if err := write("test/b", 1<<20); err == nil || !strings.Contains(err.Error(), "full") {
		t.Fatalf("a write on a full disk: %v, want it refused as full", err)
	}
	if err := free(); err != nil {
		t.Fatalf("the next writer after a refused write: %v (its turn never came)", err)
	}
	if err := write("test/c", 10); err != nil {
		t.Fatalf("a write once room is back: %v", err)
	}
}
