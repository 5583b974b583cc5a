package termination

import (
	"context"

	"herd/domain"
	"herd/projections"
)

// PodReader is what herd serve's reconciler reads of the pods: one pod
// per key, those bound to a node, and on resync the terminating ones and
// the nodes that herd's pods are bound to but that are gone.
type PodReader interface {
	// Get returns the pod, or domain.ErrNotFound.
	Get(ctx context.Context, namespace, name string) (domain.Pod, error)
	// List returns the pods that match f, and the view's resource
	// version.
	List(ctx context.Context, f projections.PodFilter) ([]domain.Pod, int64, error)
	// GoneNodeNames names the nodes that pods of source are bound to but
	// that no longer exist.
	GoneNodeNames(ctx context.Context, source domain.PodSource) ([]string, error)
}

// NodeReader is what herd serve's reconciler reads of the nodes: the one
// a pod is bound to.
type NodeReader interface {
	// Get returns the named node, or domain.ErrNotFound.
	Get(ctx context.Context, name string) (domain.Node, error)
}

var (
	_ PodReader  = (*projections.PodView)(nil)
	_ NodeReader = (*projections.NodeView)(nil)
)
