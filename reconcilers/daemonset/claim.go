package daemonset

import (
	"context"
	"fmt"

	"herd/domain"
	"herd/reconcilers"
)

// claims are the pods of a DaemonSet's namespace sorted by what the
// DaemonSet does with them, as Kubernetes' ControllerRefManager claims
// them: a pod controlled by another controller is never touched.
type claims struct {
	// owned are the pods it controls that its selector matches, being
	// deleted or finished ones included: a node with a pod on its way
	// out gets no new one until it is gone.
	owned []domain.Pod
	// orphans are the pods bound to a node, not being deleted, that no
	// one controls and its selector matches: it adopts them. An unbound
	// orphan is left to the scheduler, which may place it anywhere.
	orphans []domain.Pod
	// strays are the pods it controls that its selector no longer
	// matches: it releases them.
	strays []domain.Pod
	// abandoned are the pods controlled by an earlier DaemonSet of the
	// same name (another UID): their owner is gone, and the garbage
	// collector deletes them.
	abandoned []domain.Pod
}

// claim sorts pods, those of ds's namespace, for ds, which exists.
func claim(ds domain.DaemonSet, pods []domain.Pod) claims {
	var c claims
	abandoned := reconcilers.AbandonedBy(domain.KindDaemonSet, ds.Name, ds.UID)
	for _, p := range pods {
		if !p.Exists() {
			continue
		}
		if abandoned(p) {
			c.abandoned = append(c.abandoned, p)
			continue
		}
		ctrl, controlled := p.Controller()
		matches := ds.Spec.Selector.Matches(p.Labels)
		switch {
		case controlled && ctrl.UID == ds.UID && matches:
			c.owned = append(c.owned, p)
		case controlled && ctrl.UID == ds.UID && !p.Terminating():
			c.strays = append(c.strays, p)
		case !controlled && matches && p.Spec.NodeName != "" && !p.Terminating() && !p.Finished():
			c.orphans = append(c.orphans, p)
		}
	}
	return c
}

// adopt makes ds the controller of orphans and lets go of strays, in one
// unit of work, and returns the orphans it now controls. Each is lenient:
// a pod adopted by another controller, or being deleted, since it was
// read is refused alone and left; the next reconcile sees it as it is.
func (r *Reconciler) adopt(ctx context.Context, ds domain.DaemonSet, orphans, strays []domain.Pod) ([]domain.Pod, error) {
	if len(orphans)+len(strays) == 0 {
		return nil, nil
	}
	cmds := make([]domain.Keyed[domain.PodCommand], 0, len(orphans)+len(strays))
	for _, p := range orphans {
		cmds = append(cmds, lenient(reconcilers.KeyedPod(p, domain.AdoptPod{Owner: ds.OwnerReference()})))
	}
	for _, p := range strays {
		cmds = append(cmds, lenient(reconcilers.KeyedPod(p, domain.ReleasePod{UID: ds.UID})))
	}
	states, _, err := r.podCommands.ExecuteBatch(ctx, cmds)
	if err != nil {
		return nil, fmt.Errorf("adopt and release pods of daemonset %s: %w", ds, err)
	}
	var adopted, released []domain.Pod
	for _, p := range states[:len(orphans)] {
		if p.Exists() && ds.Owns(p) {
			adopted = append(adopted, p)
		}
	}
	for _, p := range states[len(orphans):] {
		if !ds.Owns(p) {
			released = append(released, p)
		}
	}
	r.controlled.Log("adopted pods", ds.String(), adopted)
	r.controlled.Log("released pods the selector no longer matches", ds.String(), released)
	return adopted, nil
}

// lenient marks a command of a batch lenient.
func lenient(k domain.Keyed[domain.PodCommand]) domain.Keyed[domain.PodCommand] {
	k.Lenient = true
	return k
}
