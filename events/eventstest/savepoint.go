package eventstest

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"herd/events"
)

// testSavepoints: what a command appends inside a savepoint goes when the
// transaction rolls back to it, and nothing else does; the transaction
// goes on; after the commit the log holds the kept appends, and the
// commit signal announces the kept head, not a rolled-back one.
func testSavepoints(t *testing.T, open OpenLogFunc) {
	l, _ := open(t)
	ctx := t.Context()
	tx, err := l.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	step := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	step("savepoint", tx.Savepoint(ctx))
	kept, err := tx.Append(ctx, "node/a", 0, events.Metadata{}, t0, ev("A", 1))
	step("append", err)
	step("release", tx.ReleaseSavepoint(ctx))

	step("savepoint", tx.Savepoint(ctx))
	_, err = tx.Append(ctx, "node/b", 0, events.Metadata{}, t0, ev("B", 1), ev("B", 2))
	step("append", err)
	step("roll back to the savepoint", tx.RollbackToSavepoint(ctx))
	step("release", tx.ReleaseSavepoint(ctx))

	step("savepoint", tx.Savepoint(ctx))
	more, err := tx.Append(ctx, "node/a", 1, events.Metadata{}, t0, ev("A", 2))
	step("append", err)
	step("release", tx.ReleaseSavepoint(ctx))
	step("commit", tx.Commit())

	got, err := l.ReadAfter(ctx, 0, 0)
	step("read", err)
	if diff := cmp.Diff(append(kept, more...), got); diff != "" {
		t.Errorf("log after the commit (-want +got):\n%s", diff)
	}
	if head, _ := l.CommitSignal(); head != more[0].Position {
		t.Errorf("the commit announced head %d; it kept up to %d", head, more[0].Position)
	}
}
