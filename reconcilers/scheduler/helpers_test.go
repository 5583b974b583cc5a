package scheduler

import (
	"time"

	"herd/domain"
)

// t0 is where every test's clock starts.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

const (
	mi = int64(1) << 20
	gi = int64(1) << 30
)

// node is a Ready linux node with the given allocatable resources,
// changed by the options.
func node(name string, alloc domain.ResourceList, opts ...func(*domain.Node)) domain.Node {
	n := domain.Node{
		Name: name, Kind: domain.KindLinux, Version: 3, Allocatable: alloc,
		Conditions: []domain.Condition{{Type: domain.ConditionReady, Status: domain.ConditionTrue}},
	}
	for _, o := range opts {
		o(&n)
	}
	return n
}

// big is room enough for anything the tests ask of it.
var big = domain.ResourceList{"cpu": 8000, "memory": 16 * gi, "pods": 110}

func ready(s domain.ConditionStatus) func(*domain.Node) {
	return func(n *domain.Node) { n.Conditions[0].Status = s }
}

func cordoned(n *domain.Node) { n.Unschedulable = true }

func tainted(key, value string, effect domain.TaintEffect) func(*domain.Node) {
	return func(n *domain.Node) {
		n.Taints = append(n.Taints, domain.Taint{Key: key, Value: value, Effect: effect})
	}
}

func labelled(kv ...string) func(*domain.Node) {
	return func(n *domain.Node) {
		n.Labels = map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			n.Labels[kv[i]] = kv[i+1]
		}
	}
}

func kind(k domain.NodeKind) func(*domain.Node) { return func(n *domain.Node) { n.Kind = k } }

// pod is a pending herd pod with one container requesting cpu millicores
// and memory bytes, created minute minutes after t0, changed by the
// options.
func pod(name string, minute int, cpu, memory int64, opts ...func(*domain.Pod)) domain.Pod {
	p := domain.Pod{
		Namespace: "default", Name: name, Version: 1, CreatedAt: t0.Add(time.Duration(minute) * time.Minute),
		Spec: domain.PodSpec{Containers: []domain.Container{{
			Name: "main", Requests: domain.ResourceList{"cpu": cpu, "memory": memory},
		}}},
		Status: domain.PodStatus{Phase: domain.PodPending},
	}
	for _, o := range opts {
		o(&p)
	}
	return p
}

func boundTo(node string) func(*domain.Pod) { return func(p *domain.Pod) { p.Spec.NodeName = node } }

func phase(ph domain.PodPhase) func(*domain.Pod) { return func(p *domain.Pod) { p.Status.Phase = ph } }

func terminating(p *domain.Pod) { p.Deletion = &domain.PodDeletion{RequestedAt: t0} }

func finalized(p *domain.Pod) { p.Finalized = true }

func observed(p *domain.Pod) { p.Source = domain.SourceKubelet }

func selecting(kv ...string) func(*domain.Pod) {
	return func(p *domain.Pod) {
		p.Spec.NodeSelector = map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			p.Spec.NodeSelector[kv[i]] = kv[i+1]
		}
	}
}

func tolerating(tols ...domain.Toleration) func(*domain.Pod) {
	return func(p *domain.Pod) { p.Spec.Tolerations = append(p.Spec.Tolerations, tols...) }
}

func unschedulableWith(msg string) func(*domain.Pod) {
	return func(p *domain.Pod) {
		p.Status.Conditions = []domain.PodCondition{{
			Type: domain.PodConditionScheduled, Status: domain.ConditionFalse, Reason: domain.ReasonUnschedulable, Message: msg,
		}}
	}
}
