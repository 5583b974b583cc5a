package domain

import "context"

// NodeRepository is how the world outside the domain reads a stored
// node; a node is written through its Executor. The domain declares it;
// projections implement it.
type NodeRepository interface {
	// GetNode returns the node, or ErrNotFound if it does not exist.
	GetNode(ctx context.Context, name string) (Node, error)
}
