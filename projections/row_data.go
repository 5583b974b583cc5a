package projections

import (
	"context"
	"fmt"

	"herd/domain"
	"herd/events"
)

// rowData reads the data column of the one row query selects, or
// domain.ErrNotFound when it selects none; what names the row in errors.
func rowData(ctx context.Context, q events.Querier, what, query string, args ...any) ([]byte, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", what, err)
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("load %s: %w", what, err)
		}
		return nil, fmt.Errorf("%s: %w", what, domain.ErrNotFound)
	}
	var data []byte
	if err := rows.Scan(&data); err != nil {
		return nil, fmt.Errorf("load %s: %w", what, err)
	}
	return data, rows.Err()
}
