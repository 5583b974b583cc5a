package events

import (
	"context"
	"fmt"
)

const readStreamAtQuery = `SELECT ` + recordColumns + ` FROM events WHERE stream = ? AND position <= ? ORDER BY version`

// ReadStreamAt returns the events of stream up to and including log
// position position, in version order: what folding gives the stream's
// state as it stood at that position. A stream that did not exist then is
// empty.
func (s *Store) ReadStreamAt(ctx context.Context, q Querier, stream string, position int64) ([]Record, error) {
	rows, err := q.QueryContext(ctx, readStreamAtQuery, stream, position)
	if err != nil {
		return nil, fmt.Errorf("read stream %s at %d: %w", stream, position, err)
	}
	records, err := scanRecords(rows)
	if err != nil {
		return nil, fmt.Errorf("read stream %s at %d: %w", stream, position, err)
	}
	return records, nil
}
