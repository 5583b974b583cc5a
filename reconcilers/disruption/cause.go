package disruption

import (
	"context"
	"slices"

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

// podCountTypes are a pod's changes that move what a budget counts of
// it: its coming, its labels and owners, its readiness, its stop and the
// request to delete it (a terminating pod is not healthy).
var podCountTypes = []string{
	domain.PodCreated{}.EventType(), domain.PodOwnersChanged{}.EventType(), domain.PodMetadataChanged{}.EventType(),
	domain.PodStatusUpdated{}.EventType(), domain.PodStopped{}.EventType(), domain.PodDeletionRequested{}.EventType(),
}

// countCause is the change a budget's count read that made it as it is
// now: the newest of the budget's own last change, for each pod it
// selects the pod's last change that moves the count, and for each
// ReplicaSet that controls one of them its last change (its scale is the
// pods expected; the newest in the log, as its reader gives no version),
// as Kubernetes'
// disruption controller reads a budget and its pods. A pod gone (its
// finalization) is not read: its deletion request made it unhealthy,
// and that request, or a later change, is named. The pods are looked at
// newest first and the search ends where no older pod could hold a newer
// change than the one found, so a large namespace's quiet pods are not
// read. false when the log holds none of them.
func countCause(ctx context.Context, b domain.PodDisruptionBudget, pods []domain.Pod) (events.Record, bool, error) {
	best, _, err := reconcilers.LastChange(ctx, budgetChange(b))
	if err != nil {
		return events.Record{}, false, err
	}
	pods = slices.Clone(pods)
	slices.SortFunc(pods, func(a, c domain.Pod) int { return int(c.ResourceVersion - a.ResourceVersion) })
	for _, p := range pods {
		if best.ID != "" && p.ResourceVersion <= best.Position {
			break
		}
		rec, ok, err := reconcilers.LastChange(ctx, reconcilers.Change{Stream: domain.PodStream(p.Namespace, p.Name), UpTo: p.Version, Types: podCountTypes})
		if err != nil {
			return events.Record{}, false, err
		}
		if ok {
			best, _ = reconcilers.Newest(best, rec)
		}
	}
	seen := map[string]bool{}
	for _, p := range pods {
		o, ok := p.Controller()
		stream := domain.ReplicaSetStream(p.Namespace, o.Name)
		if !ok || o.Kind != "ReplicaSet" || seen[stream] {
			continue
		}
		seen[stream] = true
		rec, ok, err := reconcilers.LastChange(ctx, reconcilers.SpecChange(stream, 0, domain.ReplicaSetCreated{}, domain.ReplicaSetChanged{}))
		if err != nil {
			return events.Record{}, false, err
		}
		if ok {
			best, _ = reconcilers.Newest(best, rec)
		}
	}
	return best, best.ID != "", nil
}
