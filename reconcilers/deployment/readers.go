package deployment

import (
	"context"

	"herd/domain"
	"herd/projections"
)

// Reader is what the reconciler reads of the Deployments: one per key,
// and every one on resync.
type Reader interface {
	// Get returns the Deployment, or domain.ErrNotFound.
	Get(ctx context.Context, namespace, name string) (domain.Deployment, error)
	// List returns the Deployments of namespace, or of every namespace
	// when it is empty.
	List(ctx context.Context, namespace string) ([]domain.Deployment, int64, error)
}

// ReplicaSetLister is what the reconciler reads of the ReplicaSets: those
// of one namespace.
type ReplicaSetLister interface {
	List(ctx context.Context, namespace string) ([]domain.ReplicaSet, int64, error)
}

var (
	_ Reader           = (*projections.DeploymentView)(nil)
	_ ReplicaSetLister = (*projections.ReplicaSetView)(nil)
)
