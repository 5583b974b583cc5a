package events

import (
	"context"
	"sync"
	"time"
)

// Compactable is what the retention policy (projections.Compactor) needs
// of a log to thin it: where its window begins, the heartbeats before
// that, and a deletion that moves the log's compaction point in the same
// transaction. The logs of both engines implement it, SQLite's
// (Store.Log) and PostgreSQL's; the log contract (eventstest) holds both
// to it.
type Compactable interface {
	// Compaction is how far the log has been thinned, as this process
	// knows it. It is read from memory: every watch and list asks.
	Compaction() Compaction
	// FirstRecordedAt returns the position of the earliest event
	// recorded at or after t, or the head plus one when there is none.
	// Recorded times follow positions (herd stamps each event as it
	// appends it), so every event before the returned position was
	// recorded before t, but for a clock stepped back or, on
	// PostgreSQL, the skew between the replicas' clocks. One probe of
	// the recorded_at index, however long the log.
	FirstRecordedAt(ctx context.Context, t time.Time) (int64, error)
	// ReadTypeRange returns up to limit events of type typ with
	// positions in (after, before), in log order, without their ids and
	// metadata.
	ReadTypeRange(ctx context.Context, typ string, after, before int64, limit int) ([]Record, error)
	// RaiseCompactionPoint moves this process's compaction point to
	// through (never back) before a deletion that relies on it commits,
	// so that no watch here starts at a position whose history is about
	// to go. A deletion that then fails leaves the point early, which
	// only refuses a few positions sooner than needed.
	RaiseCompactionPoint(through int64)
	// DeleteEvents deletes d's events inside tx and, in the same
	// transaction, moves the log's compaction record on by them; it
	// returns the record as it stands once tx commits. Every position
	// must hold an event: one already gone means two compactions raced,
	// and the deletion is refused whole (ErrConflict; roll tx, or its
	// savepoint, back). It is the one way events leave the log; once tx
	// commits, call Compacted with what it returned.
	DeleteEvents(ctx context.Context, tx LogTx, d Deletion) (Compaction, error)
	// Compacted tells the log that the transaction in which DeleteEvents
	// returned c has committed: Compaction says c, or later, from now on.
	Compacted(c Compaction)
}

// Compaction is how far the log has been thinned by the retention policy:
// which old events were deleted, and from which resourceVersion on the
// log's history is whole again.
type Compaction struct {
	// Through is the compaction point: the state of the log at any
	// position at or after it is exactly what it was before anything was
	// deleted; a watch or list at an older position must be refused
	// (410 Expired). 0 when nothing was ever deleted.
	Through int64
	// Before is the recorded time before which events may have been
	// deleted; zero when nothing was.
	Before time.Time
	// Deleted counts every event ever deleted.
	Deleted int64
	// At is when the last deletion committed, by herd's clock.
	At time.Time
}

// Deletion is one batch of events the retention policy deletes.
type Deletion struct {
	// Positions are the events to delete.
	Positions []int64
	// Through is the newest position whose state the deletion relies on:
	// the compaction point moves to it, if it is past the current one.
	Through int64
	// Before is the recorded time the deleted events are older than.
	Before time.Time
	// At is when the deletion runs, by herd's clock.
	At time.Time
}

// compaction is a log's copy of its log_compaction row, so that every
// watch and list can check the compaction point without a query.
type compaction struct {
	mu sync.Mutex
	c  Compaction
}

func (m *compaction) get() Compaction {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.c
}

func (m *compaction) raise(through int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.c.Through = max(m.c.Through, through)
}

// learn takes in the log_compaction row as a deletion left it, or as it
// was read. The point never moves back (a raise may be ahead of the row);
// the rest is the newest row's. Rows are ordered by Deleted, since every
// deletion deletes something, so an older row heard late (another
// replica's notification after a read of the table) changes nothing.
func (m *compaction) learn(c Compaction) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.c.Through = max(m.c.Through, c.Through)
	if c.Deleted >= m.c.Deleted {
		m.c.Before, m.c.Deleted, m.c.At = c.Before, c.Deleted, c.At
	}
}

// compactionRow is log_compaction's row as both engines store it: times
// in unix nanoseconds, 0 for none.
type compactionRow struct {
	through, before, deleted, at int64
}

func (r compactionRow) compaction() Compaction {
	return Compaction{Through: r.through, Before: fromNanos(r.before), Deleted: r.deleted, At: fromNanos(r.at)}
}

func rowOf(c Compaction) compactionRow {
	return compactionRow{through: c.Through, before: nanos(c.Before), deleted: c.Deleted, at: nanos(c.At)}
}

// nanos is t in unix nanoseconds, 0 for the zero time (whose own
// UnixNano is out of range).
func nanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func fromNanos(n int64) time.Time {
	if n <= 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}
