package daemonset

import (
	"cmp"
	"slices"
	"time"

	"herd/domain"
)

// site is one node as a DaemonSet sees it: whether a pod of it should be
// made there, whether one there may stay (placement),
// and the pods of it there, oldest first.
type site struct {
	node                      domain.Node
	shouldRun, shouldContinue bool
	pods                      []domain.Pod
}

// world is one reconcile's picture of a DaemonSet: every node, in name
// order, with its pods there, at now. Pods bound to a node that is not
// listed (deleted) are the pod garbage collector's and not in it; nor
// are pods that finished and are being deleted, as Kubernetes' controller
// leaves them out.
type world struct {
	ds    domain.DaemonSet
	sites []site
	now   time.Time
	// hash is the DaemonSet's template hash, computed once.
	hash string
}

// newWorld places owned, the active pods ds controls, on nodes.
func newWorld(ds domain.DaemonSet, nodes []domain.Node, owned []domain.Pod, now time.Time) world {
	byNode := map[string][]domain.Pod{}
	for _, p := range owned {
		if p.Spec.NodeName == "" || p.Terminating() && p.Finished() {
			continue
		}
		byNode[p.Spec.NodeName] = append(byNode[p.Spec.NodeName], p)
	}
	w := world{ds: ds, now: now, sites: make([]site, 0, len(nodes)), hash: templateHash(ds)}
	for _, n := range nodes {
		run, cont := placement(ds, n)
		pods := byNode[n.Name]
		slices.SortFunc(pods, olderFirst)
		w.sites = append(w.sites, site{node: n, shouldRun: run, shouldContinue: cont, pods: pods})
	}
	slices.SortFunc(w.sites, func(a, b site) int { return cmp.Compare(a.node.Name, b.node.Name) })
	return w
}

// with returns w with created, pods just made on its nodes, added to
// their nodes' pods, newest last: the world a status is reckoned from
// after a reconcile that created them, without placing every node
// again.
func (w world) with(created []domain.Pod) world {
	if len(created) == 0 {
		return w
	}
	at := make(map[string]int, len(w.sites))
	for i, s := range w.sites {
		at[s.node.Name] = i
	}
	sites := slices.Clone(w.sites)
	for _, p := range created {
		if i, ok := at[p.Spec.NodeName]; ok {
			sites[i].pods = append(slices.Clip(sites[i].pods), p)
		}
	}
	w.sites = sites
	return w
}

// olderFirst orders a node's pods as Kubernetes' controller does
// (podByCreationTimestampAndPhase): the one created first first, the
// name breaking a tie.
func olderFirst(a, b domain.Pod) int {
	return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.Name, b.Name))
}

// updated reports whether p is of the DaemonSet's current template.
func (w world) updated(p domain.Pod) bool {
	return podUpdated(p, w.hash, w.ds.TemplateGeneration)
}

// ready reports whether the pod's Ready condition is True, and since
// when.
func ready(p domain.Pod) (time.Time, bool) {
	c, ok := p.Condition(domain.PodConditionReady)
	if !ok || c.Status != domain.ConditionTrue {
		return time.Time{}, false
	}
	return c.LastTransitionTime, true
}

// available reports whether p has been ready for the DaemonSet's
// minReadySeconds at now, as Kubernetes' IsPodAvailable says.
func (w world) available(p domain.Pod) bool {
	since, ok := ready(p)
	if !ok {
		return false
	}
	minReady := time.Duration(w.ds.Spec.MinReadySeconds) * time.Second
	// Ready since an unknown time counts as ready for long enough.
	return minReady == 0 || since.IsZero() || !w.now.Before(since.Add(minReady))
}

// surge is how many nodes a rolling update may run a new pod on beside
// the old one, and unavailable how many may be without an available pod,
// of the nodes that should run one, as Kubernetes' updatedDesiredNodeCounts
// reckons them: a rolling update that allows neither allows one node
// unavailable.
func (w world) bounds() (surge, unavailable int) {
	ru := w.ds.Spec.UpdateStrategy.RollingUpdate
	if w.ds.Spec.UpdateStrategy.Type != domain.DaemonSetRollingUpdate || ru == nil {
		return 0, 0
	}
	desired := 0
	for _, s := range w.sites {
		if s.shouldRun {
			desired++
		}
	}
	surge, unavailable = int(ru.MaxSurge.Of(int32(desired))), int(ru.MaxUnavailable.Of(int32(desired))) //nolint:gosec // a fleet's node count
	if desired > 0 && surge == 0 && unavailable == 0 {
		unavailable = 1
	}
	return surge, unavailable
}

// allowsSurge reports whether the DaemonSet may run two pods on a node
// during a rolling update.
func (w world) allowsSurge() bool {
	surge, _ := w.bounds()
	return surge > 0
}
