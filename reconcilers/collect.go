package reconcilers

import "herd/domain"

// KeyedPod is cmd decided on pod p as a reconciler saw it: on another pod
// of the same name since, or none, it does nothing.
func KeyedPod(p domain.Pod, cmd domain.PodCommand) domain.Keyed[domain.PodCommand] {
	return domain.Keyed[domain.PodCommand]{
		Key:     domain.Key{Namespace: p.Namespace, Name: p.Name},
		Command: domain.IfSamePod{UID: p.UID, Command: cmd},
	}
}

// CollectCommands are the garbage collector's commands for pods whose
// controller is gone, as Kubernetes' background cascading deletion: a
// pod with no other owner is deleted, finished or not, with its own grace
// period; a pod with other owners only loses its dangling reference, as
// the garbage collector keeps a dependent one of whose owners still
// exists (herd takes those owners to exist). The pods of the owner of UID
// orphan, deleted with its dependents orphaned, all only lose their
// reference to it.
func CollectCommands(abandoned []domain.Pod, orphan string) []domain.Keyed[domain.PodCommand] {
	cmds := make([]domain.Keyed[domain.PodCommand], len(abandoned))
	for i, p := range abandoned {
		ctrl, _ := p.Controller()
		if len(p.Owners) > 1 || orphan != "" && ctrl.UID == orphan {
			cmds[i] = KeyedPod(p, domain.ReleasePod{UID: ctrl.UID})
		} else {
			cmds[i] = KeyedPod(p, domain.DeletePod{})
		}
	}
	return cmds
}

// ForegroundCommands are what the deletion in the foreground of the
// owner of UID asks of pods: the deletion of those it controls that are
// not being deleted yet. The owner itself goes once every dependent that
// blocks it is gone, which the garbage collector judges (what the
// foregroundDeletion finalizer waits for in Kubernetes).
func ForegroundCommands(pods []domain.Pod, uid string) (cmds []domain.Keyed[domain.PodCommand], stopped []domain.Pod) {
	for _, p := range pods {
		ctrl, ok := p.Controller()
		if !ok || ctrl.UID != uid || !p.Exists() || p.Terminating() {
			continue
		}
		cmds = append(cmds, KeyedPod(p, domain.DeletePod{}))
		stopped = append(stopped, p)
	}
	return cmds, stopped
}
