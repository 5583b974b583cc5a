package projections

import (
	"context"

	"herd/domain"
	"herd/events"
)

// FoldNode folds one logged event of a node's stream into the node, as the
// inline view does: the domain's Evolve plus the resourceVersion. Watches
// and consistent lists use it to rebuild a node as it stood at any log
// position. A node seen for the first time is the zero Node.
func FoldNode(n domain.Node, rec events.Record) (domain.Node, error) {
	return nodes.fold(n, rec)
}

// Rows returns up to limit nodes whose names sort after after, in name
// order, deleted ones (tombstones) included, and the log head at the
// moment of reading; limit 0 or less means all of them. Rows and head
// come from one SQL statement, so they are consistent with each other:
// every row is as the log left it at head.
func (v *NodeView) Rows(ctx context.Context, after string, limit int) ([]domain.Node, int64, error) {
	return decodeNodes(nodeRows.After(ctx, v.db, after, limit))
}
