package events

import (
	"context"
	"fmt"
	"time"
)

const readRangeQuery = `SELECT position, stream, version, type, schema_version, recorded_at, payload
FROM events WHERE position > ? AND position <= ? ORDER BY position`

// ReadRange returns the events with positions in (after, upTo], in order,
// without their ids and metadata: what a replay needs and no more. Ranges
// rather than pages let several readers share one replay, each reading its
// own stretch of the log on its own connection.
func (s *Store) ReadRange(ctx context.Context, q Querier, after, upTo int64) ([]Record, error) {
	rows, err := q.QueryContext(ctx, readRangeQuery, after, upTo)
	if err != nil {
		return nil, fmt.Errorf("read range (%d, %d]: %w", after, upTo, err)
	}
	defer rows.Close()
	out := make([]Record, 0, max(0, min(upTo-after, 1<<16)))
	for rows.Next() {
		var (
			r          Record
			recordedAt int64
			payload    []byte
		)
		if err := rows.Scan(&r.Position, &r.Stream, &r.Version, &r.Type, &r.SchemaVersion, &recordedAt, &payload); err != nil {
			return nil, fmt.Errorf("read range (%d, %d]: %w", after, upTo, err)
		}
		r.RecordedAt = time.Unix(0, recordedAt).UTC()
		r.Payload = payload
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read range (%d, %d]: %w", after, upTo, err)
	}
	return out, nil
}
