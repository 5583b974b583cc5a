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
	names, err := podRows.BoundNodes(ctx, v.db, string(source))
	if err != nil {
		return nil, fmt.Errorf("bound node names: %w", err)
	}
	return names, nil
}
