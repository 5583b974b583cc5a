package scheduler

import (
	"context"

	"herd/domain"
	"herd/projections"
)

// NodeLister is what the scheduler reads of the nodes: the fleet, once a
// pass finds a pod to place.
type NodeLister interface {
	// List returns every node, and the view's resource version.
	List(ctx context.Context) ([]domain.Node, int64, error)
}

// PodLister is what the scheduler reads of the pods: the pending ones,
// and every pod for the room they take. herd serve gives it the pod view
// that remembers (projections.PodView.Remembering): a pass then reads no
// pod row.
type PodLister interface {
	// Pods returns the pods that match f, by namespace and name.
	Pods(ctx context.Context, f projections.PodFilter) ([]domain.Pod, error)
}

var (
	_ NodeLister = (*projections.NodeView)(nil)
	_ PodLister  = (*projections.PodView)(nil)
)
