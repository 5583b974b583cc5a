package replicaset

import (
	"herd/domain"
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
	abandoned := abandonedBy(rs.Name, rs.UID)
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

// abandonedBy is whether a pod not already being deleted is controlled
// by a ReplicaSet called name that is gone: any of that name when uid is
// empty (no ReplicaSet of the name exists), else one of another UID (the
// ReplicaSet of the name now is another).
func abandonedBy(name, uid string) func(domain.Pod) bool {
	return func(p domain.Pod) bool {
		if !p.Exists() || p.Terminating() {
			return false
		}
		ctrl, ok := p.Controller()
		return ok && ctrl.Kind == kindReplicaSet && ctrl.Name == name && (uid == "" || ctrl.UID != uid)
	}
}
