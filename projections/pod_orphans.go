package projections

import (
	"context"
	"fmt"

	"herd/domain"
)

// GoneNodeNames names, in order, the nodes that source's live pods are
// bound to but that are deleted or were never registered. It looks up each
// bound node by its key, so it costs what the pods are bound to, not the
// fleet.
func (v *PodView) GoneNodeNames(ctx context.Context, source domain.PodSource) ([]string, error) {
	names, err := podRows.BoundNodesGone(ctx, v.db, string(source))
	if err != nil {
		return nil, fmt.Errorf("gone node names: %w", err)
	}
	return names, nil
}
