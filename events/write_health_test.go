package events_test

import (
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
