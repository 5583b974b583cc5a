package scheduler

import "herd/domain"

// maxNodeScore is the top of every plugin's score, as in Kubernetes.
const maxNodeScore = 100

// taintScoreWeight is the TaintToleration plugin's weight in Kubernetes'
// default profile; NodeResourcesFit weighs 1.
const taintScoreWeight = 3

// leastAllocated is the NodeResourcesFit plugin's LeastAllocated score of
// the node in r for a pod with request q: the average over CPU and memory
// of the share left free once the pod is on it, 0 to 100. A resource the
// node does not offer, or would be over-committed on, scores 0.
func leastAllocated(r *room, q request) int64 {
	cpu := leastRequested(r.Used.ScoreCPU+q.ScoreCPU, r.CPU)
	mem := leastRequested(r.Used.ScoreMemory+q.ScoreMemory, r.Memory)
	return (cpu + mem) / 2
}

// mostAllocated is the NodeResourcesFit plugin's MostAllocated score:
// the average over CPU and memory of the share requested once the pod is
// on the node, 0 to 100, so that the fullest node that fits wins. A
// resource the node does not offer scores 0; one over-committed, 100.
func mostAllocated(r *room, q request) int64 {
	cpu := mostRequested(r.Used.ScoreCPU+q.ScoreCPU, r.CPU)
	mem := mostRequested(r.Used.ScoreMemory+q.ScoreMemory, r.Memory)
	return (cpu + mem) / 2
}

func mostRequested(requested, allocatable int64) int64 {
	if allocatable == 0 {
		return 0
	}
	return min(requested, allocatable) * maxNodeScore / allocatable
}

// resourceScorer is a scoring strategy's score of a node for a pod.
type resourceScorer func(r *room, q request) int64

// scorer is the strategy's score; LeastAllocated unless told otherwise.
// RequestedToCapacityRatio scores by shape (Config.Validate makes sure
// there is one).
func scorer(strategy string, shape Shape) resourceScorer {
	switch {
	case strategy == MostAllocated:
		return mostAllocated
	case strategy == RequestedToCapacityRatio && len(shape) > 0:
		return shape.requestedToCapacityRatio
	}
	return leastAllocated
}

func leastRequested(requested, allocatable int64) int64 {
	if allocatable == 0 || requested > allocatable {
		return 0
	}
	return (allocatable - requested) * maxNodeScore / allocatable
}

// preferredTolerations keeps the tolerations that can tolerate a
// PreferNoSchedule taint (that effect, or every effect), as the
// TaintToleration plugin's PreScore does.
func preferredTolerations(tols []domain.Toleration) []domain.Toleration {
	var out []domain.Toleration
	for _, t := range tols {
		if t.Effect == "" || t.Effect == domain.EffectPreferNoSchedule {
			out = append(out, t)
		}
	}
	return out
}

// avoidedTaints counts the node's PreferNoSchedule taints that tols do not
// tolerate: the TaintToleration plugin's raw score, where less is better.
func avoidedTaints(taints []domain.Taint, tols []domain.Toleration) int64 {
	var n int64
	for _, t := range taints {
		if t.Effect == domain.EffectPreferNoSchedule && !domain.ToleratesTaint(tols, t) {
			n++
		}
	}
	return n
}

// taintScore normalises a node's count of avoided taints against the worst
// among the nodes that fit, reversed so that fewer is better: Kubernetes'
// DefaultNormalizeScore with reverse set. With no such taint anywhere,
// every node scores the maximum.
func taintScore(count, worst int64) int64 {
	if worst == 0 {
		return maxNodeScore
	}
	return maxNodeScore - maxNodeScore*count/worst
}

// score is a node's total for the pod: the resources' score plus the
// weighted taint score.
func score(resources resourceScorer, r *room, q request, avoided, worst int64) int64 {
	return resources(r, q) + taintScoreWeight*taintScore(avoided, worst)
}
