package eventstest

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"herd/events"
)

// testCommitSignal: a commit that appended closes the signal taken before
// it, and the next signal announces a head at least as new; a transaction
// rolled back wakes no one.
func testCommitSignal(t *testing.T, open OpenLogFunc) {
	l, _ := open(t)
	ctx := t.Context()
	_, before := l.CommitSignal()

	tx, err := l.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Append(ctx, "node/a", 0, events.Metadata{}, t0, ev("A", 1)); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-before:
		t.Fatal("a rolled-back transaction closed the commit signal")
	default:
	}

	recs := AppendCommit(t, l, "node/a", 0, events.Metadata{}, t0, ev("A", 1))
	select {
	case <-before:
	case <-time.After(10 * time.Second):
		t.Fatal("a commit did not close the signal taken before it within 10s")
	}
	if head, _ := l.CommitSignal(); head < recs[0].Position {
		t.Errorf("signal's head %d after appending at %d", head, recs[0].Position)
	}
}

// testSurvivesReopen: what was committed is there, as it was, after the
// log is closed and opened again, and its streams go on from there.
func testSurvivesReopen(t *testing.T, open OpenLogFunc) {
	l, reopen := open(t)
	first := AppendCommit(t, l, "node/a", 0, events.Metadata{Actor: "a"}, t0, ev("A", 1), ev("A", 2))
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	l = reopen(t)
	got, err := l.ReadAfter(t.Context(), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(first, got); diff != "" {
		t.Errorf("log after reopening (-want +got):\n%s", diff)
	}
	next := AppendCommit(t, l, "node/a", 2, events.Metadata{}, t0, ev("A", 3))
	if next[0].Version != 3 || next[0].Position <= first[1].Position {
		t.Errorf("appended after reopening: version %d at %d, after %d", next[0].Version, next[0].Position, first[1].Position)
	}
}
