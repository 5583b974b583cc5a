package disruption

import (
	"context"

	"herd/domain"
	"herd/events"
	"herd/reconcilers"
)

// budgetChange is the last change of a budget that its count reads: its
// creation, a change of its spec, or a disruption it granted.
func budgetChange(b domain.PodDisruptionBudget) reconcilers.Change {
	return reconcilers.Change{Stream: domain.PodDisruptionBudgetStream(b.Namespace, b.Name), UpTo: b.Version,
		Types: []string{domain.PodDisruptionBudgetCreated{}.EventType(), domain.PodDisruptionBudgetChanged{}.EventType(),
			domain.PodDisruptionGranted{}.EventType()}}
}

// countCause is the change a budget's count read that made it as it is
// now: the newest of the budget's own last change, for each pod it
// selects the pod's last change that moves the count
// (reconcilers.CountCause), and for each ReplicaSet that controls one of
// them its last change (its scale is the pods expected; the newest in
// the log, as its reader gives no version), as Kubernetes' disruption
// controller reads a budget and its pods. A pod gone (its finalization)
// is not read: its deletion request made it unhealthy, and that request,
// or a later change, is named. false when the log holds none of them.
func countCause(ctx context.Context, b domain.PodDisruptionBudget, pods []domain.Pod) (events.Record, bool, error) {
	changes := []reconcilers.Change{budgetChange(b)}
	seen := map[string]bool{}
	for _, p := range pods {
		o, ok := p.Controller()
		stream := domain.ReplicaSetStream(p.Namespace, o.Name)
		if !ok || o.Kind != "ReplicaSet" || seen[stream] {
			continue
		}
		seen[stream] = true
		changes = append(changes, reconcilers.SpecChange(stream, 0, domain.ReplicaSetCreated{}, domain.ReplicaSetChanged{}))
	}
	return reconcilers.CountCause(ctx, pods, changes...)
}
