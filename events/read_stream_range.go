package events

import (
	"context"
	"fmt"
)

const readStreamRangeQuery = `SELECT ` + recordColumns + ` FROM events WHERE stream = ? AND position > ? AND position <= ? ORDER BY version`

// ReadStreamRange returns the events of stream whose log positions lie in
// (after, upTo], in version order. With after 0 it is what folding gives
// the stream's state as it stood at upTo; with a later after, what takes
// a state known at after on to upTo. A stream that did not exist then is
// empty.
func (s *Store) ReadStreamRange(ctx context.Context, q Querier, stream string, after, upTo int64) ([]Record, error) {
	rows, err := q.QueryContext(ctx, readStreamRangeQuery, stream, after, upTo)
	if err != nil {
		return nil, fmt.Errorf("read stream %s in (%d, %d]: %w", stream, after, upTo, err)
	}
	records, err := scanRecords(rows)
	if err != nil {
		return nil, fmt.Errorf("read stream %s in (%d, %d]: %w", stream, after, upTo, err)
	}
	return records, nil
}
