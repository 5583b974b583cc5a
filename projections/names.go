package projections

import (
	"context"
	"fmt"

	"herd/events"
)

// queryNames runs a query of one text column (node names, mostly) and
// returns its values in the order the query gives; what names the list in
// errors.
func queryNames(ctx context.Context, q events.Querier, what, query string, args ...any) ([]string, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		out = append(out, name)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return out, nil
}
