package drain

import (
	"context"

	"herd/domain"
	"herd/projections"
)

// NodeReader is what the reconciler reads of the nodes: one node per key,
// and the few nodes being drained, never the whole fleet.
type NodeReader interface {
	// Get returns the named node, or domain.ErrNotFound.
	Get(ctx context.Context, name string) (domain.Node, error)
	// Draining returns the nodes being drained.
	Draining(ctx context.Context) ([]domain.Node, error)
}

// PodLister is what the reconciler reads of the pods: those of herd's
// bound to one node.
type PodLister interface {
	// List returns the pods that match f, and the view's resource
	// version.
	List(ctx context.Context, f projections.PodFilter) ([]domain.Pod, int64, error)
}

var (
	_ NodeReader = (*projections.NodeView)(nil)
	_ PodLister  = (*projections.PodView)(nil)
)
