package job

import (
	"context"

	"herd/domain"
	"herd/projections"
)

// Reader is what the reconciler reads of the Jobs: one per key, and
// every one on resync.
type Reader interface {
	// Last returns the Job or, deleted, its tombstone (which does not
	// Exist, and says whether its pods are orphaned), or
	// domain.ErrNotFound.
	Last(ctx context.Context, namespace, name string) (domain.Job, error)
	// List returns the Jobs of namespace, or of every namespace when it
	// is empty, and the log position they are read at.
	List(ctx context.Context, namespace string) (jobs []domain.Job, head int64, err error)
}

// PodLister is what the reconciler reads of the pods: herd's own pods of
// one namespace, never the fleet's.
type PodLister interface {
	// List returns the pods that match f, and the view's resource
	// version.
	List(ctx context.Context, f projections.PodFilter) ([]domain.Pod, int64, error)
}

// PodCommands is how the reconciler writes pods: in batches, to create
// and delete them.
type PodCommands interface {
	domain.BatchExecutor[domain.Pod, domain.PodCommand]
}

var (
	_ Reader    = (*projections.JobView)(nil)
	_ PodLister = (*projections.PodView)(nil)
)
