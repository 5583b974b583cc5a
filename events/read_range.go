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
// metadata — and closes them. capHint sizes the result. As a full read
// does (recordScanner), it reads each payload in place and copies it
// into blocks shared by several records, and it scans each row straight
// into its record: a replay reads millions of rows, and this saves a
// copy and three allocations a row.
func scanBareRecords(rows *sql.Rows, capHint int) ([]Record, error) {
	defer rows.Close()
	out := make([]Record, 0, capHint)
	var (
		s          recordScanner
		recordedAt int64
	)
	for rows.Next() {
		out = append(out, Record{})
		r := &out[len(out)-1]
		if err := rows.Scan(&r.Position, &r.Stream, &r.Version, &r.Type, &r.SchemaVersion, &recordedAt, &s.payload); err != nil {
			return nil, err
		}
		r.RecordedAt = time.Unix(0, recordedAt).UTC()
		r.Payload = s.copyPayload(s.payload)
	}
	return out, rows.Err()
}
