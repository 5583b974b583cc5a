package deployment

import (
	"context"

	"herd/domain"
	"herd/projections"
)

// Reader is what the reconciler reads of the Deployments: one per key,
// and every one on resync.
type Reader interface {
	// Last returns the Deployment or, deleted, its tombstone (which does
	// not Exist, and says whether its ReplicaSets are orphaned), or
	// domain.ErrNotFound.
	Last(ctx context.Context, namespace, name string) (domain.Deployment, error)
	// List returns the Deployments of namespace, or of every namespace
	// when it is empty.
	List(ctx context.Context, namespace string) ([]domain.Deployment, int64, error)
}

// ReplicaSetLister is what the reconciler reads of the ReplicaSets: those
// of one namespace that a Deployment controls, through the view's index,
// never the whole namespace.
type ReplicaSetLister interface {
	// Controlled returns the ReplicaSets of namespace controlled by one
	// of controllers ("Deployment/NAME").
	Controlled(ctx context.Context, namespace string, controllers []string) ([]domain.ReplicaSet, int64, error)
}

var (
	_ Reader           = (*projections.DeploymentView)(nil)
	_ ReplicaSetLister = (*projections.ReplicaSetView)(nil)
)
