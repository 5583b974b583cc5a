package deployment

import (
	"context"

	"herd/domain"
	"herd/projections"
	"herd/reconcilers"
)

// Reader is what the reconciler reads of the Deployments
// (reconcilers.Reader): the one of a key, and every one on resync.
type Reader = reconcilers.Reader[domain.Deployment]

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
