package events

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// Compaction returns how far the log has been thinned.
func (s *Store) Compaction() Compaction { return s.compaction.get() }

// RaiseCompactionPoint moves the compaction point to through (never
// back) before a deletion that relies on it commits (see Compactable).
func (s *Store) RaiseCompactionPoint(through int64) { s.compaction.raise(through) }

// Compacted records in memory the log_compaction row that DeleteEvents
// returned, once its transaction committed.
func (s *Store) Compacted(c Compaction) { s.compaction.learn(c) }

// loadCompaction reads the log_compaction row into memory; Open calls it.
func (s *Store) loadCompaction(ctx context.Context) error {
	c, err := readCompaction(ctx, s.db)
	if err != nil {
		return err
	}
	s.compaction.learn(c)
	return nil
}

// readCompaction reads the log_compaction row, on either engine.
func readCompaction(ctx context.Context, q Querier) (Compaction, error) {
	rows, err := q.QueryContext(ctx, `SELECT through, before, deleted, thinned_at FROM log_compaction WHERE id = 1`)
	if err != nil {
		return Compaction{}, fmt.Errorf("read log_compaction: %w", err)
	}
	defer rows.Close()
	if !rows.Next() {
		return Compaction{}, fmt.Errorf("read log_compaction: %w", rowsErr(rows))
	}
	var r compactionRow
	if err := rows.Scan(&r.through, &r.before, &r.deleted, &r.at); err != nil {
		return Compaction{}, fmt.Errorf("read log_compaction: %w", err)
	}
	return r.compaction(), rows.Close()
}

// DeleteEvents deletes d's events inside tx and, in the same
// transaction, moves the log_compaction row on by them, returning the row
// as it then stands. Every position must hold an event: one already gone
// means two compactions raced, and the deletion is refused whole
// (ErrConflict). It is the one way events leave the log; once tx commits,
// call Compacted with the row.
func (s *Store) DeleteEvents(ctx context.Context, tx *sql.Tx, d Deletion) (Compaction, error) {
	if len(d.Positions) == 0 {
		return s.Compaction(), nil
	}
	args := make([]any, len(d.Positions))
	for i, p := range d.Positions {
		args[i] = p
	}
	q := `DELETE FROM events WHERE position IN (?` + strings.Repeat(",?", len(d.Positions)-1) + `)`
	if _, err := tx.ExecContext(ctx, invalidateSnapshotsSQL(len(args)), append(args[:len(args):len(args)], d.Through)...); err != nil {
		return Compaction{}, fmt.Errorf("drop the snapshots %d deletions make untrue: %w", len(args), err)
	}
	r, err := deleteAndRecord(ctx, tx, d, q, args, `UPDATE log_compaction SET through = MAX(through, ?), before = MAX(before, ?),
deleted = deleted + ?, thinned_at = ? WHERE id = 1 RETURNING through, before, deleted, thinned_at`)
	if err != nil {
		return Compaction{}, err
	}
	return r.compaction(), nil
}

// deleteAndRecord deletes d's events with del (its args), refusing the
// whole deletion with ErrConflict when one of them is gone, and moves
// the compaction record with record (d's through, before, the number
// deleted and d's time, in that order), in tx, on either engine.
func deleteAndRecord(ctx context.Context, tx *sql.Tx, d Deletion, del string, args []any, record string) (compactionRow, error) {
	var r compactionRow
	res, err := tx.ExecContext(ctx, del, args...)
	if err != nil {
		return r, fmt.Errorf("delete %d events: %w", len(d.Positions), err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return r, fmt.Errorf("delete %d events: %w", len(d.Positions), err)
	}
	if n != int64(len(d.Positions)) {
		return r, fmt.Errorf("delete %d events: only %d were there: %w", len(d.Positions), n, ErrConflict)
	}
	if err := tx.QueryRowContext(ctx, record, d.Through, nanos(d.Before), n, nanos(d.At)).
		Scan(&r.through, &r.before, &r.deleted, &r.at); err != nil {
		return r, fmt.Errorf("record compaction: %w", err)
	}
	return r, nil
}

const readTypeQuery = `SELECT position, stream, version, type, schema_version, recorded_at, payload
FROM events WHERE position > ? AND position < ? AND type = ? ORDER BY position LIMIT ?`

// ReadTypeRange returns up to limit events of type typ with positions in
// (after, before), in log order, without their ids and metadata.
func (s *Store) ReadTypeRange(ctx context.Context, q Querier, typ string, after, before int64, limit int) ([]Record, error) {
	return readTypeRange(ctx, q, readTypeQuery, typ, after, before, limit)
}

// readTypeRange runs query, readTypeQuery in its engine's SQL, on q.
func readTypeRange(ctx context.Context, q Querier, query, typ string, after, before int64, limit int) ([]Record, error) {
	rows, err := q.QueryContext(ctx, query, after, before, typ, limit)
	if err != nil {
		return nil, fmt.Errorf("read %s in (%d, %d): %w", typ, after, before, err)
	}
	out, err := scanBareRecords(rows, 0)
	if err != nil {
		return nil, fmt.Errorf("read %s in (%d, %d): %w", typ, after, before, err)
	}
	return out, nil
}

// firstRecordedQuery finds the earliest event recorded at or after a time.
const firstRecordedQuery = `SELECT position FROM events WHERE recorded_at >= ? ORDER BY recorded_at, position LIMIT 1`

// FirstRecordedAt returns the position of the earliest event recorded at
// or after t, or the head plus one when there is none (see
// Compactable).
func (s *Store) FirstRecordedAt(ctx context.Context, q Querier, t time.Time) (int64, error) {
	return firstRecordedAt(ctx, q, firstRecordedQuery, t, func() (int64, error) { return s.Head(ctx, q) })
}

// firstRecordedAt runs query, firstRecordedQuery in its engine's SQL, on
// q, and asks head when it finds nothing.
func firstRecordedAt(ctx context.Context, q Querier, query string, t time.Time, head func() (int64, error)) (int64, error) {
	rows, err := q.QueryContext(ctx, query, t.UnixNano())
	if err != nil {
		return 0, fmt.Errorf("first event at or after %s: %w", t.Format(time.RFC3339), err)
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return 0, fmt.Errorf("first event at or after %s: %w", t.Format(time.RFC3339), err)
		}
		h, err := head()
		if err != nil {
			return 0, err
		}
		return h + 1, nil
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
