package projections

import (
	"context"
	"fmt"

	"herd/domain"
)

// Draining returns the nodes being drained (a drain requested and not yet
// done), in name order. It reads only the nodes that have a drain, through
// the nodes_with_drain index.
func (v *NodeView) Draining(ctx context.Context) ([]domain.Node, error) {
	data, err := nodeRows.Draining(ctx, v.db)
	if err != nil {
		return nil, fmt.Errorf("draining nodes: %w", err)
	}
	var out []domain.Node
	for _, b := range data {
		n, err := unmarshalNode(b)
		if err != nil {
			return nil, err
		}
		if n.Drain != nil && n.Drain.DrainedAt.IsZero() {
			out = append(out, n)
		}
	}
	return out, nil
}

// NamesWithNoExecute names the nodes that may carry a NoExecute taint, in
// name order, from the nodes_with_no_execute index alone. It may name a
// node whose JSON mentions the effect elsewhere; callers check the node.
func (v *NodeView) NamesWithNoExecute(ctx context.Context) ([]string, error) {
	return nodeRows.NamesWithNoExecute(ctx, v.db)
}

// NamesNeedingTaintCheck names the nodes whose condition taints may not
// follow their conditions: Ready not True, a condition taint on, or a
// pressure condition True. A node outside it has no condition taint and
// needs none. It reads the nodes_needing_taint_check index alone.
func (v *NodeView) NamesNeedingTaintCheck(ctx context.Context) ([]string, error) {
	return nodeRows.NamesNeedingTaintCheck(ctx, v.db)
}
