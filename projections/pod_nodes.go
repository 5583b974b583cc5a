package projections

import (
	"context"

	"herd/domain"
)

// BoundNodeNames returns, in name order, every node name that pods of the
// given source are bound to: how pod garbage collection finds the pods of
// nodes that no longer exist without decoding every pod.
func (v *PodView) BoundNodeNames(ctx context.Context, source domain.PodSource) ([]string, error) {
	return queryNames(ctx, v.db, "bound node names", `SELECT DISTINCT node_name FROM pods
WHERE finalized = 0 AND source = ? AND node_name <> '' ORDER BY node_name`, string(source))
}
