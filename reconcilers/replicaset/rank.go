package replicaset

import (
	"cmp"
	"slices"
	"time"

	"herd/domain"
)

// phaseRank orders phases for deletion, as Kubernetes does: a pending
// pod goes before one whose phase is unknown, which goes before a
// running one.
var phaseRank = map[domain.PodPhase]int{domain.PodPending: 0, "": 1, domain.PodRunning: 2}

// deletionOrder sorts pods, those a ReplicaSet controls, so that those
// it deletes first when it scales down come first, in the order of
// Kubernetes' ActivePodsWithRanks: unscheduled before scheduled, pending
// before running, not ready before ready, a lower deletion cost (the
// domain.PodDeletionCostAnnotation) before a
// higher, those sharing a node with more
// of the ReplicaSet's pods before the others, ready for less time before
// ready for longer, restarted more before restarted less, and newer
// before older. The name breaks what is still a tie, so that two
// reconciles of the same pods choose the same ones.
func deletionOrder(pods []domain.Pod) []domain.Pod {
	onNode := map[string]int{}
	for _, p := range pods {
		if p.Spec.NodeName != "" {
			onNode[p.Spec.NodeName]++
		}
	}
	out := slices.Clone(pods)
	slices.SortStableFunc(out, func(a, b domain.Pod) int {
		if c := cmp.Compare(boolRank(a.Spec.NodeName != ""), boolRank(b.Spec.NodeName != "")); c != 0 {
			return c
		}
		if c := cmp.Compare(phaseRank[a.Status.Phase], phaseRank[b.Status.Phase]); c != 0 {
			return c
		}
		readyA, readyB := readySince(a), readySince(b)
		if c := cmp.Compare(boolRank(!readyA.IsZero()), boolRank(!readyB.IsZero())); c != 0 {
			return c
		}
		if c := cmp.Compare(deletionCost(a), deletionCost(b)); c != 0 {
			return c
		}
		// More of the ReplicaSet's pods on the node first: deleting one
		// of them spreads what is left.
		if c := cmp.Compare(onNode[b.Spec.NodeName], onNode[a.Spec.NodeName]); c != 0 {
			return c
		}
		if c := readyB.Compare(readyA); c != 0 {
			return c
		}
		if c := cmp.Compare(restarts(b), restarts(a)); c != 0 {
			return c
		}
		if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
			return c
		}
		return cmp.Compare(a.Name, b.Name)
	})
	return out
}

// deletionCost is the pod's deletion cost, 0 when it has none or one
// herd cannot read (kube-apiserver refuses those, and so does herd's
// API; a pod written before herd checked may hold one).
func deletionCost(p domain.Pod) int32 {
	n, _ := domain.PodDeletionCost(p.Annotations)
	return n
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// readySince is when the pod became ready, or zero when it is not.
func readySince(p domain.Pod) time.Time {
	c, ok := p.Condition(domain.PodConditionReady)
	if !ok || c.Status != domain.ConditionTrue {
		return time.Time{}
	}
	if c.LastTransitionTime.IsZero() {
		// Ready since an unknown time: counted as ready for longest,
		// the last a scale-down takes.
		return time.Unix(0, 0)
	}
	return c.LastTransitionTime
}

// restarts is the most restarts of any of the pod's containers.
func restarts(p domain.Pod) int32 {
	var most int32
	for _, s := range p.Status.ContainerStatuses {
		most = max(most, s.RestartCount)
	}
	return most
}
