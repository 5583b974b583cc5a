package daemonset

import (
	"slices"

	"herd/domain"
)

// rollingUpdate is what Kubernetes' DaemonSet controller's rollingUpdate
// decides once manage has nothing left to do: the pods of an older
// template are replaced a few nodes at a time, node by node in name
// order. Without a surge, old pods are deleted while fewer than
// maxUnavailable of the nodes that should run a pod are without an
// available one (an old pod that is not available goes at once), and
// manage then gives their nodes a new pod once the old one is gone.
// With a surge, a new pod is made beside an old one on up to maxSurge
// nodes at a time (at once beside an old pod that is not available),
// and the old one is deleted when the new one is available. A node with
// more pods than that is manage's to prune first.
func (w world) rollingUpdate() actions {
	var a actions
	if w.ds.Spec.UpdateStrategy.Type != domain.DaemonSetRollingUpdate {
		return a
	}
	surge, maxUnavailable := w.bounds()
	if surge == 0 {
		var replace, candidates []domain.Pod
		unavailable := 0
		for _, s := range w.sites {
			if !s.shouldRun && len(s.pods) == 0 {
				continue
			}
			newPod, oldPod, ok := w.updatedOnNode(s.pods)
			switch {
			case !ok, newPod == nil && oldPod == nil, newPod != nil && oldPod != nil:
				unavailable++
			case newPod != nil:
				if !w.available(*newPod) {
					unavailable++
				}
			case !w.available(*oldPod):
				replace = append(replace, *oldPod)
				unavailable++
			case unavailable < maxUnavailable:
				candidates = append(candidates, *oldPod)
			}
		}
		room := min(max(maxUnavailable-unavailable, 0), len(candidates))
		a.delete = slices.Concat(replace, candidates[:room])
		return a
	}
	var allowed, candidates []string
	surging := 0
	for _, s := range w.sites {
		if !s.shouldRun && len(s.pods) == 0 {
			continue
		}
		newPod, oldPod, ok := w.updatedOnNode(s.pods)
		switch {
		case !ok:
			surging++
		case oldPod == nil:
		case newPod == nil && !w.available(*oldPod):
			if !s.shouldRun {
				a.delete = append(a.delete, *oldPod)
				continue
			}
			allowed = append(allowed, s.node.Name)
		case newPod == nil:
			candidates = append(candidates, s.node.Name)
		case !w.available(*newPod):
			surging++
		default:
			a.delete = append(a.delete, *oldPod)
		}
	}
	room := min(max(surge-surging, 0), len(candidates))
	a.create = slices.Concat(allowed, candidates[:room])
	return a
}

// updatedOnNode sorts the pods of a node that are not being deleted into
// the one of the current template and the one of an older; ok is false
// when there is more than one of either, for manage to prune first.
func (w world) updatedOnNode(pods []domain.Pod) (newPod, oldPod *domain.Pod, ok bool) {
	for i := range pods {
		p := &pods[i]
		if p.Terminating() {
			continue
		}
		if w.updated(*p) {
			if newPod != nil {
				return nil, nil, false
			}
			newPod = p
		} else {
			if oldPod != nil {
				return nil, nil, false
			}
			oldPod = p
		}
	}
	return newPod, oldPod, true
}
