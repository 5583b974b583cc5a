package projections

import (
	"context"
	"fmt"

	"herd/domain"
)

// BoundNodeNames returns, in name order, every node name that pods of the
// given source are bound to: how pod garbage collection finds the pods of
// nodes that no longer exist without decoding every pod.
func (v *PodView) BoundNodeNames(ctx context.Context, source domain.PodSource) ([]string, error) {
	rows, err := v.db.QueryContext(ctx, `SELECT DISTINCT node_name FROM pods
WHERE finalized = 0 AND source = ? AND node_name <> '' ORDER BY node_name`, string(source))
	if err != nil {
		return nil, fmt.Errorf("bound node names: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, fmt.Errorf("bound node names: %w", err)
		}
		out = append(out, n)
	}
	return out, rows.Err()
}
