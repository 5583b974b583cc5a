package domain

import "context"

// NodeRepository is how the world outside the domain stores nodes. The
// domain declares it; projections implement it.
type NodeRepository interface {
	// UpdateNode runs update on the named node's current state (the zero
	// Node with Version 0 when herd has never seen it) inside one
	// transaction. The events update returns are appended with the node's
	// Version as the expected version and folded into the views before the
	// transaction commits; an error from update appends nothing. It returns
	// the node as it stands afterwards.
	UpdateNode(ctx context.Context, name string, update func(n Node) ([]Event, error)) (Node, error)
	// GetNode returns the node, or ErrNotFound if it does not exist.
	GetNode(ctx context.Context, name string) (Node, error)
}
