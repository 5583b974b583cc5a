package scheduler

import (
	"fmt"

	"herd/domain"
)

// The reasons a node does not fit a pod, in the Kubernetes scheduler's own
// words (the ErrReason constants of its filter plugins), so that a message
// reads as an operator of Kubernetes expects.
const (
	// reasonNotReady is the old CheckNodeCondition predicate's reason:
	// herd filters on the Ready condition itself rather than only through
	// the not-ready and unreachable taints.
	reasonNotReady = "node(s) were not ready"
	// reasonUnschedulable is the NodeUnschedulable plugin's.
	reasonUnschedulable = "node(s) were unschedulable"
	// reasonSelector is the NodeAffinity plugin's.
	reasonSelector = "node(s) didn't match Pod's node affinity/selector"
	// reasonTooManyPods and the Insufficient ones are NodeResourcesFit's.
	reasonTooManyPods = "Too many pods"
	reasonCPU         = "Insufficient cpu"
	reasonMemory      = "Insufficient memory"
)

// taintReason is the TaintToleration plugin's reason for taint t.
func taintReason(t domain.Taint) string {
	return fmt.Sprintf("node(s) had untolerated taint {%s: %s}", t.Key, t.Value)
}

// unschedulableTaint is the taint a pod must tolerate to go on a cordoned
// node: Kubernetes' NodeUnschedulable plugin asks exactly this.
var unschedulableTaint = domain.Taint{Key: domain.TaintUnschedulable, Effect: domain.EffectNoSchedule}

// candidate reports whether herd places pods on n at all: nodes of kind
// kubelet run Kubernetes' pods, never herd's.
func candidate(n domain.Node) bool { return n.Exists() && n.Kind != domain.KindKubelet }

// staticReason is why n cannot take a pod with spec s whatever the node's
// load, or "" when nothing but room stands in the way. The checks run in
// the order of the Kubernetes scheduler's filter plugins (readiness first,
// then NodeUnschedulable, TaintToleration, NodeAffinity) and, as there,
// the first that fails is the node's reason.
func staticReason(s domain.PodSpec, n domain.Node) string {
	if c, ok := n.Condition(domain.ConditionReady); !ok || c.Status != domain.ConditionTrue {
		return reasonNotReady
	}
	if n.Unschedulable && !domain.ToleratesTaint(s.Tolerations, unschedulableTaint) {
		return reasonUnschedulable
	}
	if t, ok := domain.UntoleratedTaint(n.Taints, s.Tolerations, domain.EffectNoSchedule, domain.EffectNoExecute); ok {
		return taintReason(t)
	}
	for k, v := range s.NodeSelector {
		if got, ok := n.Labels[k]; !ok || got != v {
			return reasonSelector
		}
	}
	return ""
}

// request is what a pod asks of a node. CPU and Memory are the sums of its
// containers' requests, which the fit compares with what is free; the
// Score ones count Kubernetes' defaults for containers that request
// nothing, which only the score uses (schedutil.GetNonzeroRequests), so
// that pods without requests still spread.
type request struct {
	CPU, Memory           int64
	ScoreCPU, ScoreMemory int64
}

// The defaults Kubernetes' scoring counts for a container without a CPU
// or memory request (DefaultMilliCPURequest, DefaultMemoryRequest).
const (
	defaultScoreCPU    = 100               // millicores
	defaultScoreMemory = 200 * 1024 * 1024 // bytes
)

// requestOf sums what p's containers request.
func requestOf(p domain.Pod) request {
	var r request
	for _, c := range p.Spec.Containers {
		cpu, hasCPU := c.Requests["cpu"]
		mem, hasMem := c.Requests["memory"]
		r.CPU += cpu
		r.Memory += mem
		if !hasCPU {
			cpu = defaultScoreCPU
		}
		if !hasMem {
			mem = defaultScoreMemory
		}
		r.ScoreCPU += cpu
		r.ScoreMemory += mem
	}
	return r
}

// room is a node's allocatable resources and its load during a pass.
type room struct {
	// Pods is the allocatable "pods"; -1 when the node has no such
	// entry, which puts no limit on the count.
	Pods int64
	// MaxJobs is herd's own cap on the node's pods; 0 for none.
	MaxJobs     int64
	CPU, Memory int64
	// Used is what the pods bound to the node ask of it.
	Used used
}

// used sums the requests of the pods on a node.
type used struct {
	Pods                  int64
	CPU, Memory           int64
	ScoreCPU, ScoreMemory int64
}

// roomOf reads n's allocatable resources. A node that reports capacity but
// no allocatable offers its capacity, as the Kubernetes API defaults it.
func roomOf(n domain.Node) room {
	alloc := n.Allocatable
	if alloc == nil {
		alloc = n.Capacity
	}
	r := room{Pods: -1, MaxJobs: int64(n.MaxJobs), CPU: alloc["cpu"], Memory: alloc["memory"]}
	if pods, ok := alloc["pods"]; ok {
		r.Pods = pods
	}
	return r
}

// add counts one more pod with request q on the node.
func (r *room) add(q request) {
	r.Used.Pods++
	r.Used.CPU += q.CPU
	r.Used.Memory += q.Memory
	r.Used.ScoreCPU += q.ScoreCPU
	r.Used.ScoreMemory += q.ScoreMemory
}

// fits reports whether a pod with request q fits in r, by the
// NodeResourcesFit plugin's rules: one more pod within the pod count (and
// herd's max jobs); each resource the pod requests within what is left.
func (r *room) fits(q request) bool {
	if r.Pods >= 0 && r.Used.Pods+1 > r.Pods {
		return false
	}
	if r.MaxJobs > 0 && r.Used.Pods+1 > r.MaxJobs {
		return false
	}
	if q.CPU > 0 && q.CPU > r.CPU-r.Used.CPU {
		return false
	}
	if q.Memory > 0 && q.Memory > r.Memory-r.Used.Memory {
		return false
	}
	return true
}

// shortfalls lists every reason a pod with request q does not fit in r,
// in the order NodeResourcesFit reports them; nil when it fits.
func (r *room) shortfalls(q request) []string {
	var out []string
	if (r.Pods >= 0 && r.Used.Pods+1 > r.Pods) || (r.MaxJobs > 0 && r.Used.Pods+1 > r.MaxJobs) {
		out = append(out, reasonTooManyPods)
	}
	if q.CPU > 0 && q.CPU > r.CPU-r.Used.CPU {
		out = append(out, reasonCPU)
	}
	if q.Memory > 0 && q.Memory > r.Memory-r.Used.Memory {
		out = append(out, reasonMemory)
	}
	return out
}
