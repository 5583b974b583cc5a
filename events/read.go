package events

import (
	"context"
	"database/sql"
	"fmt"
)

// Querier runs a read. *sql.DB reads the latest committed log; *sql.Tx
// reads inside a unit of work, including what it appended itself.
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

var (
	_ Querier = (*sql.DB)(nil)
	_ Querier = (*sql.Tx)(nil)
)

const (
	readStreamQuery = `SELECT ` + recordColumns + ` FROM events WHERE stream = ? AND version > ? ORDER BY version`
	readAfterQuery  = `SELECT ` + recordColumns + ` FROM events WHERE position > ? ORDER BY position LIMIT ?`
	headQuery       = `SELECT COALESCE(MAX(position), 0) AS head FROM events`
)

// ReadStream returns the events of stream after version afterVersion, in
// version order; afterVersion 0 reads the whole stream. A stream that does
// not exist is empty.
func (s *Store) ReadStream(ctx context.Context, q Querier, stream string, afterVersion int64) ([]Record, error) {
	rows, err := q.QueryContext(ctx, readStreamQuery, stream, afterVersion)
	if err != nil {
		return nil, fmt.Errorf("read stream %s after %d: %w", stream, afterVersion, err)
	}
	records, err := scanRecords(rows)
	if err != nil {
		return nil, fmt.Errorf("read stream %s after %d: %w", stream, afterVersion, err)
	}
	return records, nil
}

// ReadAfter returns up to limit events after position, in position order;
// limit 0 or less means all of them. Replays page through the log with it.
func (s *Store) ReadAfter(ctx context.Context, q Querier, position int64, limit int) ([]Record, error) {
	if limit <= 0 {
		limit = -1 // SQLite: no limit
	}
	rows, err := q.QueryContext(ctx, readAfterQuery, position, limit)
	if err != nil {
		return nil, fmt.Errorf("read after %d: %w", position, err)
	}
	records, err := scanRecords(rows)
	if err != nil {
		return nil, fmt.Errorf("read after %d: %w", position, err)
	}
	return records, nil
}

// Head is the position of the newest event, 0 for an empty log. It is the
// resourceVersion of a list.
func (s *Store) Head(ctx context.Context, q Querier) (int64, error) {
	rows, err := q.QueryContext(ctx, headQuery)
	if err != nil {
		return 0, fmt.Errorf("head: %w", err)
	}
	defer rows.Close()
	var head int64
	if !rows.Next() {
		return 0, fmt.Errorf("head: %w", rowsErr(rows))
	}
	if err := rows.Scan(&head); err != nil {
		return 0, fmt.Errorf("head: %w", err)
	}
	return head, rows.Close()
}

func rowsErr(rows *sql.Rows) error {
	if err := rows.Err(); err != nil {
		return err
	}
	return sql.ErrNoRows
}
