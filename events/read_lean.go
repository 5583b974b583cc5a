package events

import (
	"context"
	"fmt"
)

// LeanReader reads the log after a position with the events of some
// types stripped to where and when they are — no id, payload or
// metadata — for a reader that needs no more of them (a what-if replay
// reads a day of heartbeats for their times alone). SQLite's log and
// PostgreSQL's implement it.
type LeanReader interface {
	// ReadAfterLean is ReadAfter with the events whose type is lean
	// stripped: their ID, Payload and Metadata are empty, and Continues
	// false (it is stored with the metadata).
	ReadAfterLean(ctx context.Context, position int64, limit int, lean string) ([]Record, error)
}

// readLeanQuery selects an event whole, or stripped when its type is the
// lean one (the last argument).
const readLeanQuery = `SELECT position, CASE WHEN type = ?3 THEN '' ELSE event_id END, stream, version, type, schema_version, recorded_at,
  CASE WHEN type = ?3 THEN '{}' ELSE payload END, CASE WHEN type = ?3 THEN NULL ELSE metadata END
FROM events WHERE position > ?1 ORDER BY position LIMIT ?2`

var (
	_ LeanReader = sqliteLog{}
	_ LeanReader = (*Postgres)(nil)
)

func (l sqliteLog) ReadAfterLean(ctx context.Context, position int64, limit int, lean string) ([]Record, error) {
	return readLean(ctx, l.s.db, readLeanQuery, position, limit, lean)
}

// ReadAfterLean is ReadAfter with the events of type lean stripped; see
// LeanReader.
func (p *Postgres) ReadAfterLean(ctx context.Context, position int64, limit int, lean string) ([]Record, error) {
	return readLean(ctx, p.db, pgReadLeanQuery, position, limit, lean)
}

// pgReadLeanQuery is readLeanQuery in PostgreSQL's terms.
const pgReadLeanQuery = `SELECT position, CASE WHEN type = $3 THEN '' ELSE event_id::text END, stream, version, type, schema_version, recorded_at,
  CASE WHEN type = $3 THEN '\x7b7d'::bytea ELSE payload END, CASE WHEN type = $3 THEN NULL ELSE metadata END
FROM events WHERE position > $1 ORDER BY position LIMIT $2`

func readLean(ctx context.Context, q Querier, query string, position int64, limit int, lean string) ([]Record, error) {
	if limit <= 0 {
		return nil, fmt.Errorf("read after %d: a lean read needs a limit", position)
	}
	rows, err := q.QueryContext(ctx, query, position, limit, lean)
	if err != nil {
		return nil, fmt.Errorf("read after %d: %w", position, err)
	}
	recs, err := scanRecords(rows)
	if err != nil {
		return nil, fmt.Errorf("read after %d: %w", position, err)
	}
	return recs, nil
}
