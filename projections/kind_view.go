package projections

import (
	"context"
	"strings"

	"herd/domain"
)

// NamesOfKinds returns the names of the nodes of the given kinds, registered
// and not deleted, in name order. It reads the kind column only.
func (v *NodeView) NamesOfKinds(ctx context.Context, kinds []domain.NodeKind) ([]string, error) {
	if len(kinds) == 0 {
		return nil, nil
	}
	args := make([]any, len(kinds))
	for i, k := range kinds {
		args[i] = string(k)
	}
	return queryNames(ctx, v.db, "node names by kind", `SELECT name FROM nodes WHERE deleted = 0 AND kind IN (?`+
		strings.Repeat(",?", len(kinds)-1)+`) ORDER BY name`, args...)
}
