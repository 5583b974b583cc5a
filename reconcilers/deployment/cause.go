package deployment

import (
	"context"

	"herd/domain"
	"herd/reconcilers"
)

// statusCause is ctx whose status record names what moved the
// Deployment's status, as Kubernetes' controller reads a Deployment's
// status off it and its ReplicaSets: the newest of its last change of
// spec or scale (a new generation observed, the ReplicaSets rolled for
// it, which follow that change) and, of each ReplicaSet it owns as read,
// the last change of its status or spec made by another than the
// Deployment's reconciler (a pod of it turning ready, an operator's
// scale). The ReplicaSets it rolls, in this reconcile or an earlier one,
// follow its spec and are passed over. The record that queued the key stays the cause when
// the log holds none.
func statusCause(ctx context.Context, d domain.Deployment, owned []domain.ReplicaSet) (context.Context, error) {
	changes := []reconcilers.Change{specChange(d)}
	for _, rs := range owned {
		changes = append(changes, reconcilers.Change{Stream: domain.ReplicaSetStream(rs.Namespace, rs.Name), UpTo: rs.Version,
			Types:  []string{domain.ReplicaSetCreated{}.EventType(), domain.ReplicaSetChanged{}.EventType(), domain.ReplicaSetStatusRecorded{}.EventType()},
			Others: true})
	}
	return reconcilers.BecauseOfNewest(ctx, changes...)
}

// specChange is the Deployment's last change of what it asks for, as
// read.
func specChange(d domain.Deployment) reconcilers.Change {
	return reconcilers.SpecChange(d.Stream(), d.Version, domain.DeploymentCreated{}, domain.DeploymentChanged{})
}
