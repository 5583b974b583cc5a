package daemonset

import (
	"context"

	"herd/domain"
	"herd/events"
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

// deleteCause is ctx in which the deletion of each of pods, a DaemonSet's
// pods it deletes in this reconcile, names what asked for it, as read:
// for a pod on a node where none may stay any more, the node's last
// change of fit (a taint, a label); for a pod that finished, the report
// of its phase; for the others (an older template rolled out, a node's
// surplus), the DaemonSet's last change of spec. The record that queued
// the key (another pod turning ready, which let the rollout go on) is
// what let the deletion happen now, not what it is for. A pod whose
// change the log lacks keeps ctx's cause.
func deleteCause(ctx context.Context, w world, pods []domain.Pod) (context.Context, error) {
	sites := make(map[string]site, len(w.sites))
	for _, s := range w.sites {
		sites[s.node.Name] = s
	}
	spec := reconcilers.SpecChange(domain.DaemonSetStream(w.ds.Namespace, w.ds.Name), w.ds.Version, domain.DaemonSetCreated{}, domain.DaemonSetChanged{})
	// A rollout deletes many pods for one change of spec: it is read
	// once.
	var specRec *events.Record
	causes := make(map[string]events.Record, len(pods))
	for _, p := range pods {
		stream := domain.PodStream(p.Namespace, p.Name)
		var c reconcilers.Change
		s, placed := sites[p.Spec.NodeName]
		switch {
		case placed && !s.shouldContinue:
			c = reconcilers.Change{Stream: domain.NodeStream(s.node.Name), UpTo: s.node.Version, Types: fitChanges}
		case p.Status.Phase == domain.PodFailed, p.Status.Phase == domain.PodSucceeded:
			c = reconcilers.Change{Stream: stream, UpTo: p.Version, Types: []string{domain.PodStatusUpdated{}.EventType()}}
		case specRec != nil:
			if specRec.ID != "" {
				causes[stream] = *specRec
			}
			continue
		default:
			c = spec
		}
		rec, ok, err := reconcilers.LastChange(ctx, c)
		if err != nil {
			return ctx, err
		}
		if c.Stream == spec.Stream {
			specRec = &rec
		}
		if ok {
			causes[stream] = rec
		}
	}
	return events.WithStreamCauses(ctx, causes), nil
}
