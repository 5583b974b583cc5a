package termination

import (
	"context"

	"herd/domain"
	"herd/projections"
)

// PodReader is what herd serve's reconciler reads of the pods: one pod
// per key, those bound to a node, and on resync the terminating ones and
// the nodes that herd's pods are bound to but that are gone. herd serve
// gives it the pod view that remembers (projections.PodView.Remembering):
// a node's change then reads no pod row.
type PodReader interface {
	// Get returns the pod, or domain.ErrNotFound.
	Get(ctx context.Context, namespace, name string) (domain.Pod, error)
	// Pods returns the pods that match f, by namespace and name.
	Pods(ctx context.Context, f projections.PodFilter) ([]domain.Pod, error)
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
