package projections

import (
	"context"

	"herd/domain"
)

// NamesOfKinds returns the names of the nodes of the given kinds, registered
// and not deleted, in name order. It reads the kind column only.
func (v *NodeView) NamesOfKinds(ctx context.Context, kinds []domain.NodeKind) ([]string, error) {
	if len(kinds) == 0 {
		return nil, nil
	}
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = string(k)
	}
	return nodeRows.NamesOfKinds(ctx, v.db, names)
}
