package replicaset

import (
	"context"
	"fmt"

	"herd/domain"
	"herd/reconcilers"
)

// adopt makes rs the controller of orphans and lets go of strays, in one
// unit of work, and returns the orphans it now controls. Each is lenient:
// a pod adopted by another controller, or being deleted, since it was
// read is refused alone and left, as Kubernetes' adoption leaves a pod
// whose patch fails; the next reconcile sees it as it is.
func (r *Reconciler) adopt(ctx context.Context, rs domain.ReplicaSet, orphans, strays []domain.Pod) ([]domain.Pod, error) {
	if len(orphans)+len(strays) == 0 {
		return nil, nil
	}
	cmds := make([]domain.Keyed[domain.PodCommand], 0, len(orphans)+len(strays))
	for _, p := range orphans {
		cmds = append(cmds, lenient(reconcilers.KeyedPod(p, domain.AdoptPod{Owner: rs.OwnerReference()})))
	}
	for _, p := range strays {
		cmds = append(cmds, lenient(reconcilers.KeyedPod(p, domain.ReleasePod{UID: rs.UID})))
	}
	states, _, err := r.podCommands.ExecuteBatch(ctx, cmds)
	if err != nil {
		return nil, fmt.Errorf("adopt and release pods of replicaset %s: %w", rs, err)
	}
	var adopted []domain.Pod
	for _, p := range states[:len(orphans)] {
		if active(p) && rs.Owns(p) {
			adopted = append(adopted, p)
		}
	}
	var released []domain.Pod
	for _, p := range states[len(orphans):] {
		if !rs.Owns(p) {
			released = append(released, p)
		}
	}
	r.Controlled.Log("adopted pods", rs.String(), adopted)
	r.Controlled.Log("released pods the selector no longer matches", rs.String(), released)
	return adopted, nil
}

// lenient marks a command of a batch lenient.
func lenient(k domain.Keyed[domain.PodCommand]) domain.Keyed[domain.PodCommand] {
	k.Lenient = true
	return k
}
