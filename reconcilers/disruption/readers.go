package disruption

import (
	"context"

	"herd/domain"
	"herd/projections"
)

// Reader is what the reconciler reads of the budgets: one per key, and
// those of a namespace, or of every namespace on resync.
type Reader interface {
	// Get returns the budget, or domain.ErrNotFound.
	Get(ctx context.Context, namespace, name string) (domain.PodDisruptionBudget, error)
	// List returns the budgets of namespace, or of every namespace when
	// it is empty, and the log position they are read at.
	List(ctx context.Context, namespace string) ([]domain.PodDisruptionBudget, int64, error)
}

// PodLister is what the reconciler reads of the pods: those of one
// namespace, never the fleet's.
type PodLister interface {
	// List returns the pods that match f, and the view's resource
	// version.
	List(ctx context.Context, f projections.PodFilter) ([]domain.Pod, int64, error)
}

// ReplicaSetReader is how the reconciler learns the scale of a pod's
// controller when the budget needs it (a percentage, or maxUnavailable).
type ReplicaSetReader interface {
	// Get returns the ReplicaSet, or domain.ErrNotFound.
	Get(ctx context.Context, namespace, name string) (domain.ReplicaSet, error)
}

// DeploymentReader is how the reconciler learns the scale of a
// ReplicaSet's Deployment, which is what its pods' budget expects.
type DeploymentReader interface {
	// Get returns the Deployment, or domain.ErrNotFound.
	Get(ctx context.Context, namespace, name string) (domain.Deployment, error)
}

var (
	_ DeploymentReader = (*projections.DeploymentView)(nil)
	_ Reader           = (*projections.PodDisruptionBudgetView)(nil)
	_ PodLister        = (*projections.PodView)(nil)
	_ ReplicaSetReader = (*projections.ReplicaSetView)(nil)
)
