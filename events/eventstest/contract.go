// Package eventstest is the contract every herd event store must meet,
// written once and run against each backend (SQLite today; PostgreSQL when
// herd outgrows one machine), in the manner of watermill's pub/sub tests.
package eventstest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"herd/events"
)

// OpenFunc opens a fresh, empty SQLite store for one test. It returns the
// store and a function that opens the same log again, as a restarted
// process would (the suite closes the first store before), or as another
// process sharing the file would (the first still open). The
// backend closes whatever is still open when the test ends (Store.Close
// may be called twice).
type OpenFunc func(t *testing.T) (store *events.Store, reopen func(t *testing.T) *events.Store)

// OpenLogFunc opens a fresh, empty log for one test, on any engine, and
// says how to open the same log again: after closing the first, as a
// restarted process would, or beside it, as another process sharing the
// database would. The backend closes whatever is still open when the
// test ends (Close may be called twice).
type OpenLogFunc func(t *testing.T) (log events.Log, reopen func(t *testing.T) events.Log)

// LogOption fits the log contract to what an engine can do.
type LogOption func(*logOptions)

type logOptions struct {
	othersCommitsPolled bool
	commitsHandedOn     bool
}

// CommitsHandedOn says that the engine's commits hand the records they
// wrote to the process's readers of the log (with ShareReads), as
// SQLite's do: the contract then checks that those readers take them from
// memory, not from the database.
func CommitsHandedOn() LogOption {
	return func(o *logOptions) { o.commitsHandedOn = true }
}

// OthersCommitsPolled says that the engine's followers find another
// process's commits only by polling, as on SQLite, where no one can tell
// them. The contract then gives a follower a short fallback poll where it
// tests such commits; without this option it gives it an hour, so that
// only the engine's announcement (PostgreSQL's LISTEN/NOTIFY) can deliver
// them in time.
func OthersCommitsPolled() LogOption {
	return func(o *logOptions) { o.othersCommitsPolled = true }
}

// RunStoreContract runs the whole contract against the SQLite store open
// creates: the log's contract, then what only the store offers (reads at
// the head of its views, watermill subscriptions). Subscription tests need
// a short PollInterval (milliseconds) to finish quickly: watermill polls
// on the wall clock.
func RunStoreContract(t *testing.T, open OpenFunc) {
	t.Run("Log", func(t *testing.T) {
		RunLogContract(t, func(t *testing.T) (events.Log, func(t *testing.T) events.Log) {
			s, reopen := open(t)
			return s.Log(), func(t *testing.T) events.Log { return reopen(t).Log() }
		}, OthersCommitsPolled(), CommitsHandedOn())
	})
	tests := []struct {
		name string
		run  func(t *testing.T, open OpenFunc)
	}{
		{"DataAtHead", testDataAtHead},
		{"Subscribe", func(t *testing.T, open OpenFunc) { RunSubscriberContract(t, open, StoreSubscribe, true) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.run(t, open)
		})
	}
}

// RunLogContract runs the log's contract against the engine open creates:
// the same tests for SQLite and PostgreSQL, its followers' (Follow)
// included.
func RunLogContract(t *testing.T, open OpenLogFunc, opts ...LogOption) {
	var o logOptions
	for _, opt := range opts {
		opt(&o)
	}
	t.Run("Follow", func(t *testing.T) {
		t.Parallel()
		runFollowContract(t, open, o)
	})
	t.Run("Compaction", func(t *testing.T) {
		t.Parallel()
		testCompaction(t, open, o)
	})
	tests := []struct {
		name string
		run  func(t *testing.T, open OpenLogFunc)
	}{
		{"AppendAndReadStream", testAppendAndReadStream},
		{"ReadAfterAndHead", testReadAfterAndHead},
		{"QueryFilters", testQueryFilters},
		{"ConflictLeavesLogAndTxIntact", testConflict},
		{"OneWinnerPerVersion", testOneWinnerPerVersion},
		{"NoLostUpdates", testNoLostUpdates},
		{"RollbackLeavesNoEvent", testRollback},
		{"CommitSignal", testCommitSignal},
		{"SurvivesReopen", testSurvivesReopen},
		{"Savepoints", testSavepoints},
		{"Snapshots", testSnapshots},
		{"PayloadsApart", testPayloadsApart},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.run(t, open)
		})
	}
}

// t0 is the suite's clock: events are recorded at fixed times, never at
// time.Now, so records compare exactly.
var t0 = time.Date(2025, 3, 1, 3, 12, 0, 123456789, time.UTC)

// ev is an event of type typ whose payload is {"n":n}.
func ev(typ string, n int) events.NewEvent {
	return events.NewEvent{Type: typ, Payload: fmt.Appendf(nil, `{"n":%d}`, n)}
}

// AppendCommit appends evs in a transaction of its own and commits,
// failing the test on an error: a test that writes records as it wants
// them, with their metadata (a causation id, an actor).
func AppendCommit(t *testing.T, l events.Log, stream string, expected int64, md events.Metadata, at time.Time, evs ...events.NewEvent) []events.Record {
	t.Helper()
	records, err := tryAppend(t.Context(), l, stream, expected, md, at, evs...)
	if err != nil {
		t.Fatalf("append %s@%d: %v", stream, expected, err)
	}
	return records
}

// tryAppend is AppendCommit that returns the error (rolling back) instead
// of failing the test, for use in goroutines.
func tryAppend(ctx context.Context, l events.Log, stream string, expected int64, md events.Metadata, at time.Time, evs ...events.NewEvent) ([]events.Record, error) {
	tx, err := l.Begin(ctx)
	if err != nil {
		return nil, err
	}
	records, err := tx.Append(ctx, stream, expected, md, at, evs...)
	if err != nil {
		return nil, joinRollback(err, tx.Rollback())
	}
	return records, tx.Commit()
}

func joinRollback(err, rollbackErr error) error {
	if rollbackErr != nil {
		return fmt.Errorf("%w (rollback: %w)", err, rollbackErr)
	}
	return err
}

// positions lists the positions of records.
func positions(records []events.Record) []int64 {
	ps := make([]int64, len(records))
	for i, r := range records {
		ps[i] = r.Position
	}
	return ps
}
