package replicaset

import (
	"herd/domain"
	"herd/projections"
	"herd/reconcilers"
)

// Reader is what the reconciler reads of the ReplicaSets
// (reconcilers.Reader): the one of a key, and every one on resync.
type Reader = reconcilers.Reader[domain.ReplicaSet]

// PodLister is what the reconciler reads of the pods: herd's own pods of
// one namespace, never the fleet's. It is a type of its own, not an alias
// of reconcilers.PodLister: the app provides each reconciler's readers by
// their type, and two reconcilers' readers of one type would collide.
type PodLister interface{ reconcilers.PodLister }

// PodCommands is how the reconciler writes pods: one at a time to adopt
// and release them, in batches to create and delete them.
type PodCommands interface {
	domain.Executor[domain.Pod, domain.PodCommand]
	domain.BatchExecutor[domain.Pod, domain.PodCommand]
}

var _ PodLister = (*projections.PodView)(nil)
