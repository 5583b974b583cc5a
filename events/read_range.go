package events

import (
	"context"
	"database/sql"
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
	out, err := scanBareRecords(rows, int(max(0, min(upTo-after, 1<<16))))
	if err != nil {
		return nil, fmt.Errorf("read range (%d, %d]: %w", after, upTo, err)
	}
	return out, nil
}

// scanBareRecords reads rows of position, stream, version, type, schema
// version, recorded time and payload — records without their ids and
// metadata — and closes them. capHint sizes the result.
func scanBareRecords(rows *sql.Rows, capHint int) ([]Record, error) {
	defer rows.Close()
	out := make([]Record, 0, capHint)
	for rows.Next() {
		var (
			r          Record
			recordedAt int64
			payload    []byte
		)
		if err := rows.Scan(&r.Position, &r.Stream, &r.Version, &r.Type, &r.SchemaVersion, &recordedAt, &payload); err != nil {
			return nil, err
		}
		r.RecordedAt = time.Unix(0, recordedAt).UTC()
		r.Payload = payload
		out = append(out, r)
	}
	return out, rows.Err()
}
