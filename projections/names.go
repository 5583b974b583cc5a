package projections

import (
	"context"
	"fmt"

	"herd/events"
)

// queryRows runs a query of one column of view rows (data) and decodes
// each with decode, in the order the query gives; what names the rows in
// errors of the query, and decode's errors are its own.
func queryRows[T any](ctx context.Context, q events.Querier, what string, decode func([]byte) (T, error), query string, args ...any) ([]T, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		var data []byte
		if err := rows.Scan(&data); err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		v, err := decode(data)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return out, nil
}
