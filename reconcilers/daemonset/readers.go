package daemonset

import (
	"context"

	"herd/domain"
	"herd/projections"
	"herd/reconcilers"
)

// Reader is what the reconciler reads of the DaemonSets
// (reconcilers.Reader): the one of a key, and every one on resync.
type Reader = reconcilers.Reader[domain.DaemonSet]

// NodeLister is what the reconciler reads of the nodes: all of them,
// once per reconcile, since a DaemonSet concerns every node.
type NodeLister interface {
	// List returns every node, and the view's resource version.
	List(ctx context.Context) ([]domain.Node, int64, error)
}

// PodLister is what the reconciler reads of the pods: herd's own pods
// of one namespace, and those bound to the nodes it is about to give a
// pod, for the room they take.
type PodLister interface {
	// List returns the pods that match f, and the view's resource
	// version.
	List(ctx context.Context, f projections.PodFilter) ([]domain.Pod, int64, error)
}

// PodCommands is how the reconciler writes pods: one at a time to adopt
// and release them, in batches to create and delete them.
type PodCommands interface {
	domain.Executor[domain.Pod, domain.PodCommand]
	domain.BatchExecutor[domain.Pod, domain.PodCommand]
}

var (
	_ Reader     = (*projections.DaemonSetView)(nil)
	_ NodeLister = (*projections.NodeView)(nil)
	_ PodLister  = (*projections.PodView)(nil)
)
