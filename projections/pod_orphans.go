package projections

import (
	"context"

	"herd/domain"
)

// GoneNodeNames names, in order, the nodes that source's live pods are
// bound to but that are deleted or were never registered. It looks up each
// bound node by its key, so it costs what the pods are bound to, not the
// fleet.
func (v *PodView) GoneNodeNames(ctx context.Context, source domain.PodSource) ([]string, error) {
	return queryNames(ctx, v.db, "gone node names", `SELECT DISTINCT p.node_name FROM pods p
WHERE p.finalized = 0 AND p.source = ? AND p.node_name <> ''
  AND NOT EXISTS (SELECT 1 FROM nodes n WHERE n.name = p.node_name AND n.deleted = 0)
ORDER BY p.node_name`, string(source))
}
