package ipam

import (
	"context"

	"herd/domain"
	"herd/projections"
)

// PodReader is what the reconciler reads of the pods: one pod per key (a
// finalized one too, whose address goes back), and the pending ones
// waiting for an address.
type PodReader interface {
	// Get returns the pod, or domain.ErrNotFound.
	Get(ctx context.Context, namespace, name string) (domain.Pod, error)
	// GetIncludingFinalized is Get that also returns a finalized pod's
	// tombstone.
	GetIncludingFinalized(ctx context.Context, namespace, name string) (domain.Pod, error)
	// List returns the pods that match f, and the view's resource
	// version.
	List(ctx context.Context, f projections.PodFilter) ([]domain.Pod, int64, error)
}

// AllocationReader is what the reconciler reads of the addresses handed
// out.
type AllocationReader interface {
	// AllocationOf returns the address held by the pod with uid; false
	// when it holds none.
	AllocationOf(ctx context.Context, uid string) (projections.IPAllocation, bool, error)
	// AllocationsNamed lists the addresses held under a pod's name, by
	// the pod of that name now or by those made under it before.
	AllocationsNamed(ctx context.Context, namespace, name string) ([]projections.IPAllocation, error)
	// Allocations lists every address held.
	Allocations(ctx context.Context) ([]projections.IPAllocation, error)
}

var (
	_ PodReader        = (*projections.PodView)(nil)
	_ AllocationReader = (*projections.IPAMView)(nil)
)
