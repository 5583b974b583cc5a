package daemonset

import (
	"context"

	"herd/domain"
	"herd/reconcilers"
)

// fitChanges are a node's changes that move whether a DaemonSet's pod
// should run there: its coming, its taints and its labels.
var fitChanges = []string{
	domain.NodeRegistered{}.EventType(), domain.NodeTainted{}.EventType(), domain.NodeUntainted{}.EventType(),
	domain.NodeLabelsChanged{}.EventType(),
}

// statusCause is ctx whose status record names what moved the
// DaemonSet's status, as Kubernetes' controller reckons it from the
// DaemonSet, its pods and the nodes: the newest of its last change of
// spec (a new generation, the pods it rolled, which follow that change),
// the last change that moves a count of one of its pods as read (one
// turning ready, stopping, being deleted) and, for each node it made or
// deleted a pod on in this reconcile, the node's last change of fit as
// read (a node come, a taint put on or taken off, a label). Nodes it
// wrote nothing on moved no count of desired pods since it last looked.
// The record that queued the key stays the cause when the log holds
// none.
func statusCause(ctx context.Context, w world, owned []domain.Pod, act actions) (context.Context, error) {
	changes := []reconcilers.Change{reconcilers.SpecChange(domain.DaemonSetStream(w.ds.Namespace, w.ds.Name), w.ds.Version,
		domain.DaemonSetCreated{}, domain.DaemonSetChanged{})}
	touched := map[string]bool{}
	for _, n := range act.create {
		touched[n] = true
	}
	for _, p := range act.delete {
		touched[p.Spec.NodeName] = true
	}
	for _, s := range w.sites {
		if touched[s.node.Name] {
			changes = append(changes, reconcilers.Change{Stream: domain.NodeStream(s.node.Name), UpTo: s.node.Version, Types: fitChanges})
		}
	}
	return reconcilers.BecauseOfCount(ctx, owned, changes...)
}
