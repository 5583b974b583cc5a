package daemonset

import (
	"context"
	"fmt"

	"herd/domain"
	"herd/projections"
)

// load is what the pods bound to a node take of it: their number and
// their CPU and memory requests, as herd's scheduler sums them (a pod
// being deleted still holds its share until it is gone).
type load struct {
	pods, cpu, memory int64
}

func (l *load) add(p domain.Pod) {
	if !p.Exists() || p.Spec.NodeName == "" || p.Finished() {
		return
	}
	req := p.Requests()
	l.pods++
	l.cpu += req["cpu"]
	l.memory += req["memory"]
}

// limited reports whether n's room can run out for a pod requesting
// req: n caps its pods, or the pod asks for CPU or memory. A node
// without either always has room, and its load need not be read.
func limited(n domain.Node, req domain.ResourceList) bool {
	alloc := n.Allocatable
	if alloc == nil {
		alloc = n.Capacity
	}
	_, capped := alloc["pods"]
	return capped || n.MaxJobs > 0 || req["cpu"] > 0 || req["memory"] > 0
}

// fits reports whether one more pod requesting req fits on n beside
// what l takes, by the rules herd's scheduler places pods with
// (reconcilers/scheduler, Kubernetes' NodeResourcesFit): one more pod
// within the allocatable "pods" and herd's max jobs, and the CPU and
// memory asked for within what is left. A DaemonSet's pod is bound to
// its node without the scheduler, so the reconciler checks this itself.
func fits(n domain.Node, l load, req domain.ResourceList) bool {
	alloc := n.Allocatable
	if alloc == nil {
		alloc = n.Capacity
	}
	if pods, ok := alloc["pods"]; ok && l.pods+1 > pods {
		return false
	}
	if n.MaxJobs > 0 && l.pods+1 > int64(n.MaxJobs) {
		return false
	}
	if cpu := req["cpu"]; cpu > 0 && cpu > alloc["cpu"]-l.cpu {
		return false
	}
	if mem := req["memory"]; mem > 0 && mem > alloc["memory"]-l.memory {
		return false
	}
	return true
}

// withRoom returns up to limit of the nodes of names (all of w), in
// order, that have room for one more of w's pods, and how many of those
// it looked at do not. It reads the pods of each node whose room can run
// out, one node at a time through the pod view's index by node, and
// stops once it has limit: a reconcile creates no more than that, and
// the next one goes on from there. A DaemonSet over a fleet thus reads
// the pods of a few hundred nodes per reconcile, never the fleet's.
func (r *Reconciler) withRoom(ctx context.Context, w world, names []string, limit int) (roomy []string, short int, err error) {
	if len(names) == 0 {
		return nil, 0, nil
	}
	req := domain.Pod{Spec: w.ds.Spec.Template.Spec}.Requests()
	nodes := make(map[string]domain.Node, len(w.sites))
	for _, s := range w.sites {
		nodes[s.node.Name] = s.node
	}
	herd := domain.SourceHerd
	for _, name := range names {
		if len(roomy) == limit {
			break
		}
		n := nodes[name]
		if limited(n, req) {
			pods, _, err := r.pods.List(ctx, projections.PodFilter{NodeName: name, Source: &herd})
			if err != nil {
				return nil, 0, fmt.Errorf("list pods of node %s: %w", name, err)
			}
			var l load
			for _, p := range pods {
				l.add(p)
			}
			if !fits(n, l, req) {
				short++
				continue
			}
		}
		roomy = append(roomy, name)
	}
	return roomy, short, nil
}
