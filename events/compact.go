package events

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"time"
)

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

// compaction is the store's copy of the log_compaction row, so that every
// watch and list can check the compaction point without a query.
type compaction struct {
	mu sync.Mutex
	c  Compaction
}

// Compaction returns how far the log has been thinned.
func (s *Store) Compaction() Compaction {
	s.compaction.mu.Lock()
	defer s.compaction.mu.Unlock()
	return s.compaction.c
}

// RaiseCompactionPoint moves the compaction point to through (never
// back) before a deletion that relies on it commits, so that no watch
// starts at a position whose history is about to go. A deletion that then
// fails leaves the point early, which only refuses a few positions sooner
// than needed.
func (s *Store) RaiseCompactionPoint(through int64) {
	s.compaction.mu.Lock()
	defer s.compaction.mu.Unlock()
	s.compaction.c.Through = max(s.compaction.c.Through, through)
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

// Deleted records in memory a deletion that DeleteEvents wrote and whose
// transaction committed.
func (s *Store) Deleted(d Deletion) {
	s.compaction.mu.Lock()
	defer s.compaction.mu.Unlock()
	c := &s.compaction.c
	c.Through = max(c.Through, d.Through)
	if d.Before.After(c.Before) {
		c.Before = d.Before
	}
	c.Deleted += int64(len(d.Positions))
	c.At = d.At
}

// loadCompaction reads the log_compaction row into memory; Open calls it.
func (s *Store) loadCompaction(ctx context.Context) error {
	var through, before, deleted, at int64
	err := s.db.QueryRowContext(ctx, `SELECT through, before, deleted, thinned_at FROM log_compaction WHERE id = 1`).
		Scan(&through, &before, &deleted, &at)
	if err != nil {
		return fmt.Errorf("read log_compaction: %w", err)
	}
	c := Compaction{Through: through, Deleted: deleted}
	if before > 0 {
		c.Before = time.Unix(0, before).UTC()
	}
	if at > 0 {
		c.At = time.Unix(0, at).UTC()
	}
	s.compaction.mu.Lock()
	s.compaction.c = c
	s.compaction.mu.Unlock()
	return nil
}

// DeleteEvents deletes d's events inside tx and, in the same
// transaction, moves the log_compaction row on by them. Every position
// must hold an event: one already gone means two compactions raced, and
// the deletion is refused whole (ErrConflict). It is the one way events
// leave the log; once tx commits, call Deleted(d).
func (s *Store) DeleteEvents(ctx context.Context, tx *sql.Tx, d Deletion) error {
	if len(d.Positions) == 0 {
		return nil
	}
	args := make([]any, len(d.Positions))
	for i, p := range d.Positions {
		args[i] = p
	}
	q := `DELETE FROM events WHERE position IN (?` + strings.Repeat(",?", len(d.Positions)-1) + `)`
	res, err := tx.ExecContext(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("delete %d events: %w", len(d.Positions), err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("delete %d events: %w", len(d.Positions), err)
	}
	if n != int64(len(d.Positions)) {
		return fmt.Errorf("delete %d events: only %d were there: %w", len(d.Positions), n, ErrConflict)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE log_compaction SET through = MAX(through, ?), before = MAX(before, ?),
deleted = deleted + ?, thinned_at = ? WHERE id = 1`,
		d.Through, d.Before.UnixNano(), n, d.At.UnixNano()); err != nil {
		return fmt.Errorf("record compaction: %w", err)
	}
	return nil
}

const readTypeQuery = `SELECT position, stream, version, type, schema_version, recorded_at, payload
FROM events WHERE position > ? AND position < ? AND type = ? ORDER BY position LIMIT ?`

// ReadTypeRange returns up to limit events of type typ with positions in
// (after, before), in log order, without their ids and metadata.
func (s *Store) ReadTypeRange(ctx context.Context, q Querier, typ string, after, before int64, limit int) ([]Record, error) {
	rows, err := q.QueryContext(ctx, readTypeQuery, after, before, typ, limit)
	if err != nil {
		return nil, fmt.Errorf("read %s in (%d, %d): %w", typ, after, before, err)
	}
	out, err := scanBareRecords(rows, 0)
	if err != nil {
		return nil, fmt.Errorf("read %s in (%d, %d): %w", typ, after, before, err)
	}
	return out, nil
}

// FirstRecordedAt returns the position of the earliest event recorded at
// or after t, or the head plus one when there is none. Recorded times
// follow positions (herd stamps each event as it appends it), so every
// event before the returned position was recorded before t; only a clock
// stepped back could make an exception. One probe of the recorded_at
// index, however long the log.
func (s *Store) FirstRecordedAt(ctx context.Context, q Querier, t time.Time) (int64, error) {
	rows, err := q.QueryContext(ctx, `SELECT position FROM events WHERE recorded_at >= ? ORDER BY recorded_at, position LIMIT 1`, t.UnixNano())
	if err != nil {
		return 0, fmt.Errorf("first event at or after %s: %w", t.Format(time.RFC3339), err)
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return 0, fmt.Errorf("first event at or after %s: %w", t.Format(time.RFC3339), err)
		}
		head, err := s.Head(ctx, q)
		if err != nil {
			return 0, err
		}
		return head + 1, nil
	}
	var pos int64
	if err := rows.Scan(&pos); err != nil {
		return 0, fmt.Errorf("first event at or after %s: %w", t.Format(time.RFC3339), err)
	}
	return pos, rows.Close()
}

// FileSize is the size of the database file in bytes, and how much of it
// is free pages that new rows reuse before the file grows.
type FileSize struct {
	Bytes, FreeBytes int64
}

// FileSize reads the database's page counts. SQLite never gives free
// pages back to the file system by itself (herd does not turn on
// auto_vacuum): they are reused, and `herd vacuum` shrinks the file.
func (s *Store) FileSize(ctx context.Context) (FileSize, error) {
	var pages, free, size int64
	for _, p := range []struct {
		pragma string
		into   *int64
	}{{"page_count", &pages}, {"freelist_count", &free}, {"page_size", &size}} {
		rows, err := s.db.QueryContext(ctx, "PRAGMA "+p.pragma)
		if err != nil {
			return FileSize{}, fmt.Errorf("pragma %s: %w", p.pragma, err)
		}
		if rows.Next() {
			err = rows.Scan(p.into)
		}
		rows.Close()
		if err != nil {
			return FileSize{}, fmt.Errorf("pragma %s: %w", p.pragma, err)
		}
	}
	return FileSize{Bytes: pages * size, FreeBytes: free * size}, nil
}

// Vacuum rewrites the database file without its free pages, giving them
// back to the file system (`herd vacuum`). It needs the database to
// itself: nothing else may be writing.
func (s *Store) Vacuum(ctx context.Context) error {
	_, err := s.db.ExecContext(ctx, `VACUUM`)
	return err
}
