package replicaset

import (
	"herd/domain"
	"herd/reconcilers"
)

// claims are the pods of a ReplicaSet's namespace sorted by what the
// ReplicaSet does with them, as Kubernetes' ControllerRefManager claims
// them (ClaimPods): only active pods are claimed, a pod controlled by
// another controller is never touched.
type claims struct {
	// owned are the active pods it controls that its selector matches.
	owned []domain.Pod
	// orphans are the active pods no one controls that its selector
	// matches: it adopts them.
	orphans []domain.Pod
	// strays are the active pods it controls that its selector no longer
	// matches: it releases them.
	strays []domain.Pod
	// abandoned are the pods, active or not, controlled by an earlier
	// ReplicaSet of the same name (another UID): their owner is gone, and
	// the garbage collector deletes them.
	abandoned []domain.Pod
}

// active reports whether a pod counts towards a ReplicaSet: not being
// deleted and not finished, as Kubernetes' controller.IsPodActive says.
func active(p domain.Pod) bool {
	return p.Exists() && !p.Terminating() && !p.Finished()
}

// claim sorts pods, those of rs's namespace, for rs, which exists.
func claim(rs domain.ReplicaSet, pods []domain.Pod) claims {
	var c claims
	abandoned := reconcilers.AbandonedBy(kindReplicaSet, rs.Name, rs.UID)
	for _, p := range pods {
		if abandoned(p) {
			c.abandoned = append(c.abandoned, p)
			continue
		}
		if !active(p) {
			continue
		}
		ctrl, controlled := p.Controller()
		matches := rs.Spec.Selector.Matches(p.Labels)
		switch {
		case controlled && ctrl.UID == rs.UID && matches:
			c.owned = append(c.owned, p)
		case controlled && ctrl.UID == rs.UID:
			c.strays = append(c.strays, p)
		case !controlled && matches:
			c.orphans = append(c.orphans, p)
		}
	}
	return c
}
