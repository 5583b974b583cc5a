package kubeletprobe

import (
	"context"

	"herd/domain"
	"herd/projections"
)

// NodeReader is what the reconciler reads of the nodes: one node per key,
// and on resync the names of the nodes of the probed kinds.
type NodeReader interface {
	// Get returns the named node, or domain.ErrNotFound.
	Get(ctx context.Context, name string) (domain.Node, error)
	// NamesOfKinds names the nodes of the given kinds.
	NamesOfKinds(ctx context.Context, kinds []domain.NodeKind) ([]string, error)
}

var _ NodeReader = (*projections.NodeView)(nil)
